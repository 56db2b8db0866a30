export { createWorkqueue, type GetResult, type Workqueue, type WorkqueueOptions } from './workqueue.js';
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
} from './rate-limiters.js';
export {
  unfinishedWorkUpdatePeriodMs,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type SettableGaugeMetric,
  type WorkqueueMetricsProvider,
} from './queue-metrics.js';
