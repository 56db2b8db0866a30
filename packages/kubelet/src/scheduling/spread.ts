/**
 * PodTopologySpread: the filter (DoNotSchedule constraints: skew = matching pods in the node's
 * domain + self − the smallest domain's count, 0 when fewer domains than minDomains) and the
 * score (ScheduleAnyway constraints), counted per topology domain once per decision, with
 * nodeAffinityPolicy (Honor by default) and nodeTaintsPolicy (Ignore by default).
 */
import { labelSelectorFromObject, type LabelSelector } from '@kplane/api';
import { findUntoleratedTaint, matchesNodeAffinity, type kinds } from '@kplane/runtime';
import type { ClusterState, NodeInfo, PodInfo } from './cluster.js';
import type { FilterFailure } from './node-plugins.js';
import { MAX_NODE_SCORE } from './resources.js';

/** The reasons of the PodTopologySpread filter. */
export const SPREAD_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const SPREAD_MISSING_LABEL = `${SPREAD_NOT_MATCH} (missing required label)`;

const HOSTNAME = 'kubernetes.io/hostname';

/** A constraint as the plugin uses it. */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

/** The pod's constraints with one whenUnsatisfiable, matchLabelKeys merged into the selector. */
export function spreadConstraints(pod: kinds.Pod, when: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  const labels = pod.metadata?.labels ?? {};
  return (pod.spec?.topologySpreadConstraints ?? [])
    .filter((c) => c.whenUnsatisfiable === when)
    .map((c) => {
      let selector: LabelSelector;
      try {
        const extra = (c.matchLabelKeys ?? []).filter((k) => k in labels).map((k) => ({ key: k, operator: 'In', values: [labels[k]!] }));
        const sel = c.labelSelector ? { ...c.labelSelector, matchExpressions: [...(c.labelSelector.matchExpressions ?? []), ...extra] } : undefined;
        selector = labelSelectorFromObject(sel as Parameters<typeof labelSelectorFromObject>[0]);
      } catch {
        selector = labelSelectorFromObject(null);
      }
      return { maxSkew: c.maxSkew, topologyKey: c.topologyKey, selector, minDomains: c.minDomains ?? 1, honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor', honorTaints: c.nodeTaintsPolicy === 'Honor' };
    });
}

/** Does the node count for a constraint (its inclusion policies)? */
function included(pod: kinds.Pod, c: SpreadConstraint, node: NodeInfo, affinityOk: () => boolean): boolean {
  if (c.honorAffinity && !affinityOk()) return false;
  if (c.honorTaints && findUntoleratedTaint(node.node.spec?.taints, pod.spec?.tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) return false;
  return true;
}

const hasAllKeys = (node: NodeInfo, cs: SpreadConstraint[]) => cs.every((c) => node.labels[c.topologyKey] !== undefined);

/**
 * Counts, per constraint and domain value, the pods matching its selector in the pod's
 * namespace (not terminating) on the nodes that count; domains of counting nodes without
 * matching pods are there with 0.
 */
function countDomains(pod: PodInfo, cluster: ClusterState, cs: SpreadConstraint[], counted: (node: NodeInfo) => boolean): Map<string, number>[] {
  const counts = cs.map(() => new Map<string, number>());
  const eligible = new Map<string, boolean[]>();
  for (const node of cluster.nodes.values()) {
    if (!counted(node) || !hasAllKeys(node, cs)) continue;
    let affinity: boolean | undefined;
    const affinityOk = () => (affinity ??= matchesNodeAffinity(pod.pod, node.node));
    const flags = cs.map((c) => included(pod.pod, c, node, affinityOk));
    eligible.set(node.name, flags);
    cs.forEach((c, i) => {
      if (!flags[i]) return;
      const v = node.labels[c.topologyKey]!;
      if (!counts[i]!.has(v)) counts[i]!.set(v, 0);
    });
  }
  for (const p of cluster.byNamespace.get(pod.namespace) ?? []) {
    if (p.terminating) continue;
    const flags = eligible.get(p.node);
    if (!flags) continue;
    const node = cluster.nodes.get(p.node)!;
    cs.forEach((c, i) => {
      if (flags[i] && c.selector.matches(p.labels)) {
        const v = node.labels[c.topologyKey]!;
        counts[i]!.set(v, (counts[i]!.get(v) ?? 0) + 1);
      }
    });
  }
  return counts;
}

/** The per-decision counts of the filter (PreFilter), adjustable as preemption removes pods. */
export class TopologySpreadFilter {
  private readonly constraints: SpreadConstraint[];
  private readonly counts: Map<string, number>[];

  constructor(
    private readonly pod: PodInfo,
    cluster: ClusterState,
  ) {
    this.constraints = spreadConstraints(pod.pod, 'DoNotSchedule');
    this.counts = this.constraints.length ? countDomains(pod, cluster, this.constraints, () => true) : [];
  }

  /** Counts a pod added to (1) or removed from (-1) a node, as preemption's dry run does. */
  update(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (p.namespace !== this.pod.namespace || p.terminating) return;
    this.constraints.forEach((c, i) => {
      const v = node.labels[c.topologyKey];
      if (v === undefined || !this.counts[i]!.has(v) || !c.selector.matches(p.labels)) return;
      this.counts[i]!.set(v, this.counts[i]!.get(v)! + sign);
    });
  }

  /** The filter on one node. */
  filter(node: NodeInfo): FilterFailure | undefined {
    if (this.constraints.length === 0) return undefined;
    if (!hasAllKeys(node, this.constraints)) return { reasons: [SPREAD_MISSING_LABEL], unresolvable: true };
    for (let i = 0; i < this.constraints.length; i++) {
      const c = this.constraints[i]!;
      const domains = this.counts[i]!;
      let min = domains.size < c.minDomains ? 0 : Infinity;
      if (min !== 0) for (const n of domains.values()) if (n < min) min = n;
      if (min === Infinity) min = 0;
      const self = c.selector.matches(this.pod.labels) ? 1 : 0;
      const skew = (domains.get(node.labels[c.topologyKey]!) ?? 0) + self - min;
      if (skew > c.maxSkew) return { reasons: [SPREAD_NOT_MATCH], unresolvable: false };
    }
    return undefined;
  }
}

/**
 * PodTopologySpread's score of each feasible node (ScheduleAnyway constraints), normalized so
 * that the node with the fewest matching pods in its domains scores 100; nodes missing a
 * topology key score 0; all 0 when the pod has no such constraint.
 */
export function topologySpreadScores(pod: PodInfo, cluster: ClusterState, nodes: NodeInfo[]): number[] {
  const cs = spreadConstraints(pod.pod, 'ScheduleAnyway');
  if (cs.length === 0) return nodes.map(() => 0);
  const feasible = new Set(nodes.map((n) => n.name));
  const ignored = new Set(nodes.filter((n) => !hasAllKeys(n, cs)).map((n) => n.name));
  // Domains come from the feasible nodes; pods are counted on every node that counts.
  const domains = cs.map((c) => new Set(nodes.filter((n) => !ignored.has(n.name)).map((n) => n.labels[c.topologyKey]!)));
  const counts = countDomains(pod, cluster, cs, () => true);
  const weights = cs.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? feasible.size - ignored.size : domains[i]!.size) + 2));
  const raw = nodes.map((n) => {
    if (ignored.has(n.name)) return -1;
    let score = 0;
    cs.forEach((c, i) => {
      const cnt = counts[i]!.get(n.labels[c.topologyKey]!) ?? 0;
      score += cnt * weights[i]! + (c.maxSkew - 1);
    });
    return Math.round(score);
  });
  let min = Infinity;
  let max = 0;
  for (const s of raw) {
    if (s < 0) continue;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  return raw.map((s) => (s < 0 ? 0 : max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max + min - s)) / max)));
}
