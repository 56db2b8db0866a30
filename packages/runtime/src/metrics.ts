import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import * as prom from './prom.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from './workqueue/queue-metrics.js';

/** The `result` label values of `controller_runtime_reconcile_total`. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

const reconcileResults: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

/** controller-runtime's buckets of controller_runtime_reconcile_time_seconds (5 ms … 60 s). */
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0,
  3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** 1e-8 s … 1e3 s, ten-fold steps: controller-runtime's workqueue duration buckets. */
const durationBuckets = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/**
 * The runtime's Prometheus metrics, with client-go / controller-runtime names. It is also a
 * `WorkqueueMetricsProvider`: pass it as `metrics` to `createWorkqueue({ name, metrics })`.
 */
export interface RuntimeMetrics extends WorkqueueMetricsProvider {
  /** The registry every metric below is registered in. */
  readonly registry: Registry;
  readonly workqueueDepth: Gauge<'name'>;
  readonly workqueueAdds: Counter<'name'>;
  readonly workqueueQueueDuration: Histogram<'name'>;
  readonly workqueueWorkDuration: Histogram<'name'>;
  readonly workqueueRetries: Counter<'name'>;
  readonly workqueueUnfinishedWork: Gauge<'name'>;
  readonly workqueueLongestRunningProcessor: Gauge<'name'>;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  /** `controller_runtime_reconcile_panics_total{controller}`. */
  readonly reconcilePanics: Counter<'controller'>;
  /** `controller_runtime_terminal_reconcile_errors_total{controller}`. */
  readonly terminalReconcileErrors: Counter<'controller'>;
  /** `controller_runtime_reconcile_time_seconds{controller}`. */
  readonly reconcileTime: Histogram<'controller'>;
  /** `controller_runtime_max_concurrent_reconciles{controller}`. */
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  /** `controller_runtime_active_workers{controller}`. */
  readonly activeWorkers: Gauge<'controller'>;
  /** `kplane_informer_callback_panics_total{resource,callback}`. */
  readonly informerCallbackPanics: Counter<'resource' | 'callback'>;
  readonly leaderElectionMasterStatus: Gauge<'name'>;
  /**
   * Zeroes a controller's reconcile series, so they are exported before its first reconcile,
   * and sets its `max_concurrent_reconciles` (default 1) and `active_workers` (0).
   */
  initController(controller: string, maxConcurrentReconciles?: number): void;
  /** Records how long one reconcile of `controller` took, in seconds. */
  observeReconcileTime(controller: string, seconds: number): void;
  /** Counts one reconcile of `controller` that failed with a TerminalError. */
  recordTerminalError(controller: string): void;
  /** Moves `active_workers{controller}` by `delta` (+1 when a worker takes a key, -1 when done). */
  addActiveWorkers(controller: string, delta: number): void;
  /** Counts one reconcile of `controller` with `result` (and one error when it is 'error'). */
  recordReconcile(controller: string, result: ReconcileResult): void;
  /**
   * Counts one exception caught in `controller`'s user code: a reconciler panic (see
   * `isPanic`), or a throwing predicate, map function or watch source.
   */
  recordPanic(controller: string): void;
  /** Counts one exception caught in an informer's event handler or index function of `resource`. */
  recordInformerPanic(resource: string, callback: 'event-handler' | 'indexer'): void;
  /** Sets `leader_election_master_status{name}` to 1 (leader) or 0 (standby). */
  setLeader(name: string, isLeader: boolean): void;
  /** The Prometheus text exposition of the registry (in-flight gauges refreshed first). */
  metricsText(): Promise<string>;
  /** The content type to serve `metricsText()` with. */
  readonly contentType: string;
}

// Scrape hooks are kept per registry, so every RuntimeMetrics sharing one registry (and
// therefore one set of metric objects) refreshes all the queues reporting into it.
const hooksByRegistry = new WeakMap<Registry, Set<() => void>>();

function hooksOf(registry: Registry): Set<() => void> {
  let hooks = hooksByRegistry.get(registry);
  if (hooks === undefined) {
    hooks = new Set();
    hooksByRegistry.set(registry, hooks);
  }
  return hooks;
}

/**
 * Creates (or, when `registry` already holds them, reuses) the runtime metrics in `registry`
 * (default: a fresh registry, never prom-client's global one).
 *
 * Guarantees: calling it twice with one registry returns views over the same metric
 * objects instead of throwing on duplicate registration.
 */
export function createMetrics(registry: Registry = new prom.Registry()): RuntimeMetrics {
  const hooks = hooksOf(registry);
  const runHooks = (): void => {
    for (const h of hooks) h();
  };
  const existing = <M>(name: string): M | undefined => registry.getSingleMetric(name) as M | undefined;
  const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
    existing<Counter<L>>(name) ?? new prom.Counter<L>({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: L[], collect?: () => void): Gauge<L> =>
    existing<Gauge<L>>(name) ??
    new prom.Gauge<L>({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) });
  const histogram = (name: string, help: string): Histogram<'name'> =>
    existing<Histogram<'name'>>(name) ??
    new prom.Histogram<'name'>({ name, help, labelNames: ['name'], buckets: durationBuckets, registers: [registry] });

  const workqueueDepth = gauge('workqueue_depth', 'Current depth of workqueue', ['name']);
  const workqueueAdds = counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']);
  const workqueueQueueDuration = histogram(
    'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested',
  );
  const workqueueWorkDuration = histogram(
    'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes.',
  );
  const workqueueUnfinishedWork = gauge(
    'workqueue_unfinished_work_seconds',
    'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    ['name'],
    runHooks,
  );
  const workqueueLongestRunningProcessor = gauge(
    'workqueue_longest_running_processor_seconds',
    'How many seconds has the longest running processor for workqueue been running.',
    ['name'],
    runHooks,
  );
  const workqueueRetries = counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name']);
  const reconcileTotal = counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
    'controller',
    'result',
  ]);
  const reconcileErrors = counter(
    'controller_runtime_reconcile_errors_total',
    'Total number of reconciliation errors per controller',
    ['controller'],
  );
  const reconcilePanics = counter(
    'controller_runtime_reconcile_panics_total',
    'Total number of reconciliation panics per controller',
    ['controller'],
  );
  const terminalReconcileErrors = counter(
    'controller_runtime_terminal_reconcile_errors_total',
    'Total number of terminal reconciliation errors per controller',
    ['controller'],
  );
  const reconcileTime =
    existing<Histogram<'controller'>>('controller_runtime_reconcile_time_seconds') ??
    new prom.Histogram<'controller'>({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileTimeBuckets,
      registers: [registry],
    });
  const maxConcurrentReconciles = gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', ['controller']);
  const activeWorkers = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']);
  const informerCallbackPanics = counter(
    'kplane_informer_callback_panics_total',
    'Total number of exceptions caught in informer event handlers and index functions, per resource',
    ['resource', 'callback'],
  );
  const leaderElectionMasterStatus = gauge(
    'leader_election_master_status',
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    ['name'],
  );

  const metrics: RuntimeMetrics = {
    registry,
    workqueueDepth,
    workqueueAdds,
    workqueueQueueDuration,
    workqueueWorkDuration,
    workqueueRetries,
    workqueueUnfinishedWork,
    workqueueLongestRunningProcessor,
    reconcileTotal,
    reconcileErrors,
    reconcilePanics,
    terminalReconcileErrors,
    reconcileTime,
    maxConcurrentReconciles,
    activeWorkers,
    informerCallbackPanics,
    leaderElectionMasterStatus,
    contentType: registry.contentType,

    newDepthMetric(name): GaugeMetric {
      workqueueDepth.inc({ name }, 0);
      return { inc: () => workqueueDepth.inc({ name }), dec: () => workqueueDepth.dec({ name }) };
    },
    newAddsMetric(name): CounterMetric {
      workqueueAdds.inc({ name }, 0);
      return { inc: () => workqueueAdds.inc({ name }) };
    },
    newLatencyMetric(name): HistogramMetric {
      return { observe: (v) => workqueueQueueDuration.observe({ name }, v) };
    },
    newWorkDurationMetric(name): HistogramMetric {
      return { observe: (v) => workqueueWorkDuration.observe({ name }, v) };
    },
    newUnfinishedWorkSecondsMetric(name): SettableGaugeMetric {
      return { set: (v) => workqueueUnfinishedWork.set({ name }, v) };
    },
    newLongestRunningProcessorSecondsMetric(name): SettableGaugeMetric {
      return { set: (v) => workqueueLongestRunningProcessor.set({ name }, v) };
    },
    newRetriesMetric(name): CounterMetric {
      workqueueRetries.inc({ name }, 0);
      return { inc: () => workqueueRetries.inc({ name }) };
    },
    onCollect(fn) {
      hooks.add(fn);
      return () => {
        hooks.delete(fn);
      };
    },

    initController(controller, workers = 1) {
      for (const result of reconcileResults) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      terminalReconcileErrors.inc({ controller }, 0);
      reconcilePanics.inc({ controller }, 0);
      maxConcurrentReconciles.set({ controller }, workers);
      activeWorkers.set({ controller }, 0);
    },
    observeReconcileTime(controller, seconds) {
      reconcileTime.observe({ controller }, seconds);
    },
    recordTerminalError(controller) {
      terminalReconcileErrors.inc({ controller });
    },
    addActiveWorkers(controller, delta) {
      activeWorkers.inc({ controller }, delta);
    },
    recordReconcile(controller, result) {
      reconcileTotal.inc({ controller, result });
      if (result === 'error') reconcileErrors.inc({ controller });
    },
    recordPanic(controller) {
      reconcilePanics.inc({ controller });
    },
    recordInformerPanic(resource, callback) {
      informerCallbackPanics.inc({ resource, callback });
    },
    setLeader(name, isLeader) {
      leaderElectionMasterStatus.set({ name }, isLeader ? 1 : 0);
    },
    metricsText: () => registry.metrics(),
  };
  return metrics;
}
