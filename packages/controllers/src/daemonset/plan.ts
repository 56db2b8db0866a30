/**
 * What a DaemonSet sync decides, as pure functions of the cached state: the pods to create and
 * delete so each eligible node runs one daemon pod (podsShouldBeOnNode / manage), the rolling
 * update's replacements within maxUnavailable or maxSurge (rollingUpdate), and the status counts
 * (updateDaemonSetStatus).
 */
import type { DaemonSet, Node, Pod } from '@kplane/runtime';
import { isPodAvailable, isPodReady } from '../replicaset/pods.js';
import { DAEMONSET_HASH_LABEL, allowsSurge, compareDaemonPods, isPodUpdated, surgeCount, templateGeneration, unavailableCount, type NodePlacement } from './util.js';

/** An event a decision asks the controller to record. */
export interface PlanEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Asks whether deleting the failed pod of a node waits in backoff; records the attempt when it does not. */
export type FailedPodBackoff = (nodeName: string) => { inBackoff: boolean; delayMs: number };

/** What to do on one node. */
export interface NodePlan {
  create: boolean;
  deletePods: Pod[];
  events: PlanEvent[];
  /** Sync again after this long (a failed pod waiting in backoff). */
  requeueMs?: number;
}

/**
 * podsShouldBeOnNode: create a pod where one should run and none is; delete failed and succeeded
 * pods (failed ones with backoff), all but the oldest when not surging, and, when surging, keep at
 * most the oldest new and the oldest old pod (the old one only while it is ready and the new one
 * not yet available); delete every pod of a node that should not run one.
 */
export function podsShouldBeOnNode(
  node: Node,
  placement: NodePlacement,
  daemonPods: Pod[] | undefined,
  ds: DaemonSet,
  hash: string,
  nowMs: number,
  failedBackoff: FailedPodBackoff,
): NodePlan {
  const plan: NodePlan = { create: false, deletePods: [], events: [] };
  const nodeName = node.metadata?.name ?? '';
  const exists = daemonPods !== undefined && daemonPods.length > 0;
  if (placement.shouldRun && !exists) {
    plan.create = true;
    return plan;
  }
  if (placement.shouldContinueRunning) {
    const running: Pod[] = [];
    for (const pod of daemonPods ?? []) {
      if (pod.metadata?.deletionTimestamp) continue;
      const ref = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
      if (pod.status?.phase === 'Failed') {
        const b = failedBackoff(nodeName);
        if (b.inBackoff) {
          plan.requeueMs = Math.min(plan.requeueMs ?? Infinity, b.delayMs);
          continue;
        }
        plan.events.push({ type: 'Warning', reason: 'FailedDaemonPod', message: `Found failed daemon pod ${ref} on node ${nodeName}, will try to kill it` });
        plan.deletePods.push(pod);
      } else if (pod.status?.phase === 'Succeeded') {
        plan.events.push({ type: 'Normal', reason: 'SucceededDaemonPod', message: `Found succeeded daemon pod ${ref} on node ${nodeName}, will try to delete it` });
        plan.deletePods.push(pod);
      } else {
        running.push(pod);
      }
    }
    running.sort(compareDaemonPods);
    if (!allowsSurge(ds)) {
      // Not surging: more than one running pod on a node keeps only the oldest.
      plan.deletePods.push(...running.slice(1));
      return plan;
    }
    if (running.length <= 1) {
      // Surging needs at least one pod that is not being deleted.
      if (running.length === 0 && placement.shouldRun) plan.create = true;
      return plan;
    }
    // Surging: keep the oldest new and the oldest old pod; the old one goes once it is not
    // ready, or once the new one is available.
    let oldestNew: Pod | undefined;
    let oldestOld: Pod | undefined;
    for (const pod of running) {
      if (pod.metadata?.labels?.[DAEMONSET_HASH_LABEL] === hash) {
        if (!oldestNew) {
          oldestNew = pod;
          continue;
        }
      } else if (!oldestOld) {
        oldestOld = pod;
        continue;
      }
      plan.deletePods.push(pod);
    }
    if (oldestNew && oldestOld) {
      if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0, nowMs)) plan.deletePods.push(oldestOld);
    }
    return plan;
  }
  if (exists) {
    for (const pod of daemonPods ?? []) if (!pod.metadata?.deletionTimestamp) plan.deletePods.push(pod);
  }
  return plan;
}

/**
 * findUpdatedPodsOnNode: the new and the old pod among a node's pods that are not being deleted;
 * `ok` false when there are several of either (the manage loop prunes them first).
 */
export function findUpdatedPodsOnNode(ds: DaemonSet, pods: readonly Pod[], hash: string): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  const generation = templateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

/** The replacements a rolling update asks for. */
export interface RollingPlan {
  deletePods: string[];
  createOnNodes: string[];
}

/**
 * rollingUpdate. `nodeToPods` holds the pods of every node, an empty list for each node that
 * should run a pod and has none (updatedDesiredNodeCounts); `shouldRun(node)` answers for a node
 * name. Without surge, old pods are deleted (unavailable ones always, available ones while fewer
 * than maxUnavailable nodes are unavailable) and the manage loop creates their replacements;
 * with surge, new pods are created beside old ones (where the old pod is unavailable always,
 * elsewhere up to maxSurge at a time) and an old pod is deleted once its replacement is available.
 */
export function rollingUpdatePlan(
  ds: DaemonSet,
  nodeToPods: ReadonlyMap<string, Pod[]>,
  desired: number,
  hash: string,
  nowMs: number,
  shouldRun: (nodeName: string) => boolean,
): RollingPlan {
  let maxSurge = surgeCount(ds, desired);
  let maxUnavailable = unavailableCount(ds, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod) => isPodAvailable(p, minReady, nowMs);
  const nodes = [...nodeToPods.keys()].sort();

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replacements: string[] = [];
    const candidates: string[] = [];
    for (const nodeName of nodes) {
      const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, nodeToPods.get(nodeName)!, hash);
      if (!ok || (!oldPod && !newPod) || (oldPod && newPod)) {
        numUnavailable++;
      } else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) {
          replacements.push(oldPod.metadata?.name ?? '');
          numUnavailable++;
        } else if (numUnavailable < maxUnavailable) {
          candidates.push(oldPod.metadata?.name ?? '');
        }
      }
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
    return { deletePods: [...replacements, ...candidates.slice(0, remaining)], createOnNodes: [] };
  }

  const deletePods: string[] = [];
  const shouldNotRunPods: string[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const nodeName of nodes) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, nodeToPods.get(nodeName)!, hash);
    if (!ok) {
      numSurge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod ? available(newPod) : false) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRun(nodeName)) deletePods.push(oldPod.metadata?.name ?? '');
        else allowedNodes.push(nodeName);
      } else if (!shouldRun(nodeName)) {
        shouldNotRunPods.push(oldPod.metadata?.name ?? '');
      } else if (numSurge < maxSurge) {
        candidateNodes.push(nodeName);
      }
      continue;
    }
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    deletePods.push(oldPod.metadata?.name ?? '');
  }
  // Pods on nodes that no longer qualify go only as pods elsewhere become available.
  const deletable = Math.min(numAvailable - desired, shouldNotRunPods.length);
  if (deletable > 0) deletePods.push(...shouldNotRunPods.slice(0, deletable));
  const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidateNodes.length);
  return { deletePods, createOnNodes: [...allowedNodes, ...candidateNodes.slice(0, remaining)] };
}

/** The counters of a DaemonSet's status. */
export interface DaemonSetCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/**
 * updateDaemonSetStatus' counts: over the nodes, those that should run a pod (desired), have one
 * (current; its oldest pod ready, available and up to date decide the other counts), and those
 * that run one but should not (misscheduled).
 */
export function statusCounts(
  ds: DaemonSet,
  nodes: readonly Node[],
  placements: ReadonlyMap<string, NodePlacement>,
  nodeToPods: ReadonlyMap<string, Pod[]>,
  hash: string,
  nowMs: number,
): DaemonSetCounts {
  const c: DaemonSetCounts = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0 };
  const generation = templateGeneration(ds);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const pods = nodeToPods.get(name);
    const scheduled = pods !== undefined && pods.length > 0;
    if (placements.get(name)?.shouldRun) {
      c.desiredNumberScheduled++;
      if (!scheduled) continue;
      c.currentNumberScheduled++;
      const pod = [...pods].sort(compareDaemonPods)[0]!;
      if (isPodReady(pod)) {
        c.numberReady++;
        if (isPodAvailable(pod, minReady, nowMs)) c.numberAvailable++;
      }
      if (isPodUpdated(pod, hash, generation)) c.updatedNumberScheduled++;
    } else if (scheduled) {
      c.numberMisscheduled++;
    }
  }
  c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
  return c;
}
