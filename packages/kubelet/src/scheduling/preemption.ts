/**
 * DefaultPreemption's PostFilter, its decision part: is the pod eligible, on which nodes could
 * removing lower-priority pods help, which pods must go on each (all lower-priority pods
 * removed, then as many as possible put back, those whose PodDisruptionBudget would be
 * violated first), and which node is best (fewest PDB violations, lowest highest victim
 * priority, smallest priority sum, fewest victims, latest start of the highest-priority
 * victims). Deleting the victims is the scheduler's.
 */
import { labelSelectorFromObject } from '@kplane/api';
import type { kinds } from '@kplane/runtime';
import type { ClusterState, NodeInfo, PodInfo } from './cluster.js';
import { fitErrorMessage, type Cycle } from './framework.js';
import type { FilterFailure } from './node-plugins.js';
import { applyLoad, type NodeLoad } from './resources.js';

/** The reason of DisruptionTarget on a victim. */
export const PREEMPTION_REASON = 'PreemptionByScheduler';
/** The PostFilter status of a node where no pod has a lower priority. */
export const NO_VICTIMS = 'No preemption victims found for incoming pod';
/** The PostFilter status of a node whose failure preemption cannot fix. */
export const NOT_HELPFUL = 'Preemption is not helpful for scheduling';

/** A node and the pods to delete there. */
export interface Candidate {
  node: string;
  victims: PodInfo[];
  pdbViolations: number;
}

/**
 * The outcome: a candidate, or the PostFilter message ("preemption: ...") and whether the pod's
 * nomination is to be cleared (no candidate anywhere; an ineligible pod keeps it).
 */
export type PreemptionResult = { candidate: Candidate } | { message: string; clearNomination: boolean };

const startTime = (p: PodInfo): number => Date.parse(p.pod.status?.startTime ?? p.pod.metadata?.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;

/** MoreImportantPod: higher priority first, then the one started earlier. */
export function moreImportant(a: PodInfo, b: PodInfo): number {
  return b.priority - a.priority || startTime(a) - startTime(b);
}

const terminatingByPreemption = (p: kinds.Pod): boolean =>
  !!p.metadata?.deletionTimestamp && !!p.status?.conditions?.some((c) => c.type === 'DisruptionTarget' && c.status === 'True' && c.reason === PREEMPTION_REASON);

/** PodEligibleToPreemptOthers: the reason it is not, or undefined. */
export function notEligible(pod: kinds.Pod, cluster: ClusterState, nominatedFailure: FilterFailure | undefined): string | undefined {
  if (pod.spec?.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
  const nominated = pod.status?.nominatedNodeName;
  if (!nominated || nominatedFailure?.unresolvable) return undefined;
  const priority = pod.spec?.priority ?? 0;
  const node = cluster.nodes.get(nominated);
  for (const p of node?.pods.values() ?? []) if (p.priority < priority && terminatingByPreemption(p.pod)) return 'not eligible due to a terminating pod on the nominated node.';
  return undefined;
}

/** Splits pods (most important first) into those whose eviction would violate a budget and the others. */
export function splitByBudget(pods: PodInfo[], pdbs: kinds.PodDisruptionBudget[]): { violating: PodInfo[]; other: PodInfo[] } {
  const allowed = pdbs.map((b) => b.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((b) => {
    try {
      return labelSelectorFromObject(b.spec?.selector as Parameters<typeof labelSelectorFromObject>[0]);
    } catch {
      return undefined;
    }
  });
  const violating: PodInfo[] = [];
  const other: PodInfo[] = [];
  for (const p of pods) {
    let violated = false;
    if (Object.keys(p.labels).length) {
      pdbs.forEach((b, i) => {
        const sel = selectors[i];
        if (b.metadata?.namespace !== p.namespace || !sel || sel.empty || !sel.matches(p.labels)) return;
        if (b.status?.disruptedPods && p.pod.metadata?.name! in b.status.disruptedPods) return;
        if (--allowed[i]! < 0) violated = true;
      });
    }
    (violated ? violating : other).push(p);
  }
  return { violating, other };
}

function cloneLoad(l: NodeLoad): NodeLoad {
  return { pods: l.pods, requested: { ...l.requested }, nonZeroCpu: l.nonZeroCpu, nonZeroMemory: l.nonZeroMemory };
}

/** SelectVictimsOnNode: the victims on one node, or the status that rules the node out. */
export function selectVictims(cycle: Cycle, node: NodeInfo, pdbs: kinds.PodDisruptionBudget[]): Candidate | FilterFailure {
  const lower = [...node.pods.values()].filter((p) => p.priority < cycle.pod.priority);
  if (lower.length === 0) return { reasons: [NO_VICTIMS], unresolvable: true };
  const load = cloneLoad(node.load);
  const remove = (p: PodInfo) => {
    applyLoad(load, p.resources, -1);
    cycle.interPod.update(p, node, -1);
    cycle.spread.update(p, node, -1);
  };
  const add = (p: PodInfo) => {
    applyLoad(load, p.resources, 1);
    cycle.interPod.update(p, node, 1);
    cycle.spread.update(p, node, 1);
  };
  for (const p of lower) remove(p);
  const victims: PodInfo[] = [];
  let pdbViolations = 0;
  try {
    const f = cycle.filter(node, load);
    if (f) {
      for (const p of lower) add(p);
      return f;
    }
    lower.sort(moreImportant);
    const { violating, other } = splitByBudget(lower, pdbs);
    const reprieve = (p: PodInfo): boolean => {
      add(p);
      if (!cycle.filter(node, load)) return true;
      remove(p);
      victims.push(p);
      return false;
    };
    for (const p of violating) if (!reprieve(p)) pdbViolations++;
    for (const p of other) reprieve(p);
  } finally {
    // Leave the cycle's counts as they were: the victims go back too.
    for (const p of victims) add(p);
  }
  victims.sort(moreImportant);
  return { node: node.name, victims, pdbViolations };
}

/** pickOneNodeForPreemption's order between two candidates (negative: a is better). */
export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.pdbViolations !== b.pdbViolations) return a.pdbViolations - b.pdbViolations;
  const high = (c: Candidate) => c.victims[0]?.priority ?? -Infinity;
  if (high(a) !== high(b)) return high(a) - high(b);
  const sum = (c: Candidate) => c.victims.reduce((s, p) => s + p.priority + 2 ** 31, 0);
  if (sum(a) !== sum(b)) return sum(a) - sum(b);
  if (a.victims.length !== b.victims.length) return a.victims.length - b.victims.length;
  const earliest = (c: Candidate) => Math.min(...c.victims.filter((p) => p.priority === high(c)).map(startTime));
  return earliest(b) - earliest(a);
}

/**
 * Preemption for a pod no node fits: a candidate node and its victims, or the message of why
 * there is none ("preemption: 0/3 nodes are available: 3 No preemption victims found for
 * incoming pod.", "preemption: not eligible due to preemptionPolicy=Never.").
 */
export function findPreemption(cycle: Cycle, failures: Map<string, FilterFailure>, pdbs: kinds.PodDisruptionBudget[]): PreemptionResult {
  const pod = cycle.pod.pod;
  const why = notEligible(pod, cycle.cluster, pod.status?.nominatedNodeName ? failures.get(pod.status.nominatedNodeName) : undefined);
  if (why) return { message: `preemption: ${why}`, clearNomination: false };
  const statuses: FilterFailure[] = [];
  let best: Candidate | undefined;
  for (const node of cycle.cluster.nodes.values()) {
    const f = failures.get(node.name);
    if (!f || f.unresolvable) {
      statuses.push({ reasons: [NOT_HELPFUL], unresolvable: true });
      continue;
    }
    const r = selectVictims(cycle, node, pdbs);
    if ('reasons' in r) statuses.push(r);
    else if (!best || compareCandidates(r, best) < 0) best = r;
  }
  if (best) return { candidate: best };
  return { message: `preemption: ${fitErrorMessage(cycle.cluster.nodes.size, statuses)}`, clearNomination: true };
}
