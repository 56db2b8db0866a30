/**
 * The scheduler case: on one in-process control plane with N nodes spread over 10 zones (Node
 * objects only: no kubelet runs, so only scheduling is measured), batches of pending pods are
 * bound by a scheduler started after they exist; each batch is timed from the scheduler's start
 * to the watch event of its last binding. Plain pods are the reference; the constrained batches
 * (required anti-affinity on the hostname with a zone spread constraint, preferred affinity
 * with a ScheduleAnyway zone spread) are reported as a ratio of their rate to it.
 */
import type { Client } from '@kplane/client';
import { buildNode, createScheduler } from '@kplane/kubelet';
import { Namespaces, Nodes, Pods, type kinds } from '@kplane/runtime';
import { runInChild } from './child.js';
import type { PodsProbeResult } from './pods-bench.js';

/** The kinds of batches. */
export type SchedulerVariant = 'plain' | 'anti-affinity+spread' | 'preferred-affinity+spread';

/** The zone label of node i (10 zones). */
export const zoneOf = (i: number): string => `zone-${i % 10}`;

/** What one batch measured. */
export interface SchedulerBatchResult {
  variant: SchedulerVariant;
  pods: number;
  bound: number;
  reached: boolean;
  /** From the scheduler's start (its caches' first list included) to the last binding seen. */
  seconds: number;
  podsPerSecond: number;
}

/** Creates `nodes` Ready nodes (32 cpu, 256Gi) labelled `topology.kubernetes.io/zone`, 64 at a time. */
export async function createZonedNodes(client: Client, nodes: number): Promise<void> {
  const api = client.resource(Nodes);
  const time = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (let i = 0; i < nodes; i += 64) {
    await Promise.all(
      Array.from({ length: Math.min(64, nodes - i) }, (_, j) => api.create(buildNode(i + j, time, { labels: { 'topology.kubernetes.io/zone': zoneOf(i + j) } }))),
    );
  }
}

/** The pod spec of a batch (requests 100m and 128Mi, so the resource scores count too). */
export function batchPodSpec(variant: SchedulerVariant, app: string, schedulerName: string): kinds.PodSpec {
  const spec: kinds.PodSpec = { schedulerName, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] };
  const selector = { matchLabels: { app } };
  if (variant === 'anti-affinity+spread') {
    spec.affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'kubernetes.io/hostname' }] } };
    spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }];
  } else if (variant === 'preferred-affinity+spread') {
    spec.affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: selector, topologyKey: 'topology.kubernetes.io/zone' } }] } };
    spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: selector }];
  }
  return spec;
}

/**
 * Creates `pods` pending pods of a variant in a namespace of their own, for a scheduler name no
 * scheduler serves yet, then starts a scheduler for that name and waits until all are bound (or
 * the timeout passes); the scheduler is stopped and the pods are left bound.
 */
export async function benchSchedulerBatch(client: Client, variant: SchedulerVariant, pods: number, timeoutMs = 120_000): Promise<SchedulerBatchResult> {
  const slug = variant.replace(/[^a-z]+/g, '-');
  const namespace = `bench-sched-${slug}`;
  const schedulerName = `bench-${slug}`;
  await client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const api = client.resource(Pods);
  const spec = batchPodSpec(variant, slug, schedulerName);
  for (let i = 0; i < pods; i += 64) {
    await Promise.all(
      Array.from({ length: Math.min(64, pods - i) }, (_, j) => api.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i + j}`, namespace, labels: { app: slug } }, spec }, { namespace })),
    );
  }
  const rv = (await api.list({ namespace, limit: 1 })).metadata?.resourceVersion;
  const abort = new AbortController();
  const bound = new Set<string>();
  const watching = (async () => {
    for await (const ev of api.watch({ namespace, resourceVersion: rv, signal: abort.signal })) {
      if (ev.type !== 'MODIFIED' || !ev.object.spec?.nodeName) continue;
      bound.add(ev.object.metadata!.name!);
      if (bound.size >= pods) return true;
    }
    return false;
  })().catch(() => false);
  const scheduler = createScheduler({ client, schedulerName });
  const t0 = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await scheduler.start();
  const reached = await Promise.race([watching, new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
  const seconds = (performance.now() - t0) / 1000;
  clearTimeout(timer);
  abort.abort();
  await scheduler.stop();
  return { variant, pods, bound: bound.size, reached, seconds, podsPerSecond: bound.size / seconds };
}

/** The whole case: the batches on one control plane, and each constrained batch's rate over the plain one's. */
export interface SchedulerCaseResult {
  nodes: number;
  batches: SchedulerBatchResult[];
  ratios: Partial<Record<SchedulerVariant, number>>;
}

/** Runs the batches, plain first, on a client whose cluster has no other scheduler for their names. */
export async function benchScheduler(client: Client, nodes: number, pods: number, timeoutMs?: number): Promise<SchedulerCaseResult> {
  await createZonedNodes(client, nodes);
  const batches: SchedulerBatchResult[] = [];
  for (const v of ['plain', 'anti-affinity+spread', 'preferred-affinity+spread'] as const) batches.push(await benchSchedulerBatch(client, v, pods, timeoutMs));
  const plain = batches[0]!.podsPerSecond;
  const ratios = Object.fromEntries(batches.slice(1).map((b) => [b.variant, b.podsPerSecond / plain]));
  return { nodes, batches, ratios };
}

/** Runs the case in a fresh child process (`probe-scheduler.js`). */
export function schedulerInChild(nodes: number, pods: number, timeoutMs = 120_000): Promise<PodsProbeResult<SchedulerCaseResult>> {
  return runInChild(new URL('./probe-scheduler.js', import.meta.url), [String(nodes), String(pods), String(timeoutMs)], { timeoutMs: 4 * timeoutMs + 120_000 });
}

/** Target: constrained pods bound at least at this fraction of the plain pods' rate. */
export const SCHEDULER_TARGET_RATIO = 0.5;

/** The report's lines. */
export function formatScheduler(r: PodsProbeResult<SchedulerCaseResult>): string {
  const { batches, ratios } = r.result;
  const lines = batches.map((b) => {
    const done = b.reached ? '' : ` NOT reached (${b.bound}/${b.pods} bound)`;
    const ratio = ratios[b.variant];
    const vs = ratio === undefined ? ' (baseline)' : `; ${ratio.toFixed(2)}x plain (target >=${SCHEDULER_TARGET_RATIO}x ${ratio >= SCHEDULER_TARGET_RATIO ? 'met' : 'MISSED'})`;
    return `${b.variant.padEnd(26)} ${b.pods} pods bound in ${b.seconds.toFixed(2)} s, ${b.podsPerSecond.toFixed(0)} pods/s${done}${vs}`;
  });
  if (r.stderrLines) lines.push(`${r.stderrLines} stderr lines${r.firstError ? `; first failure: ${r.firstError}` : ''}`);
  return lines.join('\n');
}
