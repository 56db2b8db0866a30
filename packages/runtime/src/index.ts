/**
 * @kplane/runtime — kplane's controller runtime: the public API a controller author uses.
 * Manager, controller builder and controllers; informers and their shared cache; the workqueue
 * and its rate limiters; leader election; helpers (owner references, finalizers, conditions,
 * createOrUpdate, events); typed kinds and descriptors, and custom kinds from a TypeBox schema;
 * the clock; metrics. Test helpers are `@kplane/runtime/testing`. What kplane's own packages
 * share beyond this is `@kplane/runtime/internal`, with no stability promise.
 */

// Manager, controllers and the builder.
export { createManager, parseBindAddress, type HealthCheck, type LeaderElectionOptions, type Manager, type ManagerEndpoints, type ManagerOptions } from './manager/index.js';
export { Action, TerminalError, keyOf, requestFromKey, type Request } from './controller/action.js';
export {
  createController,
  type Controller,
  type ControllerOptions,
  type ReconcileContext,
  type Reconciler,
  type Runnable,
  type Source,
} from './controller/controller.js';
export { BuilderError, type ControllerBuilder, type MapFunc, type WatchOptions } from './controller/builder.js';
export { and, annotationsChanged, generationChanged, labelsChanged, or, resourceVersionChanged, type Predicate, type WatchChange } from './controller/predicates.js';

// Informers and the shared cache.
export { createInformer, type EventHandler, type HandlerRegistration, type Informer, type InformerOptions } from './informer/informer.js';
export { createInformerFactory, type InformerFactory, type InformerFactoryOptions } from './informer/factory.js';
export { CONTROLLER_OWNER_INDEX, NAMESPACE_INDEX, objectKey, type Cache, type IndexFunc } from './informer/store.js';
export type { WatchableApi, WatcherOptions } from './informer/watcher.js';
export type { Backoff, BackoffOptions } from './informer/backoff.js';

// Workqueue and rate limiters.
export { createWorkqueue, type GetResult, type Workqueue, type WorkqueueOptions } from './workqueue/workqueue.js';
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
} from './workqueue/rate-limiters.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from './workqueue/queue-metrics.js';

// Leader election.
export { createLeaderElector, type LeaderElector, type LeaderElectorOptions } from './leader/leader-elector.js';

// Helpers: owner references, createOrUpdate and status writes, finalizers, conditions, events.
export * from './helpers/index.js';

// Typed kinds: the built-in kinds' types and descriptors, custom kinds from a TypeBox schema.
export * from './kinds/index.js';
/** The typed kinds as one namespace, e.g. `kinds.Condition` (the flat `Condition` is the condition helpers'). */
export * as kinds from './kinds/index.js';
// A name both the kinds and the helpers export: the flat export keeps the helpers' (status optional fields filled by setStatusCondition).
export type { Condition } from './helpers/index.js';

// Clock, metrics and exception isolation.
export { createFakeClock, realClock, type ActivitySource, type Clock, type FakeClock, type TimerHandle } from './clock.js';
export { createMetrics, type ReconcileResult, type RuntimeMetrics } from './metrics.js';
export { RecoveredPanic, isPanic, logPanic, type CallbackKind, type PanicContext, type PanicHandler } from './recover.js';

// Serving metrics with delegated authentication and authorization.
export {
  UnauthorizedError,
  createDelegatedAuth,
  type DelegatedAuth,
  type DelegatedAuthOptions,
  type DelegatedDecision,
  type DelegatedRequest,
} from './auth/delegated.js';
export { serveManagerMetrics, serveMetrics, type ManagerMetricsOptions, type MetricsServer, type MetricsServerOptions } from './auth/metrics-server.js';
export { CacheSyncTimeoutError, GracefulShutdownTimeoutError, LeaderElectionLostError } from './controller/errors.js';

// Webhook servers: admission defaulters and validators, CRD conversion, local TLS, configurations.
export * from './webhook/index.js';
