/**
 * @kplane/runtime — kplane's controller runtime. Informers, workqueue, controller builder,
 * manager, leader election, helpers and metrics.
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
export * from './informer/index.js';
export * from './leader/index.js';
export * from './helpers/index.js';
export * from './controller/index.js';
export * from './manager/index.js';
