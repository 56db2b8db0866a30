/**
 * `kplane up` startup as a user measures it: fresh `kplane up` processes, each timed from its
 * spawn to its GET /readyz answering 200 over HTTPS, each round after a bare `node -e 0` whose
 * time is the unit of the ratio column. Three starts per round: `--storage memory` on a data
 * dir whose PKI an unmeasured start made (as any start after the first), the first start of
 * the default (SQLite) on a new data dir (PKI, keys and database made), and its restart on that
 * data dir; and, in process, `startControlPlane({ storage: 'memory', listen: false })` of
 * `kplane` from a fresh process (`probe-startup.js`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { statSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runInChild } from './child.js';
import { median } from './load.js';
import type { StartupSample } from './startup-bench.js';
import { formatTable } from './report.js';
import { nodeStartMs } from './testing-startup-bench.js';

/** The `kplane` command's script. */
export function kplaneBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve('kplane/package.json')), 'bin', 'kplane.js');
}

/**
 * Does the `kplane` command run its bundle (packages/cli/dist/bundle, made by `npm run build`)?
 * Its bin runs the bundle only while every package it was made from is as built then; after a
 * `tsc -b` alone it runs dist/main.js, which starts slower.
 */
export function kplaneBundleCurrent(cli = dirname(dirname(kplaneBin()))): boolean {
  try {
    const { built } = JSON.parse(readFileSync(join(cli, 'dist', 'bundle', 'stamp.json'), 'utf8')) as { built: Record<string, number> };
    const files = Object.entries(built);
    return files.length > 0 && files.every(([file, mtimeMs]) => statSync(join(cli, file)).mtimeMs === mtimeMs);
  } catch {
    return false;
  }
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

/** The CPU time (user and system) process `pid` has used so far, in ms, where /proc tells (Linux). */
async function cpuMsOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // Fields after the command's name: state is 3rd, utime the 14th and stime the 15th, in clock ticks (100 a second).
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : undefined;
}

/** The CPU time of a bare Node process, in ms: `node -e 0` with a handler that reports it as the process exits. */
export function nodeCpuMs(): Promise<number> {
  const script = "process.on('exit', () => { const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000)); })";
  return new Promise((resolve, reject) => execFile(process.execPath, ['-e', script], (err, out) => (err ? reject(err) : resolve(Number(out)))));
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
 * Spawns `kplane up --storage memory` (or `storage`) on `dataDir` with `args` and returns the
 * time from the spawn to /readyz answering 200 (polled every 5 ms), in ms; the process is
 * stopped before.
 */
export async function timeUpToReady(dataDir: string, args: readonly string[] = [], timeoutMs = 60_000, storage = 'memory', cpu?: number[]): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [kplaneBin(), 'up', '--storage', storage, '--data-dir', dataDir, '--port', String(port), '--controller-manager-port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  let exitCode: number | null = null;
  proc.once('exit', (code) => (exitCode = code ?? -1));
  try {
    while (performance.now() - t0 < timeoutMs) {
      if (exitCode !== null) throw new Error(`kplane up exited (${exitCode}) before it was ready`);
      // Read again at each try: a first start may still be writing it.
      const ca = await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8').catch(() => undefined);
      if (ca && (await readyz(port, ca))) {
        const ms = performance.now() - t0;
        const used = proc.pid === undefined ? undefined : await cpuMsOf(proc.pid);
        if (cpu && used !== undefined) cpu.push(used);
        return ms;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`kplane up was not ready within ${timeoutMs} ms`);
  } finally {
    await stop(proc);
  }
}

/** The samples of one run: the time of each start to ready, and of the `node -e 0` before each round. */
export interface UpStartupRun {
  /** `kplane up --storage memory`, its data dir's PKI made before. */
  upMs: number[];
  nodeStartMs: number[];
  /** `kplane up` (SQLite) on a new data dir. */
  firstMs?: number[];
  /** `kplane up` (SQLite) again on the data dir of the first start. */
  restartMs?: number[];
  /** `startControlPlane({ storage: 'memory', listen: false })`: from a fresh process's start to the call resolved. */
  inProcessMs?: number[];
  /** CPU time (user and system) of each `kplane up --storage memory` when ready, and of each bare Node process, in ms (Linux only). */
  cpu?: { up: number[]; node: number[] };
  /** Whether the `kplane` command ran its bundle (see kplaneBundleCurrent). */
  bundled?: boolean;
}

/**
 * Runs `processes` rounds, one after another: a `node -e 0`, then a fresh `kplane up --storage
 * memory` on one data dir whose PKI an unmeasured first start made (`args` added to it, e.g.
 * `--controllers-in-worker`); unless `onlyMemory`, then `kplane up` on a new data dir, `kplane
 * up` again on it, and a fresh process running `startControlPlane()` in process.
 */
export async function benchUpStartup(processes: number, args: readonly string[] = [], onlyMemory = false): Promise<UpStartupRun> {
  const root = await mkdtemp(join(tmpdir(), 'kplane-up-startup-'));
  try {
    const memoryDir = join(root, 'memory');
    await timeUpToReady(memoryDir, args);
    const cpu = { up: [] as number[], node: [] as number[] };
    const run: UpStartupRun = { upMs: [], nodeStartMs: [], bundled: kplaneBundleCurrent(), ...(onlyMemory ? {} : { firstMs: [], restartMs: [], inProcessMs: [] }) };
    for (let i = 0; i < processes; i++) {
      run.nodeStartMs.push(await nodeStartMs());
      run.upMs.push(await timeUpToReady(memoryDir, args, undefined, 'memory', cpu.up));
      cpu.node.push(await nodeCpuMs());
      if (onlyMemory) continue;
      const dir = join(root, `sqlite-${i}`);
      run.firstMs!.push(await timeUpToReady(dir, args, undefined, 'sqlite'));
      run.restartMs!.push(await timeUpToReady(dir, args, undefined, 'sqlite'));
      run.inProcessMs!.push((await runInChild<StartupSample>(new URL('./probe-startup.js', import.meta.url), ['0'])).readyAtMs);
    }
    if (cpu.up.length === processes) run.cpu = cpu;
    return run;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The table: the median of each, every value in the note, and the ratio to `node -e 0`. */
export function formatUpStartup(run: UpStartupRun, target = 5): string {
  const list = (xs: readonly number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
  const unit = median([...run.nodeStartMs]);
  const row = (name: string, xs: readonly number[] | undefined, note: string): string[][] => {
    if (!xs?.length) return [];
    const m = median([...xs]);
    return [[name, m.toFixed(1), `${(m / unit).toFixed(2)}x`, `${note} (target <= ${target}x): ${list(xs)}`]];
  };
  const stale = run.bundled === false ? '\nnote: the kplane command ran dist/main.js, not its bundle (older than the packages it was made from: run `npm run build`), so it started slower than installed' : '';
  return formatTable(
    [
      ['case', 'median ms', 'vs node -e 0', 'note'],
      ...row('kplane up to /readyz', run.upMs, `${run.upMs.length} fresh processes, --storage memory`),
      ...row('first kplane up', run.firstMs, 'SQLite, a new data dir each (PKI, keys, database made)'),
      ...row('kplane up, restart', run.restartMs, 'SQLite, on the data dir of the first start'),
      ...row('startControlPlane()', run.inProcessMs, "in process, memory, no listener: process start to resolved, as 'probe-startup.js 0'"),
      ['node -e 0', unit.toFixed(1), '1.00x', `a bare Node process, before each round: ${list(run.nodeStartMs)}`],
      ...(run.cpu
        ? [
            ['CPU: kplane up', median([...run.cpu.up]).toFixed(1), `${(median([...run.cpu.up]) / median([...run.cpu.node])).toFixed(2)}x`, `CPU time (user + system) of each --storage memory process when ready: ${list(run.cpu.up)}`],
            ['CPU: node -e 0', median([...run.cpu.node]).toFixed(1), '1.00x', `CPU time of a bare Node process, as it exits: ${list(run.cpu.node)}`],
          ]
        : []),
    ],
    [1, 2],
  ) + stale;
}
