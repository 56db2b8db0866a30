/**
 * The `kplane up` case: a Deployment scaled from 0 to N replicas through a real `kplane up`
 * process (HTTPS, the controllers, the scheduler and the simulated nodes in that process), the
 * client in this process, as a user measures it. Compared with the in-process Deployment case
 * (`deploymentInChild`) of the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFromKubeconfig } from '@kplane/client';
import { processCpuMs } from './child.js';
import { kplaneBin } from './up-startup-bench.js';
import { benchDeploymentScale, type DeploymentBenchResult } from './pods-bench.js';
import { formatTable } from './report.js';

/** Options of benchUpDeployment. */
export interface UpBenchOptions {
  /** Replicas the Deployment is scaled to. */
  replicas: number;
  /** `kplane up --storage` (default memory). */
  storage?: 'memory' | 'sqlite';
  /** Seconds allowed from the scale request until every replica is Ready, in ms (default 60 s). */
  timeoutMs?: number;
  /** `kplane up --nodes` (default 3). */
  nodes?: number;
  /** A folder for the server's V8 CPU profile (`node --cpu-prof --cpu-prof-dir DIR`); none by default. */
  cpuProfDir?: string;
  /** `kplane up --controllers-in-worker`: the controllers and simulated nodes on a second thread (default false). */
  controllersInWorker?: boolean;
  /** Called as readyReplicas changes. */
  onProgress?: (progress: DeploymentBenchResult) => void;
}

/** What benchUpDeployment measured. */
export interface UpBenchResult extends DeploymentBenchResult {
  storage: 'memory' | 'sqlite';
  /** Whether the server ran with `--controllers-in-worker`. */
  controllersInWorker: boolean;
  /** From spawning `kplane up` until it printed `ready:`, in ms. */
  startMs: number;
  /** CPU time (user + system) of the `kplane up` process from the scale request to the end, in ms. */
  serverCpuMs?: number;
  /** Lines `kplane up` wrote to stderr during the run (counted, not printed). */
  stderrLines: number;
  firstError?: string;
}


/**
 * Starts `kplane up --storage <storage> --port 0` in a process of its own (a scratch data dir,
 * simulated containers with their default start delay), waits for it to print its kubeconfig,
 * then runs `benchDeploymentScale` against it over HTTPS with a client built from that
 * kubeconfig. The server is stopped with SIGTERM (SIGKILL after 10 s) and its data dir removed.
 */
export async function benchUpDeployment(options: UpBenchOptions): Promise<UpBenchResult> {
  const storage = options.storage ?? 'memory';
  const dataDir = await mkdtemp(join(tmpdir(), 'kplane-bench-up-'));
  const execArgv = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : [];
  const args = [...execArgv, kplaneBin(), 'up', '--storage', storage, '--port', '0', '--data-dir', dataDir, '--nodes', String(options.nodes ?? 3), ...(options.controllersInWorker ? ['--controllers-in-worker'] : [])];
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderrLines = 0;
  let firstError: string | undefined;
  proc.stderr.setEncoding('utf8').on('data', (text: string) => {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    stderrLines += lines.length;
    firstError ??= lines.find((l) => /fail|error/i.test(l))?.slice(0, 240);
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    const kubeconfig = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('kplane up did not print ready within 60 s')), 60_000);
      proc.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        const m = /^kubeconfig: (.+)$/m.exec(out);
        if (m && /^ready: /m.test(out)) {
          clearTimeout(timer);
          resolve(m[1]!.trim());
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`kplane up exited with code ${code} before it was ready${firstError ? `: ${firstError}` : ''}`));
      });
    });
    const startMs = performance.now() - t0;
    const client = clientFromKubeconfig(kubeconfig);
    let cpuAtScale: number | undefined;
    const result = await benchDeploymentScale({
      client,
      replicas: options.replicas,
      timeoutMs: options.timeoutMs ?? 60_000,
      onProgress: (p) => {
        cpuAtScale ??= processCpuMs(proc.pid!);
        options.onProgress?.(p);
      },
    });
    const cpuEnd = processCpuMs(proc.pid!);
    client.transport.close();
    return {
      ...result,
      storage,
      controllersInWorker: options.controllersInWorker === true,
      startMs,
      ...(cpuAtScale !== undefined && cpuEnd !== undefined ? { serverCpuMs: cpuEnd - cpuAtScale } : {}),
      stderrLines,
      ...(firstError ? { firstError } : {}),
    };
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Targets of the `kplane up` case. */
export interface UpTargets {
  /** Seconds the Deployment may take to be all Ready (12 for 10,000). */
  maxSeconds: number;
  /** Pods Ready per second at least (800). */
  minPodsPerSecond: number;
}

/**
 * The `kplane up` table: its run, the same with `--controllers-in-worker` when it ran, and the
 * in-process Deployment case of the same run (when it ran with as many replicas), with the
 * ratios of their pods Ready per second.
 */
export function formatUp(up: UpBenchResult, inProcess: DeploymentBenchResult | undefined, targets: UpTargets, worker?: UpBenchResult): string {
  const rate = (d: DeploymentBenchResult): number => d.readyReplicas / d.seconds;
  const steps = (d: DeploymentBenchResult): string => d.milestones.map((m) => `${m.ready} at ${m.seconds.toFixed(1)} s`).join(', ') || 'nothing';
  const row = (run: UpBenchResult): string[] => {
    const ok = run.reached && run.seconds <= targets.maxSeconds && rate(run) >= targets.minPodsPerSecond;
    return [
      `kplane up --storage ${run.storage}${run.controllersInWorker ? ' --controllers-in-worker' : ''}, HTTPS (0 -> ${run.replicas})`,
      run.seconds.toFixed(2),
      rate(run).toFixed(0),
      `<=${targets.maxSeconds}s, >=${targets.minPodsPerSecond}/s ${ok ? 'met' : 'MISSED'}` + (run.reached ? '' : ` (${run.readyReplicas}/${run.replicas} Ready at the deadline)`),
      `readyReplicas first reached ${steps(run)}`,
    ];
  };
  const rows: string[][] = [['case', 'seconds', 'Ready/s', 'target', 'note'], row(up)];
  if (worker) rows.push(row(worker));
  if (inProcess) rows.push([`in-process (listen: false, 0 -> ${inProcess.replicas})`, inProcess.seconds.toFixed(2), rate(inProcess).toFixed(0), '', `readyReplicas first reached ${steps(inProcess)}`]);
  const lines = [formatTable(rows, [1, 2])];
  for (const run of worker ? [up, worker] : [up]) {
    const name = run.controllersInWorker ? 'kplane up --controllers-in-worker' : 'kplane up';
    const cpu = run.serverCpuMs !== undefined ? `; server CPU ${(run.serverCpuMs / 1000).toFixed(1)} s (${(run.serverCpuMs / Math.max(1, run.readyReplicas)).toFixed(2)} ms per pod Ready, all threads)` : '';
    lines.push(`${name} ready ${run.startMs.toFixed(0)} ms after spawn${cpu}`);
    if (run.stderrLines > 0) lines.push(`${name} wrote ${run.stderrLines} stderr lines${run.firstError ? `; first failure: ${run.firstError}` : ''}`);
  }
  if (inProcess && inProcess.replicas === up.replicas) lines.push(`speed: kplane up / in-process pods Ready per second = ${(rate(up) / rate(inProcess)).toFixed(2)}x`);
  if (worker && worker.replicas === up.replicas) lines.push(`both cores: kplane up --controllers-in-worker / kplane up pods Ready per second = ${(rate(worker) / rate(up)).toFixed(2)}x`);
  return lines.join('\n');
}
