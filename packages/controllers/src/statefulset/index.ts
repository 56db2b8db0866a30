/** The StatefulSet controller and its building blocks. */
export { createStatefulSetController, type StatefulSetControllerOptions } from './statefulset-controller.js';
export { MAX_BATCH_SIZE, updateStatefulSet, type PodOps, type UpdateInput, type UpdateResult } from './control.js';
export {
  POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, applyRevision, claimsFor, isClaimOwnerUpToDate, newRevision, newStatefulSetPod, newVersionedPod,
  parentAndOrdinal, revisionData, withPolicyOwnerRefs,
} from './utils.js';
