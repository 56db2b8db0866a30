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
