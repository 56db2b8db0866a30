/**
 * The StatefulSet case: a StatefulSet (OrderedReady) scaled from 0 to N replicas on an
 * in-process control plane, timed to `status.readyReplicas` = N, next to a Deployment scaled
 * from 0 to the same N in another fresh process of the same run; reported as a ratio of times.
 * OrderedReady creates one pod at a time, each once the previous is Running and Ready, so the
 * set costs N sequential create → schedule → Ready round trips where the Deployment runs them
 * in parallel.
 */
import type { Client } from '@kplane/client';
import { Namespaces, StatefulSets, type kinds } from '@kplane/runtime';
import { runInChild } from './child.js';
import { formatTable } from './report.js';
import { milestoneTargets, type DeploymentBenchResult, type Milestone, type PodsProbeResult } from './pods-bench.js';

/** Options of benchStatefulSetScale. */
export interface StatefulSetBenchOptions {
  /** A client on a control plane running the statefulset controller, a scheduler and nodes. */
  client: Client;
  replicas: number;
  /** Namespace (default "bench-sts"; created if missing). */
  namespace?: string;
  /** Stops waiting after this long and reports how far it got (default 300 000 ms). */
  timeoutMs?: number;
  /** Pod management policy (default OrderedReady). */
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
}

/**
 * Creates a StatefulSet with 0 replicas, scales it to `replicas` through the scale subresource
 * and watches it until `status.readyReplicas` reaches `replicas` (or the timeout): the same
 * measurement as benchDeploymentScale, for a StatefulSet.
 */
export async function benchStatefulSetScale(options: StatefulSetBenchOptions): Promise<DeploymentBenchResult> {
  const { client, replicas } = options;
  const namespace = options.namespace ?? 'bench-sts';
  const name = 'web';
  const api = client.resource<kinds.StatefulSet>(StatefulSets);
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
      kind: 'StatefulSet',
      metadata: { name, namespace },
      spec: {
        replicas: 0,
        serviceName: name,
        podManagementPolicy: options.podManagementPolicy ?? 'OrderedReady',
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } },
      },
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
  const watching = (async (): Promise<boolean> => {
    while (!abort.signal.aborted) {
      for await (const ev of api.watch({ namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: rv, signal: abort.signal })) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        rv = ev.object.metadata?.resourceVersion ?? rv;
        ready = ev.object.status?.readyReplicas ?? 0;
        const seconds = (performance.now() - t0) / 1000;
        while (milestones.length < targets.length && ready >= targets[milestones.length]!) milestones.push({ ready: targets[milestones.length]!, seconds });
        if (ready >= replicas) return true;
      }
    }
    return false;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.timeoutMs ?? 300_000)));
  t0 = performance.now();
  try {
    await api.patch(name, { spec: { replicas } }, 'merge', { namespace, subresource: 'scale' });
    return snapshot(await Promise.race([watching, timedOut]));
  } finally {
    clearTimeout(timer);
    abort.abort();
    await watching.catch(() => false);
  }
}

/** Both runs of the case. */
export interface StatefulSetCase {
  statefulSet: PodsProbeResult<DeploymentBenchResult>;
  deployment: PodsProbeResult<DeploymentBenchResult>;
}

/** Runs the Deployment and then the StatefulSet (OrderedReady), each in a fresh child process (`probe-statefulset.js`). */
export async function statefulSetCaseInChildren(replicas: number, storage: 'memory' | 'sqlite', timeoutMs = 300_000): Promise<StatefulSetCase> {
  const entry = new URL('./probe-statefulset.js', import.meta.url);
  const run = (kind: string) => runInChild<PodsProbeResult<DeploymentBenchResult>>(entry, [kind, String(replicas), storage, String(timeoutMs)], { timeoutMs: timeoutMs + 60_000 });
  const deployment = await run('deployment');
  const statefulSet = await run('statefulset');
  return { statefulSet, deployment };
}

/** The target: the OrderedReady StatefulSet at most this many times slower than the Deployment of the same size. */
export const STATEFULSET_MAX_RATIO = 3;

/** The case as a table: seconds of each, the ratio against the target. */
export function formatStatefulSetCase(c: StatefulSetCase, maxRatio = STATEFULSET_MAX_RATIO): string {
  const row = (label: string, r: PodsProbeResult<DeploymentBenchResult>) => [
    label,
    `${r.result.readyReplicas}/${r.result.replicas}`,
    r.result.reached ? r.result.seconds.toFixed(2) : `> ${r.result.seconds.toFixed(0)}`,
    r.result.reached ? (r.result.replicas / r.result.seconds).toFixed(0) : '-',
    String(r.stderrLines),
  ];
  const ratio = c.statefulSet.result.seconds / c.deployment.result.seconds;
  const met = c.statefulSet.result.reached && c.deployment.result.reached && ratio <= maxRatio;
  return (
    formatTable(
      [['case', 'ready', 'seconds', 'pods/s', 'stderr lines'], row('Deployment 0 -> N', c.deployment), row('StatefulSet 0 -> N (OrderedReady)', c.statefulSet)],
      [2, 3, 4],
    ) + `\nStatefulSet / Deployment time: ${ratio.toFixed(2)}x (target at most ${maxRatio}x: ${met ? 'met' : 'MISSED'})`
  );
}
