/**
 * `kplane up` startup as a user measures it: a fresh `kplane up --storage memory` process, from
 * its spawn to its GET /readyz answering 200 over HTTPS (the data dir's PKI made beforehand by
 * one unmeasured start, as any start after the first), each after a bare `node -e 0` whose time
 * is the unit of the ratio column.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { median } from './load.js';
import { formatTable } from './report.js';
import { nodeStartMs } from './testing-startup-bench.js';

/** The `kplane` command's script. */
export function kplaneBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve('kplane/package.json')), 'bin', 'kplane.js');
}

/** A free TCP port of 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One GET /readyz: true when it answers 200. */
function readyz(port: number, ca: string): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode === 200));
    });
    req.on('error', () => done(false));
    req.end();
  });
}

/** Stops a `kplane up` process (SIGTERM, SIGKILL after 10 s) and waits for its exit. */
async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Spawns `kplane up --storage memory` on `dataDir` with `args` and returns the time from the
 * spawn to /readyz answering 200 (polled every 5 ms), in ms; the process is stopped before.
 */
export async function timeUpToReady(dataDir: string, args: readonly string[] = [], timeoutMs = 60_000): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [kplaneBin(), 'up', '--storage', 'memory', '--data-dir', dataDir, '--port', String(port), '--controller-manager-port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  let exitCode: number | null = null;
  proc.once('exit', (code) => (exitCode = code ?? -1));
  try {
    let ca: string | undefined;
    while (performance.now() - t0 < timeoutMs) {
      if (exitCode !== null) throw new Error(`kplane up exited (${exitCode}) before it was ready`);
      ca ??= await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8').catch(() => undefined);
      if (ca && (await readyz(port, ca))) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`kplane up was not ready within ${timeoutMs} ms`);
  } finally {
    await stop(proc);
  }
}

/** The samples of one run: the time of each `kplane up` to ready, and of the `node -e 0` before each. */
export interface UpStartupRun {
  upMs: number[];
  nodeStartMs: number[];
}

/**
 * Runs `processes` fresh `kplane up --storage memory` processes, one after another, each after
 * a `node -e 0`, on one data dir whose PKI an unmeasured first start made; `args` are added to
 * each (e.g. `--controllers-in-worker`).
 */
export async function benchUpStartup(processes: number, args: readonly string[] = []): Promise<UpStartupRun> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kplane-up-startup-'));
  try {
    await timeUpToReady(dataDir, args);
    const run: UpStartupRun = { upMs: [], nodeStartMs: [] };
    for (let i = 0; i < processes; i++) {
      run.nodeStartMs.push(await nodeStartMs());
      run.upMs.push(await timeUpToReady(dataDir, args));
    }
    return run;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The table: the median of each, every value in the note, and the ratio to `node -e 0`. */
export function formatUpStartup(run: UpStartupRun, target = 5): string {
  const list = (xs: readonly number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
  const unit = median([...run.nodeStartMs]);
  const up = median([...run.upMs]);
  return formatTable(
    [
      ['case', 'median ms', 'vs node -e 0', 'note'],
      ['kplane up to /readyz', up.toFixed(1), `${(up / unit).toFixed(2)}x`, `${run.upMs.length} fresh processes (target <= ${target}x): ${list(run.upMs)}`],
      ['node -e 0', unit.toFixed(1), '1.00x', `a bare Node process, before each: ${list(run.nodeStartMs)}`],
    ],
    [1, 2],
  );
}
