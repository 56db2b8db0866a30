/**
 * One scheduling decision, as kube-scheduler's framework runs its default plugins: PreFilter
 * state computed once, the filters per node in the default order (NodeUnschedulable,
 * TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread,
 * InterPodAffinity; the first failing one rejects the node), then the scores of the feasible
 * nodes combined with the default weights, and the FitError message when none is feasible.
 */
import type { kinds } from '@kplane/runtime';
import { podInfo, type ClusterState, type NodeInfo, type PodInfo } from './cluster.js';
import { InterPodAffinityFilter, interPodAffinityScores } from './interpod.js';
import {
  defaultNormalize,
  filterNodeAffinity,
  filterNodePorts,
  filterTaints,
  filterUnschedulable,
  hostPorts,
  nodeAffinityRawScore,
  taintRawScore,
  type FilterFailure,
} from './node-plugins.js';
import { applyLoad, balancedAllocationScore, emptyLoad, insufficientResources, leastAllocatedScore, type NodeLoad, type PodResources } from './resources.js';
import { TopologySpreadFilter, topologySpreadScores } from './spread.js';

/** kube-scheduler's default score weights (KubeSchedulerConfiguration v1 defaults). */
export const SCORE_WEIGHTS = {
  TaintToleration: 3,
  NodeAffinity: 2,
  PodTopologySpread: 2,
  InterPodAffinity: 2,
  NodeResourcesFit: 1,
  NodeResourcesBalancedAllocation: 1,
} as const;

/** The message when the cluster has no node at all. */
export const NO_NODES_MESSAGE = 'no nodes available to schedule pods';

/** A pod nominated to a node by preemption, waiting for its victims to go. */
export interface Nomination {
  node: string;
  priority: number;
  resources: PodResources;
}

/** The state of one decision for one pod. */
export class Cycle {
  readonly pod: PodInfo;
  readonly interPod: InterPodAffinityFilter;
  readonly spread: TopologySpreadFilter;
  private readonly ports: ReturnType<typeof hostPorts>;
  /** Resources of pods nominated to each node with a priority at least the pod's (counted as if there). */
  private readonly nominated = new Map<string, NodeLoad>();

  constructor(
    pod: kinds.Pod,
    key: string,
    readonly cluster: ClusterState,
    nominations: ReadonlyMap<string, Nomination> = new Map(),
  ) {
    this.pod = podInfo(key, pod, '');
    this.interPod = new InterPodAffinityFilter(this.pod, cluster);
    this.spread = new TopologySpreadFilter(this.pod, cluster);
    this.ports = hostPorts(pod);
    for (const [k, n] of nominations) {
      if (k === key || n.priority < this.pod.priority || cluster.pods.has(k)) continue;
      let load = this.nominated.get(n.node);
      if (!load) this.nominated.set(n.node, (load = emptyLoad()));
      applyLoad(load, n.resources, 1);
    }
  }

  /** Runs the filters on a node; `load` replaces the node's load (preemption's dry run). */
  filter(node: NodeInfo, load: NodeLoad = node.load): FilterFailure | undefined {
    const pod = this.pod.pod;
    const f = filterUnschedulable(pod, node) ?? filterTaints(pod, node) ?? filterNodeAffinity(pod, node) ?? filterNodePorts(this.ports, node);
    if (f) return f;
    const extra = this.nominated.get(node.name);
    let effective = load;
    if (extra) {
      effective = { pods: load.pods + extra.pods, requested: { ...load.requested }, nonZeroCpu: load.nonZeroCpu, nonZeroMemory: load.nonZeroMemory };
      for (const k in extra.requested) effective.requested[k] = (effective.requested[k] ?? 0) + extra.requested[k]!;
    }
    const reasons = insufficientResources(this.pod.resources, effective, node.allocatable, node.allowedPods);
    if (reasons.length) return { reasons, unresolvable: false };
    return this.spread.filter(node) ?? this.interPod.filter(node);
  }

  /** The combined score of each feasible node. */
  scores(nodes: NodeInfo[]): number[] {
    const pod = this.pod.pod;
    const zeros = () => nodes.map(() => 0);
    const tolerations = (pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    const taints = defaultNormalize(nodes.map((n) => taintRawScore(tolerations, n)), true);
    const affinity = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ? defaultNormalize(nodes.map((n) => nodeAffinityRawScore(pod, n)), false) : zeros();
    const spread = topologySpreadScores(this.pod, this.cluster, nodes);
    const interPod = interPodAffinityScores(this.pod, this.cluster, nodes);
    return nodes.map(
      (n, i) =>
        SCORE_WEIGHTS.TaintToleration * taints[i]! +
        SCORE_WEIGHTS.NodeAffinity * affinity[i]! +
        SCORE_WEIGHTS.PodTopologySpread * spread[i]! +
        SCORE_WEIGHTS.InterPodAffinity * interPod[i]! +
        SCORE_WEIGHTS.NodeResourcesFit * leastAllocatedScore(this.pod.resources, n.load, n.allocatable) +
        SCORE_WEIGHTS.NodeResourcesBalancedAllocation * balancedAllocationScore(this.pod.resources, n.load, n.allocatable),
    );
  }
}

/** Where a pod goes, or why it goes nowhere. */
export type Placement = { node: string } | { failures: Map<string, FilterFailure>; numNodes: number };

/**
 * How many feasible nodes a decision looks for before it stops filtering (kube-scheduler's
 * adaptive percentageOfNodesToScore): every node below 100, else 50% minus 1% per 125 nodes
 * (at least 5%), and never fewer than 100.
 */
export function feasibleNodesToFind(all: number): number {
  if (all < 100) return all;
  const percent = Math.max(5, 50 - Math.floor(all / 125));
  return Math.max(100, Math.floor((all * percent) / 100));
}

/**
 * Filters the nodes (the nominated node first, taken when it fits), from where the previous
 * decision stopped, until enough are feasible, and
 * scores those; the highest score wins, ties going to the node with the fewest pods, then to the
 * first name (kube-scheduler picks among ties at random). When none is feasible every node was
 * filtered, and the failures say why.
 */
export function place(cycle: Cycle): Placement {
  // A pod nominated by an earlier preemption goes to that node when it fits there (evaluateNominatedNode).
  const nominated = cycle.cluster.nodes.get(cycle.pod.pod.status?.nominatedNodeName ?? '');
  if (nominated && !cycle.filter(nominated)) return { node: nominated.name };
  const nodes = cycle.cluster.nodeList();
  const want = feasibleNodesToFind(nodes.length);
  const failures = new Map<string, FilterFailure>();
  const feasible: NodeInfo[] = [];
  const start = cycle.cluster.nextStart % Math.max(1, nodes.length);
  let seen = 0;
  for (; seen < nodes.length && feasible.length < want; seen++) {
    const node = nodes[(start + seen) % nodes.length]!;
    const f = cycle.filter(node);
    if (f) failures.set(node.name, f);
    else feasible.push(node);
  }
  cycle.cluster.nextStart = (start + seen) % Math.max(1, nodes.length);
  if (feasible.length === 0) return { failures, numNodes: nodes.length };
  if (feasible.length === 1) return { node: feasible[0]!.name };
  const scores = cycle.scores(feasible);
  let best = 0;
  for (let i = 1; i < feasible.length; i++) {
    const a = feasible[i]!;
    const b = feasible[best]!;
    if (scores[i]! > scores[best]! || (scores[i] === scores[best] && (a.load.pods < b.load.pods || (a.load.pods === b.load.pods && a.name < b.name)))) best = i;
  }
  return { node: feasible[best]!.name };
}

function histogram(entries: string[]): string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).sort().join(', ');
}

/**
 * FitError's message: "0/N nodes are available: <sorted reason counts>." and, when given, the
 * PostFilter's message (preemption's), as kube-scheduler writes FailedScheduling events.
 */
export function fitErrorMessage(numNodes: number, failures: Iterable<FilterFailure>, postFilter?: string): string {
  const reasons = [...failures].flatMap((f) => f.reasons);
  let msg = `0/${numNodes} nodes are available:`;
  if (reasons.length) msg += ` ${histogram(reasons)}.`;
  if (postFilter) msg += ` ${postFilter}.`;
  return msg;
}
