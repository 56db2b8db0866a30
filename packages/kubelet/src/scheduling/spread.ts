/**
 * PodTopologySpread: the filter (DoNotSchedule constraints: skew = matching pods in the node's
 * domain + self − the smallest domain's count, 0 when fewer domains than minDomains) and the
 * score (ScheduleAnyway constraints), counted per topology domain once per decision, with
 * nodeAffinityPolicy (Honor by default) and nodeTaintsPolicy (Ignore by default).
 */
import { labelSelectorFromObject, type LabelSelector } from '@kplane/api';
import type { kinds } from '@kplane/runtime';
import { findUntoleratedTaint, matchesNodeAffinity } from '@kplane/runtime/internal';
import type { ClusterState, DerivedCount, NodeInfo, PodInfo } from './cluster.js';
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

const hasAllKeys = (node: NodeInfo, keys: string[]) => keys.every((k) => node.labels[k] !== undefined);

/**
 * The pods matching one constraint's selector in a namespace (not terminating), per domain of
 * the nodes that count (all the group's topology keys present, inclusion policies met; their
 * domains are there with 0), kept up to date by the cluster state.
 */
class SpreadCount implements DerivedCount {
  readonly counts = new Map<string, number>();
  private readonly eligible = new Set<string>();

  constructor(
    private readonly namespace: string,
    private readonly c: SpreadConstraint,
    keys: string[],
    pod: kinds.Pod,
    cluster: ClusterState,
  ) {
    const spec = pod.spec;
    const untolerated = (t: kinds.Taint) => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
    for (const node of cluster.nodeList()) {
      if (!hasAllKeys(node, keys)) continue;
      if (c.honorAffinity && !matchesNodeAffinity(pod, node.node)) continue;
      if (c.honorTaints && findUntoleratedTaint(node.node.spec?.taints, spec?.tolerations, untolerated)) continue;
      this.eligible.add(node.name);
      const v = node.labels[c.topologyKey]!;
      if (!this.counts.has(v)) this.counts.set(v, 0);
    }
    for (const p of cluster.byNamespace.get(namespace) ?? []) {
      const node = cluster.nodes.get(p.node);
      if (node) this.apply(p, node, 1);
    }
  }

  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (p.namespace !== this.namespace || p.terminating || !this.eligible.has(node.name) || !this.c.selector.matches(p.labels)) return;
    const v = node.labels[this.c.topologyKey]!;
    this.counts.set(v, (this.counts.get(v) ?? 0) + sign);
  }
}

/** The domain counts of each constraint of a group, from the cluster's derived counts. */
function countDomains(pod: PodInfo, cluster: ClusterState, cs: SpreadConstraint[]): Map<string, number>[] {
  const keys = [...new Set(cs.map((c) => c.topologyKey))].sort();
  const spec = pod.pod.spec;
  const affinity = JSON.stringify([spec?.nodeSelector ?? {}, spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null]);
  const tolerations = JSON.stringify(spec?.tolerations ?? []);
  return cs.map((c) => {
    const key = ['spread', pod.namespace, c.selector.nothing ? '!' : c.selector.toString(), c.topologyKey, keys.join(','), c.honorAffinity ? affinity : '', c.honorTaints ? tolerations : ''].join('\u0000');
    return cluster.derivedCount(key, () => new SpreadCount(pod.namespace, c, keys, pod.pod, cluster)).counts;
  });
}

/** The per-decision counts of the filter (PreFilter), adjustable as preemption removes pods. */
export class TopologySpreadFilter {
  private readonly constraints: SpreadConstraint[];
  private readonly keys: string[];
  private counts: Map<string, number>[];
  private copied = false;
  private mins: number[] | undefined;

  constructor(
    private readonly pod: PodInfo,
    cluster: ClusterState,
  ) {
    this.constraints = spreadConstraints(pod.pod, 'DoNotSchedule');
    this.keys = this.constraints.map((c) => c.topologyKey);
    this.counts = this.constraints.length ? countDomains(pod, cluster, this.constraints) : [];
  }

  /** Counts a pod added to (1) or removed from (-1) a node, as preemption's dry run does. */
  update(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (p.namespace !== this.pod.namespace || p.terminating || this.constraints.length === 0) return;
    if (!this.copied) {
      // The counts are shared with the cluster state: copy them before changing them.
      this.counts = this.counts.map((m) => new Map(m));
      this.copied = true;
    }
    this.mins = undefined;
    this.constraints.forEach((c, i) => {
      const v = node.labels[c.topologyKey];
      if (v === undefined || !this.counts[i]!.has(v) || !c.selector.matches(p.labels)) return;
      this.counts[i]!.set(v, this.counts[i]!.get(v)! + sign);
    });
  }

  /** The smallest count of each constraint's domains (0 with fewer domains than minDomains). */
  private minimums(): number[] {
    return (this.mins ??= this.constraints.map((c, i) => {
      const domains = this.counts[i]!;
      if (domains.size < c.minDomains) return 0;
      let min = Infinity;
      for (const n of domains.values()) if (n < min) min = n;
      return min === Infinity ? 0 : min;
    }));
  }

  /** The filter on one node. */
  filter(node: NodeInfo): FilterFailure | undefined {
    if (this.constraints.length === 0) return undefined;
    if (!hasAllKeys(node, this.keys)) return { reasons: [SPREAD_MISSING_LABEL], unresolvable: true };
    const mins = this.minimums();
    for (let i = 0; i < this.constraints.length; i++) {
      const c = this.constraints[i]!;
      const self = c.selector.matches(this.pod.labels) ? 1 : 0;
      const skew = (this.counts[i]!.get(node.labels[c.topologyKey]!) ?? 0) + self - mins[i]!;
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
  const keys = cs.map((c) => c.topologyKey);
  const ignored = new Set(nodes.filter((n) => !hasAllKeys(n, keys)).map((n) => n.name));
  // Domains come from the feasible nodes; pods are counted on every node that counts.
  const domains = cs.map((c) => new Set(nodes.filter((n) => !ignored.has(n.name)).map((n) => n.labels[c.topologyKey]!)));
  const counts = countDomains(pod, cluster, cs);
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
