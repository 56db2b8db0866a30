/**
 * The node-level plugins: NodeUnschedulable, TaintToleration and NodeAffinity (filters and
 * scores) and NodePorts, with kube-scheduler's reason strings.
 */
import type { kinds } from '@kplane/runtime';
import { matchesNodeAffinity, matchesNodeSelectorTerm, tolerates } from '@kplane/runtime/internal';
import type { NodeInfo } from './cluster.js';
import { MAX_NODE_SCORE } from './resources.js';

/** Why a node was rejected, and whether preempting pods could help (as the PostFilter reports it). */
export interface FilterFailure {
  reasons: string[];
  /** True for UnschedulableAndUnresolvable (preemption is not helpful). */
  unresolvable: boolean;
}

/** NodeUnschedulable: a cordoned node takes only pods tolerating its unschedulable taint. */
export function filterUnschedulable(pod: kinds.Pod, node: NodeInfo): FilterFailure | undefined {
  if (!node.node.spec?.unschedulable) return undefined;
  if ((pod.spec?.tolerations ?? []).some((t) => tolerates(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))) return undefined;
  return { reasons: ['node(s) were unschedulable'], unresolvable: true };
}

/** TaintToleration's filter: the first NoSchedule or NoExecute taint the pod does not tolerate. */
export function filterTaints(pod: kinds.Pod, node: NodeInfo): FilterFailure | undefined {
  const tolerations = pod.spec?.tolerations ?? [];
  for (const taint of node.taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => tolerates(t, taint))) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], unresolvable: true };
  }
  return undefined;
}

/** NodeAffinity's filter: nodeSelector and required node affinity. */
export function filterNodeAffinity(pod: kinds.Pod, node: NodeInfo): FilterFailure | undefined {
  return matchesNodeAffinity(pod, node.node) ? undefined : { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
}

interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** The host ports a pod asks for (containers and init containers). */
export function hostPorts(pod: kinds.Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const p of c.ports ?? []) if (p.hostPort && p.hostPort > 0) out.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort });
  }
  return out;
}

/** NodePorts: a host port (protocol, and IP or the wildcard) already used on the node rejects it. */
export function filterNodePorts(wanted: HostPort[], node: NodeInfo): FilterFailure | undefined {
  if (wanted.length === 0) return undefined;
  for (const p of node.pods.values()) {
    for (const used of hostPorts(p.pod)) {
      for (const w of wanted) {
        if (w.port !== used.port || w.protocol !== used.protocol) continue;
        if (w.ip === used.ip || w.ip === '0.0.0.0' || used.ip === '0.0.0.0') return { reasons: ["node(s) didn't have free ports for the requested pod ports"], unresolvable: false };
      }
    }
  }
  return undefined;
}

/** NodeAffinity's score before normalizing: the summed weights of the preferred terms the node matches. */
export function nodeAffinityRawScore(pod: kinds.Pod, node: NodeInfo): number {
  let score = 0;
  for (const t of pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (t.weight && matchesNodeSelectorTerm(t.preference, node.node)) score += t.weight;
  }
  return score;
}

/**
 * TaintToleration's score before normalizing: the PreferNoSchedule taints not tolerated by the
 * pod's tolerations whose effect is PreferNoSchedule or empty.
 */
export function taintRawScore(tolerations: kinds.Toleration[], node: NodeInfo): number {
  let n = 0;
  for (const taint of node.taints) if (taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => tolerates(t, taint))) n++;
  return n;
}

/** DefaultNormalizeScore: scales to 0..100 by the highest score, reversed when asked. */
export function defaultNormalize(scores: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...scores);
  if (max === 0) return scores.map(() => (reverse ? MAX_NODE_SCORE : 0));
  return scores.map((s) => {
    const v = Math.floor((MAX_NODE_SCORE * s) / max);
    return reverse ? MAX_NODE_SCORE - v : v;
  });
}
