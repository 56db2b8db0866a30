import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { badRequest, toApiError } from '@kplane/api';
import type { Store } from '../registry/store.js';
import { withResourceVersion } from '../registry/json-writer.js';
import { parseResourceVersion, validateWatchOptions } from '../registry/read-options.js';
import { WatchClosedError, type CachedEvent, type CacheWatcher } from '../registry/watch-cache.js';
import { realTimers, type Timers } from '../registry/timers.js';
import { toTable, type IncludeObject } from './table.js';

/** The reason of this module's aborts, made once: a DOMException per abort (its stack captured each time) costs more than the abort. */
const ABORTED = new DOMException('This operation was aborted', 'AbortError');

/** Options of serveWatch. */
export interface WatchServeOptions {
  now(): Date;
  bookmarkIntervalMs: number;
  defaultTimeoutSeconds: number;
  include: IncludeObject;
  /** Timers of the watch's timeout and bookmarks (tests inject virtual ones). */
  timers?: Timers;
  /** Where the chunks waiting for this watch's client are counted. */
  deliveries?: WatchDeliveries;
}

/** The chunks of watch events encoded for clients and not yet read by them, over many watches. */
export interface WatchDeliveries {
  queued: number;
}

/** Objects per page of initial events. */
const INITIAL_EVENTS_PAGE = 500;
/**
 * A watcher's output buffer: the producer stops reading (initial events, or changes from the
 * watch cache, where the watcher's lag is bounded) while this many chunks or bytes wait for
 * the client. Chunks are up to 64 KiB for initial events, one event for changes.
 */
export const WATCH_BUFFER_CHUNKS = 64;
export const WATCH_BUFFER_BYTES = 1024 * 1024;

/** Most bytes of queued events joined into one chunk for the client. */
export const WATCH_BATCH_BYTES = 64 * 1024;

type EventType = WatchEvent['type'];

/**
 * The encodings of each watch-cache event, by representation and type (`object:MODIFIED`,
 * `metadata:ADDED`, ...): made once, the same bytes written to every watcher that sees the
 * event so. Tables are made per watcher (their Age column reads the clock).
 */
const encodedEvents = new WeakMap<CachedEvent, Map<string, Uint8Array>>();

/** The shared encoding of `cached` as `rep` and `type`, made by `make` the first time. */
function sharedEncoding(cached: CachedEvent, rep: string, type: EventType, make: () => Uint8Array): Uint8Array {
  let byKind = encodedEvents.get(cached);
  if (!byKind) encodedEvents.set(cached, (byKind = new Map()));
  const key = `${rep}:${type}`;
  let bytes = byKind.get(key);
  if (!bytes) byKind.set(key, (bytes = make()));
  return bytes;
}

/** A single-consumer channel of byte chunks that knows how much it holds. */
class Channel {
  private readonly items: Uint8Array[] = [];
  private bytes = 0;
  private wake?: () => void;
  private drained?: () => void;
  private closed = false;

  constructor(private readonly deliveries: WatchDeliveries = { queued: 0 }) {}

  push(item: Uint8Array): void {
    if (this.closed) return;
    this.items.push(item);
    this.deliveries.queued++;
    this.bytes += item.byteLength;
    this.wake?.();
  }

  /** Does the channel hold a full buffer (WATCH_BUFFER_CHUNKS chunks or WATCH_BUFFER_BYTES)? */
  get full(): boolean {
    return this.items.length >= WATCH_BUFFER_CHUNKS || this.bytes >= WATCH_BUFFER_BYTES;
  }

  /** Resolves once the channel is not full (or is closed). */
  async below(): Promise<void> {
    while (!this.closed && this.full) await new Promise<void>((r) => (this.drained = r));
  }

  /** Drops what the client left unread when it stopped reading. */
  discard(): void {
    this.closed = true;
    this.deliveries.queued -= this.items.length;
    this.items.length = 0;
    this.bytes = 0;
  }

  close(): void {
    this.closed = true;
    this.wake?.();
    this.drained?.();
  }

  /**
   * Yields what waits for the client: one chunk as it is (the very bytes other watchers got:
   * never written to), several in one chunk of their copies (up to WATCH_BATCH_BYTES), so a
   * client that fell behind catches up in few writes instead of one per event.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.items.length) {
        let n = 1;
        let size = this.items[0]!.byteLength;
        while (n < this.items.length && size + this.items[n]!.byteLength <= WATCH_BATCH_BYTES) size += this.items[n++]!.byteLength;
        const taken = this.items.splice(0, n);
        this.deliveries.queued -= n;
        this.bytes -= size;
        this.drained?.();
        this.drained = undefined;
        yield n === 1 ? taken[0]! : Buffer.concat(taken, size);
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

/**
 * Serves a watch: synthetic ADDED events for the current state when no resourceVersion (or
 * "0") is given or sendInitialEvents=true (none with sendInitialEvents=false), then every
 * change after it from the resource's watch cache, filtered by namespace and selectors (an
 * object leaving the selection is sent as DELETED, one entering it as ADDED). Only changes with a revision above the resourceVersion are sent, however far
 * ahead of storage it is. A too-old resourceVersion is reported as an ERROR event with a 410
 * Status. A watcher that falls behind, or whose watch cache restarts, sees its stream end
 * (the client watches again from the last resourceVersion it got), as kube-apiserver does.
 */
export function serveWatch(
  store: Store,
  namespace: string | undefined,
  q: Record<string, string>,
  rep: 'object' | 'table' | 'metadata',
  clientSignal: AbortSignal | undefined,
  options: WatchServeOptions,
): RawResponse {
  const timers = options.timers ?? realTimers;
  const filter = store.filter({ labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
  const fromRevision = parseResourceVersion(q.resourceVersion) || undefined;
  validateWatchOptions(q);
  // Without sendInitialEvents, only a watch from no resourceVersion (or "0") starts with the current objects.
  const sendInitial = q.sendInitialEvents === undefined ? fromRevision === undefined : q.sendInitialEvents === 'true';
  let timeoutSeconds = options.defaultTimeoutSeconds;
  if (q.timeoutSeconds !== undefined && q.timeoutSeconds !== '') {
    const t = Number(q.timeoutSeconds);
    if (!Number.isFinite(t) || t < 0) throw badRequest(`timeoutSeconds: Invalid value: "${q.timeoutSeconds}"`);
    if (t > 0) timeoutSeconds = t;
  }
  const bookmarks = q.allowWatchBookmarks === 'true';
  const abort = new AbortController();
  const stop = () => abort.abort(ABORTED);
  clientSignal?.addEventListener('abort', stop, { once: true });
  const timer = timers.setTimeout(stop, timeoutSeconds * 1000);
  const channel = new Channel(options.deliveries);
  // A producer waiting for the client to read must not wait for a client that went away.
  abort.signal.addEventListener('abort', () => channel.close(), { once: true });
  const inNamespace = (o: KubeObject) => namespace === undefined || o.metadata?.namespace === namespace;
  const selected = (o: KubeObject | undefined) => !!o && inNamespace(o) && filter.matches(o);

  /** One event line; changes of the watch cache are encoded once for all watchers of plain objects. */
  const encode = (type: EventType, objectOf: () => KubeObject, cached?: CachedEvent): Uint8Array => {
    if (rep === 'object' && type !== 'ERROR' && type !== 'BOOKMARK') {
      const make = () => {
        const served = cached && store.servesStoredEvents ? withResourceVersion(cached.stored, cached.revision) : undefined;
        return Buffer.from(served !== undefined ? `{"type":"${type}","object":${served}}\n` : JSON.stringify({ type, object: objectOf() }) + '\n');
      };
      return cached ? sharedEncoding(cached, rep, type, make) : make();
    }
    if (rep === 'metadata' && cached && type !== 'ERROR' && type !== 'BOOKMARK') {
      return sharedEncoding(cached, rep, type, () => Buffer.from(JSON.stringify({ type, object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: objectOf().metadata ?? {} } }) + '\n'));
    }
    const object = objectOf();
    let out: unknown = object;
    if (rep === 'table' && type !== 'ERROR' && type !== 'BOOKMARK') {
      out = toTable(store.type.strategy.table, [object], { resourceVersion: object.metadata?.resourceVersion }, { include: options.include, now: options.now() });
    } else if (rep === 'metadata' && type !== 'ERROR') {
      out = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} };
    }
    return Buffer.from(JSON.stringify({ type, object: out }) + '\n');
  };

  const bookmark = (rv: number, extra?: Record<string, string>): Uint8Array =>
    encode('BOOKMARK', () => ({ kind: store.type.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: String(rv), ...(extra ? { annotations: extra } : {}) } }));

  /** What a change is for this watcher: its type, or undefined when the watcher does not see it. */
  const translate = (e: CachedEvent): EventType | undefined => {
    if (filter.everything) {
      // Without selectors, the namespace (from the key) decides: no object is decoded.
      return namespace === undefined || e.namespace === namespace ? e.type : undefined;
    }
    const now = selected(e.object);
    if (e.type === 'ADDED') return now ? 'ADDED' : undefined;
    if (e.type === 'DELETED') return selected(e.prevObject) ? 'DELETED' : undefined;
    const before = selected(e.prevObject);
    if (before && now) return 'MODIFIED';
    if (!before && now) return 'ADDED';
    if (before && !now) return 'DELETED';
    return undefined;
  };

  void (async () => {
    let interval: unknown;
    let watcher: CacheWatcher | undefined;
    try {
      let start = fromRevision ?? 0;
      if (sendInitial && fromRevision !== undefined) {
        // The initial state must be at least as new as the version asked.
        await store.cache.waitForRevision(fromRevision);
      }
      if (sendInitial && rep !== 'table' && filter.everything && store.servesStoredEvents) {
        // Built from stored JSON (whole objects, or their metadata as PartialObjectMetadata), a
        // page at a time, never far ahead of what the client has read.
        const snapshot = { revision: 0 };
        for await (const lines of store.initialEventLines(namespace, INITIAL_EVENTS_PAGE, snapshot, rep)) {
          channel.push(lines);
          if (channel.full) await channel.below();
          if (abort.signal.aborted) return;
        }
        start = snapshot.revision;
      } else if (sendInitial) {
        let token: string | undefined;
        do {
          const list = await store.list(namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector, limit: INITIAL_EVENTS_PAGE, continue: token });
          for (const item of list.items) channel.push(encode('ADDED', () => item));
          if (!token) start = Number(list.metadata.resourceVersion);
          token = list.metadata.continue;
          if (channel.full) await channel.below();
          if (abort.signal.aborted) return;
        } while (token);
      }
      if (!sendInitial && fromRevision === undefined) start = await store.cache.currentRevision();
      if (sendInitial && q.sendInitialEvents === 'true' && bookmarks) channel.push(bookmark(start, { 'k8s.io/initial-events-end': 'true' }));
      watcher = await store.cache.subscribe(start, abort.signal);
      const w = watcher;
      let lastRevision = start;
      let bookmarkDue = false;
      // A bookmark never claims a revision the watcher has not read up to: when it lags, the
      // bookmark waits until it has caught up. A full buffer skips it (bookmarks are best effort).
      const sendBookmark = () => {
        bookmarkDue = false;
        if (!channel.full) channel.push(bookmark(Math.max(lastRevision, store.cache.revision)));
      };
      if (bookmarks) {
        interval = timers.setInterval(() => (w.caughtUp ? sendBookmark() : (bookmarkDue = true)), options.bookmarkIntervalMs);
      }
      for (;;) {
        const e = await w.read();
        if (!e) break;
        lastRevision = e.revision;
        const type = translate(e);
        if (type) channel.push(encode(type, () => e.object, e));
        if (bookmarkDue && w.caughtUp) sendBookmark();
        if (channel.full) await channel.below();
      }
    } catch (err) {
      // A watcher closed by the cache ends its stream; the client watches again.
      if (!(err instanceof WatchClosedError)) {
        const status = toApiError(err).toStatus();
        channel.push(Buffer.from(JSON.stringify({ type: 'ERROR', object: status }) + '\n'));
      }
    } finally {
      watcher?.close();
      if (interval !== undefined) timers.clearInterval(interval);
      timers.clearTimeout(timer);
      clientSignal?.removeEventListener('abort', stop);
      channel.close();
    }
  })();

  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      yield* channel;
    } finally {
      channel.discard();
      abort.abort(ABORTED);
    }
  }

  return { status: 200, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, stream: stream() };
}
