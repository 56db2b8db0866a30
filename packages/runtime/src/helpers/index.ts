export { AlreadyOwnedError, getControllerOf, hasControllerReference, hasOwnerReference, setControllerReference, setOwnerReference, type OwnerReferenceOptions } from './owner.js';
export {
  createOrUpdate,
  patchStatus,
  updateStatus,
  type CreateOrUpdateOptions,
  type ObjectKey,
  type OperationResult,
} from './create-or-update.js';
export {
  addFinalizer,
  containsFinalizer,
  finalizer,
  FinalizerError,
  removeFinalizer,
  type FinalizerErrorKind,
  type FinalizerHandlers,
  type FinalizerOutcome,
} from './finalizer.js';
export {
  findStatusCondition,
  formatTime,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from './conditions.js';
export {
  createEventRecorder,
  objectReference,
  type CoreEvent,
  type EventRecorder,
  type EventRecorderOptions,
  type EventType,
} from './event-recorder.js';
