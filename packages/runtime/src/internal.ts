/**
 * `@kplane/runtime/internal`: the parts of the runtime kplane's own packages (controllers,
 * kubelet, cli) build on that are not its public API — lower layers of the informer (watcher,
 * store, freezing, interning, backoff), the Lease lock, scheduling predicates, the panic
 * reporter. No stability promise: a controller author uses `@kplane/runtime`.
 */
export { flushMicrotasks } from './clock.js';
export { reportPanic } from './recover.js';
export { unfinishedWorkUpdatePeriodMs } from './workqueue/queue-metrics.js';
export { createBackoff } from './informer/backoff.js';
export { stepWatcher, watcher, watcherBatches, type WatcherEvent, type WatcherState } from './informer/watcher.js';
export {
  controllerOwnerIndexFunc,
  createInterner,
  createStore,
  deepFreeze,
  freezeSharing,
  namespaceIndexFunc,
  type Interner,
  type Store,
  type StoreDelta,
  type StoreOptions,
} from './informer/store.js';
export { ControllerBuilder, type BuilderContext } from './controller/builder.js';
export { JITTER_FACTOR } from './leader/leader-elector.js';
export {
  createLeaseLock,
  formatMicroTime,
  leaseResource,
  leaseToRecord,
  parseMicroTime,
  recordKey,
  recordToLeaseSpec,
  type LeaderElectionRecord,
  type LeaseLock,
  type LeaseLockOptions,
} from './leader/lease-lock.js';
export { effectiveTaints, findUntoleratedTaint, matchesNodeAffinity, matchesNodeSelectorTerm, tolerates } from './helpers/scheduling.js';
export { certificateUser, nonResourceVerb } from './auth/delegated.js';
