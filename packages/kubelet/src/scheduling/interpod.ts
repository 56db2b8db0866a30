/**
 * InterPodAffinity: the filter (the pod's required affinity and anti-affinity, then existing
 * pods' required anti-affinity) and the score (preferred terms both ways, existing pods'
 * required affinity at weight 1), as kube-scheduler. The counts per topology domain behind both
 * are derived counts of the cluster state, kept up to date as pods come and go.
 */
import type { AffinityTerm, ClusterState, DerivedCount, NamespaceLabels, NodeInfo, PodInfo } from './cluster.js';
import { termMatches, termsKey } from './cluster.js';
import type { FilterFailure } from './node-plugins.js';
import { MAX_NODE_SCORE } from './resources.js';

/** The reasons of the InterPodAffinity filter. */
export const EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ANTI_AFFINITY_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

/** Counts per topology key and value. */
type DomainCounts = Map<string, Map<string, number>>;

function bump(m: DomainCounts, key: string, value: string, by: number): void {
  let values = m.get(key);
  if (!values) m.set(key, (values = new Map()));
  const v = (values.get(value) ?? 0) + by;
  if (v !== 0) values.set(value, v);
  else {
    values.delete(value);
    if (values.size === 0) m.delete(key);
  }
}

const countOf = (m: DomainCounts, key: string, value: string): number => m.get(key)?.get(value) ?? 0;

const copyCounts = (m: DomainCounts): DomainCounts => new Map([...m].map(([k, v]) => [k, new Map(v)]));

/** Domains holding a placed pod whose required anti-affinity matches pods of one namespace and labels. */
class ExistingAntiCount implements DerivedCount {
  readonly counts: DomainCounts = new Map();

  constructor(
    private readonly namespace: string,
    private readonly labels: Record<string, string>,
    private readonly nsLabels: NamespaceLabels,
    cluster: ClusterState,
  ) {
    for (const p of cluster.withRequiredAntiAffinity) {
      const node = cluster.nodes.get(p.node);
      if (node) this.apply(p, node, 1);
    }
  }

  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    for (const t of p.requiredAntiAffinity) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, this.namespace, this.labels, this.nsLabels)) bump(this.counts, t.topologyKey, v, sign);
    }
  }
}

/** Domains holding placed pods matching some required affinity and anti-affinity terms. */
class TermsCount implements DerivedCount {
  readonly affinity: DomainCounts = new Map();
  readonly anti: DomainCounts = new Map();

  constructor(
    private readonly affinityTerms: AffinityTerm[],
    private readonly antiTerms: AffinityTerm[],
    private readonly nsLabels: NamespaceLabels,
    cluster: ClusterState,
  ) {
    const namespaces = new Set<string>();
    let all = false;
    for (const t of [...affinityTerms, ...antiTerms]) {
      if (t.namespaceSelector) all = true;
      for (const ns of t.namespaces) namespaces.add(ns);
    }
    for (const p of cluster.podsIn(all ? undefined : namespaces)) this.apply(p, cluster.nodes.get(p.node)!, 1);
  }

  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    for (const [terms, counts] of [[this.affinityTerms, this.affinity], [this.antiTerms, this.anti]] as const) {
      for (const t of terms) {
        const v = node.labels[t.topologyKey];
        if (v !== undefined && termMatches(t, p.namespace, p.labels, this.nsLabels)) bump(counts, t.topologyKey, v, sign);
      }
    }
  }
}

/** The per-decision counts of the filter (PreFilter), adjustable as preemption removes pods. */
export class InterPodAffinityFilter {
  /** Domains holding an existing pod whose required anti-affinity matches the incoming pod. */
  private existingAnti: DomainCounts;
  /** Domains holding pods matching the incoming pod's required affinity / anti-affinity terms. */
  private affinity: DomainCounts = new Map();
  private anti: DomainCounts = new Map();
  private copied = false;
  private readonly hasOwn: boolean;

  constructor(
    private readonly pod: PodInfo,
    private readonly cluster: ClusterState,
  ) {
    const nsLabels = cluster.namespaceLabels;
    const sig = JSON.stringify(pod.labels);
    this.existingAnti = cluster.withRequiredAntiAffinity.size
      ? cluster.derivedCount(`anti\u0000${pod.namespace}\u0000${sig}`, () => new ExistingAntiCount(pod.namespace, pod.labels, nsLabels, cluster)).counts
      : new Map();
    this.hasOwn = pod.requiredAffinity.length + pod.requiredAntiAffinity.length > 0;
    if (this.hasOwn) {
      const terms = `${termsKey(pod.requiredAffinity)}\u0000${termsKey(pod.requiredAntiAffinity)}`;
      const counts = cluster.derivedCount(`terms\u0000${terms}`, () => new TermsCount(pod.requiredAffinity, pod.requiredAntiAffinity, nsLabels, cluster));
      this.affinity = counts.affinity;
      this.anti = counts.anti;
    }
  }

  /** Counts a pod added to (1) or removed from (-1) a node, as preemption's dry run does. */
  update(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (!this.copied) {
      // The counts are shared with the cluster state: copy them before changing them.
      this.existingAnti = copyCounts(this.existingAnti);
      this.affinity = copyCounts(this.affinity);
      this.anti = copyCounts(this.anti);
      this.copied = true;
    }
    const nsLabels = this.cluster.namespaceLabels;
    for (const t of p.requiredAntiAffinity) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, this.pod.namespace, this.pod.labels, nsLabels)) bump(this.existingAnti, t.topologyKey, v, sign);
    }
    if (!this.hasOwn) return;
    for (const [terms, counts] of [[this.pod.requiredAffinity, this.affinity], [this.pod.requiredAntiAffinity, this.anti]] as const) {
      for (const t of terms) {
        const v = node.labels[t.topologyKey];
        if (v !== undefined && termMatches(t, p.namespace, p.labels, nsLabels)) bump(counts, t.topologyKey, v, sign);
      }
    }
  }

  /** The filter on one node: the pod's affinity, its anti-affinity, then existing pods' anti-affinity. */
  filter(node: NodeInfo): FilterFailure | undefined {
    if (!this.hasOwn && this.existingAnti.size === 0) return undefined;
    if (!this.satisfiesAffinity(node)) return { reasons: [AFFINITY_NOT_MATCH], unresolvable: true };
    for (const t of this.pod.requiredAntiAffinity) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && countOf(this.anti, t.topologyKey, v) > 0) return { reasons: [ANTI_AFFINITY_NOT_MATCH], unresolvable: false };
    }
    for (const [key, values] of this.existingAnti) {
      const v = node.labels[key];
      if (v !== undefined && (values.get(v) ?? 0) > 0) return { reasons: [EXISTING_ANTI_AFFINITY], unresolvable: false };
    }
    return undefined;
  }

  private satisfiesAffinity(node: NodeInfo): boolean {
    if (this.pod.requiredAffinity.length === 0) return true;
    let exist = true;
    for (const t of this.pod.requiredAffinity) {
      const v = node.labels[t.topologyKey];
      if (v === undefined) return false;
      if (countOf(this.affinity, t.topologyKey, v) <= 0) exist = false;
    }
    if (exist) return true;
    // The first pod of a group with affinity to itself may go anywhere, while no pod matches.
    const nsLabels = this.cluster.namespaceLabels;
    return this.affinity.size === 0 && this.pod.requiredAffinity.every((t) => termMatches(t, this.pod.namespace, this.pod.labels, nsLabels));
  }
}

/** Weights per topology domain from the pod's own preferred terms, over the placed pods they match. */
class OwnPreferredScore implements DerivedCount {
  readonly topo: DomainCounts = new Map();

  constructor(
    private readonly affinity: AffinityTerm[],
    private readonly anti: AffinityTerm[],
    private readonly nsLabels: NamespaceLabels,
    cluster: ClusterState,
  ) {
    const own = [...affinity, ...anti];
    const namespaces = own.some((t) => t.namespaceSelector) ? undefined : new Set(own.flatMap((t) => [...t.namespaces]));
    for (const p of cluster.podsIn(namespaces)) this.apply(p, cluster.nodes.get(p.node)!, 1);
  }

  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    for (const t of this.affinity) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, p.namespace, p.labels, this.nsLabels)) bump(this.topo, t.topologyKey, v, sign * t.weight);
    }
    for (const t of this.anti) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, p.namespace, p.labels, this.nsLabels)) bump(this.topo, t.topologyKey, v, -sign * t.weight);
    }
  }
}

/**
 * Weights per topology domain from placed pods' terms matching pods of one namespace and
 * labels: their required affinity at weight 1, their preferred affinity and anti-affinity.
 */
class ExistingTermsScore implements DerivedCount {
  readonly topo: DomainCounts = new Map();

  constructor(
    private readonly namespace: string,
    private readonly labels: Record<string, string>,
    private readonly nsLabels: NamespaceLabels,
    cluster: ClusterState,
  ) {
    for (const p of cluster.withAffinity) {
      const node = cluster.nodes.get(p.node);
      if (node) this.apply(p, node, 1);
    }
  }

  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    const add = (t: AffinityTerm, weight: number) => {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, this.namespace, this.labels, this.nsLabels)) bump(this.topo, t.topologyKey, v, sign * weight);
    };
    for (const t of p.requiredAffinity) add(t, 1);
    for (const t of p.preferredAffinity) add(t, t.weight);
    for (const t of p.preferredAntiAffinity) add(t, -t.weight);
  }
}

/**
 * InterPodAffinity's score of each feasible node, normalized to 0..100 (min-max); all 0 when
 * no term applies. The weights per domain are derived counts, kept up to date as pods come and go.
 */
export function interPodAffinityScores(pod: PodInfo, cluster: ClusterState, nodes: NodeInfo[]): number[] {
  const nsLabels = cluster.namespaceLabels;
  const maps: DomainCounts[] = [];
  if (pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0) {
    const terms = `${termsKey(pod.preferredAffinity)}\u0000${termsKey(pod.preferredAntiAffinity)}`;
    maps.push(cluster.derivedCount(`preferred\u0000${terms}`, () => new OwnPreferredScore(pod.preferredAffinity, pod.preferredAntiAffinity, nsLabels, cluster)).topo);
  }
  if (cluster.withAffinity.size) {
    const key = `existing-terms\u0000${pod.namespace}\u0000${JSON.stringify(pod.labels)}`;
    maps.push(cluster.derivedCount(key, () => new ExistingTermsScore(pod.namespace, pod.labels, nsLabels, cluster)).topo);
  }
  if (maps.every((m) => m.size === 0)) return nodes.map(() => 0);
  const raw = nodes.map((n) => {
    if (Object.keys(n.labels).length === 0) return 0;
    let s = 0;
    for (const m of maps) {
      for (const [key, values] of m) {
        const v = n.labels[key];
        if (v !== undefined) s += values.get(v) ?? 0;
      }
    }
    return s;
  });
  let min = Infinity;
  let max = -Infinity;
  for (const s of raw) {
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const diff = max - min;
  return raw.map((s) => (diff > 0 ? Math.floor((MAX_NODE_SCORE * (s - min)) / diff) : 0));
}
