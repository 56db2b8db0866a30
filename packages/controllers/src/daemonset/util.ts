/**
 * The pure parts of the DaemonSet controller (pkg/controller/daemon and its util package): which
 * nodes should run a daemon pod, the pods it creates (default tolerations, the node pinned by a
 * required node affinity on `metadata.name`), which pods are up to date, the rolling-update
 * budgets and the order daemon pods on one node are kept in.
 */
import { type Clock, type DaemonSet, type Node, type Pod, type PodSpec, type Toleration } from '@kplane/runtime';
import { effectiveTaints, findUntoleratedTaint, matchesNodeAffinity } from '@kplane/runtime/internal';

/** The label carrying the hash of the revision a daemon pod was created from (DefaultDaemonSetUniqueLabelKey). */
export const DAEMONSET_HASH_LABEL = 'controller-revision-hash';
/** The label carrying the template generation a daemon pod was created from (DaemonSetTemplateGenerationKey). */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** The DaemonSet annotation holding its template generation (apps/v1 DeprecatedTemplateGeneration). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** The field key a daemon pod's node affinity pins it with (NodeFieldSelectorKeyNodeName). */
export const NODE_NAME_FIELD = 'metadata.name';

/** The tolerations every daemon pod gets (AddOrUpdateDaemonPodTolerations), network-unavailable only with hostNetwork. */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const out: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) out.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return out;
}

/**
 * Adds the daemon tolerations to a pod spec (mutating it), as v1helper.AddOrUpdateTolerationInPodSpec:
 * a toleration with the same key, operator, value and effect is replaced, an identical one kept.
 */
export function addDaemonTolerations(spec: PodSpec): void {
  const list = [...(spec.tolerations ?? [])];
  for (const t of daemonTolerations(spec.hostNetwork === true)) {
    const i = list.findIndex((x) => x.key === t.key && (x.operator ?? 'Equal') === t.operator && (x.value ?? '') === (t.value ?? '') && x.effect === t.effect);
    if (i >= 0) list[i] = t;
    else list.push(t);
  }
  spec.tolerations = list;
}

/** The template generation from the DaemonSet's annotation, if it is a number (GetTemplateGeneration). */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^-?[0-9]+$/.test(v) ? Number(v) : undefined;
}

/**
 * The pod a DaemonSet would run on a node, for the scheduling predicates (NewPod): its template
 * with the default tolerations. The node name is left out; `nodeShouldRunDaemonPod` checks it.
 */
export function daemonPodForPredicates(ds: DaemonSet): Pod {
  const template = ds.spec?.template ?? {};
  const spec: PodSpec = { ...(template.spec ?? { containers: [] }) };
  addDaemonTolerations(spec);
  return { metadata: { ...(template.metadata ?? {}), namespace: ds.metadata?.namespace }, spec };
}

/** Whether a node should run a DaemonSet's pod, and whether one already there may stay. */
export interface NodePlacement {
  /** A daemon pod should be created there when none runs. */
  shouldRun: boolean;
  /** A daemon pod already there may keep running (it tolerates the NoExecute taints). */
  shouldContinueRunning: boolean;
}

const NO_EXECUTE = (t: { effect?: string }) => t.effect === 'NoExecute';
const NO_SCHEDULE_OR_EXECUTE = (t: { effect?: string }) => t.effect === 'NoExecute' || t.effect === 'NoSchedule';

/**
 * NodeShouldRunDaemonPod: the template's nodeName (if any) must be this node, its nodeSelector
 * and required node affinity must match; untolerated NoSchedule/NoExecute taints stop new pods,
 * and only untolerated NoExecute taints evict running ones. The taints are the node's effective
 * ones (a NotReady node counts as tainted not-ready NoSchedule, as the scheduler sees it).
 * `pod` is `daemonPodForPredicates(ds)`.
 */
export function nodeShouldRunDaemonPod(node: Node, pod: Pod): NodePlacement {
  const name = node.metadata?.name ?? '';
  const pinned = pod.spec?.nodeName;
  if (pinned && pinned !== name) return { shouldRun: false, shouldContinueRunning: false };
  if (!matchesNodeAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = effectiveTaints(node);
  const tolerations = pod.spec?.tolerations;
  if (findUntoleratedTaint(taints, tolerations, NO_SCHEDULE_OR_EXECUTE)) {
    return { shouldRun: false, shouldContinueRunning: !findUntoleratedTaint(taints, tolerations, NO_EXECUTE) };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** The node a daemon pod is for: spec.nodeName, else its `metadata.name In [node]` node affinity (GetTargetNodeName). */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const r of term.matchFields ?? []) {
      if (r.key === NODE_NAME_FIELD && r.operator === 'In') return r.values?.length === 1 ? r.values[0] : undefined;
    }
  }
  return undefined;
}

/** The pod template of new daemon pods (CreatePodTemplate): default tolerations, generation and hash labels. */
export function createPodTemplate(ds: DaemonSet, hash: string): NonNullable<NonNullable<DaemonSet['spec']>['template']> {
  const template = structuredClone(ds.spec?.template ?? {});
  const spec = (template.spec ??= { containers: [] });
  addDaemonTolerations(spec);
  const labels = { ...(template.metadata?.labels ?? {}) };
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash) labels[DAEMONSET_HASH_LABEL] = hash;
  template.metadata = { ...(template.metadata ?? {}), labels };
  return template;
}

/**
 * The pod's affinity with its required node affinity replaced by `metadata.name In [node]`
 * (ReplaceDaemonSetPodNodeNameNodeAffinity); preferred terms and pod (anti-)affinity are kept.
 */
export function pinToNode(spec: PodSpec, nodeName: string): void {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: NODE_NAME_FIELD, operator: 'In' as const, values: [nodeName] }] }] };
  const affinity = { ...(spec.affinity ?? {}) };
  affinity.nodeAffinity = { ...(affinity.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: required };
  spec.affinity = affinity;
}

/** Is the pod of the current template: its hash label, or (for old pods) its generation label (IsPodUpdated)? */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash.length > 0 && labels[DAEMONSET_HASH_LABEL] === hash;
  return hashMatches || templateMatches;
}

/**
 * An int-or-percent scaled to `total` (GetScaledValueFromIntOrPercent with rounding up);
 * throws on a string that is not a percentage.
 */
export function scaledValue(v: number | string | undefined, total: number): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(-?[0-9]+)%$/.exec(v);
  if (!m) throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** The most pods that may be unavailable during a rolling update (UnavailableCount). */
export function unavailableCount(ds: DaemonSet, desired: number): number {
  const strategy = ds.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate' || !strategy?.rollingUpdate) return 0;
  return scaledValue(strategy.rollingUpdate.maxUnavailable, desired);
}

/** The most nodes that may run an old and a new pod at once during a rolling update (SurgeCount). */
export function surgeCount(ds: DaemonSet, desired: number): number {
  const strategy = ds.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate' || !strategy?.rollingUpdate) return 0;
  return scaledValue(strategy.rollingUpdate.maxSurge, desired);
}

/** Does the DaemonSet surge (a non-zero maxSurge; AllowsSurge)? */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) !== 0;
  } catch {
    return false;
  }
}

const created = (p: Pod): number => {
  const t = p.metadata?.creationTimestamp;
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
};

/** podByCreationTimestampAndPhase: scheduled pods first, then oldest first, then by name. */
export function compareDaemonPods(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 0 : 1;
  const sb = b.spec?.nodeName ? 0 : 1;
  if (sa !== sb) return sa - sb;
  const ta = created(a);
  const tb = created(b);
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** A terminal pod (Succeeded or Failed). */
export function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** The failed-pod backoff of a DaemonSet controller (flowcontrol.Backoff, keyed by DaemonSet uid, generation and node). */
export interface FailedPodBackoffTracker {
  /**
   * For a failed pod found on `key`: in backoff (wait `delayMs` more), or not, in which case the
   * attempt is recorded and the next one waits twice as long (up to the maximum).
   */
  next(key: string): { inBackoff: boolean; delayMs: number };
  /** Forgets entries idle for more than twice the maximum delay (the backoff's GC). */
  gc(): void;
}

/** A failed-pod backoff on `clock`: first delay `initialMs`, doubling up to `maxMs`, reset after 2 × maxMs without failures. */
export function createFailedPodBackoff(clock: Pick<Clock, 'now'>, initialMs: number, maxMs: number): FailedPodBackoffTracker {
  const entries = new Map<string, { delayMs: number; last: number }>();
  return {
    next(key) {
      const now = clock.now();
      const entry = entries.get(key);
      if (entry && now - entry.last < entry.delayMs) return { inBackoff: true, delayMs: entry.delayMs - (now - entry.last) };
      const delayMs = !entry || now - entry.last > 2 * maxMs ? initialMs : Math.min(entry.delayMs * 2, maxMs);
      entries.set(key, { delayMs, last: now });
      return { inBackoff: false, delayMs };
    },
    gc() {
      const now = clock.now();
      for (const [k, e] of entries) if (now - e.last > 2 * maxMs) entries.delete(k);
    },
  };
}
