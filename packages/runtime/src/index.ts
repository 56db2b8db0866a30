/**
 * @kplane/runtime — kplane's controller runtime. This slice: an injectable clock, a
 * client-go-style workqueue (delaying and rate-limited layers) and Prometheus metrics.
 */
export {
  createFakeClock,
  flushMicrotasks,
  realClock,
  type Clock,
  type FakeClock,
  type TimerHandle,
} from './clock.js';
export * from './workqueue/index.js';
export { createMetrics, type ReconcileResult, type RuntimeMetrics } from './metrics.js';
export { RecoveredPanic, isPanic, logPanic, reportPanic, type CallbackKind, type PanicContext, type PanicHandler } from './recover.js';
export * from './informer/index.js';
export * from './leader/index.js';
export * from './helpers/index.js';
export * from './controller/index.js';
export * from './manager/index.js';
export * from './kinds/index.js';
/** The typed kinds as one namespace, e.g. `kinds.Lease` (the flat `Lease` is the leader-election lock's). */
export * as kinds from './kinds/index.js';
// Names both the kinds and older modules export: the flat export keeps the older module's.
export type { Condition, ObjectReference } from './helpers/index.js';
export type { Lease } from './leader/index.js';
export {
  UnauthorizedError,
  certificateUser,
  createDelegatedAuth,
  nonResourceVerb,
  type DelegatedAuth,
  type DelegatedAuthOptions,
  type DelegatedDecision,
  type DelegatedRequest,
} from './auth/delegated.js';
export { serveManagerMetrics, serveMetrics, type ManagerMetricsOptions, type MetricsServer, type MetricsServerOptions } from './auth/metrics-server.js';
export { CacheSyncTimeoutError, GracefulShutdownTimeoutError, LeaderElectionLostError } from './controller/errors.js';
