/** The Deployment controller and its building blocks. */
export { REPLICASET_BATCH_WINDOW_MS, createDeploymentController, type DeploymentControllerOptions } from './deployment-controller.js';
export { POD_TEMPLATE_HASH_LABEL, canonicalEncoding, computeHash, equalIgnoreHash, fnv32a, safeEncodeString } from './hash.js';
export {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  Reasons as DeploymentReasons,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  resolveFenceposts,
} from './util.js';
