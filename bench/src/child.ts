import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A server running in a child process. */
export interface Child<T> {
  /** What the child reported when it was ready (e.g. its URL). */
  readonly info: T;
  readonly pid: number;
  /** CPU time (user + system) the child has used so far in ms; undefined off Linux. */
  cpuMs(): number | undefined;
  /** Asks the child to stop, and kills it if it has not exited within 10 s. */
  stop(): Promise<void>;
}

interface ReadyMessage<T> {
  ready?: T;
  error?: string;
}

/**
 * Forks `entry` (a compiled .js file) with `args` and waits for it to report ready through
 * {@link serveInChild}. The server under test then has an event loop (and a core) of its own,
 * separate from the load generator in this process.
 */
export function startChild<T>(entry: URL, args: string[] = [], timeoutMs = 60_000): Promise<Child<T>> {
  const proc: ChildProcess = fork(fileURLToPath(entry), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (proc.connected) proc.send('stop');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<Child<T>>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${entry.pathname} did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry.pathname} exited early with code ${code}`));
    });
    proc.once('message', (m: ReadyMessage<T>) => {
      clearTimeout(timer);
      if (m.error !== undefined || m.ready === undefined) {
        void stop();
        reject(new Error(`${entry.pathname} failed to start: ${m.error ?? 'no info'}`));
        return;
      }
      resolve({ info: m.ready, pid: proc.pid!, cpuMs: () => processCpuMs(proc.pid!), stop });
    });
  });
}

let clockTicks: number | undefined;

/** CPU time (user + system, all threads) used by process `pid` in ms, from /proc; undefined where unavailable. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

/**
 * The child side of {@link startChild}: runs `start`, reports its info to the parent, and
 * stops cleanly when the parent says "stop" or goes away.
 */
export async function serveInChild<T>(start: () => Promise<{ info: T; stop: () => Promise<void> }>): Promise<void> {
  const send = (m: ReadyMessage<T>): void => {
    process.send?.(m);
  };
  let running: { info: T; stop: () => Promise<void> };
  try {
    running = await start();
  } catch (err) {
    send({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('message', (m) => {
    if (m === 'stop') shutdown();
  });
  process.on('disconnect', shutdown);
  send({ ready: running.info });
}

/** Options of runInChild. */
export interface RunInChildOptions {
  /** Node flags of the child, e.g. `['--expose-gc']`. */
  execArgv?: string[];
  /** Kills the child and rejects after this long (default 120 s). */
  timeoutMs?: number;
}

interface ResultMessage<T> {
  result?: T;
  error?: string;
}

/**
 * Forks `entry` (a compiled .js file that calls {@link reportFromChild}), waits for the one
 * result it reports and for it to exit. Each measurement gets a fresh process: its own heap,
 * its own JIT state, nothing left over from the previous case.
 */
export function runInChild<T>(entry: URL, args: string[] = [], options: RunInChildOptions = {}): Promise<T> {
  const proc = fork(fileURLToPath(entry), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: options.execArgv ?? [] });
  return new Promise<T>((resolve, reject) => {
    let message: ResultMessage<T> | undefined;
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${entry.pathname} did not finish within ${options.timeoutMs ?? 120_000} ms`));
    }, options.timeoutMs ?? 120_000);
    proc.on('message', (m: ResultMessage<T>) => (message ??= m));
    proc.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      if (message?.error !== undefined) reject(new Error(`${entry.pathname} failed: ${message.error}`));
      else if (message && 'result' in message) resolve(message.result as T);
      else reject(new Error(`${entry.pathname} exited with code ${code} without a result`));
    });
  });
}

/**
 * The child side of {@link runInChild}: runs `measure`, sends its result (or error) to the
 * parent and exits, so open handles (watches, timers) cannot keep the child alive.
 */
export async function reportFromChild<T>(measure: () => Promise<T>): Promise<void> {
  let message: ResultMessage<T>;
  try {
    message = { result: await measure() };
  } catch (err) {
    message = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  if (!process.send) {
    console.log(JSON.stringify(message, null, 2));
    process.exit(message.error === undefined ? 0 : 1);
  }
  process.send(message, () => process.exit(message.error === undefined ? 0 : 1));
}

/** What a probe's control plane wrote to stderr while it ran: counted, not printed. */
export interface StderrTally {
  /** Non-empty lines written. */
  readonly lines: number;
  /** The first line mentioning a failure or an error (240 characters at most). */
  readonly firstError?: string;
  /** `{ stderrLines, firstError? }`, the fields a probe's result carries. */
  fields(): { stderrLines: number; firstError?: string };
}

/**
 * Replaces process.stderr.write, console.error and console.warn in a probe's child process with
 * a tally, so a control plane's logging neither slows the measurement nor floods the parent.
 */
export function captureStderr(): StderrTally {
  let lines = 0;
  let firstError: string | undefined;
  const swallow = (chunk: unknown): boolean => {
    const text = String(chunk);
    lines += text.split('\n').filter((l) => l.trim() !== '').length;
    firstError ??= text.split('\n').find((l) => /fail|error/i.test(l))?.slice(0, 240);
    return true;
  };
  process.stderr.write = swallow as typeof process.stderr.write;
  console.error = (...args: unknown[]): void => void swallow(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' '));
  console.warn = console.error;
  return {
    get lines() {
      return lines;
    },
    get firstError() {
      return firstError;
    },
    fields: () => ({ stderrLines: lines, ...(firstError ? { firstError } : {}) }),
  };
}
