import type { Clock } from '../clock.js';
import { reportPanic } from '../recover.js';

/** A value that goes up and down by one. */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}
/** A value that can be set. */
export interface SettableGaugeMetric {
  set(value: number): void;
}
/** A value that only goes up. */
export interface CounterMetric {
  inc(): void;
}
/** Records observations (seconds). */
export interface HistogramMetric {
  observe(value: number): void;
}

/**
 * Supplies the instruments a named workqueue reports to (client-go's MetricsProvider).
 * `createMetrics()` returns one backed by prom-client.
 */
export interface WorkqueueMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional: registers `fn` to run just before each scrape, so in-flight gauges are
   * computed on demand. Returns an unregister function. Without it the queue refreshes
   * them on a periodic timer on its clock.
   */
  onCollect?(fn: () => void): () => void;
}

/** The hooks the queue calls; a no-op implementation is used for unnamed queues. */
export interface QueueMetrics {
  add(key: string): void;
  get(key: string): void;
  done(key: string): void;
  retry(): void;
  updateUnfinishedWork(): void;
  /** Final refresh and unhooking, called on shutdown. */
  close(): void;
}

const noop = (): void => {};

/** Hooks that record nothing. */
export const noQueueMetrics: QueueMetrics = {
  add: noop,
  get: noop,
  done: noop,
  retry: noop,
  updateUnfinishedWork: noop,
  close: noop,
};

/** How often in-flight gauges are refreshed when the provider has no `onCollect`. */
export const unfinishedWorkUpdatePeriodMs = 500;

/**
 * Builds the per-queue recorder (client-go's defaultQueueMetrics): it remembers when each
 * key was added and when its processing started, to observe queue and work durations.
 */
export function createQueueMetrics(name: string, provider: WorkqueueMetricsProvider, clock: Clock): QueueMetrics {
  // Metrics are best effort: an instrument that throws is reported once and never breaks the
  // queue (whose timer callbacks and shutdown listeners would otherwise throw to the process).
  let reported = false;
  const guard = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A): void => {
    try {
      fn(...args);
    } catch (err) {
      if (!reported) reportPanic(undefined, 'metrics', err, { name: `workqueue ${name}` });
      reported = true;
    }
  };
  const depth = provider.newDepthMetric(name);
  const adds = provider.newAddsMetric(name);
  const latency = provider.newLatencyMetric(name);
  const workDuration = provider.newWorkDurationMetric(name);
  const unfinished = provider.newUnfinishedWorkSecondsMetric(name);
  const longest = provider.newLongestRunningProcessorSecondsMetric(name);
  const retries = provider.newRetriesMetric(name);
  const addTimes = new Map<string, number>();
  const startTimes = new Map<string, number>();
  const since = (t: number): number => (clock.now() - t) / 1000;

  const update = guard((): void => {
    let total = 0;
    let oldest = 0;
    for (const t of startTimes.values()) {
      const age = since(t);
      total += age;
      if (age > oldest) oldest = age;
    }
    unfinished.set(total);
    longest.set(oldest);
  });

  let unhook: () => void;
  if (provider.onCollect !== undefined) {
    unhook = provider.onCollect(update);
  } else {
    let timer: object | undefined;
    const tick = (): void => {
      update();
      timer = clock.setTimeout(tick, unfinishedWorkUpdatePeriodMs);
    };
    timer = clock.setTimeout(tick, unfinishedWorkUpdatePeriodMs);
    unhook = () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    };
  }

  return {
    add: guard((key: string) => {
      if (!addTimes.has(key)) addTimes.set(key, clock.now());
      adds.inc();
      depth.inc();
    }),
    get: guard((key: string) => {
      startTimes.set(key, clock.now());
      const added = addTimes.get(key);
      addTimes.delete(key);
      depth.dec();
      if (added !== undefined) latency.observe(since(added));
    }),
    done: guard((key: string) => {
      const started = startTimes.get(key);
      startTimes.delete(key);
      if (started !== undefined) workDuration.observe(since(started));
    }),
    retry: guard(() => retries.inc()),
    updateUnfinishedWork: update,
    close: guard(() => {
      update();
      unhook();
    }),
  };
}
