export { createNamespaceController, NAMESPACE_QUEUE_NAME, type NamespaceControllerOptions } from './controller.js';
export {
  AggregateDeletionError,
  createNamespaceDeleter,
  FINALIZER_ESTIMATE_SECONDS,
  FINALIZER_KUBERNETES,
  type NamespaceDeleter,
  type NamespaceDeleterOptions,
} from './deleter.js';
export { discoverDeletableNamespacedResources, parseGroupVersion, type DiscoveryResult, type NamespacedResource } from './discovery.js';
export {
  applyNamespaceConditions,
  DiscoveryError,
  NAMESPACE_CONDITION_TYPES,
  namespaceConditions,
  type DeletionOutcome,
  type NamespaceConditionType,
  type RemainingContent,
} from './conditions.js';
