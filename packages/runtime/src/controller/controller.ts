/**
 * The controller engine: keys from event sources into a workqueue, workers that reconcile them
 * (controller-runtime's pkg/internal/controller). Users build controllers with the builder.
 */
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import type { Informer, HandlerRegistration } from '../informer/index.js';
import type { RuntimeMetrics } from '../metrics.js';
import { createWorkqueue, type Workqueue } from '../workqueue/index.js';
import { Action, TerminalError, requestFromKey, type Request } from './action.js';

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
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Defaults to a named, rate-limited workqueue on `clock`. */
  queue?: Workqueue;
  /** Told about reconcile failures (default console.error). */
  onError?: (request: Request, err: unknown) => void;
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
 *   10 qps / 100 burst bucket; a TerminalError is recorded and the key forgotten; an
 *   `Action.requeue(ms)` requeues after ms; success forgets the key's backoff.
 * - A source's change with a batch window wakes its key at once when the key's last reconcile
 *   started at least that long ago, else at the end of the window (never later); a failed
 *   reconcile during which such changes were held back is retried at once.
 */
export function createController(options: ControllerOptions): Controller {
  const clock = options.clock ?? realClock;
  const queue = options.queue ?? createWorkqueue({ name: options.name, clock, metrics: options.metrics });
  const workers = Math.max(1, options.maxConcurrentReconciles ?? 1);
  const onError = options.onError ?? ((req, err) => console.error(`controller ${options.name}: reconcile ${req.key} failed:`, err));
  options.metrics?.initController(options.name);
  // When each key's last reconcile started (clock ms), for sources with a batch window; entries
  // older than the widest window seen are swept now and then.
  const lastStart = new Map<string, number>();
  let widestWindow = 0;
  let nextSweep = 0;

  // Keys whose change is waiting for the end of a batch window (cleared when a reconcile starts).
  const held = new Set<string>();

  /** Adds `key` now, or at the end of its batch window when its last reconcile started less than `windowMs` ago. */
  function enqueue(key: string, windowMs?: number): void {
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

  async function processOne(key: string, signal: AbortSignal): Promise<void> {
    noteStart(key);
    const request = requestFromKey(key);
    try {
      const action = await options.reconcile(request, { signal });
      if (action && action.type === 'requeue') {
        queue.forget(key);
        queue.addAfter(key, action.afterMs);
        options.metrics?.recordReconcile(options.name, 'requeue_after');
      } else {
        queue.forget(key);
        options.metrics?.recordReconcile(options.name, 'success');
      }
    } catch (err) {
      options.metrics?.recordReconcile(options.name, 'error');
      onError(request, err);
      if (err instanceof TerminalError) queue.forget(key);
      else {
        queue.addRateLimited(key);
        // Changes held back during a failed reconcile are not worth a wait: retry with them at once.
        if (held.has(key)) queue.add(key);
      }
    } finally {
      queue.done(key);
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
      await processOne(next.key, signal);
    }
  }

  return {
    name: options.name,
    queue,
    needLeaderElection: true,
    enqueue: (key) => queue.add(key),
    async start(signal) {
      const registrations = options.sources.map((source) => source(enqueue));
      const stop = () => queue.shutDown();
      signal.addEventListener('abort', stop, { once: true });
      try {
        const synced = await Promise.all(options.informers.map((i) => i.waitForSync(signal)));
        if (!synced.every(Boolean) || signal.aborted) return;
        await Promise.all(Array.from({ length: workers }, () => worker(signal)));
      } finally {
        signal.removeEventListener('abort', stop);
        queue.shutDown();
        for (const r of registrations) r.remove();
      }
    },
  };
}


