/**
 * The DaemonSet case: on one in-process control plane with N simulated nodes, a Deployment of N
 * replicas scaled from 0 (benchDeploymentScale) and then a DaemonSet over the same N nodes, each
 * timed to all its pods Ready; the DaemonSet's time is reported as a ratio to the Deployment's.
 */
import type { Client } from '@kplane/client';
import { DaemonSets, Namespaces, type kinds } from '@kplane/runtime';
import { runInChild } from './child.js';
import type { DeploymentBenchResult, PodsProbeResult } from './pods-bench.js';

/** Options of benchDaemonSetRollout. */
export interface DaemonSetBenchOptions {
  /** A client on a control plane running the DaemonSet controller, a scheduler and nodes. */
  client: Client;
  /** Namespace (default "bench-daemonset"; created if missing). */
  namespace?: string;
  /** DaemonSet name (default "agent"). */
  name?: string;
  /** Stops waiting after this long and reports how far it got (default 300 000 ms). */
  timeoutMs?: number;
}

/** What benchDaemonSetRollout measured. */
export interface DaemonSetBenchResult {
  /** status.desiredNumberScheduled last seen (the nodes). */
  desired: number;
  /** status.numberReady last seen. */
  ready: number;
  /** Whether every desired pod was Ready before the timeout. */
  reached: boolean;
  /** Seconds from the create request to the last pod Ready, or to the timeout. */
  seconds: number;
}

/**
 * Creates a DaemonSet (one pause container, no node selector) and watches it until
 * status.numberReady reaches a non-zero desiredNumberScheduled for the current generation, or the
 * timeout passes. The DaemonSet is left in place.
 */
export async function benchDaemonSetRollout(options: DaemonSetBenchOptions): Promise<DaemonSetBenchResult> {
  const { client } = options;
  const namespace = options.namespace ?? 'bench-daemonset';
  const name = options.name ?? 'agent';
  const api = client.resource<kinds.DaemonSet>(DaemonSets);
  await client
    .resource(Namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const labels = { app: name };
  const abort = new AbortController();
  let desired = 0;
  let ready = 0;
  const t0 = performance.now();
  const snapshot = (reached: boolean): DaemonSetBenchResult => ({ desired, ready, reached, seconds: (performance.now() - t0) / 1000 });
  const created = await api.create(
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10' }] } } },
    },
    { namespace },
  );
  let rv = created.metadata!.resourceVersion!;
  const watching = (async (): Promise<boolean> => {
    while (!abort.signal.aborted) {
      for await (const ev of api.watch({ namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: rv, signal: abort.signal })) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        rv = ev.object.metadata?.resourceVersion ?? rv;
        const s = ev.object.status;
        desired = s?.desiredNumberScheduled ?? 0;
        ready = s?.numberReady ?? 0;
        if (desired > 0 && ready >= desired && (s?.observedGeneration ?? 0) >= (ev.object.metadata?.generation ?? 0)) return true;
      }
    }
    return false;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.timeoutMs ?? 300_000)));
  try {
    return snapshot(await Promise.race([watching, timedOut]));
  } finally {
    clearTimeout(timer);
    abort.abort();
    await watching.catch(() => false);
  }
}

/** The DaemonSet case and its Deployment reference, measured on one control plane. */
export interface DaemonSetCaseResult {
  nodes: number;
  deployment: DeploymentBenchResult;
  daemonSet: DaemonSetBenchResult;
  /** DaemonSet seconds / Deployment seconds. */
  ratio: number;
}

/** Runs the DaemonSet case in a fresh child process (`probe-daemonset.js`). */
export function daemonSetInChild(nodes: number, timeoutMs: number): Promise<PodsProbeResult<DaemonSetCaseResult>> {
  // Starting the nodes is not timed but takes a while; both rollouts may take up to timeoutMs.
  return runInChild(new URL('./probe-daemonset.js', import.meta.url), [String(nodes), String(timeoutMs)], { timeoutMs: 2 * timeoutMs + 180_000 });
}

/** One line for the report. */
export function formatDaemonSet(r: PodsProbeResult<DaemonSetCaseResult>): string {
  const { nodes, deployment, daemonSet, ratio } = r.result;
  const d = `${deployment.reached ? '' : 'NOT reached, '}${deployment.seconds.toFixed(2)} s`;
  const ds = `${daemonSet.reached ? '' : `NOT reached (${daemonSet.ready}/${daemonSet.desired} ready), `}${daemonSet.seconds.toFixed(2)} s`;
  return `DaemonSet over ${nodes} nodes: all pods Ready in ${ds}; Deployment of ${nodes} replicas on the same nodes: ${d}; ratio ${ratio.toFixed(2)}x (target <= 1.5x)`;
}
