/**
 * Pod predicates and the order in which a ReplicaSet gives up pods, as kube-controller-manager
 * (pkg/controller/controller_utils.go: IsPodActive, ActivePodsWithRanks with the
 * LogarithmicScaleDown rules, and pkg/api/v1/pod: IsPodReady, IsPodAvailable).
 */
import type { Pod } from '@kplane/runtime';

const parseTime = (t: string | undefined): number => {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : ms;
};

/** The Ready condition of a pod, if any. */
function readyCondition(pod: Pod) {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** "namespace/name" of a pod (the expectations key of a pod). */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** A pod that counts as a replica: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** True when the pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When a ready pod became ready (ms), or 0 when not ready or unknown. */
export function podReadyTime(pod: Pod): number {
  const c = readyCondition(pod);
  return c?.status === 'True' ? parseTime(c.lastTransitionTime) : 0;
}

/** Ready for at least `minReadySeconds` at `nowMs`. */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = parseTime(readyCondition(pod)?.lastTransitionTime);
  return since > 0 && since + minReadySeconds * 1000 < nowMs;
}

/** Milliseconds until a ready, not yet available pod becomes available (0: already available, or never by waiting). */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, nowMs: number): number {
  if (!isPodReady(pod) || minReadySeconds <= 0 || isPodAvailable(pod, minReadySeconds, nowMs)) return 0;
  const since = parseTime(readyCondition(pod)?.lastTransitionTime);
  if (since === 0) return 0;
  return Math.max(1, since + minReadySeconds * 1000 + 1 - nowMs);
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function maxRestarts(pod: Pod): number {
  let max = 0;
  for (const c of pod.status?.containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0);
  return max;
}

/** afterOrZero: a zero time sorts first; otherwise the later one does. */
function afterOrZero(t1: number, t2: number): boolean {
  if (t1 === 0 || t2 === 0) return t1 === 0;
  return t1 > t2;
}

/** The difference of the log2 buckets of how long ago t1 and t2 were (in nanoseconds, like Go's). */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const bucket = (t: number): number => {
    const ns = (now - t) * 1e6;
    return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
  };
  return bucket(t1) - bucket(t2);
}

function compareUid(a: Pod, b: Pod): boolean {
  return (a.metadata?.uid ?? '') < (b.metadata?.uid ?? '');
}

/** One pod and its rank (ready pods of related ReplicaSets on the same node). */
export interface RankedPod {
  pod: Pod;
  rank: number;
}

/**
 * True when `a` should be deleted before `b`: unscheduled < scheduled; Pending < Unknown <
 * Running; not ready < ready; higher rank (more related pods on its node) first; ready more
 * recently first (by log2 buckets of the ready time); more container restarts first; created
 * more recently first (log2 buckets), then by uid.
 */
export function deletesBefore(a: RankedPod, b: RankedPod, nowMs: number): boolean {
  const na = a.pod.spec?.nodeName ?? '';
  const nb = b.pod.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '';
  const pa = PHASE_ORDINAL[a.pod.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDINAL[b.pod.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa < pb;
  const ra = isPodReady(a.pod);
  const rb = isPodReady(b.pod);
  if (ra !== rb) return !ra;
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (ra && rb) {
    const t1 = podReadyTime(a.pod);
    const t2 = podReadyTime(b.pod);
    if (t1 !== t2) {
      if (t1 === 0 || t2 === 0) return afterOrZero(t1, t2);
      const diff = logarithmicRankDiff(t1, t2, nowMs);
      if (diff === 0) return compareUid(a.pod, b.pod);
      return diff < 0;
    }
  }
  const ca = maxRestarts(a.pod);
  const cb = maxRestarts(b.pod);
  if (ca !== cb) return ca > cb;
  const t1 = parseTime(a.pod.metadata?.creationTimestamp);
  const t2 = parseTime(b.pod.metadata?.creationTimestamp);
  if (t1 !== t2) {
    if (t1 === 0 || t2 === 0) return afterOrZero(t1, t2);
    const diff = logarithmicRankDiff(t1, t2, nowMs);
    if (diff === 0) return compareUid(a.pod, b.pod);
    return diff < 0;
  }
  return false;
}

/**
 * Ranks each pod by the number of active `related` pods on its node (pods of the ReplicaSets
 * that share this one's controller, so a Deployment's scale-down thins out doubled-up nodes).
 */
export function rankByRelatedPodsOnSameNode(pods: Pod[], related: Pod[]): RankedPod[] {
  const perNode = new Map<string, number>();
  for (const p of related) {
    if (!isPodActive(p)) continue;
    const node = p.spec?.nodeName ?? '';
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  return pods.map((pod) => ({ pod, rank: perNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
}

/** The `count` pods to delete first among `pods` (getPodsToDelete). */
export function podsToDelete(pods: Pod[], related: Pod[], count: number, nowMs: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const ranked = rankByRelatedPodsOnSameNode(pods, related);
  ranked.sort((a, b) => (deletesBefore(a, b, nowMs) ? -1 : deletesBefore(b, a, nowMs) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}
