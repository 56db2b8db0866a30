import type { KubeObject, StatusCause } from '@kplane/api';
import { ApiError, deepFreeze, gone } from '@kplane/api';
import type { Backend, KeyValue, StorageEvent } from '@kplane/storage';
import { CompactedError } from '@kplane/storage';
import { realTimers, type Timers } from './timers.js';

/** The reason of this module's aborts, made once: a DOMException per abort (its stack captured each time) costs more than the abort. */
const ABORTED = new DOMException('This operation was aborted', 'AbortError');

/** Events a watch cache keeps by default (kube-apiserver's cacher grows its window up to 102 400). */
export const DEFAULT_WATCH_CACHE_EVENTS = 100_000;
/** Estimated bytes a watch cache keeps by default (see CachedEvent.size). */
export const DEFAULT_WATCH_CACHE_BYTES = 256 * 1024 * 1024;
/**
 * Changes a watcher may have left unread, counted from its start, before it is closed. A
 * watcher is a cursor into the window (it holds no copy of the changes), so a busy in-process
 * informer may lag as far as the window reaches; a client that stopped reading is cut by the
 * HTTP layer's write-stall bound instead.
 */
export const DEFAULT_WATCHER_MAX_EVENTS = DEFAULT_WATCH_CACHE_EVENTS;
/** Bytes (of stored JSON) of changes a watcher may have left unread before it is closed. */
export const DEFAULT_WATCHER_MAX_BYTES = DEFAULT_WATCH_CACHE_BYTES;
/** How long a read at a resourceVersion ahead of storage waits for it (kube-apiserver: 3 s). */
export const FRESHNESS_TIMEOUT_MS = 3000;
/** How often such a read looks at storage's revision (writes to other resources move it too). */
const FRESHNESS_POLL_MS = 100;

type Decode = (value: string, revision: number) => KubeObject;

/**
 * One change as the watch cache keeps it, shared by every watcher. The object and the
 * previous object are decoded on first read (watches without selectors of kinds served from
 * stored JSON never decode them), and deep-frozen as they are: every watcher, every follower
 * in the server and every in-process client that takes watch events as objects reads the
 * very same objects, so none may change them (copy to change).
 */
export class CachedEvent {
  private decoded?: KubeObject;
  private decodedPrev?: KubeObject;
  /** Stored-JSON bytes pushed into the cache before this event (for watcher lag). */
  offset = 0;

  constructor(
    readonly type: 'ADDED' | 'MODIFIED' | 'DELETED',
    readonly key: string,
    /** The namespace, from the key (undefined for cluster-scoped kinds). */
    readonly namespace: string | undefined,
    readonly revision: number,
    /** The stored JSON of `object` (without its resourceVersion, which is `revision`). */
    readonly stored: string,
    private readonly prev: KeyValue | undefined,
    private readonly decode: Decode,
  ) {}

  /** The object after the change (for DELETED: the last state, with the delete's resourceVersion). */
  get object(): KubeObject {
    return (this.decoded ??= deepFreeze(this.decode(this.stored, this.revision)));
  }

  /** The object before the change (MODIFIED and DELETED). */
  get prevObject(): KubeObject | undefined {
    if (!this.prev) return this.type === 'DELETED' ? this.object : undefined;
    return (this.decodedPrev ??= deepFreeze(this.decode(this.prev.value, this.prev.modRevision)));
  }

  /**
   * Estimated bytes the event holds: its stored JSON, its decoded form (counted twice the
   * JSON: decoded objects measure 1–1.7× their JSON), its encoded watch event, and the
   * previous version's JSON.
   */
  get size(): number {
    const prev = this.type === 'MODIFIED' && this.prev ? this.prev.value.length : 0;
    return 4 * this.stored.length + prev + 256;
  }
}

/** Why the cache closed a watcher: it fell behind (`lagging`), or the cache restarted (`reset`). */
export class WatchClosedError extends Error {
  constructor(readonly why: 'lagging' | 'reset') {
    super(why === 'lagging' ? 'the watcher fell behind and was closed' : 'the watch cache restarted');
    this.name = 'WatchClosedError';
  }
}

/**
 * 504 Timeout for a read at a resourceVersion storage has not reached, as kube-apiserver
 * answers it (cause ResourceVersionTooLarge, retry after 1 s).
 */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  const cause: StatusCause = { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' };
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [cause],
    retryAfterSeconds: 1,
  });
}

/** Options of the WatchCache. */
export interface WatchCacheOptions {
  backend: Backend;
  /** Storage prefix of the resource, ending with "/". */
  prefix: string;
  /** Decodes a stored value into an object with its resourceVersion set. */
  decode: Decode;
  /** Do keys hold a namespace (`<prefix><namespace>/<name>`)? */
  namespaced?: boolean;
  /** Most events kept for watches that resume from a resourceVersion (default 10 000). */
  capacity?: number;
  /** Most estimated bytes kept (default 256 MiB); the newest event is always kept. */
  maxBytes?: number;
  /** Most events a watcher may leave unread after it started (default 100 000, the window). */
  watcherMaxEvents?: number;
  /** Most stored-JSON bytes of changes a watcher may leave unread after it started (default 256 MiB). */
  watcherMaxBytes?: number;
  timers?: Timers;
}

/**
 * One watcher of a WatchCache: a cursor into the cache's shared window of events, so that a
 * watcher holds no events of its own. It reads events with revision > its start revision, in
 * order, exactly once.
 */
export class CacheWatcher {
  /** Sequence number of the next window event to read. */
  cursor: number;
  /** The window's end when the watcher started: what lies before it is the replay. */
  readonly startSeq: number;
  /** Why the cache closed the watcher, once it did. */
  failure?: WatchClosedError;
  /** Set when the cache stopped: reads then end. */
  stopped = false;
  private wakeUp?: () => void;
  private replay?: AsyncIterator<CachedEvent>;
  private readonly abort = new AbortController();
  private readonly signal?: AbortSignal;
  private readonly onAbort = (): void => this.close();

  constructor(
    private readonly cache: WatchCache,
    cursor: number,
    /** Only events with a higher revision are read. */
    readonly after: number,
    /** Events to read before the window's, from storage (ended by the watcher's own signal). */
    replay: ((signal: AbortSignal) => AsyncIterable<CachedEvent>) | undefined,
    signal: AbortSignal | undefined,
    /** Is the watcher closed when it leaves too many changes unread (else only when they leave the window)? */
    readonly lagBounded = true,
  ) {
    this.cursor = cursor;
    this.startSeq = cache.endSeq;
    this.replay = replay?.(this.abort.signal)[Symbol.asyncIterator]();
    if (signal?.aborted) this.abort.abort(signal.reason ?? ABORTED);
    else if (signal) {
      this.signal = signal;
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** Has the watcher read every event the cache holds? */
  get caughtUp(): boolean {
    return !this.replay && this.cursor >= this.cache.endSeq;
  }

  /** Has the watcher events of the window left to read (its replay from storage aside)? */
  get hasUnread(): boolean {
    return !this.replay && !this.stopped && !this.abort.signal.aborted && this.cursor < this.cache.endSeq;
  }

  /**
   * The next event, or undefined once the watcher is closed by its signal or the cache
   * stopped. Throws WatchClosedError when the cache closed it, or a 410 when its replay from
   * storage found the history compacted.
   */
  async read(): Promise<CachedEvent | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.abort.signal.aborted || this.stopped) return undefined;
      if (this.replay) {
        const r = await this.replay.next();
        if (!r.done) return r.value;
        this.replay = undefined;
        continue;
      }
      if (this.cursor < this.cache.endSeq) {
        const e = this.cache.at(this.cursor++);
        if (e.revision > this.after) return e;
        continue;
      }
      this.cache.park(this);
      await new Promise<void>((r) => (this.wakeUp = r));
      this.wakeUp = undefined;
    }
  }

  /** Is the watcher still replaying changes from storage (read them with `read()`, not `poll()`)? */
  get replaying(): boolean {
    return this.replay !== undefined;
  }

  /** Has the watcher ended (closed by its signal, or the cache stopped)? A failure is thrown by `poll()` and `read()` instead. */
  get ended(): boolean {
    return this.abort.signal.aborted || this.stopped;
  }

  /**
   * The next window event at hand, without waiting: undefined when none is (or while the
   * watcher replays from storage, or once it ended). Throws WatchClosedError when the cache
   * closed it. `onWake` is told when more may be at hand.
   */
  poll(): CachedEvent | undefined {
    if (this.failure) throw this.failure;
    if (this.replay || this.abort.signal.aborted || this.stopped) return undefined;
    const end = this.cache.endSeq;
    while (this.cursor < end) {
      const e = this.cache.at(this.cursor++);
      if (e.revision > this.after) return e;
    }
    this.cache.park(this);
    return undefined;
  }

  /** The next change of the watcher's replay from storage, or undefined once it is over (or the watcher ended): `poll()` reads on from there. */
  async replayed(): Promise<CachedEvent | undefined> {
    if (this.failure) throw this.failure;
    if (!this.replay || this.abort.signal.aborted || this.stopped) return undefined;
    const r = await this.replay.next();
    if (!r.done) return r.value;
    this.replay = undefined;
    return undefined;
  }

  /** Called (synchronously, from the cache's dispatch) whenever the watcher may have more to read or has ended. */
  onWake?: () => void;

  /** Wakes a pending read. */
  wake(): void {
    this.wakeUp?.();
    this.onWake?.();
  }

  /** Closes the watcher (idempotent); a pending read returns undefined. */
  close(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.abort.abort(ABORTED);
    this.cache.forget(this);
    this.wake();
  }
}

/**
 * A per-resource cache of recent changes that serves every watch on the resource from one
 * storage watch.
 *
 * Guarantees: a watcher that starts at revision R receives every change with revision > R,
 * in order, exactly once. Changes older than the window are replayed from storage (410
 * Expired, "too old resource version", once storage compacted them). The window is bounded
 * in events and estimated bytes. A watcher that leaves too many changes unread, or falls out
 * of the window, is closed with WatchClosedError('lagging'); when the cache restarts (storage
 * lost the history it was following) every watcher is closed with WatchClosedError('reset'),
 * never left with a gap.
 */
export class WatchCache {
  /** The window is events[head..]; events[i] has sequence number base + i. */
  private events: (CachedEvent | undefined)[] = [];
  private head = 0;
  private base = 0;
  /** Estimated bytes of the window. */
  private bytes = 0;
  /** Stored-JSON bytes ever pushed (offsets of events are taken from it). */
  private pushed = 0;
  private readonly watchers = new Set<CacheWatcher>();
  /** Watchers that read everything and wait for the next event: the only ones a new event wakes. */
  private waiting = new Set<CacheWatcher>();
  /**
   * Lower bounds, over the watchers, of their cursors and of where their unread changes count
   * from (see `unread`): cursors only move on and new watchers start at the end, so while the
   * window still holds `lowCursor` and a watcher at `lowFrom` is within its bounds, no watcher
   * needs to be looked at when an event comes.
   */
  private lowCursor = 0;
  private lowFrom = 0;
  private readonly freshWaiters = new Set<() => void>();
  private readonly capacity: number;
  private readonly maxBytes: number;
  private readonly watcherMaxEvents: number;
  private readonly watcherMaxBytes: number;
  private readonly timers: Timers;
  /** Watches may resume from the window for any revision >= this one. */
  private oldest = 0;
  /** The highest revision this cache has seen (its own events or its start). */
  private latest = 0;
  private readonly stopSignal = new AbortController();
  private started?: Promise<void>;

  constructor(private readonly options: WatchCacheOptions) {
    this.capacity = Math.max(1, options.capacity ?? DEFAULT_WATCH_CACHE_EVENTS);
    this.maxBytes = options.maxBytes ?? DEFAULT_WATCH_CACHE_BYTES;
    this.watcherMaxEvents = options.watcherMaxEvents ?? DEFAULT_WATCHER_MAX_EVENTS;
    this.watcherMaxBytes = options.watcherMaxBytes ?? DEFAULT_WATCHER_MAX_BYTES;
    this.timers = options.timers ?? realTimers;
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

  private namespaceOf(key: string): string | undefined {
    if (!this.options.namespaced) return undefined;
    const from = this.options.prefix.length;
    const slash = key.indexOf('/', from);
    return slash < 0 ? undefined : key.slice(from, slash);
  }

  private toEvent(ev: StorageEvent): CachedEvent {
    const { decode } = this.options;
    const ns = this.namespaceOf(ev.kv.key);
    if (ev.type === 'delete') {
      // kv is the object as it was last written (a removed last finalizer is gone from it).
      return new CachedEvent('DELETED', ev.kv.key, ns, ev.revision, ev.kv.value, ev.prevKv, decode);
    }
    return new CachedEvent(ev.type === 'create' ? 'ADDED' : 'MODIFIED', ev.kv.key, ns, ev.revision, ev.kv.value, ev.prevKv, decode);
  }

  private async follow(fromRevision: number): Promise<void> {
    const { backend, prefix } = this.options;
    try {
      const progress = { onProgress: (rev: number) => this.progress(rev) };
      for await (const ev of backend.watch(prefix, fromRevision, this.stopSignal.signal, progress)) this.push(this.toEvent(ev));
    } catch (err) {
      if (!this.stopSignal.signal.aborted) {
        if (!(err instanceof CompactedError)) console.error(`kplane: the watch cache of ${prefix} restarts:`, err);
        // Storage lost history under us: start again from its current revision. Watchers
        // would miss what fell between, so they are closed (clients watch again, or relist on 410).
        const rev = await backend.currentRevision().catch(() => this.latest);
        this.reset(rev);
        void this.follow(rev);
        return;
      }
    }
    this.stopWatchers();
  }

  /**
   * Storage says no event of this prefix up to `rev` is still to come (etcd's progress
   * notifications): the cache is fresh up to there, and bookmarks can say so.
   */
  private progress(rev: number): void {
    if (rev <= this.latest) return;
    this.latest = rev;
    for (const waiter of this.freshWaiters) waiter();
  }

  /** Empties the window at revision `rev` and closes every watcher. */
  private reset(rev: number): void {
    for (const w of this.watchers) w.failure = new WatchClosedError('reset');
    this.wakeAll();
    this.watchers.clear();
    this.waiting = new Set();
    this.base += this.events.length;
    this.events = [];
    this.head = 0;
    this.bytes = 0;
    this.oldest = rev;
    this.latest = Math.max(this.latest, rev);
  }

  private push(e: CachedEvent): void {
    e.offset = this.pushed;
    this.pushed += e.stored.length;
    this.events.push(e);
    this.bytes += e.size;
    while (this.events.length - this.head > 1 && (this.events.length - this.head > this.capacity || this.bytes > this.maxBytes)) {
      const old = this.events[this.head]!;
      this.events[this.head++] = undefined;
      this.bytes -= old.size;
      this.oldest = old.revision;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
    this.latest = e.revision;
    const first = this.base + this.head;
    if (this.lowCursor < first || this.over(this.lowFrom) > 0) this.closeLagging(first);
    if (this.waiting.size) {
      const waiting = this.waiting;
      this.waiting = new Set();
      for (const w of waiting) w.wake();
    }
    for (const waiter of this.freshWaiters) waiter();
  }

  /** Closes the watchers whose unread changes left the window or are over their bounds, and takes the lower bounds again. */
  private closeLagging(first: number): void {
    let lowCursor = this.endSeq;
    let lowFrom = this.endSeq;
    for (const w of this.watchers) {
      if (w.failure) continue;
      if (w.cursor < first || (w.lagBounded && this.unread(w) > 0)) {
        w.failure = new WatchClosedError('lagging');
        this.watchers.delete(w);
        this.waiting.delete(w);
        w.wake();
        continue;
      }
      lowCursor = Math.min(lowCursor, w.cursor);
      if (w.lagBounded) lowFrom = Math.min(lowFrom, Math.max(w.cursor, w.startSeq));
    }
    this.lowCursor = lowCursor;
    this.lowFrom = lowFrom;
  }

  /** Marks a watcher that read everything as waiting for the next event. */
  park(w: CacheWatcher): void {
    if (this.watchers.has(w)) this.waiting.add(w);
  }

  /**
   * By how much a watcher (whose cursor is in the window) is over its bounds of unread
   * changes, counted from its start: > 0 when it is.
   */
  private unread(w: CacheWatcher): number {
    return this.over(Math.max(w.cursor, w.startSeq));
  }

  /** By how much changes unread from sequence number `from` (in the window, or its end) are over a watcher's bounds: > 0 when they are. */
  private over(from: number): number {
    const events = this.endSeq - from;
    const bytes = this.pushed - (from < this.endSeq ? this.at(from).offset : this.pushed);
    return Math.max(events - this.watcherMaxEvents, bytes - this.watcherMaxBytes);
  }

  private wakeAll(): void {
    for (const w of this.watchers) w.wake();
  }

  private stopWatchers(): void {
    for (const w of this.watchers) w.stopped = true;
    this.wakeAll();
    this.watchers.clear();
    this.waiting = new Set();
  }

  /** The sequence number the next event will get. */
  get endSeq(): number {
    return this.base + this.events.length;
  }

  /** The window event with sequence number seq (which must be in the window). */
  at(seq: number): CachedEvent {
    return this.events[seq - this.base]!;
  }

  /** Storage's current revision (a watch from "now" starts there). */
  currentRevision(): Promise<number> {
    return this.options.backend.currentRevision();
  }

  /** The highest revision the cache has seen. */
  get revision(): number {
    return this.latest;
  }

  /** Estimated bytes and number of the events the window holds. */
  get usage(): { events: number; bytes: number; watchers: number } {
    return { events: this.events.length - this.head, bytes: this.bytes, watchers: this.watchers.size };
  }

  /**
   * How many watchers have events of the window left to read (a watcher still replaying from
   * storage is not counted: its replay may wait for the resource's next change).
   */
  get unreadWatchers(): number {
    let n = 0;
    for (const w of this.watchers) if (w.hasUnread) n++;
    return n;
  }

  /** Removes a watcher (CacheWatcher.close calls it). */
  forget(w: CacheWatcher): void {
    this.watchers.delete(w);
    this.waiting.delete(w);
  }

  /**
   * Starts a watcher for the events with revision > fromRevision, until the signal aborts.
   * Throws a 410 Expired ApiError when fromRevision is older than what the window and
   * storage's history still hold. `lagBounded: false` exempts the watcher from the bounds of
   * unread changes (for the server's own followers, which read at once).
   */
  async subscribe(fromRevision: number, signal?: AbortSignal, options: { lagBounded?: boolean } = {}): Promise<CacheWatcher> {
    await this.start();
    let w: CacheWatcher;
    const lagBounded = options.lagBounded ?? true;
    if (fromRevision >= this.oldest) {
      w = new CacheWatcher(this, this.seqAfter(fromRevision), fromRevision, undefined, signal, lagBounded);
    } else {
      // Older than the window (dropped from it, or from before the cache started): storage
      // replays up to the window's start, then the window follows. When no event of this
      // resource sits at that revision, the replay ends with the first event after it, which
      // the window holds too.
      const target = this.oldest;
      w = new CacheWatcher(this, this.base + this.head, fromRevision, (s) => this.replay(fromRevision, target, s), signal, lagBounded);
    }
    this.watchers.add(w);
    // (A watcher from a revision in the window starts before the others may be.)
    this.lowCursor = Math.min(this.lowCursor, w.cursor);
    return w;
  }

  /** Storage's events with fromRevision < revision <= target. */
  private async *replay(fromRevision: number, target: number, signal: AbortSignal): AsyncGenerator<CachedEvent> {
    try {
      for await (const ev of this.options.backend.watch(this.options.prefix, fromRevision, signal)) {
        if (ev.revision > target) return;
        yield this.toEvent(ev);
        if (ev.revision === target) return;
      }
    } catch (err) {
      if (err instanceof CompactedError) throw gone(`too old resource version: ${fromRevision} (${this.oldest})`);
      throw err;
    }
  }

  /**
   * Streams events with revision > fromRevision until the signal aborts. By default for the
   * server's own followers (namespace lifecycle, CRDs): not closed for unread changes, only when
   * they leave the window; `lagBounded: true` bounds it as watch requests are bounded. Throws a
   * 410 Expired ApiError when fromRevision is too old, and WatchClosedError when the cache
   * closes the watcher.
   */
  async *watch(fromRevision: number, signal: AbortSignal, options: { lagBounded?: boolean } = {}): AsyncGenerator<CachedEvent> {
    const w = await this.subscribe(fromRevision, signal, { lagBounded: options.lagBounded ?? false });
    try {
      for (;;) {
        const e = await w.read();
        if (!e) return;
        yield e;
      }
    } finally {
      w.close();
    }
  }

  /**
   * Resolves with storage's revision once it is at least `revision`; after 3 s (virtual time
   * with injected timers) throws 504 Timeout (ResourceVersionTooLarge), as kube-apiserver's
   * watch cache does.
   */
  async waitForRevision(revision: number): Promise<number> {
    const { backend } = this.options;
    let current = await backend.currentRevision();
    if (current >= revision) return current;
    const deadline = this.timers.now() + FRESHNESS_TIMEOUT_MS;
    for (;;) {
      const remaining = deadline - this.timers.now();
      if (remaining <= 0) throw tooLargeResourceVersion(revision, current);
      await new Promise<void>((resolve) => {
        const done = () => {
          this.timers.clearTimeout(timer);
          this.freshWaiters.delete(done);
          resolve();
        };
        const timer = this.timers.setTimeout(done, Math.min(FRESHNESS_POLL_MS, remaining), { keepAlive: true });
        this.freshWaiters.add(done);
      });
      current = await backend.currentRevision();
      if (current >= revision) return current;
    }
  }

  private seqAfter(rev: number): number {
    const ev = this.events;
    let lo = this.head;
    let hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.revision <= rev) lo = mid + 1;
      else hi = mid;
    }
    return this.base + lo;
  }

  /** Stops following storage; watchers end. */
  stop(): void {
    this.stopSignal.abort(ABORTED);
    this.stopWatchers();
  }
}
