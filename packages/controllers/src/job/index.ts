/** The Job controller (kube-controller-manager's job-controller). */
export { JOB_CONTROLLER_MANAGER, MAX_POD_CREATE_DELETE_PER_SYNC, createJobController, matchSuccessPolicy, type JobControllerOptions } from './job-controller.js';
export { JOB_REASONS, ensureCondition, findCondition, finishedCondition, hasTrueCondition, newCondition } from './conditions.js';
export { COMPLETION_INDEX_ANNOTATION, COMPLETION_INDEX_ENV, INDEX_FAILURE_COUNT_ANNOTATION, INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, IndexSet, completionIndexOf, indexedGenerateName } from './indexes.js';
export { planPods, wantActive, type PlanInput, type PodPlan } from './manage.js';
export { matchPodFailurePolicy, type PolicyVerdict } from './pod-failure-policy.js';
export {
  DEFAULT_POD_FAILURE_BACKOFF_MS, JOB_TRACKING_FINALIZER, MAX_POD_FAILURE_BACKOFF_MS, backoffRecord, backoffRemainingMs, hasTrackingFinalizer, podFinishTime, podFromJob,
  type BackoffRecord, type IndexedPodParts,
} from './pods.js';
