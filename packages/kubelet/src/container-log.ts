/**
 * The logs of simulated containers: a bounded list of timestamped lines per container instance,
 * the previous instance kept across a restart, and followers woken by each new line. The kubelet
 * writes the lines (start, ready, probe, stop, and the pod's `kplane.io/log` annotations); the
 * API server reads them for `pods/log`.
 */

/** Lines kept per container instance by default (older ones are dropped). */
export const DEFAULT_MAX_LOG_LINES = 1000;
/** Longest line kept (longer ones are cut). */
const MAX_LINE_CHARS = 16 * 1024;

/** One log line: clock ms and text (no newline). */
export interface LogLine {
  at: number;
  text: string;
}

/** How to read a container's log (the query of `pods/log`, already checked). */
export interface ReadLogOptions {
  /** The instance before the last restart. */
  previous?: boolean;
  /** Keep streaming new lines until the instance stops or `signal` aborts. */
  follow?: boolean;
  /** Prefix each line with its RFC 3339 timestamp (nanosecond digits, as the kubelet writes them). */
  timestamps?: boolean;
  /** Only the last n lines that are already there (before following). */
  tailLines?: number;
  /** Only lines at or after this clock ms. */
  sinceMs?: number;
  signal?: AbortSignal;
}

/** Why a log cannot be read. */
export type LogUnavailable = { reason: 'NoContainer' } | { reason: 'NoPrevious' };

interface Instance {
  lines: LogLine[];
  done: boolean;
  wake: Set<() => void>;
}

interface ContainerEntry {
  current: Instance;
  previous?: Instance;
}

const newInstance = (): Instance => ({ lines: [], done: false, wake: new Set() });

/** RFC 3339 with nine fraction digits, as the kubelet's `timestamps=true` writes them. */
export function logTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** The container logs of one kubelet, keyed by pod uid and container name. */
export class ContainerLogs {
  private readonly pods = new Map<string, Map<string, ContainerEntry>>();

  constructor(private readonly maxLines = DEFAULT_MAX_LOG_LINES) {}

  private entry(uid: string, container: string): ContainerEntry {
    let pod = this.pods.get(uid);
    if (!pod) this.pods.set(uid, (pod = new Map()));
    let e = pod.get(container);
    if (!e) pod.set(container, (e = { current: newInstance() }));
    return e;
  }

  /** Has this container an instance with lines or a stop (it has started at least once)? */
  has(uid: string, container: string): boolean {
    return this.pods.get(uid)?.has(container) ?? false;
  }

  /** Appends lines to the container's current instance. */
  write(uid: string, container: string, at: number, ...texts: string[]): void {
    const inst = this.entry(uid, container).current;
    for (const t of texts) inst.lines.push({ at, text: t.length > MAX_LINE_CHARS ? t.slice(0, MAX_LINE_CHARS) : t });
    if (inst.lines.length > this.maxLines) inst.lines.splice(0, inst.lines.length - this.maxLines);
    for (const w of [...inst.wake]) w();
  }

  /** Marks the current instance stopped: followers get what is left, then the end. */
  stop(uid: string, container: string): void {
    const inst = this.pods.get(uid)?.get(container)?.current;
    if (!inst || inst.done) return;
    inst.done = true;
    for (const w of [...inst.wake]) w();
  }

  /** Starts a new instance (a restart): the current one becomes the previous one. */
  restart(uid: string, container: string): void {
    const e = this.entry(uid, container);
    if (e.current.lines.length === 0 && !e.current.done) return;
    this.stop(uid, container);
    e.previous = e.current;
    e.current = newInstance();
  }

  /** Marks every instance stopped (the kubelet stops): every follower gets the end. */
  stopAll(): void {
    for (const [uid, pod] of this.pods) for (const c of pod.keys()) this.stop(uid, c);
  }

  /** Forgets a pod's logs (the pod is gone); its followers end. */
  remove(uid: string): void {
    const pod = this.pods.get(uid);
    if (!pod) return;
    for (const c of pod.keys()) this.stop(uid, c);
    this.pods.delete(uid);
  }

  /**
   * Reads a container's log as text chunks (one per line, with its newline). Without `follow`
   * the iterable ends after the lines already there; with it, it waits for more until the
   * instance stops, the pod's logs are removed or the signal aborts.
   */
  read(uid: string, container: string, options: ReadLogOptions = {}): AsyncIterable<string> | LogUnavailable {
    const e = this.pods.get(uid)?.get(container);
    if (!e) return { reason: 'NoContainer' };
    const inst = options.previous ? e.previous : e.current;
    if (!inst) return { reason: 'NoPrevious' };
    return readInstance(inst, options);
  }
}

async function* readInstance(inst: Instance, options: ReadLogOptions): AsyncIterable<string> {
  const format = (l: LogLine) => (options.timestamps ? `${logTimestamp(l.at)} ${l.text}\n` : `${l.text}\n`);
  const since = options.sinceMs;
  let lines = since === undefined ? inst.lines : inst.lines.filter((l) => l.at >= since);
  if (options.tailLines !== undefined) lines = options.tailLines <= 0 ? [] : lines.slice(-options.tailLines);
  // The position after the last line sent, counted from the end (the array is trimmed from its start).
  let last: LogLine | undefined = inst.lines[inst.lines.length - 1];
  for (const l of lines) yield format(l);
  if (!options.follow) return;
  const signal = options.signal;
  for (;;) {
    if (signal?.aborted) return;
    const from = last === undefined ? 0 : inst.lines.lastIndexOf(last) + 1;
    const fresh = inst.lines.slice(from);
    if (fresh.length > 0) {
      last = fresh[fresh.length - 1];
      for (const l of fresh) if (since === undefined || l.at >= since) yield format(l);
      continue;
    }
    if (inst.done) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        inst.wake.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      inst.wake.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}
