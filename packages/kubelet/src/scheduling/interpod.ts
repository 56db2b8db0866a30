/**
 * InterPodAffinity: the filter (existing pods' required anti-affinity, the pod's required
 * anti-affinity and affinity, counted per topology domain once per decision) and the score
 * (preferred terms both ways, existing pods' required affinity at weight 1), as kube-scheduler.
 */
import type { AffinityTerm, ClusterState, NodeInfo, PodInfo } from './cluster.js';
import { termMatches } from './cluster.js';
import type { FilterFailure } from './node-plugins.js';
import { MAX_NODE_SCORE } from './resources.js';

/** The reasons of the InterPodAffinity filter. */
export const EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ANTI_AFFINITY_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

const pair = (key: string, value: string) => `${key}\u0000${value}`;

function bump(m: Map<string, number>, key: string, by: number): void {
  const v = (m.get(key) ?? 0) + by;
  if (v === 0) m.delete(key);
  else m.set(key, v);
}

/** The per-decision counts of the filter (PreFilter), adjustable as preemption removes pods. */
export class InterPodAffinityFilter {
  /** Domains holding an existing pod whose required anti-affinity matches the incoming pod. */
  private readonly existingAnti = new Map<string, number>();
  private readonly existingAntiKeys = new Map<string, number>();
  /** Domains holding pods matching the incoming pod's required affinity / anti-affinity terms. */
  private readonly affinity = new Map<string, number>();
  private readonly anti = new Map<string, number>();
  /** Whether the filter has anything to check. */
  readonly active: boolean;

  constructor(
    private readonly pod: PodInfo,
    private readonly cluster: ClusterState,
  ) {
    const hasOwn = pod.requiredAffinity.length + pod.requiredAntiAffinity.length > 0;
    for (const p of cluster.withRequiredAntiAffinity) {
      const node = cluster.nodes.get(p.node);
      if (node) this.countExisting(p, node, 1);
    }
    if (hasOwn) {
      const namespaces = this.ownNamespaces();
      for (const p of cluster.podsIn(namespaces)) this.countOwn(p, cluster.nodes.get(p.node)!, 1);
    }
    this.active = hasOwn || this.existingAnti.size > 0;
  }

  /** The namespaces the pod's required terms can match (undefined when a namespaceSelector may match any). */
  private ownNamespaces(): Set<string> | undefined {
    const out = new Set<string>();
    for (const t of [...this.pod.requiredAffinity, ...this.pod.requiredAntiAffinity]) {
      if (t.namespaceSelector) return undefined;
      for (const ns of t.namespaces) out.add(ns);
    }
    return out;
  }

  private countExisting(p: PodInfo, node: NodeInfo, sign: number): void {
    const nsLabels = this.cluster.namespaceLabels;
    for (const t of p.requiredAntiAffinity) {
      const v = node.labels[t.topologyKey];
      if (v === undefined || !termMatches(t, this.pod.namespace, this.pod.labels, nsLabels)) continue;
      bump(this.existingAnti, pair(t.topologyKey, v), sign);
      bump(this.existingAntiKeys, t.topologyKey, sign);
    }
  }

  private countOwn(p: PodInfo, node: NodeInfo, sign: number): void {
    const nsLabels = this.cluster.namespaceLabels;
    for (const [terms, counts] of [[this.pod.requiredAffinity, this.affinity], [this.pod.requiredAntiAffinity, this.anti]] as const) {
      for (const t of terms) {
        const v = node.labels[t.topologyKey];
        if (v !== undefined && termMatches(t, p.namespace, p.labels, nsLabels)) bump(counts, pair(t.topologyKey, v), sign);
      }
    }
  }

  /** Counts a pod added to (1) or removed from (-1) a node, as preemption's dry run does. */
  update(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (p.requiredAntiAffinity.length) this.countExisting(p, node, sign);
    if (this.pod.requiredAffinity.length + this.pod.requiredAntiAffinity.length) this.countOwn(p, node, sign);
  }

  /** The filter on one node: the pod's affinity, its anti-affinity, then existing pods' anti-affinity. */
  filter(node: NodeInfo): FilterFailure | undefined {
    if (!this.active) return undefined;
    if (!this.satisfiesAffinity(node)) return { reasons: [AFFINITY_NOT_MATCH], unresolvable: true };
    for (const t of this.pod.requiredAntiAffinity) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && (this.anti.get(pair(t.topologyKey, v)) ?? 0) > 0) return { reasons: [ANTI_AFFINITY_NOT_MATCH], unresolvable: false };
    }
    for (const key of this.existingAntiKeys.keys()) {
      const v = node.labels[key];
      if (v !== undefined && (this.existingAnti.get(pair(key, v)) ?? 0) > 0) return { reasons: [EXISTING_ANTI_AFFINITY], unresolvable: false };
    }
    return undefined;
  }

  private satisfiesAffinity(node: NodeInfo): boolean {
    if (this.pod.requiredAffinity.length === 0) return true;
    let exist = true;
    for (const t of this.pod.requiredAffinity) {
      const v = node.labels[t.topologyKey];
      if (v === undefined) return false;
      if ((this.affinity.get(pair(t.topologyKey, v)) ?? 0) <= 0) exist = false;
    }
    if (exist) return true;
    // The first pod of a group with affinity to itself may go anywhere, while no pod matches.
    const nsLabels = this.cluster.namespaceLabels;
    return this.affinity.size === 0 && this.pod.requiredAffinity.every((t) => termMatches(t, this.pod.namespace, this.pod.labels, nsLabels));
  }
}

/**
 * InterPodAffinity's score of each feasible node, normalized to 0..100 (min-max); all 0 when
 * no term applies.
 */
export function interPodAffinityScores(pod: PodInfo, cluster: ClusterState, nodes: NodeInfo[]): number[] {
  const hasConstraints = pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0;
  const topo = new Map<string, Map<string, number>>();
  const add = (t: AffinityTerm, node: NodeInfo, weight: number) => {
    const v = node.labels[t.topologyKey];
    if (v === undefined) return;
    let m = topo.get(t.topologyKey);
    if (!m) topo.set(t.topologyKey, (m = new Map()));
    m.set(v, (m.get(v) ?? 0) + weight);
  };
  const nsLabels = cluster.namespaceLabels;
  const process = (existing: PodInfo) => {
    const node = cluster.nodes.get(existing.node);
    if (!node || Object.keys(node.labels).length === 0) return;
    for (const t of pod.preferredAffinity) if (termMatches(t, existing.namespace, existing.labels, nsLabels)) add(t, node, t.weight);
    for (const t of pod.preferredAntiAffinity) if (termMatches(t, existing.namespace, existing.labels, nsLabels)) add(t, node, -t.weight);
    for (const t of existing.requiredAffinity) if (termMatches(t, pod.namespace, pod.labels, nsLabels)) add(t, node, 1);
    for (const t of existing.preferredAffinity) if (termMatches(t, pod.namespace, pod.labels, nsLabels)) add(t, node, t.weight);
    for (const t of existing.preferredAntiAffinity) if (termMatches(t, pod.namespace, pod.labels, nsLabels)) add(t, node, -t.weight);
  };
  if (hasConstraints) for (const p of cluster.podsIn(undefined)) process(p);
  else for (const p of cluster.withAffinity) process(p);
  if (topo.size === 0) return nodes.map(() => 0);
  const raw = nodes.map((n) => {
    let s = 0;
    for (const [key, values] of topo) {
      const v = n.labels[key];
      if (v !== undefined) s += values.get(v) ?? 0;
    }
    return s;
  });
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return raw.map((s) => (diff > 0 ? Math.floor((MAX_NODE_SCORE * (s - min)) / diff) : 0));
}
