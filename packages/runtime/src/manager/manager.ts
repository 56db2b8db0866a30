/**
 * The manager: one client, one shared informer factory, metrics, optional leader election, and
 * every controller and runnable of a process, started and stopped together with one signal.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Client } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';
import { ControllerBuilder } from '../controller/builder.js';
import type { Controller, Runnable } from '../controller/controller.js';
import { CacheSyncTimeoutError, GracefulShutdownTimeoutError, LeaderElectionLostError } from '../controller/errors.js';
import { createInformerFactory, type InformerFactory } from '../informer/index.js';
import { createLeaderElector } from '../leader/index.js';
import { createEventRecorder, type EventRecorder } from '../helpers/event-recorder.js';
import { createMetrics, type RuntimeMetrics } from '../metrics.js';
import { reportPanic, type PanicHandler } from '../recover.js';
import { parseBindAddress, serveHealthProbes, serveMetricsHttp, type BoundServer, type HealthCheck, type HealthChecks } from './probes.js';

/** Leader election settings (client-go's defaults when absent). */
export interface LeaderElectionOptions {
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** Default: host name + random suffix. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * Give the Lease up on a graceful stop, once every reconciler has returned (default true), so
   * another replica takes over at once instead of after the lease duration.
   */
  releaseOnCancel?: boolean;
}

/** Options of createManager. */
export interface ManagerOptions {
  client: Client;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Restrict every cache to one namespace (default: all). */
  namespace?: string;
  /** Run leader-elected runnables (controllers) only while holding this Lease. */
  leaderElection?: LeaderElectionOptions;
  /** Told about list/watch errors of the caches (they are retried). */
  onCacheError?: (resource: string, err: unknown) => void;
  /**
   * Told about every exception caught in user code outside a reconcile: event handlers, index
   * functions, predicates, map functions, sources, runnables (default: logged). Reconcile
   * failures are logged by each controller.
   */
  onPanic?: PanicHandler;
  /** Where to serve `/metrics` over plain HTTP: `host:port`, `:port` (every interface); absent or "0": not served. */
  metricsBindAddress?: string;
  /** Where to serve `/healthz` and `/readyz` over plain HTTP (same forms); absent or "0": not served. */
  healthProbeBindAddress?: string;
  /** How long a stop waits for runnables (reconciles in flight) to return (default 30 s, on the clock). */
  gracefulShutdownTimeoutMs?: number;
  /** How long to wait for the caches to sync before `start` fails with a CacheSyncTimeoutError (default: forever). */
  cacheSyncTimeoutMs?: number;
  /** Default `maxConcurrentReconciles` of the controllers built by this manager (default 1). */
  maxConcurrentReconciles?: number;
  /**
   * Called when the Lease was lost, after the controllers were told to stop and the manager has
   * stopped; `start` then rejects with the same LeaderElectionLostError. Default: log and
   * `process.exit(1)`, as controller-runtime's binaries do, so a supervisor restarts the process.
   */
  onLeadershipLost?: (err: LeaderElectionLostError) => void;
}

/** Where a running manager serves (http:// URLs; absent when not served). */
export interface ManagerEndpoints {
  metrics?: string;
  healthProbe?: string;
}

/** A manager. */
export interface Manager {
  readonly client: Client;
  readonly factory: InformerFactory;
  readonly metrics: RuntimeMetrics;
  readonly clock: Clock;
  /** The identity used for leader election. */
  readonly identity: string;
  /** Starts the registration of a controller run by this manager. */
  controller(): ControllerBuilder;
  /** Adds a runnable (started now if the manager is running). */
  add(runnable: Runnable): void;
  /**
   * The event recorder of the component `name` (its Events' source.component and
   * reportingComponent), on this manager's client and clock; one per name, as
   * controller-runtime's GetEventRecorderFor.
   */
  eventRecorderFor(name: string): EventRecorder;
  /** The controllers registered so far. */
  controllers(): readonly Controller[];
  /**
   * Runs everything until `signal` aborts: the HTTP endpoints, the caches; then, once they have
   * synced, the runnables (leader-elected ones only while leading). On stop: runnables are told
   * to stop (controllers take no new key), their in-flight reconciles are awaited for up to
   * `gracefulShutdownTimeoutMs`, then the caches stop, then the Lease is released. Resolves when
   * all has stopped; rejects with CacheSyncTimeoutError, LeaderElectionLostError,
   * GracefulShutdownTimeoutError, or an endpoint's bind error.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves with the endpoints' URLs once `start` has bound them (rejects if binding failed). */
  serving(): Promise<ManagerEndpoints>;
  /** Adds a named liveness check to `/healthz` (with none, `/healthz` has `ping`). Throws on a duplicate name. */
  addHealthzCheck(name: string, check: HealthCheck): void;
  /** Adds a named readiness check to `/readyz`, which always has `informer-sync` (caches synced). */
  addReadyzCheck(name: string, check: HealthCheck): void;
  /** Liveness: the manager was started and has not stopped. */
  healthy(): boolean;
  /** Readiness: every cache has synced. */
  ready(): boolean;
  /** Does this process currently lead (always true without leader election, once started)? */
  leading(): boolean;
}

/** What a running manager launches runnables with. */
interface RunState {
  others: AbortSignal;
  leader?: AbortSignal;
  tasks: Promise<void>[];
  fail(err: Error): void;
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

function defaultLeadershipLost(err: LeaderElectionLostError): void {
  console.error(`${err.message} (lease ${err.lease}): exiting`);
  process.exit(1);
}

function addCheck(checks: HealthChecks, what: string, name: string, check: HealthCheck): void {
  if (!/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/i.test(name)) throw new Error(`${what} check name ${JSON.stringify(name)} must be alphanumeric with - _ .`);
  if (checks.has(name)) throw new Error(`${what} check named ${JSON.stringify(name)} already exists`);
  checks.set(name, check);
}

/**
 * Creates a manager.
 *
 * Guarantees: runnables start only after every informer created before `start` has synced;
 * with leader election, leader-elected runnables run only between winning and losing the
 * Lease, under a signal that aborts when leadership ends, and never in two processes at once
 * as long as the Lease's timing rules hold. The Lease is released only after every runnable
 * has returned (never when the grace period ran out). A runnable or callback that throws is
 * reported to `onPanic`, never to the process; a controller whose caches did not sync in time
 * stops the manager.
 */
export function createManager(options: ManagerOptions): Manager {
  const clock = options.clock ?? realClock;
  const metrics = options.metrics ?? createMetrics();
  const onPanic = options.onPanic;
  const graceMs = options.gracefulShutdownTimeoutMs ?? 30_000;
  const metricsBind = parseBindAddress(options.metricsBindAddress, 'metricsBindAddress');
  const probeBind = parseBindAddress(options.healthProbeBindAddress, 'healthProbeBindAddress');
  const factory = createInformerFactory({
    client: options.client,
    clock,
    namespace: options.namespace,
    onError: options.onCacheError,
    onPanic,
    metrics,
  });
  const identity = options.leaderElection?.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const runnables: Runnable[] = [];
  const controllers: Controller[] = [];
  const healthz: HealthChecks = new Map();
  const readyz: HealthChecks = new Map([['informer-sync', () => (ready ? undefined : new Error('caches not synced'))]]);
  let servingResolve!: (e: ManagerEndpoints) => void;
  let servingReject!: (err: unknown) => void;
  const servingPromise = new Promise<ManagerEndpoints>((resolve, reject) => {
    servingResolve = resolve;
    servingReject = reject;
  });
  servingPromise.catch(() => undefined); // a caller who asks gets the rejection; nobody asking is fine
  let running: RunState | undefined;
  let healthy = false;
  let ready = false;
  let leading = false;

  const launch = (r: Runnable): void => {
    if (!running || !ready) return;
    const signal = r.needLeaderElection ? running.leader : running.others;
    if (!signal || signal.aborted) return;
    const fail = running.fail;
    // A runnable that throws (at once or later) is reported; the others and the manager go on,
    // except for a controller whose caches never synced: that stops the manager.
    const task = (async () => r.start(signal))().catch((err) => {
      if (err instanceof CacheSyncTimeoutError) fail(err);
      else reportPanic(onPanic, 'runnable', err, { name: (r as Partial<Controller>).name });
    });
    running.tasks.push(task);
  };

  /** Waits for every task (including ones added meanwhile) for up to `ms`: true when all returned. */
  const drain = async (tasks: Promise<void>[], ms: number): Promise<boolean> => {
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const all = (async () => {
      for (let i = 0; i < tasks.length; i++) await tasks[i];
      return true;
    })();
    if (ms <= 0) return Promise.race([all, Promise.resolve().then(() => false)]);
    const timeout = new Promise<boolean>((resolve) => (timer = clock.setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([all, timeout]);
    } finally {
      if (timer) clock.clearTimeout(timer);
    }
  };

  /** Waits for the factory's caches: true when synced, false when stopped first; throws on timeout. */
  const waitForCaches = async (stop: AbortSignal): Promise<boolean> => {
    const timeoutMs = options.cacheSyncTimeoutMs;
    if (!(timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs))) return factory.waitForCacheSync(stop);
    const wait = new AbortController();
    let timedOut = false;
    const onStop = (): void => wait.abort();
    stop.addEventListener('abort', onStop, { once: true });
    const timer = clock.setTimeout(() => {
      timedOut = true;
      wait.abort();
    }, timeoutMs);
    try {
      if (await factory.waitForCacheSync(wait.signal)) return true;
      if (timedOut && !stop.aborted) throw new CacheSyncTimeoutError(factory.unsynced());
      return false;
    } finally {
      clock.clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
  };

  const recorders = new Map<string, EventRecorder>();
  const manager: Manager = {
    client: options.client,
    factory,
    metrics,
    clock,
    identity,
    controller() {
      return new ControllerBuilder({
        factory,
        clock,
        metrics,
        onPanic,
        defaults: { maxConcurrentReconciles: options.maxConcurrentReconciles, cacheSyncTimeoutMs: options.cacheSyncTimeoutMs },
        register: (c) => {
          controllers.push(c);
          manager.add(c);
        },
      });
    },
    add(runnable) {
      runnables.push(runnable);
      launch(runnable);
    },
    eventRecorderFor(name) {
      let recorder = recorders.get(name);
      if (!recorder) recorders.set(name, (recorder = createEventRecorder({ client: options.client, component: name, clock })));
      return recorder;
    },
    controllers: () => controllers,
    serving: () => servingPromise,
    addHealthzCheck: (name, check) => addCheck(healthz, 'healthz', name, check),
    addReadyzCheck: (name, check) => addCheck(readyz, 'readyz', name, check),
    healthy: () => healthy,
    ready: () => ready,
    leading: () => leading,
    async start(signal) {
      if (running) throw new Error('the manager is already started');
      // One stop for everything: the caller's signal, a lost Lease, or a fatal error.
      const stop = new AbortController();
      let failure: Error | undefined;
      const fail = (err: Error): void => {
        failure ??= err;
        stop.abort(err);
      };
      const onAbort = (): void => stop.abort(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const others = new AbortController();
      const caches = new AbortController();
      const leaderWork = new AbortController();
      // Every informer's watch and every runnable listens on these signals.
      for (const s of [signal, stop.signal, others.signal, caches.signal, leaderWork.signal]) setMaxListeners(0, s);
      const state: RunState = { others: others.signal, tasks: [], fail };
      running = state;
      const servers: BoundServer[] = [];
      let electionStop: AbortController | undefined;
      let election: Promise<void> | undefined;
      let drained = true;
      healthy = true;
      try {
        const endpoints: ManagerEndpoints = {};
        try {
          if (metricsBind) servers.push(await serveMetricsHttp(metricsBind, metrics).then((s) => ((endpoints.metrics = s.url), s)));
          if (probeBind) servers.push(await serveHealthProbes(probeBind, healthz, readyz).then((s) => ((endpoints.healthProbe = s.url), s)));
        } catch (err) {
          servingReject(err);
          throw err;
        }
        servingResolve(endpoints);
        factory.start(caches.signal);
        let synced = false;
        try {
          synced = await waitForCaches(stop.signal);
        } catch (err) {
          fail(err as Error);
        }
        if (synced && !stop.signal.aborted) {
          ready = true;
          for (const r of runnables) if (!r.needLeaderElection) launch(r);
          const le = options.leaderElection;
          if (!le) {
            state.leader = leaderWork.signal;
            leading = true;
            for (const r of runnables) if (r.needLeaderElection) launch(r);
          } else {
            electionStop = new AbortController();
            const lease = `${le.namespace}/${le.name}`;
            const elector = createLeaderElector({
              client: options.client,
              namespace: le.namespace,
              name: le.name,
              identity,
              leaseDurationMs: le.leaseDurationMs,
              renewDeadlineMs: le.renewDeadlineMs,
              retryPeriodMs: le.retryPeriodMs,
              // Asked when the term ends: only once every reconciler has returned.
              releaseOnCancel: () => le.releaseOnCancel !== false && drained,
              clock,
              metrics,
              onPanic,
              onStartedLeading: (term) => {
                term.addEventListener('abort', () => leaderWork.abort(term.reason), { once: true });
                if (stop.signal.aborted) return;
                leading = true;
                state.leader = leaderWork.signal;
                for (const r of runnables) if (r.needLeaderElection) launch(r);
              },
              onStoppedLeading: () => {
                leading = false;
                if (!electionStop!.signal.aborted) fail(new LeaderElectionLostError(lease));
              },
            });
            election = elector.run(electionStop.signal).catch((err) => void reportPanic(onPanic, 'leader-election', err, { name: le.name }));
          }
          await aborted(stop.signal);
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        // Stop taking work, then wait for the reconciles in flight (not after a lost Lease:
        // another replica may already lead), then stop the caches, then release the Lease.
        ready = false;
        others.abort(stop.signal.reason);
        leaderWork.abort(stop.signal.reason);
        drained = await drain(state.tasks, failure instanceof LeaderElectionLostError ? 0 : graceMs);
        if (!drained && !failure) failure = new GracefulShutdownTimeoutError(graceMs);
        caches.abort(stop.signal.reason);
        await factory.shutdown();
        electionStop?.abort(stop.signal.reason);
        await election;
        await Promise.all(servers.map((s) => s.close()));
        healthy = false;
        leading = false;
        running = undefined;
      }
      if (failure instanceof LeaderElectionLostError) {
        try {
          (options.onLeadershipLost ?? defaultLeadershipLost)(failure);
        } catch (err) {
          reportPanic(onPanic, 'leader-election', err, { name: 'onLeadershipLost' });
        }
      }
      if (failure) throw failure;
    },
  };
  return manager;
}
