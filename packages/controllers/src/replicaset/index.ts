/** The ReplicaSet controller and the pieces the Deployment controller shares with it. */
export {
  BURST_REPLICAS,
  POD_BATCH_WINDOW_MS,
  calculateReplicaSetStatus,
  countReplicas,
  createReplicaSetController,
  podFromTemplate,
  replicaSetStatusFromCounts,
  type ReplicaCounts,
  type ReplicaSetController,
  type ReplicaSetControllerOptions,
  type ReplicaSetLikeKind,
  REPLICA_SET_KIND,
} from './replicaset-controller.js';
export { createPodTally, type PodCounts, type PodTally } from './pod-tally.js';
export { createOwnWrites, type OwnWrites } from './own-writes.js';
export { EXPECTATIONS_TTL_MS, createExpectations, type Expectations, type ExpectationsOptions, type PendingExpectations } from './expectations.js';
export { adopt, claimObjects, isStaleCacheError, controllerOf, controllerRefTo, recheckOwnerWith, release, type ClaimOptions } from './controller-ref.js';
export { deletesBefore, isPodActive, isPodAvailable, isPodReady, msUntilAvailable, podKey, podReadyTime, podsToDelete, rankByRelatedPodsOnSameNode, type RankedPod } from './pods.js';
export { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, type SlowStartResult } from './slow-start.js';
