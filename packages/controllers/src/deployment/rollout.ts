/**
 * The two rollout strategies (pkg/controller/deployment/rolling.go and recreate.go).
 *
 * RollingUpdate: scale the new ReplicaSet up while the sum of all ReplicaSets' replicas stays
 * within replicas + maxSurge; scale old ones down (unhealthy replicas first) while the
 * available pods stay at least replicas - maxUnavailable.
 * Recreate: scale every old ReplicaSet to 0, wait until none of their pods is left, then
 * create or scale up the new one.
 */
import type { Deployment, Pod, ReplicaSet } from '@kplane/runtime';
import type { DeploymentSync } from './sync.js';
import { availableReplicas, byCreation, deploymentComplete, filterActive, maxUnavailable, newRSNewReplicas, replicasOf, specReplicas } from './util.js';

/** One rolling step; returns when to look again for a progress check (ms), if needed. */
export async function rolloutRolling(s: DeploymentSync, d: Deployment, rsList: ReplicaSet[]): Promise<number | undefined> {
  const { newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, rsList, true);
  const all = [...oldRSs, newRS!];
  if (await reconcileNewReplicaSet(s, all, newRS!, d)) return s.syncRolloutStatus(all, newRS, d);
  if (await reconcileOldReplicaSets(s, all, filterActive(oldRSs), newRS!, d)) return s.syncRolloutStatus(all, newRS, d);
  if (deploymentComplete(d, d.status ?? {})) await s.cleanupDeployment(oldRSs, d);
  return s.syncRolloutStatus(all, newRS, d);
}

async function reconcileNewReplicaSet(s: DeploymentSync, all: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<boolean> {
  if (replicasOf(newRS) === replicasOf(d)) return false;
  if (replicasOf(newRS) > replicasOf(d)) return (await s.scaleReplicaSetAndRecordEvent(newRS, replicasOf(d), d)).scaled;
  return (await s.scaleReplicaSetAndRecordEvent(newRS, newRSNewReplicas(d, all, newRS), d)).scaled;
}

async function reconcileOldReplicaSets(s: DeploymentSync, all: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<boolean> {
  if (specReplicas(oldRSs) === 0) return false;
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  // Counts the surge already taken and the new pods not yet available, so that a broken new
  // template never makes the old ReplicaSets shrink below the minimum.
  const maxScaledDown = specReplicas(all) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  let cleaned: { oldRSs: ReplicaSet[]; count: number };
  let scaledDown: number;
  try {
    cleaned = await cleanupUnhealthyReplicas(s, oldRSs, d, maxScaledDown);
    scaledDown = await scaleDownOldReplicaSets(s, [...cleaned.oldRSs, newRS], cleaned.oldRSs, d);
  } catch {
    return false; // as Kubernetes: the status sync that follows retries on the next event
  }
  return cleaned.count + scaledDown > 0;
}

/** Scales old ReplicaSets down by their unavailable replicas first (they cost no availability). */
async function cleanupUnhealthyReplicas(s: DeploymentSync, oldRSs: ReplicaSet[], d: Deployment, maxCleanup: number) {
  const sorted = [...oldRSs].sort(byCreation);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (total >= maxCleanup) break;
    const rs = sorted[i]!;
    const available = rs.status?.availableReplicas ?? 0;
    if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
    const count = Math.min(maxCleanup - total, replicasOf(rs) - available);
    const target = replicasOf(rs) - count;
    if (target > replicasOf(rs)) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata?.namespace}/${rs.metadata?.name} ${replicasOf(rs)} -> ${target}`);
    sorted[i] = (await s.scaleReplicaSetAndRecordEvent(rs, target, d)).rs;
    total += count;
  }
  return { oldRSs: sorted, count: total };
}

/** Scales old ReplicaSets down, oldest first, as far as availability allows. */
async function scaleDownOldReplicaSets(s: DeploymentSync, all: ReplicaSet[], oldRSs: ReplicaSet[], d: Deployment): Promise<number> {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = availableReplicas(all);
  if (available <= minAvailable) return 0;
  const toScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= toScaleDown) break;
    if (replicasOf(rs) === 0) continue;
    const count = Math.min(replicasOf(rs), toScaleDown - total);
    await s.scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - count, d);
    total += count;
  }
  return total;
}

/** One Recreate step; `podsByRs` holds every pod (terminating ones too) by controller ReplicaSet uid. */
export async function rolloutRecreate(s: DeploymentSync, d: Deployment, rsList: ReplicaSet[], podsByRs: Map<string, Pod[]>): Promise<number | undefined> {
  let { newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, rsList, false);
  let all: Array<ReplicaSet | undefined> = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of filterActive(oldRSs)) {
    if ((await s.scaleReplicaSetAndRecordEvent(rs, 0, d)).scaled) scaledDown = true;
  }
  if (scaledDown) return s.syncRolloutStatus(all, newRS, d);
  if (oldPodsRunning(newRS, oldRSs, podsByRs)) return s.syncRolloutStatus(all, newRS, d);
  if (!newRS) {
    ({ newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, rsList, true));
    all = [...oldRSs, newRS];
  }
  await s.scaleReplicaSetAndRecordEvent(newRS!, replicasOf(d), d);
  if (deploymentComplete(d, d.status ?? {})) await s.cleanupDeployment(oldRSs, d);
  return s.syncRolloutStatus(all, newRS, d);
}

/** Old ReplicaSets still report replicas, or still have a pod that is not terminal. */
function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podsByRs: Map<string, Pod[]>): boolean {
  if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
  for (const [uid, pods] of podsByRs) {
    if (newRS && newRS.metadata?.uid === uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}
