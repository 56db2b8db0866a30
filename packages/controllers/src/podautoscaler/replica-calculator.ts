/**
 * The replica count a resource metric asks for, as kube-controller-manager's replica calculator
 * computes it: the usage ratio to the target over the pods with a sample, a tolerance band
 * around 1, and the missing and not-yet-ready pods counted so that they damp the move (never
 * reversing or amplifying it).
 */
import type { Pod } from '@kplane/runtime';

/** Kube's default --horizontal-pod-autoscaler-tolerance: 10 %. */
export const DEFAULT_TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period: 5 minutes. */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay: 30 seconds. */
export const INITIAL_READINESS_DELAY_MS = 30_000;

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The milli-value of a quantity ("250m" → 250, "1" → 1000, "64Mi" → 67108864000), rounded up; undefined when it is not one. */
export function milliValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Math.ceil(q * 1000);
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(q.trim());
  if (!m) return undefined;
  return Math.ceil(Math.round(Number(m[1]) * SUFFIX[m[2] ?? '']! * 1e9) / 1e6);
}

/** A milli-value as a Quantity string ("40m" for cpu; "123456k"-free: plain milli form). */
export function formatMilli(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** One pod's sample: the sum over its containers, in milli-units, and when it was taken. */
export interface PodSample {
  milli: number;
  /** Clock ms of the sample and the window it covers. */
  timestamp: number;
  windowMs: number;
}

/** What the calculator answers. */
export interface ReplicaProposal {
  replicas: number;
  /** Utilization in percent of the requests (Utilization targets). */
  utilization?: number;
  /** The average usage per pod with a sample, in milli-units. */
  rawAverage: number;
}

/** The target: a percentage of the pods' requests, or an average value per pod (milli-units). */
export type ResourceTarget = { utilization: number } | { averageMilli: number };

const readyCondition = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === 'Ready');

/**
 * Splits the pods as kube's groupPods: ignored (being deleted or Failed), unready (Pending, or —
 * for cpu — not ready within the initialisation period, or never ready since it started), and
 * missing (no sample).
 */
export function groupPods(pods: Pod[], samples: Map<string, PodSample>, resource: string, nowMs: number): { ready: Set<string>; unready: Set<string>; missing: Set<string>; ignored: Set<string> } {
  const ready = new Set<string>();
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const sample = samples.get(name);
    if (!sample) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const cond = readyCondition(pod);
      const start = pod.status?.startTime ? Date.parse(pod.status.startTime) : NaN;
      let isUnready: boolean;
      if (!cond || Number.isNaN(start)) isUnready = true;
      else {
        const transition = cond.lastTransitionTime ? Date.parse(cond.lastTransitionTime) : 0;
        if (start + CPU_INITIALIZATION_PERIOD_MS > nowMs) isUnready = cond.status === 'False' || sample.timestamp < transition + sample.windowMs;
        else isUnready = cond.status === 'False' && start + INITIAL_READINESS_DELAY_MS > transition;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready.add(name);
  }
  return { ready, unready, missing, ignored };
}

/** The sum of a resource's requests over a pod's containers (milli-units); throws kube's message when one has none. */
export function podRequest(pod: Pod, resource: string): number {
  let sum = 0;
  for (const c of pod.spec?.containers ?? []) {
    const v = milliValue(c.resources?.requests?.[resource]);
    if (v === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
    sum += v;
  }
  return sum;
}

function ratioOf(values: Map<string, number>, requests: Map<string, number>, target: ResourceTarget): { ratio: number; utilization?: number; rawAverage: number } {
  let usage = 0;
  let requested = 0;
  for (const [name, v] of values) {
    usage += v;
    requested += requests.get(name) ?? 0;
  }
  const rawAverage = values.size ? Math.trunc(usage / values.size) : 0;
  if ('utilization' in target) {
    if (requested === 0) throw new Error('no metrics returned matched known pods');
    const utilization = Math.trunc((usage * 100) / requested);
    return { ratio: utilization / target.utilization, utilization, rawAverage };
  }
  return { ratio: usage / (target.averageMilli * values.size), rawAverage };
}

/**
 * The replicas a Resource metric asks for (GetResourceReplicas / GetRawResourceReplicas).
 * Errors: no pod sample left ("did not receive metrics for targeted pods (pods might be
 * unready)"), a container without a request for a Utilization target.
 */
export function resourceReplicas(currentReplicas: number, pods: Pod[], samples: Map<string, PodSample>, resource: string, target: ResourceTarget, nowMs: number, tolerance = DEFAULT_TOLERANCE): ReplicaProposal {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const { ready, unready, missing } = groupPods(pods, samples, resource, nowMs);
  const values = new Map<string, number>();
  for (const name of ready) values.set(name, samples.get(name)!.milli);
  const requests = new Map<string, number>();
  if ('utilization' in target) for (const pod of pods) requests.set(pod.metadata?.name ?? '', podRequest(pod, resource));
  if (values.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const first = ratioOf(values, requests, target);
  const scaleUpWithUnready = unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= tolerance) return { replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage };
    return { replicas: Math.ceil(first.ratio * values.size), utilization: first.utilization, rawAverage: first.rawAverage };
  }
  for (const name of missing) {
    if (first.ratio < 1) {
      // Missing pods are taken as using exactly the target (the max of 100 % and the target, as kube).
      if ('utilization' in target) values.set(name, Math.trunc(((requests.get(name) ?? 0) * Math.max(100, target.utilization)) / 100));
      else values.set(name, target.averageMilli);
    } else values.set(name, 0);
  }
  if (scaleUpWithUnready) for (const name of unready) values.set(name, 0);
  const next = ratioOf(values, requests, target);
  if (Math.abs(1 - next.ratio) <= tolerance || (first.ratio < 1 && next.ratio > 1) || (first.ratio > 1 && next.ratio < 1)) {
    return { replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage };
  }
  const replicas = Math.ceil(next.ratio * values.size);
  if ((next.ratio < 1 && replicas > currentReplicas) || (next.ratio > 1 && replicas < currentReplicas)) {
    return { replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage };
  }
  return { replicas, utilization: first.utilization, rawAverage: first.rawAverage };
}
