import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { ApiError, badRequest, toApiError } from '@kplane/api';
import { withResourceVersion, type Store } from '../registry/store.js';
import type { CachedEvent } from '../registry/watch-cache.js';
import { toTable, type IncludeObject } from './table.js';

/** Options of serveWatch. */
export interface WatchServeOptions {
  now(): Date;
  bookmarkIntervalMs: number;
  defaultTimeoutSeconds: number;
  include: IncludeObject;
}

/** Objects per page of initial events built from stored JSON. */
const INITIAL_EVENTS_PAGE = 500;
/** Chunks (of up to 64 KiB) of initial events queued ahead of the client before the next page is built. */
const INITIAL_EVENTS_AHEAD = 8;

/** The last encoding of each watch-cache object as an event (as `object`), shared by all its watchers. */
const encodedEvents = new WeakMap<object, { type: string; bytes: Uint8Array }>();

/** A tiny single-consumer channel. */
class Channel<T> {
  private readonly items: T[] = [];
  private wake?: () => void;
  private closed = false;

  private drained?: () => void;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake?.();
  }

  /** Resolves once fewer than `max` items wait to be read (or the channel is closed). */
  async below(max: number): Promise<void> {
    while (!this.closed && this.items.length >= max) await new Promise<void>((r) => (this.drained = r));
  }

  close(): void {
    this.closed = true;
    this.wake?.();
    this.drained?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length) {
        const item = this.items.shift()!;
        this.drained?.();
        this.drained = undefined;
        yield item;
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
 * "0") is given, then every change after it from the resource's watch cache, filtered by
 * namespace and selectors (an object leaving the selection is sent as DELETED, one entering it
 * as ADDED). A too-old resourceVersion is reported as an ERROR event with a 410 Status.
 */
export function serveWatch(
  store: Store,
  namespace: string | undefined,
  q: Record<string, string>,
  rep: 'object' | 'table' | 'metadata',
  clientSignal: AbortSignal | undefined,
  options: WatchServeOptions,
): RawResponse {
  const filter = store.filter({ labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
  const rvParam = q.resourceVersion;
  let fromRevision: number | undefined;
  if (rvParam !== undefined && rvParam !== '' && rvParam !== '0') {
    fromRevision = Number(rvParam);
    if (!Number.isInteger(fromRevision) || fromRevision < 0) throw badRequest(`invalid resource version: ${rvParam}`);
  }
  const sendInitial = q.sendInitialEvents === 'true' || fromRevision === undefined;
  if (q.sendInitialEvents === 'true' && q.resourceVersionMatch !== 'NotOlderThan') {
    throw new ApiError(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  }
  let timeoutSeconds = options.defaultTimeoutSeconds;
  if (q.timeoutSeconds !== undefined && q.timeoutSeconds !== '') {
    const t = Number(q.timeoutSeconds);
    if (!Number.isFinite(t) || t < 0) throw badRequest(`timeoutSeconds: Invalid value: "${q.timeoutSeconds}"`);
    if (t > 0) timeoutSeconds = t;
  }
  const bookmarks = q.allowWatchBookmarks === 'true';
  const abort = new AbortController();
  const stop = () => abort.abort();
  clientSignal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, timeoutSeconds * 1000);
  const channel = new Channel<Uint8Array>();
  // A producer waiting for the client to read (initial events) must not wait for a client that went away.
  abort.signal.addEventListener('abort', () => channel.close(), { once: true });
  const inNamespace = (o: KubeObject) => namespace === undefined || o.metadata?.namespace === namespace;
  const selected = (o: KubeObject | undefined) => !!o && inNamespace(o) && filter.matches(o);

  const encode = (ev: WatchEvent, cached?: CachedEvent): Uint8Array => {
    if (rep === 'object' && ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
      // Every watcher of a resource gets the same cached objects: encode each event once,
      // from the stored JSON when the kind has no read-time transform.
      const known = encodedEvents.get(ev.object);
      if (known?.type === ev.type) return known.bytes;
      const served = cached?.stored !== undefined && store.servesStoredEvents ? withResourceVersion(cached.stored, cached.revision) : undefined;
      const bytes = Buffer.from(served !== undefined ? `{"type":"${ev.type}","object":${served}}\n` : JSON.stringify(ev) + '\n');
      encodedEvents.set(ev.object, { type: ev.type, bytes });
      return bytes;
    }
    let object: unknown = ev.object;
    if (rep === 'table' && ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
      object = toTable(store.type.strategy.table, [ev.object], { resourceVersion: ev.object.metadata?.resourceVersion }, { include: options.include, now: options.now() });
    } else if (rep === 'metadata' && ev.type !== 'ERROR') {
      object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: ev.object.metadata ?? {} };
    }
    return Buffer.from(JSON.stringify({ type: ev.type, object }) + '\n');
  };

  const bookmark = (rv: number, extra?: Record<string, string>): Uint8Array =>
    encode({
      type: 'BOOKMARK',
      object: { kind: store.type.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: String(rv), ...(extra ? { annotations: extra } : {}) } },
    });

  const translate = (e: CachedEvent): WatchEvent | undefined => {
    const now = selected(e.object);
    if (e.type === 'ADDED') return now ? { type: 'ADDED', object: e.object } : undefined;
    if (e.type === 'DELETED') {
      const last = filter.everything ? e.object : (e.prevObject ?? e.object);
      return selected(last) ? { type: 'DELETED', object: e.object } : undefined;
    }
    // Without selectors, the namespace decides, and an object never changes namespace.
    const before = filter.everything ? now : selected(e.prevObject);
    if (before && now) return { type: 'MODIFIED', object: e.object };
    if (!before && now) return { type: 'ADDED', object: e.object };
    if (before && !now) return { type: 'DELETED', object: e.object };
    return undefined;
  };

  void (async () => {
    let interval: NodeJS.Timeout | undefined;
    try {
      let start = fromRevision ?? 0;
      if (sendInitial && rep === 'object' && filter.everything && store.servesStoredEvents) {
        // Built from stored JSON, a page at a time, never far ahead of what the client has read.
        const snapshot = { revision: 0 };
        for await (const lines of store.initialEventLines(namespace, INITIAL_EVENTS_PAGE, snapshot)) {
          channel.push(lines);
          await channel.below(INITIAL_EVENTS_AHEAD);
          if (abort.signal.aborted) return;
        }
        start = snapshot.revision;
        if (q.sendInitialEvents === 'true' && bookmarks) channel.push(bookmark(start, { 'k8s.io/initial-events-end': 'true' }));
      } else if (sendInitial) {
        const list = await store.list(namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
        for (const item of list.items) channel.push(encode({ type: 'ADDED', object: item }));
        start = Number(list.metadata.resourceVersion);
        if (q.sendInitialEvents === 'true' && bookmarks) channel.push(bookmark(start, { 'k8s.io/initial-events-end': 'true' }));
      }
      let lastRevision = start;
      if (bookmarks) {
        interval = setInterval(() => channel.push(bookmark(Math.max(lastRevision, store.cache.revision))), options.bookmarkIntervalMs);
        interval.unref?.();
      }
      for await (const e of store.cache.watch(start, abort.signal)) {
        lastRevision = e.revision;
        const out = translate(e);
        if (out) channel.push(encode(out, e));
      }
    } catch (err) {
      const status = toApiError(err).toStatus();
      channel.push(Buffer.from(JSON.stringify({ type: 'ERROR', object: status }) + '\n'));
    } finally {
      if (interval) clearInterval(interval);
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', stop);
      channel.close();
    }
  })();

  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      yield* channel;
    } finally {
      abort.abort();
    }
  }

  return { status: 200, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, stream: stream() };
}
