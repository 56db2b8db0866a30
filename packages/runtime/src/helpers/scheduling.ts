/**
 * Scheduling predicates shared by the scheduler and the controllers that place pods themselves
 * (the DaemonSet controller), as Kubernetes' component-helpers/scheduling/corev1: does a
 * toleration tolerate a taint, which taint of a node a pod does not tolerate, and does a pod's
 * nodeSelector and required node affinity match a node.
 */
import type { Node, Pod, Taint, Toleration } from '../kinds/builtin/index.js';

/** Does a toleration tolerate a taint (v1helper's ToleratesTaint)? */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator ?? 'Equal';
  if (op === 'Exists') return true;
  return op === 'Equal' && (t.value ?? '') === (taint.value ?? '');
}

/**
 * The first taint, among those `include` accepts, that no toleration tolerates
 * (FindMatchingUntoleratedTaint); undefined when all are tolerated.
 */
export function findUntoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined, include: (t: Taint) => boolean = () => true): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!include(taint)) continue;
    if (!(tolerations ?? []).some((t) => tolerates(t, taint))) return taint;
  }
  return undefined;
}

/**
 * The node's taints plus `node.kubernetes.io/not-ready` (or `unreachable` when Ready is
 * Unknown), NoSchedule, when its Ready condition is not True and it has neither taint: the taint
 * kube's node lifecycle controller would add, which kplane (without that controller) infers, so
 * that the scheduler and the DaemonSet controller judge a NotReady node alike.
 */
export function effectiveTaints(node: Node): Taint[] {
  const taints = [...(node.spec?.taints ?? [])];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' && !taints.some((t) => t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable')) {
    taints.push({ key: ready?.status === 'Unknown' ? 'node.kubernetes.io/unreachable' : 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
  }
  return taints;
}

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

interface RequiredNodeAffinity {
  nodeSelectorTerms?: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }[];
}

function requirementMatches(r: Requirement, src: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(src, r.key);
  const v = src[r.key];
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(v!);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(v!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const a = Number(v);
      const b = Number((r.values ?? [])[0]);
      if (!has || !Number.isInteger(a) || !Number.isInteger(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/**
 * nodeSelector and required node affinity (GetRequiredNodeAffinity(pod).Match(node)): every
 * nodeSelector label, and at least one non-empty term (its matchExpressions on labels and its
 * matchFields on `metadata.name` all true).
 */
export function matchesNodeAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution as RequiredNodeAffinity | undefined;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => matchesNodeSelectorTerm(t, node));
}

/**
 * Does one node selector term match a node (its matchExpressions on labels and its matchFields
 * on `metadata.name` all true)? An empty term matches nothing, as in Kubernetes.
 */
export function matchesNodeSelectorTerm(term: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }, node: Node): boolean {
  if ((term.matchExpressions?.length ?? 0) + (term.matchFields?.length ?? 0) === 0) return false;
  const labels = node.metadata?.labels ?? {};
  if (!(term.matchExpressions ?? []).every((r) => requirementMatches(r, labels))) return false;
  return (term.matchFields ?? []).every((r) => requirementMatches(r, { 'metadata.name': node.metadata?.name ?? '' }));
}
