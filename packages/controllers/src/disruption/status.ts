/**
 * The disruption controller's arithmetic (kube-controller-manager's pkg/controller/disruption):
 * the healthy pods a PodDisruptionBudget wants, the pods it has, the disruptedPods entries still
 * pending, and the status with its DisruptionAllowed condition.
 */
import { setStatusCondition, type Condition, type Pod, type PodDisruptionBudget, type PodDisruptionBudgetStatus } from '@kplane/runtime';

/** How long a pod the eviction API let go may stay before it counts as healthy again (kube's DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an integer as is, "N%" of `total` rounded up or down.
 * Throws for a string that is not a percentage.
 */
export function scaledValue(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const m = /^(-?[0-9]+)%$/.exec(value);
  if (!m) throw new Error(`invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${value}": invalid syntax`);
  const scaled = (parseInt(m[1]!, 10) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** What the budget asks of its pods: the expected count and the healthy ones it needs. */
export interface Desired {
  expectedCount: number;
  desiredHealthy: number;
}

/**
 * getExpectedPodCount: with maxUnavailable, or a percentage minAvailable, the expected count is
 * the pods' controllers' scale (`scale()`); with an integer minAvailable it is the pods' count.
 */
export async function expectedPodCount(pdb: PodDisruptionBudget, pods: readonly Pod[], scale: () => Promise<number>): Promise<Desired> {
  const spec = pdb.spec ?? {};
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expectedCount = await scale();
    const maxUnavailable = scaledValue(spec.maxUnavailable, expectedCount, true);
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable) };
  }
  const min = spec.minAvailable;
  if (typeof min === 'string') {
    const expectedCount = await scale();
    return { expectedCount, desiredHealthy: scaledValue(min, expectedCount, true) };
  }
  return { expectedCount: pods.length, desiredHealthy: typeof min === 'number' ? min : 0 };
}

/** buildDisruptedPodMap's result: the entries kept, when the next one expires, the pods overdue. */
export interface DisruptedPods {
  disrupted: Record<string, string>;
  /** When the earliest kept entry expires (ms), if any. */
  recheckAt?: number;
  /** Pods the eviction API let go more than DELETION_TIMEOUT_MS ago that are still there. */
  notDeleted: Pod[];
}

/** buildDisruptedPodMap: keeps the status.disruptedPods entries of live pods that are not yet overdue. */
export function buildDisruptedPods(pods: readonly Pod[], pdb: PodDisruptionBudget, now: number): DisruptedPods {
  const recorded = pdb.status?.disruptedPods ?? {};
  const out: DisruptedPods = { disrupted: {}, notDeleted: [] };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || !Object.hasOwn(recorded, name)) continue;
    const at = Date.parse(recorded[name]!);
    const expected = (Number.isNaN(at) ? 0 : at) + DELETION_TIMEOUT_MS;
    if (expected < now) {
      out.notDeleted.push(pod);
      continue;
    }
    if (out.recheckAt === undefined || expected < out.recheckAt) out.recheckAt = expected;
    out.disrupted[name] = recorded[name]!;
  }
  return out;
}

/** countHealthyPods: ready pods not being deleted nor recently let go by the eviction API. */
export function countHealthyPods(pods: readonly Pod[], disrupted: Record<string, string>, now: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    if (Object.hasOwn(disrupted, name) && Date.parse(disrupted[name]!) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** pdbhelper.UpdateDisruptionAllowedCondition: SufficientPods while disruptions are allowed, InsufficientPods otherwise. */
export function updateDisruptionAllowedCondition(status: PodDisruptionBudgetStatus, now: number): void {
  const conditions = (status.conditions ?? []) as Condition[];
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    conditions,
    { type: 'DisruptionAllowed', status: allowed ? 'True' : 'False', reason: allowed ? 'SufficientPods' : 'InsufficientPods', message: '', observedGeneration: status.observedGeneration ?? 0 },
    now,
  );
  status.conditions = conditions as PodDisruptionBudgetStatus['conditions'];
}

/** pdbhelper.ConditionsAreUpToDate. */
function conditionsAreUpToDate(status: PodDisruptionBudgetStatus): boolean {
  const c = (status.conditions ?? []).find((x) => x.type === 'DisruptionAllowed');
  if (!c || (c.observedGeneration ?? 0) !== (status.observedGeneration ?? 0)) return false;
  return status.disruptionsAllowed > 0 ? c.status === 'True' && c.reason === 'SufficientPods' : c.status === 'False' && c.reason === 'InsufficientPods';
}

const sameMap = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => (b ?? {})[k] === a![k]);
};

/**
 * updatePdbStatus: the status the budget should have (disruptionsAllowed = currentHealthy -
 * desiredHealthy, never below 0, 0 without expected pods), or undefined when it has it already.
 */
export function nextStatus(pdb: PodDisruptionBudget, currentHealthy: number, desired: Desired, disrupted: Record<string, string>, now: number): PodDisruptionBudgetStatus | undefined {
  let disruptionsAllowed = currentHealthy - desired.desiredHealthy;
  if (desired.expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const old = pdb.status;
  const generation = pdb.metadata?.generation ?? 0;
  if (
    old &&
    old.currentHealthy === currentHealthy &&
    old.desiredHealthy === desired.desiredHealthy &&
    old.expectedPods === desired.expectedCount &&
    old.disruptionsAllowed === disruptionsAllowed &&
    sameMap(disrupted, old.disruptedPods) &&
    (old.observedGeneration ?? 0) === generation &&
    conditionsAreUpToDate(old)
  ) {
    return undefined;
  }
  const status: PodDisruptionBudgetStatus = {
    observedGeneration: generation,
    ...(Object.keys(disrupted).length ? { disruptedPods: { ...disrupted } } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy: desired.desiredHealthy,
    expectedPods: desired.expectedCount,
    conditions: structuredClone(old?.conditions ?? []),
  };
  updateDisruptionAllowedCondition(status, now);
  return status;
}

/** failSafe: no disruption allowed, the DisruptionAllowed condition False with reason SyncFailed and the error. */
export function failSafeStatus(pdb: PodDisruptionBudget, message: string, now: number): PodDisruptionBudgetStatus {
  const status: PodDisruptionBudgetStatus = {
    ...structuredClone(pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 }),
    disruptionsAllowed: 0,
  };
  const conditions = structuredClone(status.conditions ?? []) as Condition[];
  setStatusCondition(conditions, { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: status.observedGeneration ?? 0 }, now);
  status.conditions = conditions as PodDisruptionBudgetStatus['conditions'];
  return status;
}
