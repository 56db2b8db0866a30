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
