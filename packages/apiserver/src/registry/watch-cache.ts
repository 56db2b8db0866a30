import type { KubeObject } from '@kplane/api';
import { gone } from '@kplane/api';
import type { Backend, KeyValue } from '@kplane/storage';

/** One change as the watch cache keeps it: decoded once, shared by every watcher. */
export interface CachedEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object after the change (for DELETED: the last state, with the delete's resourceVersion). */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  prevObject?: KubeObject;
  revision: number;
  /** The stored JSON `object` was decoded from (without its resourceVersion, which is `revision`). */
  stored?: string;
}

/** Options of createWatchCache. */
export interface WatchCacheOptions {
  backend: Backend;
  /** Storage prefix of the resource, ending with "/". */
  prefix: string;
  /** Decodes a stored value into an object with its resourceVersion set. */
  decode(value: string, revision: number): KubeObject;
  /** How many recent events to keep for watches that resume from a resourceVersion. */
  capacity?: number;
}

type Listener = (e: CachedEvent) => void;

/**
 * Gives `e` a `prevObject` decoded from `prev` on first read: only watches with selectors
 * look at it, so most changes never pay for decoding it.
 */
function lazyPrevious(e: CachedEvent, prev: KeyValue, decode: WatchCacheOptions['decode']): CachedEvent {
  let decoded: KubeObject | undefined;
  Object.defineProperty(e, 'prevObject', {
    enumerable: true,
    get: () => (decoded ??= decode(prev.value, prev.modRevision)),
  });
  return e;
}

/**
 * A per-resource cache of recent changes that serves every watch on the resource from one
 * storage watch.
 *
 * Guarantees: a watcher that starts at revision R receives every change with revision > R,
 * in order, exactly once, as long as R is inside the window; otherwise it gets a 410 Expired
 * error ("too old resource version"), like kube-apiserver's watch cache.
 */
export class WatchCache {
  /** Recent events; the window is events[head..]. Dropped events are spliced out in batches. */
  private events: CachedEvent[] = [];
  private head = 0;
  private readonly listeners = new Set<Listener>();
  private readonly capacity: number;
  /** Watches may resume from any revision >= this one. */
  private oldest = 0;
  /** The highest revision this cache has seen (its own events or its start). */
  private latest = 0;
  private readonly abort = new AbortController();
  private started?: Promise<void>;

  constructor(private readonly options: WatchCacheOptions) {
    this.capacity = options.capacity ?? 10_000;
  }

  /** Starts following storage from its current revision (idempotent). */
  start(): Promise<void> {
    this.started ??= (async () => {
      const rev = await this.options.backend.currentRevision();
      this.oldest = rev;
      this.latest = rev;
      void this.follow(rev);
    })();
    return this.started;
  }

  private async follow(fromRevision: number): Promise<void> {
    const { backend, prefix, decode } = this.options;
    try {
      for await (const ev of backend.watch(prefix, fromRevision, this.abort.signal)) {
        let e: CachedEvent;
        if (ev.type === 'delete') {
          // kv is the object as it was last written (a removed last finalizer is gone from it).
          const prev = ev.prevKv ?? ev.kv;
          e = lazyPrevious({ type: 'DELETED', object: decode(ev.kv.value, ev.revision), revision: ev.revision, stored: ev.kv.value }, prev, decode);
        } else {
          const object = decode(ev.kv.value, ev.revision);
          const type = ev.type === 'create' ? 'ADDED' : 'MODIFIED';
          const base: CachedEvent = { type, object, revision: ev.revision, stored: ev.kv.value };
          e = ev.prevKv ? lazyPrevious(base, ev.prevKv, decode) : base;
        }
        this.push(e);
      }
    } catch (err) {
      if (!this.abort.signal.aborted) {
        // Storage lost history under us: restart from the current revision; older watchers get 410.
        const rev = await backend.currentRevision().catch(() => this.latest);
        this.events = [];
        this.head = 0;
        this.oldest = rev;
        this.latest = rev;
        void this.follow(rev);
        void err;
      }
    }
  }

  private push(e: CachedEvent): void {
    this.events.push(e);
    if (this.events.length - this.head > this.capacity) {
      this.oldest = this.events[this.head]!.revision;
      this.head++;
      // Amortised: drop the stale prefix only once it is as long as the window.
      if (this.head >= this.capacity) {
        this.events = this.events.slice(this.head);
        this.head = 0;
      }
    }
    this.latest = e.revision;
    for (const l of this.listeners) l(e);
  }

  /** The highest revision the cache has delivered. */
  get revision(): number {
    return this.latest;
  }

  /**
   * Streams events with revision > fromRevision until the signal aborts.
   * Throws a 410 Expired ApiError when fromRevision is older than the window.
   */
  async *watch(fromRevision: number, signal: AbortSignal): AsyncGenerator<CachedEvent> {
    await this.start();
    if (fromRevision < this.oldest) {
      throw gone(`too old resource version: ${fromRevision} (${this.oldest})`);
    }
    const queue: CachedEvent[] = [];
    let wake: (() => void) | undefined;
    const listener: Listener = (e) => {
      queue.push(e);
      wake?.();
    };
    // Replay and subscribe in one synchronous step: no event can fall between them.
    for (const e of this.eventsAfter(fromRevision)) queue.push(e);
    this.listeners.add(listener);
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        if (queue.length === 0) {
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
          continue;
        }
        yield queue.shift()!;
      }
    } finally {
      this.listeners.delete(listener);
      signal.removeEventListener('abort', onAbort);
    }
  }

  private eventsAfter(rev: number): CachedEvent[] {
    const ev = this.events;
    let lo = this.head;
    let hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.revision <= rev) lo = mid + 1;
      else hi = mid;
    }
    return ev.slice(lo);
  }

  /** Stops following storage. */
  stop(): void {
    this.abort.abort();
  }
}
