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

/** An event source: registers handlers that call `enqueue`; returns how to unregister them. */
export type Source = (enqueue: (key: string) => void) => HandlerRegistration;

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
 */
export function createController(options: ControllerOptions): Controller {
  const clock = options.clock ?? realClock;
  const queue = options.queue ?? createWorkqueue({ name: options.name, clock, metrics: options.metrics });
  const workers = Math.max(1, options.maxConcurrentReconciles ?? 1);
  const onError = options.onError ?? ((req, err) => console.error(`controller ${options.name}: reconcile ${req.key} failed:`, err));
  options.metrics?.initController(options.name);

  async function processOne(key: string, signal: AbortSignal): Promise<void> {
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
      else queue.addRateLimited(key);
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
      const registrations = options.sources.map((source) => source((key) => queue.add(key)));
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


