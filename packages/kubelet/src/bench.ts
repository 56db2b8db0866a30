/**
 * Benchmark: how fast pods created directly (no controller) are scheduled and reach Ready on
 * simulated nodes. One watch times every pod from its create request to the first event that
 * shows it Ready.
 */
import { ApiError } from '@kplane/api';
import type { Client } from '@kplane/client';
import { Namespaces, Pods, type kinds } from '@kplane/runtime';
import { startSimulation, type SimulationOptions } from './simulation.js';

/** Options of benchPodsReady. */
export interface PodBenchOptions {
  /** A client on the API server to measure (in-process or HTTPS). */
  client: Client;
  /** Pods to create (default 10 000). */
  pods?: number;
  /** Simulated nodes (default 3); each gets room for all the pods. */
  nodes?: number;
  /** Namespace to create them in (default "kplane-bench"); created if missing. */
  namespace?: string;
  /** Create requests in flight (default 64). */
  concurrency?: number;
  /** Delay before containers run (default 0: measure the machinery, not the simulation). */
  startAfterMs?: number;
  /** Give up after this long (default 120 000 ms). */
  timeoutMs?: number;
  /** Start a scheduler and kubelet for the run (default true); false measures ones already running. */
  simulate?: boolean;
  /** Extra simulation options (workers and the like). */
  simulation?: Partial<Omit<SimulationOptions, 'client' | 'nodes'>>;
}

/** What benchPodsReady measured. */
export interface PodBenchResult {
  pods: number;
  nodes: number;
  /** Seconds to send every create. */
  createSeconds: number;
  /** Seconds from the first create to the last pod Ready. */
  readySeconds: number;
  /** pods / readySeconds. */
  podsPerSecond: number;
  /** Per-pod create-to-Ready latency percentiles (ms). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const isReady = (p: kinds.Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Creates `pods` pods (one container, no requests) and waits until all are Ready. Cleans up
 * after itself: the pods are force-deleted (grace period 0) and the simulation stopped.
 */
export async function benchPodsReady(options: PodBenchOptions): Promise<PodBenchResult> {
  const { client } = options;
  const total = options.pods ?? 10_000;
  const nodeCount = options.nodes ?? 3;
  const ns = options.namespace ?? 'kplane-bench';
  const concurrency = options.concurrency ?? 64;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const podsApi = client.resource(Pods);
  try {
    await client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 409)) throw err;
  }
  const sim = options.simulate === false
    ? undefined
    : await startSimulation({
        maxPods: Math.min(8000, Math.ceil(total / Math.max(1, nodeCount)) + 110),
        ...options.simulation,
        client,
        nodes: nodeCount,
        config: { defaults: { startAfterMs: options.startAfterMs ?? 0 }, ...options.simulation?.config },
      });
  const abort = new AbortController();
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const ready = new Set<string>();
  let resolveAll!: () => void;
  const allReady = new Promise<void>((r) => (resolveAll = r));
  try {
    const list = await podsApi.list({ namespace: ns, limit: 1 });
    const seen = (pod: kinds.Pod): void => {
      const name = pod.metadata?.name ?? '';
      if (ready.has(name) || !isReady(pod)) return;
      ready.add(name);
      latencies.push(performance.now() - (sentAt.get(name) ?? performance.now()));
      if (ready.size >= total) resolveAll();
    };
    // Ready implies Running: watching only Running pods spares the server and this process the
    // create and binding events of every pod.
    const fieldSelector = 'status.phase=Running';
    const watching = (async () => {
      // The server closes a watcher that falls behind (as kube-apiserver does): like any client,
      // watch again from the last resourceVersion seen, and list again when that is too old.
      let rv = list.metadata.resourceVersion;
      while (!abort.signal.aborted && ready.size < total) {
        let expired = false;
        for await (const ev of podsApi.watch({ namespace: ns, fieldSelector, resourceVersion: rv, signal: abort.signal })) {
          if (ev.type === 'ERROR') {
            expired = true;
            break;
          }
          rv = ev.object.metadata?.resourceVersion ?? rv;
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') seen(ev.object);
        }
        if (expired && !abort.signal.aborted) {
          const again = await podsApi.list({ namespace: ns, fieldSelector });
          for (const pod of again.items) seen(pod);
          rv = again.metadata.resourceVersion;
        }
      }
    })();
    watching.catch(() => undefined);
    const t0 = performance.now();
    let next = 0;
    const creator = async (): Promise<void> => {
      while (next < total) {
        const name = `bench-${next++}`;
        sentAt.set(name, performance.now());
        await podsApi.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'kplane-bench' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } }, { namespace: ns });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, total) }, creator));
    const created = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${ready.size}/${total} pods Ready after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([allReady, timeout]);
    } finally {
      clearTimeout(timer);
    }
    const done = performance.now();
    latencies.sort((a, b) => a - b);
    const readySeconds = (done - t0) / 1000;
    return {
      pods: total,
      nodes: nodeCount,
      createSeconds: (created - t0) / 1000,
      readySeconds,
      podsPerSecond: total / readySeconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies[latencies.length - 1] ?? 0,
    };
  } finally {
    abort.abort();
    await sim?.stop();
    await podsApi.deleteCollection({ namespace: ns, gracePeriodSeconds: 0, labelSelector: 'app=kplane-bench' }).catch(() => undefined);
  }
}

/** One line of text for a result. */
export function formatPodBench(r: PodBenchResult): string {
  return `${r.pods} pods on ${r.nodes} nodes: Ready in ${r.readySeconds.toFixed(2)} s (${Math.round(r.podsPerSecond)} pods/s; creates ${r.createSeconds.toFixed(2)} s; create→Ready p50 ${Math.round(r.p50Ms)} ms, p99 ${Math.round(r.p99Ms)} ms, max ${Math.round(r.maxMs)} ms)`;
}
