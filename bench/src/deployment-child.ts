/**
 * The parent side of the Deployment case. The child (`probe-pods.js deployment ...`) reports
 * its progress as it goes; the deadline is kept here, in the parent, because a busy in-process
 * control plane can hold the child's event loop for minutes (its own timers then fire late).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DeploymentBenchResult, PodsProbeResult } from './pods-bench.js';

/** Options of deploymentInChild. */
export interface DeploymentChildOptions {
  /** Storage of the child's control plane (default memory), or a storage URL (etcd://host:port). */
  storage?: 'memory' | 'sqlite' | `${string}://${string}`;
  /** Simulated nodes (default 3). */
  nodes?: number;
  /** Seconds allowed from the scale request until every replica is Ready, kept by the parent. */
  timeoutMs: number;
  /** Extra time for the child to start and create the Deployment (default 60 000 ms). */
  startupMs?: number;
  /** Run the controllers and simulated nodes in a worker thread (`controllersInWorker`). */
  controllersInWorker?: boolean;
  /** The child's entry (default `probe-pods.js` beside this file). */
  entry?: URL;
}

interface ChildMessage {
  progress?: DeploymentBenchResult;
  result?: PodsProbeResult<DeploymentBenchResult>;
  error?: string;
}

/**
 * Runs `benchDeploymentScale` for `replicas` in a fresh child process on
 * `startControlPlane({ controllers: true, nodes, listen: false })`. Resolves with the child's
 * result, or, when `timeoutMs` passes after the scale request first, kills the child and
 * resolves with its last progress (`reached: false`, `seconds` = the timeout) and
 * `killedAtDeadline: true`. Rejects when the child fails or never gets to the scale request.
 */
export function deploymentInChild(replicas: number, options: DeploymentChildOptions): Promise<PodsProbeResult<DeploymentBenchResult>> {
  const entry = options.entry ?? new URL('./probe-pods.js', import.meta.url);
  // The child's own timeout is only a backstop, later than the deadline kept here.
  const args = ['deployment', String(replicas), options.storage ?? 'memory', String(options.timeoutMs + 10_000), String(options.nodes ?? 3), ...(options.controllersInWorker ? ['worker'] : [])];
  const proc = fork(fileURLToPath(entry), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let last: DeploymentBenchResult | undefined;
    let outcome: ChildMessage | undefined;
    let deadline: ReturnType<typeof setTimeout> | undefined;
    let killedAtDeadline = false;
    const startup = setTimeout(() => {
      proc.kill('SIGKILL');
      outcome ??= { error: `no scale request within ${options.startupMs ?? 60_000} ms` };
    }, options.startupMs ?? 60_000);
    proc.on('message', (m: ChildMessage) => {
      if (m.progress) {
        last = m.progress;
        clearTimeout(startup);
        deadline ??= setTimeout(() => {
          killedAtDeadline = true;
          proc.kill('SIGKILL');
        }, options.timeoutMs);
      } else outcome ??= m;
    });
    proc.once('error', reject);
    proc.once('exit', (code) => {
      clearTimeout(startup);
      clearTimeout(deadline);
      if (outcome?.result) resolve(outcome.result);
      else if (killedAtDeadline && last) {
        resolve({ result: { ...last, reached: false, seconds: options.timeoutMs / 1000 }, stderrLines: 0, killedAtDeadline: true });
      } else reject(new Error(`${entry.pathname} failed: ${outcome?.error ?? `exited with code ${code} without a result`}`));
    });
  });
}
