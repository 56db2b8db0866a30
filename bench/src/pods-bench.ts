/**
 * Pods reaching Ready: pods created directly (`benchPodsReady` from @kplane/kubelet) and a
 * Deployment scaled from 0 by the in-process controllers, each in a fresh child process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@kplane/client';
import type { PodBenchResult } from '@kplane/kubelet';
import { Deployments, Namespaces, type kinds } from '@kplane/runtime';
import { runInChild } from './child.js';
import { formatTable } from './report.js';

/** Options of benchDeploymentScale. */
export interface DeploymentBenchOptions {
  /** A client on a control plane running the deployment and replicaset controllers, a scheduler and nodes. */
  client: Client;
  /** Replicas to scale to. */
  replicas: number;
  /** Namespace (default "bench-deploy"; created if missing). */
  namespace?: string;
  /** Deployment name (default "web"). */
  name?: string;
  /** Stops waiting after this long and reports how far it got (default 300 000 ms). */
  timeoutMs?: number;
  /** Told right after the scale request (readyReplicas 0) and at every change of readyReplicas. */
  onProgress?: (progress: DeploymentBenchResult) => void;
}

/** When readyReplicas first reached a number. */
export interface Milestone {
  ready: number;
  seconds: number;
}

/** What benchDeploymentScale measured. */
export interface DeploymentBenchResult {
  replicas: number;
  /** status.readyReplicas last seen. */
  readyReplicas: number;
  /** Whether every replica was Ready before the timeout. */
  reached: boolean;
  /** Seconds from the scale request to the last replica Ready, or to the timeout. */
  seconds: number;
  /** First time readyReplicas was at least 1, 10%, 50% and 100% of `replicas` (those reached). */
  milestones: Milestone[];
}

/** The readyReplicas values whose first arrival benchDeploymentScale records. */
export function milestoneTargets(replicas: number): number[] {
  return [...new Set([1, Math.ceil(replicas / 10), Math.ceil(replicas / 2), replicas])].filter((n) => n >= 1 && n <= replicas).sort((a, b) => a - b);
}

/**
 * Creates a Deployment with 0 replicas, scales it to `replicas` through its scale subresource
 * (as `kubectl scale` does), and watches it until status.readyReplicas reaches `replicas` or
 * the timeout passes. The Deployment is left in place.
 */
export async function benchDeploymentScale(options: DeploymentBenchOptions): Promise<DeploymentBenchResult> {
  const { client, replicas } = options;
  const namespace = options.namespace ?? 'bench-deploy';
  const name = options.name ?? 'web';
  const timeoutMs = options.timeoutMs ?? 300_000;
  const api = client.resource<kinds.Deployment>(Deployments);
  await client
    .resource(Namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const labels = { app: name };
  const created = await api.create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },
    },
    { namespace },
  );
  const targets = milestoneTargets(replicas);
  const milestones: Milestone[] = [];
  let ready = 0;
  let rv = created.metadata!.resourceVersion!;
  const abort = new AbortController();
  let t0 = 0;
  const snapshot = (reached: boolean): DeploymentBenchResult => ({ replicas, readyReplicas: ready, reached, seconds: (performance.now() - t0) / 1000, milestones: [...milestones] });
  const observe = (d: kinds.Deployment): boolean => {
    const before = ready;
    ready = d.status?.readyReplicas ?? 0;
    const seconds = (performance.now() - t0) / 1000;
    while (milestones.length < targets.length && ready >= targets[milestones.length]!) milestones.push({ ready: targets[milestones.length]!, seconds });
    if (ready !== before) options.onProgress?.(snapshot(ready >= replicas));
    return ready >= replicas;
  };
  const watching = (async (): Promise<boolean> => {
    while (!abort.signal.aborted) {
      for await (const ev of api.watch({ namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: rv, signal: abort.signal })) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        rv = ev.object.metadata?.resourceVersion ?? rv;
        if (observe(ev.object)) return true;
      }
    }
    return false;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  t0 = performance.now();
  try {
    await api.patch(name, { spec: { replicas } }, 'merge', { namespace, subresource: 'scale' });
    options.onProgress?.(snapshot(false));
    return snapshot(await Promise.race([watching, timedOut]));
  } finally {
    clearTimeout(timer);
    abort.abort();
    await watching.catch(() => false);
  }
}

/** What the pods child reports: the measurement and what the control plane wrote to stderr meanwhile. */
export interface PodsProbeResult<T> {
  result: T;
  /** Lines written to stderr (controller errors and the like), counted, not printed. */
  stderrLines: number;
  /** The first stderr line that reports a failure, if any. */
  firstError?: string;
  /** The parent stopped the child at the deadline; the result is its last progress report (stderr not counted). */
  killedAtDeadline?: boolean;
}

/** Runs `benchPodsReady` for `pods` pods in a fresh child process on its own in-process control plane. */
export function podsReadyInChild(pods: number, storage: 'memory' | 'sqlite', timeoutMs = 180_000): Promise<PodsProbeResult<PodBenchResult>> {
  return runInChild(new URL('./probe-pods.js', import.meta.url), ['ready', String(pods), storage], { timeoutMs: timeoutMs + 30_000 });
}

/** A data folder for sqlite storage, removed by the returned function (none for memory). */
export async function scratchDir(storage: 'memory' | 'sqlite'): Promise<{ dataDir?: string; remove: () => Promise<void> }> {
  if (storage === 'memory') return { remove: async () => undefined };
  const dataDir = await mkdtemp(join(tmpdir(), 'kplane-bench-pods-'));
  return { dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

/** Targets of the pods cases: a rate in pods/s and a deadline for the big ramp. */
export interface PodsTargets {
  minPodsPerSecond: number;
  /** Seconds the ramp of `rampPods` may take at most. */
  maxRampSeconds: number;
}

/** Input of formatPods: the runs that happened. */
export interface PodsRows {
  rate?: PodsProbeResult<PodBenchResult>;
  ramp?: PodsProbeResult<PodBenchResult>;
  deployment?: PodsProbeResult<DeploymentBenchResult>;
}

const reading = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** The pods table (one row per run) and a note on what the control plane logged. */
export function formatPods(rows: PodsRows, targets: PodsTargets): string {
  const body: string[][] = [];
  const podRow = (label: string, p: PodsProbeResult<PodBenchResult>, target: string): string[] => [
    `${label} (${p.result.pods} pods)`,
    p.result.readySeconds.toFixed(2),
    p.result.podsPerSecond.toFixed(0),
    target,
    `creates ${p.result.createSeconds.toFixed(2)} s; create->Ready p50 ${p.result.p50Ms.toFixed(0)} ms, p99 ${p.result.p99Ms.toFixed(0)} ms`,
  ];
  if (rows.rate) {
    const ok = rows.rate.result.podsPerSecond >= targets.minPodsPerSecond;
    body.push(podRow('pods created directly', rows.rate, `>=${targets.minPodsPerSecond}/s ${reading(ok)}`));
  }
  if (rows.ramp) {
    const r = rows.ramp.result;
    const ok = r.readySeconds <= targets.maxRampSeconds && r.podsPerSecond >= targets.minPodsPerSecond;
    body.push(podRow('pods created directly, ramp', rows.ramp, `<=${targets.maxRampSeconds}s, >=${targets.minPodsPerSecond}/s ${reading(ok)}`));
  }
  if (rows.deployment) {
    const d = rows.deployment.result;
    const steps = d.milestones.map((m) => `${m.ready} at ${m.seconds.toFixed(1)} s`).join(', ');
    body.push([
      `Deployment scaled 0 -> ${d.replicas}`,
      d.seconds.toFixed(2),
      (d.readyReplicas / d.seconds).toFixed(0),
      `<=${targets.maxRampSeconds}s ${reading(d.reached && d.seconds <= targets.maxRampSeconds)}` +
        (d.reached ? '' : ` (${d.readyReplicas}/${d.replicas} Ready at the deadline${rows.deployment.killedAtDeadline ? ', child stopped' : ''})`),
      `readyReplicas first reached ${steps || 'nothing'}`,
    ]);
  }
  const lines = [formatTable([['case', 'seconds', 'Ready/s', 'target', 'note'], ...body], [1, 2])];
  for (const [label, p] of [['pods created directly', rows.rate], ['ramp', rows.ramp], ['Deployment', rows.deployment]] as const) {
    if (p && p.stderrLines > 0) lines.push(`${label}: the control plane wrote ${p.stderrLines} stderr lines${p.firstError ? `; first failure: ${p.firstError}` : ''}`);
  }
  return lines.join('\n');
}
