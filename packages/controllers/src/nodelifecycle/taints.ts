/**
 * Node taints the node lifecycle controller owns, and toleration matching (the scheduler's and
 * the taint-eviction controller's rule).
 */
import type { Informer, Node, Pod } from '@kplane/runtime';

/** A taint of a Node's spec.taints. */
export type Taint = NonNullable<NonNullable<Node['spec']>['taints']>[number];
/** A toleration of a Pod's spec.tolerations. */
export type Toleration = NonNullable<NonNullable<Pod['spec']>['tolerations']>[number];

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';

/** The pod informer index of pods by spec.nodeName. */
export const POD_NODE_INDEX = 'spec.nodeName';

/** Adds the pods-by-node index to a pod informer (once; the lifecycle controllers share it). */
export function ensurePodNodeIndex(pods: Informer<Pod>): void {
  try {
    pods.store.addIndexer(POD_NODE_INDEX, (pod: Pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
  } catch {
    // Already added by the other lifecycle controller: same function.
  }
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

/** Condition status of `type` in a Node's status, or undefined. */
export function nodeConditionStatus(node: Node, type: string): string | undefined {
  return node.status?.conditions?.find((c) => c.type === type)?.status;
}

/**
 * The taints this controller manages that `node` should carry now, as kube's NoSchedule and
 * NoExecute tainting passes decide them: not-ready or unreachable (both effects) from the Ready
 * condition, the pressure taints from their conditions, unschedulable from spec.unschedulable.
 */
export function desiredManagedTaints(node: Node): Taint[] {
  const out: Taint[] = [];
  const ready = nodeConditionStatus(node, 'Ready');
  if (ready === 'False') out.push({ key: TAINT_NOT_READY, effect: 'NoSchedule' }, { key: TAINT_NOT_READY, effect: 'NoExecute' });
  else if (ready === 'Unknown') out.push({ key: TAINT_UNREACHABLE, effect: 'NoSchedule' }, { key: TAINT_UNREACHABLE, effect: 'NoExecute' });
  if (nodeConditionStatus(node, 'MemoryPressure') === 'True') out.push({ key: TAINT_MEMORY_PRESSURE, effect: 'NoSchedule' });
  if (nodeConditionStatus(node, 'DiskPressure') === 'True') out.push({ key: TAINT_DISK_PRESSURE, effect: 'NoSchedule' });
  if (nodeConditionStatus(node, 'PIDPressure') === 'True') out.push({ key: TAINT_PID_PRESSURE, effect: 'NoSchedule' });
  if (nodeConditionStatus(node, 'NetworkUnavailable') === 'True') out.push({ key: TAINT_NETWORK_UNAVAILABLE, effect: 'NoSchedule' });
  if (node.spec?.unschedulable) out.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  return out;
}

const MANAGED: readonly Taint[] = [
  { key: TAINT_NOT_READY, effect: 'NoSchedule' },
  { key: TAINT_NOT_READY, effect: 'NoExecute' },
  { key: TAINT_UNREACHABLE, effect: 'NoSchedule' },
  { key: TAINT_UNREACHABLE, effect: 'NoExecute' },
  { key: TAINT_MEMORY_PRESSURE, effect: 'NoSchedule' },
  { key: TAINT_DISK_PRESSURE, effect: 'NoSchedule' },
  { key: TAINT_PID_PRESSURE, effect: 'NoSchedule' },
  { key: TAINT_NETWORK_UNAVAILABLE, effect: 'NoSchedule' },
  { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' },
];

/**
 * The node's taints with the managed ones made as `desiredManagedTaints` says: taints already
 * there are kept as they are (their timeAdded too), missing ones are added (NoExecute ones
 * stamped `now`), the others removed; taints of other keys are left alone. Undefined when
 * nothing changes.
 */
export function reconcileTaints(node: Node, now: string): Taint[] | undefined {
  const current = (node.spec?.taints ?? []) as Taint[];
  const desired = desiredManagedTaints(node);
  const next = current.filter((t) => !MANAGED.some((m) => sameTaint(m, t)) || desired.some((d) => sameTaint(d, t)));
  for (const d of desired) if (!next.some((t) => sameTaint(t, d))) next.push(d.effect === 'NoExecute' ? { ...d, timeAdded: now } : d);
  return next.length === current.length && next.every((t, i) => t === current[i]) ? undefined : next;
}

/** Does the toleration tolerate the taint (kube's ToleratesTaint)? */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator || 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/**
 * How long a pod may stay on a node with these NoExecute taints: 0 when one is not tolerated,
 * Infinity when every taint is tolerated for ever, else the least tolerationSeconds among the
 * tolerations used (kube's getMinTolerationTime: a negative one counts as 0), in ms.
 */
export function minTolerationMs(tolerations: readonly Toleration[], taints: readonly Taint[]): number {
  let min = Infinity;
  for (const taint of taints) {
    const used = tolerations.find((t) => toleratesTaint(t, taint));
    if (!used) return 0;
    if (used.tolerationSeconds === undefined || used.tolerationSeconds === null) continue;
    min = Math.min(min, Math.max(0, used.tolerationSeconds) * 1000);
  }
  return min;
}
