/**
 * The controller engine: keys from event sources into a workqueue, workers that reconcile them
 * (controller-runtime's pkg/internal/controller). Users build controllers with the builder.
 */
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import type { Informer, HandlerRegistration } from '../informer/index.js';
import type { RuntimeMetrics } from '../metrics.js';
import { createWorkqueue, type Workqueue } from '../workqueue/index.js';
import { catchRejection, isPanic, reportPanic, RecoveredPanic, type PanicHandler } from '../recover.js';
import { Action, TerminalError, requestFromKey, type Request } from './action.js';
import { CacheSyncTimeoutError } from './errors.js';

/** A reconcile function: makes the world match the object named by `request`. */
export type Reconciler = (request: Request, context: ReconcileContext) => Promise<Action | void> | Action | void;

/** What a reconcile gets besides its request. */
export interface ReconcileContext {
  /** Aborts when the controller stops. */
  signal: AbortSignal;
}

/**
 * An event source: registers handlers that call `enqueue`; returns how to unregister them.
 * With `batchWindowMs`, a key whose last reconcile started less than that long ago is added at
 * the end of the window instead of at once (see WatchOptions.batchWindowMs).
 */
export type Source = (enqueue: (key: string, batchWindowMs?: number) => void) => HandlerRegistration;

/** Something the manager runs until its signal aborts. */
export interface Runnable {
  /** Runs until `signal` aborts; resolves when stopped. */
  start(signal: AbortSignal): Promise<void>;
  /** Only run while this process holds the leader lease (controllers: true). */
  readonly needLeaderElection?: boolean;
}

/** Options of createController. */
export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** Informers whose caches must be synced before the first reconcile. */
  informers: Informer[];
  /** Where keys come from. */
  sources: Source[];
  /** Workers reconciling at once (default 1); one key is never reconciled by two at once. */
  maxConcurrentReconciles?: number;
  /**
   * How long `start` waits for the informers to sync before it rejects with a
   * CacheSyncTimeoutError naming the resources not synced (ms on the clock; default: forever).
   */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Defaults to a named, rate-limited workqueue on `clock`. */
  queue?: Workqueue;
  /**
   * Told about every failed reconcile (default: logged with the controller's name and the
   * key). For a panic (see `isPanic`) `err` is a RecoveredPanic whose `cause` is what was thrown.
   */
  onError?: (request: Request, err: unknown) => void;
  /**
   * Told about exceptions caught outside the reconcile itself (default: logged): a source that
   * throws or enqueues no key, an `onError` that throws, a failing metric or rate limiter.
   */
  onPanic?: PanicHandler;
}

/**
 * Whether `err` is the stop itself: `signal` has aborted and the reconcile ended with its reason
 * or an AbortError (what the client, a clock's sleep or fetch throw on an aborted signal).
 */
export function stoppedBy(signal: AbortSignal, err: unknown): boolean {
  if (!signal.aborted) return false;
  if (err === signal.reason) return true;
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

/** A running (or runnable) controller. */
export interface Controller extends Runnable {
  readonly name: string;
  readonly queue: Workqueue;
  /** Adds a key to the queue (for tests and external triggers). */
  enqueue(key: string): void;
}

/**
 * Creates a controller.
 *
 * Guarantees:
 * - A key is never reconciled by two workers at once (the workqueue's guarantee), and a change
 *   that arrives during a reconcile of its key causes one more reconcile after it.
 * - No reconcile starts before every informer has synced.
 * - A thrown error requeues the key with per-key exponential backoff (5 ms → 1000 s) capped by a
 *   10 qps / 100 burst bucket; a TerminalError is recorded and the key forgotten; a panic
 *   (`isPanic`: a TypeError and the like, or a thrown non-Error) is one such error, counted in
 *   `controller_runtime_reconcile_panics_total` as well; an
 *   `Action.requeue(ms)` requeues after ms; success forgets the key's backoff.
 * - A source's change with a batch window wakes its key at once when the key's last reconcile
 *   started at least that long ago, else at the end of the window (never later); a failed
 *   reconcile during which such changes were held back is retried at once.
 * - A reconcile that ends with an AbortError (or the signal's reason) after the signal aborted
 *   is the stop, not an error: it is neither logged, counted as an error nor requeued.
 * - Nothing a reconciler, a source or an `onError` callback throws escapes: the workers keep
 *   going and `start` resolves when the signal aborts. A source that throws when it is started
 *   is reported and counted, and the controller runs with the others.
 */
export function createController(options: ControllerOptions): Controller {
  const clock = options.clock ?? realClock;
  const queue = options.queue ?? createWorkqueue({ name: options.name, clock, metrics: options.metrics });
  const workers = Math.max(1, options.maxConcurrentReconciles ?? 1);
  const name = options.name;
  const logError = (req: Request, err: unknown): void => console.error(`Reconciler error: controller=${JSON.stringify(name)} key=${JSON.stringify(req.key)}:`, err);
  const onError = (req: Request, err: unknown): void => {
    const failed = (thrown: unknown): void => {
      logError(req, err);
      reportPanic(options.onPanic, 'reconciler', thrown, { controller: name, key: req.key, name: 'onError' });
    };
    try {
      catchRejection((options.onError ?? logError)(req, err), failed);
    } catch (thrown) {
      failed(thrown);
    }
  };
  /** Metrics are best effort: a failing metric never breaks a worker. */
  const record = (fn: (m: RuntimeMetrics) => void): void => {
    try {
      if (options.metrics) fn(options.metrics);
    } catch (err) {
      reportPanic(options.onPanic, 'metrics', err, { controller: name });
    }
  };
  record((m) => m.initController(name, workers));
  // When each key's last reconcile started (clock ms), for sources with a batch window; entries
  // older than the widest window seen are swept now and then.
  const lastStart = new Map<string, number>();
  let widestWindow = 0;
  let nextSweep = 0;

  // Keys whose change is waiting for the end of a batch window (cleared when a reconcile starts).
  const held = new Set<string>();

  /** Adds `key` now, or at the end of its batch window when its last reconcile started less than `windowMs` ago. */
  function enqueue(key: string, windowMs?: number): void {
    if (typeof key !== 'string') {
      record((m) => m.recordPanic(name));
      reportPanic(options.onPanic, 'watch-source', new TypeError(`a source enqueued ${key === null ? 'null' : typeof key}, not a key string`), { controller: name, name: 'enqueue' });
      return;
    }
    if (windowMs === undefined || !(windowMs > 0)) return queue.add(key);
    widestWindow = Math.max(widestWindow, windowMs);
    const started = lastStart.get(key);
    const wait = started === undefined ? 0 : started + windowMs - clock.now();
    if (wait > 0) {
      held.add(key);
      queue.addAfter(key, wait);
    } else queue.add(key);
  }

  function noteStart(key: string): void {
    if (widestWindow === 0) return;
    held.delete(key);
    const now = clock.now();
    lastStart.set(key, now);
    if (now < nextSweep) return;
    nextSweep = now + Math.max(1000, widestWindow);
    for (const [k, t] of lastStart) if (t + widestWindow <= now) lastStart.delete(k);
  }

  /** Reconciles one key and records the outcome; the caller releases the key. */
  async function reconcileOne(key: string, signal: AbortSignal): Promise<void> {
    noteStart(key);
    const request = requestFromKey(key);
    let action: Action | void;
    const started = clock.now();
    try {
      action = await options.reconcile(request, { signal });
    } catch (thrown) {
      if (stoppedBy(signal, thrown)) {
        // The stop aborted this reconcile's requests: not a failure (controller-runtime's
        // manager exits quietly on SIGTERM too); the queue is shutting down, nothing to retry.
        record((m) => m.observeReconcileTime(name, (clock.now() - started) / 1000));
        return;
      }
      const panic = isPanic(thrown);
      const err = panic ? new RecoveredPanic('reconciler', thrown, { controller: name, key }) : thrown;
      record((m) => {
        m.observeReconcileTime(name, (clock.now() - started) / 1000);
        if (panic) m.recordPanic(name);
        if (err instanceof TerminalError) m.recordTerminalError(name);
        m.recordReconcile(name, 'error');
      });
      onError(request, err);
      if (err instanceof TerminalError) queue.forget(key);
      else {
        queue.addRateLimited(key);
        // Changes held back during a failed reconcile are not worth a wait: retry with them at once.
        if (held.has(key)) queue.add(key);
      }
      return;
    }
    record((m) => m.observeReconcileTime(name, (clock.now() - started) / 1000));
    queue.forget(key);
    if (action && typeof action === 'object' && action.type === 'requeue') {
      queue.addAfter(key, action.afterMs);
      record((m) => m.recordReconcile(name, 'requeue_after'));
    } else {
      record((m) => m.recordReconcile(name, 'success'));
    }
  }

  async function processOne(key: string, signal: AbortSignal): Promise<void> {
    record((m) => m.addActiveWorkers(name, 1));
    try {
      await reconcileOne(key, signal);
    } finally {
      queue.done(key); // always, or the key would stay in flight forever
      record((m) => m.addActiveWorkers(name, -1));
    }
  }

  async function worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      if (signal.aborted) {
        queue.done(next.key);
        return;
      }
      try {
        await processOne(next.key, signal);
      } catch (err) {
        // Only a broken rate limiter or queue gets here; the key was released in processOne.
        reportPanic(options.onPanic, 'reconciler', err, { controller: name, key: next.key, name: 'worker' });
      }
    }
  }

  return {
    name: options.name,
    queue,
    needLeaderElection: true,
    enqueue: (key) => queue.add(key),
    async start(signal) {
      const registrations: HandlerRegistration[] = [];
      options.sources.forEach((source, i) => {
        try {
          const registration: unknown = source(enqueue);
          if (typeof (registration as Partial<HandlerRegistration> | undefined)?.remove === 'function') {
            registrations.push(registration as HandlerRegistration);
          } else {
            catchRejection(registration, (err) => reportPanic(options.onPanic, 'watch-source', err, { controller: name, name: `source ${i}` }));
            throw new TypeError('a source must return its registration ({ remove() }) synchronously');
          }
        } catch (err) {
          record((m) => m.recordPanic(name));
          reportPanic(options.onPanic, 'watch-source', err, { controller: name, name: `source ${i}` });
        }
      });
      const stop = () => queue.shutDown();
      signal.addEventListener('abort', stop, { once: true });
      try {
        if (!(await waitForSync(options.informers, signal, clock, options.cacheSyncTimeoutMs, name)) || signal.aborted) return;
        await Promise.all(Array.from({ length: workers }, () => worker(signal)));
      } finally {
        signal.removeEventListener('abort', stop);
        queue.shutDown();
        for (const r of registrations) {
          try {
            r.remove();
          } catch (err) {
            reportPanic(options.onPanic, 'watch-source', err, { controller: name, name: 'remove' });
          }
        }
      }
    },
  };
}

/**
 * Waits for every informer to sync: true once they have, false if `signal` aborts first.
 * With a timeout, rejects with a CacheSyncTimeoutError naming the informers not synced.
 */
export async function waitForSync(informers: Informer[], signal: AbortSignal, clock: Clock, timeoutMs: number | undefined, controller?: string): Promise<boolean> {
  if (timeoutMs === undefined || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    return (await Promise.all(informers.map((i) => i.waitForSync(signal)))).every(Boolean);
  }
  const wait = new AbortController();
  let timedOut = false;
  const onAbort = (): void => wait.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(() => {
    timedOut = true;
    wait.abort();
  }, timeoutMs);
  try {
    const synced = (await Promise.all(informers.map((i) => i.waitForSync(wait.signal)))).every(Boolean);
    if (synced) return true;
    if (timedOut && !signal.aborted) {
      throw new CacheSyncTimeoutError(informers.filter((i) => !i.hasSynced()).map((i, n) => i.resource ?? `informer ${n}`), controller);
    }
    return false;
  } finally {
    clock.clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
