/**
 * The scheduler's view of the cluster, kept up to date from its informers: per node its
 * allocatable, taints and labels (computed once per node update) and the pods on it with their
 * summed requests; per pod its requests, priority and compiled affinity terms. The pods with
 * affinity and with required anti-affinity are indexed, so a decision never walks every pod of
 * every node.
 */
import { labelSelectorFromObject, type LabelSelector } from '@kplane/api';
import type { kinds } from '@kplane/runtime';
import { effectiveTaints } from '@kplane/runtime/internal';
import { applyLoad, emptyLoad, nodeAllocatable, podResources, type NodeLoad, type PodResources, type ResourceAmounts } from './resources.js';

/** A pod affinity term, resolved as kube-scheduler's AffinityTerm. */
export interface AffinityTerm {
  /** Namespaces named (or the pod's own when neither namespaces nor namespaceSelector is set). */
  namespaces: Set<string>;
  /** The namespaceSelector (undefined: none, which matches no namespace). */
  namespaceSelector?: LabelSelector;
  selector: LabelSelector;
  topologyKey: string;
  weight: number;
}

/** A pod as the scheduler counts it. */
export interface PodInfo {
  key: string;
  pod: kinds.Pod;
  namespace: string;
  labels: Record<string, string>;
  node: string;
  priority: number;
  resources: PodResources;
  terminating: boolean;
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: AffinityTerm[];
  preferredAntiAffinity: AffinityTerm[];
}

/** A node as the scheduler counts it. */
export interface NodeInfo {
  name: string;
  node: kinds.Node;
  labels: Record<string, string>;
  allocatable: ResourceAmounts;
  allowedPods: number;
  taints: kinds.Taint[];
  pods: Map<string, PodInfo>;
  load: NodeLoad;
}

/**
 * A count derived from the placed pods (per topology domain, for one kind of incoming pod),
 * kept up to date as pods come and go instead of being recounted for every decision.
 */
export interface DerivedCount {
  /** Counts a pod added to (1) or removed from (-1) a node. */
  apply(p: PodInfo, node: NodeInfo, sign: 1 | -1): void;
}

/** Labels of a namespace (for namespaceSelector); undefined when unknown. */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

function selector(sel: kinds.LabelSelector | undefined): LabelSelector {
  try {
    return labelSelectorFromObject(sel as Parameters<typeof labelSelectorFromObject>[0]);
  } catch {
    return labelSelectorFromObject(null);
  }
}

/**
 * Compiles a pod affinity term of `pod` (newAffinityTerm), its matchLabelKeys and
 * mismatchLabelKeys merged into the label selector as `key in (value)` and `key notin (value)`
 * with the pod's own values, as kube-apiserver does when the pod is created.
 */
export function affinityTerm(pod: kinds.Pod, term: kinds.PodAffinityTerm, weight = 1): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (namespaces.size === 0 && !term.namespaceSelector) namespaces.add(pod.metadata?.namespace ?? 'default');
  const labels = pod.metadata?.labels ?? {};
  let labelSelector = term.labelSelector;
  if (labelSelector && (term.matchLabelKeys?.length || term.mismatchLabelKeys?.length)) {
    const extra = [
      ...(term.matchLabelKeys ?? []).filter((k) => k in labels).map((k) => ({ key: k, operator: 'In', values: [labels[k]!] })),
      ...(term.mismatchLabelKeys ?? []).filter((k) => k in labels).map((k) => ({ key: k, operator: 'NotIn', values: [labels[k]!] })),
    ];
    labelSelector = { ...labelSelector, matchExpressions: [...(labelSelector.matchExpressions ?? []), ...extra] };
  }
  return {
    namespaces,
    namespaceSelector: term.namespaceSelector ? selector(term.namespaceSelector) : undefined,
    selector: selector(labelSelector),
    topologyKey: term.topologyKey,
    weight,
  };
}

const selectorKey = (sel: LabelSelector | undefined) => (sel === undefined ? '-' : sel.nothing ? '!' : sel.toString());

/** A key naming what a list of compiled terms counts (for derived counts). */
export function termsKey(terms: AffinityTerm[]): string {
  return terms.map((t) => [[...t.namespaces].sort().join(','), selectorKey(t.namespaceSelector), selectorKey(t.selector), t.topologyKey, t.weight].join('|')).join(';');
}

/** Does an existing pod (its namespace and labels) match a term? */
export function termMatches(term: AffinityTerm, namespace: string, labels: Record<string, string>, nsLabels: NamespaceLabels): boolean {
  if (!term.namespaces.has(namespace) && !(term.namespaceSelector && term.namespaceSelector.matches(nsLabels(namespace) ?? {}))) return false;
  return term.selector.matches(labels);
}

/** The pod's priority (spec.priority, 0 when unset). */
export function priorityOf(pod: kinds.Pod): number {
  return pod.spec?.priority ?? 0;
}

/** Builds the PodInfo of a pod on `node`. */
export function podInfo(key: string, pod: kinds.Pod, node: string): PodInfo {
  const a = pod.spec?.affinity;
  const req = (terms: kinds.PodAffinityTerm[] | undefined) => (terms ?? []).map((t) => affinityTerm(pod, t));
  const pref = (terms: kinds.WeightedPodAffinityTerm[] | undefined) => (terms ?? []).map((t) => affinityTerm(pod, t.podAffinityTerm, t.weight));
  return {
    key,
    pod,
    namespace: pod.metadata?.namespace ?? '',
    labels: pod.metadata?.labels ?? {},
    node,
    priority: priorityOf(pod),
    resources: podResources(pod),
    terminating: !!pod.metadata?.deletionTimestamp,
    requiredAffinity: req(a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    requiredAntiAffinity: req(a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    preferredAffinity: pref(a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    preferredAntiAffinity: pref(a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
  };
}

const hasAffinity = (p: PodInfo) => p.requiredAffinity.length + p.requiredAntiAffinity.length + p.preferredAffinity.length + p.preferredAntiAffinity.length > 0;

/** The cluster as the scheduler sees it: nodes, and the pods bound or assumed on them. */
export class ClusterState {
  readonly nodes = new Map<string, NodeInfo>();
  readonly pods = new Map<string, PodInfo>();
  /** Pods with any pod affinity or anti-affinity term. */
  readonly withAffinity = new Set<PodInfo>();
  /** Pods with required anti-affinity terms (checked against every incoming pod). */
  readonly withRequiredAntiAffinity = new Set<PodInfo>();
  /** Pods by namespace. */
  readonly byNamespace = new Map<string, Set<PodInfo>>();
  private readonly orphans = new Map<string, Map<string, PodInfo>>();
  private list: NodeInfo[] | undefined;
  private readonly derived = new Map<string, DerivedCount>();
  private readonly nodeShape = new Map<string, string>();
  /** Where the next decision starts looking (kube-scheduler's nextStartNodeIndex). */
  nextStart = 0;

  constructor(readonly namespaceLabels: NamespaceLabels = () => undefined) {}

  /** Adds or updates a node. */
  setNode(node: kinds.Node): NodeInfo {
    const name = node.metadata!.name!;
    const { allocatable, pods } = nodeAllocatable(node);
    let info = this.nodes.get(name);
    if (!info) {
      const waiting = this.orphans.get(name) ?? new Map<string, PodInfo>();
      this.orphans.delete(name);
      info = { name, node, labels: {}, allocatable, allowedPods: pods, taints: [], pods: waiting, load: emptyLoad() };
      for (const p of waiting.values()) applyLoad(info.load, p.resources, 1);
      this.nodes.set(name, info);
      this.list = undefined;
    }
    info.node = node;
    info.labels = node.metadata?.labels ?? {};
    info.allocatable = allocatable;
    info.allowedPods = pods;
    info.taints = effectiveTaints(node);
    // Domains depend on labels and taints only: a heartbeat keeps the derived counts.
    const shape = JSON.stringify([info.labels, node.spec?.taints ?? []]);
    if (this.nodeShape.get(name) !== shape) {
      this.nodeShape.set(name, shape);
      this.derived.clear();
    }
    return info;
  }

  /** Removes a node (its pods wait for it to come back). */
  removeNode(name: string): void {
    const info = this.nodes.get(name);
    if (!info) return;
    this.nodes.delete(name);
    this.nodeShape.delete(name);
    this.derived.clear();
    this.list = undefined;
    if (info.pods.size) this.orphans.set(name, info.pods);
  }

  /**
   * The derived count under `key`, built by `build` (from the current pods) the first time and
   * kept up to date as pods are placed and removed; all are rebuilt after a node's labels or
   * taints change, or a namespace's labels (`invalidate`).
   */
  derivedCount<T extends DerivedCount>(key: string, build: () => T): T {
    let d = this.derived.get(key) as T | undefined;
    if (!d) {
      if (this.derived.size >= 512) this.derived.clear();
      this.derived.set(key, (d = build()));
    }
    return d;
  }

  /** Drops the derived counts (a namespace's labels changed). */
  invalidate(): void {
    this.derived.clear();
  }

  /** The nodes, in a stable order. */
  nodeList(): NodeInfo[] {
    return (this.list ??= [...this.nodes.values()]);
  }

  /** Places (or moves, or updates) a pod on a node. */
  setPod(key: string, pod: kinds.Pod, node: string): PodInfo {
    this.removePod(key);
    const info = podInfo(key, pod, node);
    this.pods.set(key, info);
    const n = this.nodes.get(node);
    if (n) {
      n.pods.set(key, info);
      applyLoad(n.load, info.resources, 1);
      for (const d of this.derived.values()) d.apply(info, n, 1);
    } else {
      let waiting = this.orphans.get(node);
      if (!waiting) this.orphans.set(node, (waiting = new Map()));
      waiting.set(key, info);
    }
    if (hasAffinity(info)) this.withAffinity.add(info);
    if (info.requiredAntiAffinity.length) this.withRequiredAntiAffinity.add(info);
    let ns = this.byNamespace.get(info.namespace);
    if (!ns) this.byNamespace.set(info.namespace, (ns = new Set()));
    ns.add(info);
    return info;
  }

  /** Removes a pod; returns it when it was placed. */
  removePod(key: string): PodInfo | undefined {
    const info = this.pods.get(key);
    if (!info) return undefined;
    this.pods.delete(key);
    const n = this.nodes.get(info.node);
    if (n?.pods.get(key) === info) {
      n.pods.delete(key);
      applyLoad(n.load, info.resources, -1);
      for (const d of this.derived.values()) d.apply(info, n, -1);
    } else this.orphans.get(info.node)?.delete(key);
    this.withAffinity.delete(info);
    this.withRequiredAntiAffinity.delete(info);
    this.byNamespace.get(info.namespace)?.delete(info);
    return info;
  }

  /** Every pod placed on a known node, in the given namespaces (all when undefined). */
  *podsIn(namespaces: Iterable<string> | undefined): Iterable<PodInfo> {
    if (!namespaces) {
      for (const p of this.pods.values()) if (this.nodes.has(p.node)) yield p;
      return;
    }
    for (const ns of namespaces) for (const p of this.byNamespace.get(ns) ?? []) if (this.nodes.has(p.node)) yield p;
  }
}
