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
import { createInformerFactory, type InformerFactory } from '../informer/index.js';
import { createLeaderElector } from '../leader/index.js';
import { createMetrics, type RuntimeMetrics } from '../metrics.js';
import { reportPanic, type PanicHandler } from '../recover.js';

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
  /** The controllers registered so far. */
  controllers(): readonly Controller[];
  /**
   * Runs everything until `signal` aborts: caches first; then, once they have synced, the
   * runnables (leader-elected ones only while leading). Resolves when all have stopped.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Liveness: the manager was started and has not stopped. */
  healthy(): boolean;
  /** Readiness: every cache has synced. */
  ready(): boolean;
  /** Does this process currently lead (always true without leader election, once started)? */
  leading(): boolean;
}

/**
 * Creates a manager.
 *
 * Guarantees: runnables start only after every informer created before `start` has synced;
 * with leader election, leader-elected runnables run only between winning and losing the
 * Lease, under a signal that aborts when leadership ends, and never in two processes at once
 * as long as the Lease's timing rules hold. `start` rejects only when called twice: a runnable
 * or callback that throws is reported to `onPanic`, never to the process.
 */
export function createManager(options: ManagerOptions): Manager {
  const clock = options.clock ?? realClock;
  const metrics = options.metrics ?? createMetrics();
  const onPanic = options.onPanic;
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
  let running: { signal: AbortSignal; leaderSignal?: AbortSignal; tasks: Promise<void>[] } | undefined;
  let healthy = false;
  let ready = false;
  let leading = false;

  const launch = (r: Runnable): void => {
    if (!running || !ready) return;
    const signal = r.needLeaderElection ? running.leaderSignal : running.signal;
    if (!signal || signal.aborted) return;
    // A runnable that throws (at once or later) is reported; the others and the manager go on.
    const task = (async () => r.start(signal))().catch((err) => void reportPanic(onPanic, 'runnable', err, { name: (r as Partial<Controller>).name }));
    running.tasks.push(task);
  };

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
    controllers: () => controllers,
    healthy: () => healthy,
    ready: () => ready,
    leading: () => leading,
    async start(signal) {
      if (running) throw new Error('the manager is already started');
      running = { signal, tasks: [] };
      // Every informer's watch and every runnable listens on this one signal.
      setMaxListeners(0, signal);
      healthy = true;
      try {
        factory.start(signal);
        if (!(await factory.waitForCacheSync(signal))) return;
        ready = true;
        for (const r of runnables) if (!r.needLeaderElection) launch(r);
        const le = options.leaderElection;
        if (!le) {
          running.leaderSignal = signal;
          leading = true;
          for (const r of runnables) if (r.needLeaderElection) launch(r);
          await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
        } else {
          const elector = createLeaderElector({
            client: options.client,
            namespace: le.namespace,
            name: le.name,
            identity,
            leaseDurationMs: le.leaseDurationMs,
            renewDeadlineMs: le.renewDeadlineMs,
            retryPeriodMs: le.retryPeriodMs,
            clock,
            metrics,
            onPanic,
            onStartedLeading: (leaderSignal) => {
              // Every controller that needs leadership listens on this signal too.
              setMaxListeners(0, leaderSignal);
              leading = true;
              running!.leaderSignal = leaderSignal;
              for (const r of runnables) if (r.needLeaderElection) launch(r);
            },
            onStoppedLeading: () => {
              leading = false;
            },
          });
          try {
            await elector.run(signal);
          } catch (err) {
            reportPanic(onPanic, 'leader-election', err, { name: le.name });
          }
        }
        // Wait for every runnable, including ones started after leadership was won.
        for (let i = 0; i < running.tasks.length; i++) await running.tasks[i];
      } finally {
        await factory.shutdown();
        healthy = false;
        ready = false;
        leading = false;
        running = undefined;
      }
    },
  };
  return manager;
}
