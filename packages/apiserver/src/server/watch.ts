import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { badRequest, toApiError } from '@kplane/api';
import type { Store } from '../registry/store.js';
import { withResourceVersion } from '../registry/json-writer.js';
import { parseResourceVersion, validateWatchOptions } from '../registry/read-options.js';
import { WatchClosedError, type CachedEvent, type CacheWatcher } from '../registry/watch-cache.js';
import { realTimers, type Timers } from '../registry/timers.js';
import { toTable, type IncludeObject } from './table.js';
import { passMemo, PUSH_TO, WATCH_BATCH_BYTES, WATCH_BUFFER_CHUNKS, WatchOutbox, type PushableStream, type WatchDeliveries } from './watch-output.js';

export { WATCH_BATCH_BYTES, WATCH_BUFFER_BYTES, WATCH_BUFFER_CHUNKS, type WatchDeliveries } from './watch-output.js';

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
  /**
   * The client (in-process) takes the events as objects (`RawResponse.events`): a watch of
   * whole objects then sends the watch cache's own decoded objects, deep-frozen and shared by
   * every such watcher, with no encoding; tables and metadata are sent as bytes all the same.
   */
  objects?: boolean;
}

/** Objects per page of initial events. */
const INITIAL_EVENTS_PAGE = 500;

type EventType = WatchEvent['type'];

/** The changes of a watch cache's window from one position, as the watches there see them. */
interface SharedChanges {
  /** The position after them. */
  to: number;
  /** The revision of the last of them. */
  revision: number;
  /** Their events, in one chunk (none: the watches see none of them). */
  chunk: Uint8Array | undefined;
}

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
  const outbox = new WatchOutbox(options.deliveries);
  const inNamespace = (o: KubeObject) => namespace === undefined || o.metadata?.namespace === namespace;
  const selected = (o: KubeObject | undefined) => !!o && inNamespace(o) && filter.matches(o);
  /** Events go to the client as objects, not bytes. */
  const objects = options.objects === true && rep === 'object';

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

  /**
   * One event for an in-process client that takes objects: what the bytes of `encode` decode
   * to. A change of the watch cache carries its frozen object (the very object every such
   * watcher gets); an object listed for the initial events is this watcher's own; bookmarks and
   * errors are made as their JSON reads.
   */
  const eventOf = (type: EventType, objectOf: () => KubeObject, cached?: CachedEvent): WatchEvent => {
    if (cached || type === 'ADDED') return { type, object: objectOf() };
    return JSON.parse(JSON.stringify({ type, object: objectOf() })) as WatchEvent;
  };
  /** One event for the client: bytes, or an object for a client that takes them. */
  const item = (type: EventType, objectOf: () => KubeObject, cached?: CachedEvent): Uint8Array | WatchEvent =>
    objects ? eventOf(type, objectOf, cached) : encode(type, objectOf, cached);

  const bookmark = (rv: number, extra?: Record<string, string>): Uint8Array | WatchEvent =>
    item('BOOKMARK', () => ({ kind: store.type.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: String(rv), ...(extra ? { annotations: extra } : {}) } }));

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

  let watcher: CacheWatcher | undefined;
  let interval: unknown;
  let finished = false;
  /** Ends the watch once: an error other than the cache closing the watcher is sent as an ERROR event. */
  const finish = (err?: unknown): void => {
    if (finished) return;
    finished = true;
    if (err !== undefined && !(err instanceof WatchClosedError)) {
      const status = toApiError(err).toStatus();
      outbox.push(objects ? eventOf('ERROR', () => status as unknown as KubeObject) : Buffer.from(JSON.stringify({ type: 'ERROR', object: status }) + '\n'));
    }
    watcher?.close();
    if (interval !== undefined) timers.clearInterval(interval);
    timers.clearTimeout(timer);
    clientSignal?.removeEventListener('abort', stop);
    outbox.close();
  };
  // Timeout, client gone: the watch ends.
  abort.signal.addEventListener('abort', () => finish(), { once: true });

  let lastRevision = 0;
  let bookmarkDue = false;
  // A bookmark never claims a revision the watcher has not read up to: when it lags, the
  // bookmark waits until it has caught up. A full buffer skips it (bookmarks are best effort).
  const sendBookmark = () => {
    bookmarkDue = false;
    if (!outbox.full) outbox.push(bookmark(Math.max(lastRevision, store.cache.revision)));
  };
  const deliver = (e: CachedEvent): void => {
    lastRevision = e.revision;
    const type = translate(e);
    if (type) outbox.push(item(type, () => e.object, e));
  };
  /**
   * Do other watches of the resource see the same bytes as this one for the same changes (no
   * selectors, the same namespace and representation)? Then, in a flush pass, the chunk of the
   * changes from a position of the window is made by the first of them and reused by the others.
   */
  const shareable = filter.everything && rep !== 'table';
  const shareKey = `${rep}|${namespace ?? ''}|`;
  /** Takes changes at hand as the chunk watches at the same position share; false when it took none. */
  const takeShared = (w: CacheWatcher): boolean => {
    const from = w.cursor;
    const cache = store.cache;
    if (w.failure || from >= cache.endSeq) return false;
    // (Events at or before the watcher's start revision, or gone from the window: read one by one.)
    const first = cache.at(from) as CachedEvent | undefined;
    if (!first || first.revision <= w.after) return false;
    const memo = passMemo<SharedChanges>(cache);
    const key = shareKey + from;
    let shared = memo.get(key);
    if (!shared) {
      const parts: Uint8Array[] = [];
      let size = 0;
      let seq = from;
      let revision = lastRevision;
      const end = Math.min(cache.endSeq, from + WATCH_BUFFER_CHUNKS);
      for (; seq < end && size < WATCH_BATCH_BYTES; seq++) {
        const e = cache.at(seq);
        revision = e.revision;
        const type = translate(e);
        if (!type) continue;
        const bytes = encode(type, () => e.object, e);
        parts.push(bytes);
        size += bytes.byteLength;
      }
      shared = { to: seq, revision, chunk: parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : Buffer.concat(parts, size) };
      memo.set(key, shared);
    }
    w.cursor = shared.to;
    lastRevision = shared.revision;
    if (shared.chunk) outbox.push(shared.chunk);
    return true;
  };
  /** Reading the watch cache's window (after the replay from storage). */
  let live = false;
  /** The pump stopped at a full outbox. */
  let starved = false;
  /**
   * Moves the changes at hand from the watch cache's window into the outbox, synchronously,
   * until it is full: run in the flush pass of a pushed watch, at once for a pulled one.
   */
  const pump = (): void => {
    if (!live || finished) return;
    const w = watcher!;
    try {
      if (shareable && outbox.pushed) while (!outbox.full && takeShared(w));
      for (;;) {
        if (outbox.full) {
          starved = true;
          return;
        }
        const e = w.poll();
        if (!e) break;
        deliver(e);
      }
      if (bookmarkDue && w.caughtUp) sendBookmark();
      if (w.ended) finish();
    } catch (err) {
      finish(err);
    }
  };
  outbox.onFlush = pump;
  outbox.onRoom = () => {
    if (!starved) return;
    starved = false;
    outbox.schedule();
  };

  void (async () => {
    try {
      let start = fromRevision ?? 0;
      if (sendInitial && fromRevision !== undefined) {
        // The initial state must be at least as new as the version asked.
        await store.cache.waitForRevision(fromRevision);
      }
      if (sendInitial && rep !== 'table' && filter.everything && store.servesStoredEvents && !objects) {
        // Built from stored JSON (whole objects, or their metadata as PartialObjectMetadata), a
        // page at a time, never far ahead of what the client has read.
        const snapshot = { revision: 0 };
        for await (const lines of store.initialEventLines(namespace, INITIAL_EVENTS_PAGE, snapshot, rep)) {
          outbox.push(lines);
          if (outbox.full) await outbox.below();
          if (finished) return;
        }
        start = snapshot.revision;
      } else if (sendInitial) {
        let token: string | undefined;
        do {
          const list = await store.list(namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector, limit: INITIAL_EVENTS_PAGE, continue: token });
          for (const listed of list.items) outbox.push(item('ADDED', () => listed));
          if (!token) start = Number(list.metadata.resourceVersion);
          token = list.metadata.continue;
          if (outbox.full) await outbox.below();
          if (finished) return;
        } while (token);
      }
      if (!sendInitial && fromRevision === undefined) start = await store.cache.currentRevision();
      if (sendInitial && q.sendInitialEvents === 'true' && bookmarks) outbox.push(bookmark(start, { 'k8s.io/initial-events-end': 'true' }));
      if (finished) return;
      const w = (watcher = await store.cache.subscribe(start, abort.signal));
      if (finished) {
        w.close();
        return;
      }
      lastRevision = start;
      if (bookmarks) {
        interval = timers.setInterval(() => (w.caughtUp ? sendBookmark() : (bookmarkDue = true)), options.bookmarkIntervalMs);
      }
      // Changes older than the window, replayed from storage.
      for (;;) {
        const e = await w.replayed();
        if (!e || finished) break;
        deliver(e);
        if (outbox.full) await outbox.below();
      }
      if (finished) return;
      // From now on the cache's dispatch wakes the watch, which takes what is at hand.
      live = true;
      w.onWake = () => outbox.schedule();
      outbox.schedule();
    } catch (err) {
      finish(err);
    }
  })();

  const headers = { 'content-type': 'application/json', 'transfer-encoding': 'chunked' };
  if (objects) {
    const events = (async function* (): AsyncGenerator<WatchEvent[]> {
      try {
        yield* outbox.batches();
      } finally {
        outbox.discard();
        abort.abort(ABORTED);
      }
    })();
    return { status: 200, headers, events };
  }
  const pulled = (async function* (): AsyncGenerator<Uint8Array> {
    try {
      yield* outbox;
    } finally {
      outbox.discard();
      abort.abort(ABORTED);
    }
  })();
  const stream: PushableStream = {
    [Symbol.asyncIterator]: () => pulled,
    [PUSH_TO]: (target) => {
      const control = outbox.pushTo(target);
      return {
        ready: control.ready,
        cancel: () => {
          control.cancel();
          abort.abort(ABORTED);
        },
      };
    },
  };

  return { status: 200, headers, stream };
}
