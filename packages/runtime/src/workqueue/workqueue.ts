import { realClock, type Clock, type TimerHandle } from '../clock.js';
import { DelayHeap } from './delay-heap.js';
import { Fifo } from './fifo.js';
import { createQueueMetrics, noQueueMetrics, type QueueMetrics, type WorkqueueMetricsProvider } from './queue-metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** What `get()` resolves to: a key to process, or the signal to stop. */
export type GetResult = { readonly key: string; readonly shutdown: false } | { readonly key: undefined; readonly shutdown: true };

/**
 * client-go's workqueue (queue + delaying + rate-limiting layers) for string keys.
 *
 * Guarantees:
 * - Keys, not events: adding a key that is already waiting is a no-op (duplicates collapse).
 * - A key is never handed out while it is being processed (between `get` and `done`), so two
 *   workers never hold the same key at once.
 * - A key added while it is being processed is remembered and queued again on `done`.
 * - Keys are handed out in FIFO order of their (first) add; waiting `get()` callers are
 *   served in call order.
 * - After `shutDown`, adds are ignored; `get` still hands out keys already queued, then
 *   resolves `{ shutdown: true }`.
 */
export interface Workqueue {
  /** The queue's name (empty when unnamed; only named queues report metrics). */
  readonly name: string;
  /** Marks `key` as needing processing. Ignored after shutdown. */
  add(key: string): void;
  /** Number of keys waiting to be handed out (excludes in-flight and delayed keys). Informational only. */
  len(): number;
  /**
   * Resolves with the next key, waiting until one is available, or with `{ shutdown: true }`
   * once the queue is shut down and empty. Call `done(key)` when finished with the key.
   * Rejects with `signal.reason` if the signal is or becomes aborted before a key is handed out
   * (no key is consumed).
   */
  get(signal?: AbortSignal): Promise<GetResult>;
  /** Takes the next key without waiting; undefined when none is queued. Call `done(key)` after. */
  tryGet(): string | undefined;
  /** Marks `key` finished; re-queues it if it was added again meanwhile. No-op if not in flight. */
  done(key: string): void;
  /** Stops accepting keys and releases every waiting `get()` with `{ shutdown: true }` at once. */
  shutDown(): void;
  /**
   * Like `shutDown`, and resolves once every in-flight key has been `done` (or `shutDown()` is
   * called, which stops the wait). Workers must keep calling `done`, or this never resolves.
   */
  shutDownWithDrain(): Promise<void>;
  /** True once `shutDown` or `shutDownWithDrain` was called. */
  shuttingDown(): boolean;
  /**
   * Adds `key` after `ms` milliseconds on the queue's clock (immediately when `ms <= 0`).
   * A key already waiting keeps the earlier of its two ready times. Ignored after shutdown.
   */
  addAfter(key: string, ms: number): void;
  /** `addAfter(key, rateLimiter.when(key))`. */
  addRateLimited(key: string): void;
  /** Clears the rate limiter's memory of `key` (does not `done` it). */
  forget(key: string): void;
  /** How many times `key` was rate limited since its last `forget`. */
  numRequeues(key: string): number;
  /** Snapshot for debugging and tests: queued keys in order, in-flight keys, delayed count. */
  inspect(): { queued: string[]; processing: string[]; dirty: string[]; delayed: number };
}

/** Options for `createWorkqueue`. */
export interface WorkqueueOptions {
  /** Name used as the `name` label of the workqueue metrics. Unnamed queues report none. */
  name?: string;
  /** Time source for delays, the default token bucket and metrics. Default: the real clock. */
  clock?: Clock;
  /** Default: `defaultControllerRateLimiter(clock)`. */
  rateLimiter?: RateLimiter;
  /** Where a named queue reports its metrics, e.g. the value of `createMetrics()`. */
  metrics?: WorkqueueMetricsProvider;
}

type Waiter = { resolve: (r: GetResult) => void };

const SHUTDOWN: GetResult = Object.freeze({ key: undefined, shutdown: true });

class WorkqueueImpl implements Workqueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics;

  // The three sets of client-go: `queue` (order; every member is dirty and not processing),
  // `dirty` (needs processing), `processing` (handed out, not yet done).
  private readonly queue = new Fifo();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();

  // Pending get() calls; non-empty only while `queue` is empty.
  private readonly waiters = new Set<Waiter>();
  private readonly drainWaiters: (() => void)[] = [];
  private closed = false;
  private draining = false;
  private metricsClosed = false;
  private readonly untrack: (() => void) | undefined;

  // Delaying layer: one timer, armed for the earliest ready time.
  private readonly delayed = new DelayHeap();
  private timer: TimerHandle | undefined;
  private timerDue = Infinity;

  constructor(options: WorkqueueOptions) {
    this.name = options.name ?? '';
    this.clock = options.clock ?? realClock;
    this.limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    this.metrics =
      this.name !== '' && options.metrics !== undefined
        ? createQueueMetrics(this.name, options.metrics, this.clock)
        : noQueueMetrics;
    this.untrack = this.clock.trackActivity?.({
      name: `workqueue${this.name ? ` ${this.name}` : ''}`,
      busy: () => this.processing.size > 0 || (!this.closed && this.queue.length > 0),
    });
  }

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.metrics.add(key);
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  len(): number {
    return this.queue.length;
  }

  get(signal?: AbortSignal): Promise<GetResult> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.queue.length > 0) return Promise.resolve({ key: this.take(this.queue.shift()!), shutdown: false });
    if (this.closed) return Promise.resolve(SHUTDOWN);
    return new Promise<GetResult>((resolve, reject) => {
      const waiter: Waiter = { resolve };
      if (signal !== undefined) {
        const onAbort = (): void => {
          if (this.waiters.delete(waiter)) reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.resolve = (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        };
      }
      this.waiters.add(waiter);
    });
  }

  tryGet(): string | undefined {
    const key = this.queue.shift();
    return key === undefined ? undefined : this.take(key);
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    this.metrics.done(key);
    if (this.dirty.has(key)) {
      this.enqueue(key);
    } else if (this.processing.size === 0 && this.closed) {
      this.releaseDrainWaiters();
    }
  }

  shutDown(): void {
    this.draining = false;
    this.close();
    this.releaseDrainWaiters();
  }

  shutDownWithDrain(): Promise<void> {
    this.draining = true;
    this.close();
    if (this.processing.size === 0 || !this.draining) {
      this.releaseDrainWaiters();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.closed;
  }

  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    this.metrics.retry();
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + ms;
    this.delayed.insert(key, readyAt);
    this.armTimer();
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  inspect(): { queued: string[]; processing: string[]; dirty: string[]; delayed: number } {
    return {
      queued: this.queue.toArray(),
      processing: [...this.processing],
      dirty: [...this.dirty],
      delayed: this.delayed.size,
    };
  }

  /** Moves a key that is dirty and not in flight to the ready side: a waiting get() or the queue. */
  private enqueue(key: string): void {
    const first = this.waiters.values().next();
    if (!first.done) {
      this.waiters.delete(first.value);
      first.value.resolve({ key: this.take(key), shutdown: false });
    } else {
      this.queue.push(key);
    }
  }

  /** Marks a key just removed from the ready side as in flight. */
  private take(key: string): string {
    this.metrics.get(key);
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  private close(): void {
    if (!this.closed) {
      this.closed = true;
      // Waiters only exist while the queue is empty, so they all get the shutdown signal.
      const waiters = [...this.waiters];
      this.waiters.clear();
      for (const w of waiters) w.resolve(SHUTDOWN);
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.timerDue = Infinity;
      this.delayed.clear();
    }
    if (this.processing.size === 0) this.closeMetrics();
  }

  private releaseDrainWaiters(): void {
    this.draining = false;
    if (this.processing.size === 0) this.closeMetrics();
    const ws = this.drainWaiters.splice(0);
    for (const w of ws) w();
  }

  private closeMetrics(): void {
    if (this.metricsClosed) return;
    this.metricsClosed = true;
    this.untrack?.();
    this.metrics.close();
  }

  /** Keeps one timer armed for the earliest delayed key. */
  private armTimer(): void {
    const next = this.delayed.peekReadyAt();
    if (next === undefined || next >= this.timerDue) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timerDue = next;
    this.timer = this.clock.setTimeout(() => this.onTimer(), next - this.clock.now());
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    if (this.closed) return;
    const now = this.clock.now();
    for (let key = this.delayed.popReady(now); key !== undefined; key = this.delayed.popReady(now)) this.add(key);
    this.armTimer();
  }
}

/**
 * Creates a rate-limited, delaying workqueue of string keys ("namespace/name" or "name"),
 * with client-go's semantics (see `Workqueue` for the guarantees).
 *
 * Caveats: single-threaded (one event loop), so "workers" are concurrent async loops; `done`
 * for a key that is not in flight is ignored (client-go would re-queue a duplicate).
 */
export function createWorkqueue(options: WorkqueueOptions = {}): Workqueue {
  return new WorkqueueImpl(options);
}
