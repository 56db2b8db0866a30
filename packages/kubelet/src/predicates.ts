/**
 * The scheduler's filters, in kube-scheduler's order (NodeUnschedulable, TaintToleration,
 * NodeAffinity, NodeResourcesFit), with its reason strings, and the FitError message built
 * from them. The taint and node affinity predicates themselves come from @kplane/runtime.
 */
import { type kinds } from '@kplane/runtime';
import { effectiveTaints, matchesNodeAffinity, tolerates } from '@kplane/runtime/internal';
import { milliValue, value } from './quantity.js';

// The node affinity, taint and toleration predicates live in @kplane/runtime, shared with the
// DaemonSet controller; re-exported here for the package's users.
export { effectiveTaints, matchesNodeAffinity, tolerates };

/** What a node has committed: pods and the sum of their requests. */
export interface NodeUsage {
  pods: number;
  milliCpu: number;
  memory: number;
}

/** Resource requests of a pod (the sum over containers; init containers' largest if bigger; plus overhead). */
export interface PodRequests {
  milliCpu: number;
  memory: number;
}

/** Why a node was rejected, and whether preempting pods could help (as the PostFilter reports it). */
export interface FilterFailure {
  reasons: string[];
  /** True for UnschedulableAndUnresolvable (preemption is not helpful). */
  unresolvable: boolean;
}

/** The requests that count against a node's allocatable. */
export function podRequests(pod: kinds.Pod): PodRequests {
  let milliCpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    milliCpu += milliValue(c.resources?.requests?.cpu);
    memory += value(c.resources?.requests?.memory);
  }
  for (const c of pod.spec?.initContainers ?? []) {
    milliCpu = Math.max(milliCpu, milliValue(c.resources?.requests?.cpu));
    memory = Math.max(memory, value(c.resources?.requests?.memory));
  }
  milliCpu += milliValue(pod.spec?.overhead?.cpu);
  memory += value(pod.spec?.overhead?.memory);
  return { milliCpu, memory };
}

/** Runs the filters; undefined when the node fits. */
export function filterNode(pod: kinds.Pod, node: kinds.Node, usage: NodeUsage, requests: PodRequests): FilterFailure | undefined {
  if (node.spec?.unschedulable && !(pod.spec?.tolerations ?? []).some((t) => tolerates(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))) {
    return { reasons: ['node(s) were unschedulable'], unresolvable: true };
  }
  const tolerations = pod.spec?.tolerations ?? [];
  for (const taint of effectiveTaints(node)) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => tolerates(t, taint))) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], unresolvable: true };
  }
  if (!matchesNodeAffinity(pod, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
  const alloc = node.status?.allocatable ?? node.status?.capacity ?? {};
  const reasons: string[] = [];
  if (usage.pods + 1 > value(alloc.pods ?? '110')) reasons.push('Too many pods');
  if (requests.milliCpu > 0 && usage.milliCpu + requests.milliCpu > milliValue(alloc.cpu)) reasons.push('Insufficient cpu');
  if (requests.memory > 0 && usage.memory + requests.memory > value(alloc.memory)) reasons.push('Insufficient memory');
  return reasons.length ? { reasons, unresolvable: false } : undefined;
}

/** The message kube-scheduler puts in FailedScheduling events and the PodScheduled condition. */
export function fitErrorMessage(numNodes: number, failures: FilterFailure[]): string {
  const histogram = (entries: string[]): string => {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e, (counts.get(e) ?? 0) + 1);
    return [...counts].map(([reason, n]) => `${n} ${reason}`).sort().join(', ');
  };
  let msg = `0/${numNodes} nodes are available: ${histogram(failures.flatMap((f) => f.reasons))}.`;
  const post = failures.map((f) => (f.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod'));
  msg += ` preemption: 0/${numNodes} nodes are available: ${histogram(post)}.`;
  return msg;
}

/** The message when the cluster has no node at all. */
export const NO_NODES_MESSAGE = 'no nodes available to schedule pods';
