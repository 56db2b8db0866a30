/**
 * The watcher: list, then watch from the list's resourceVersion, relisting when the watch can
 * no longer resume. An explicit state machine in the manner of kube-rs's `watcher`:
 * empty → (initPage)* → initListed → watching → … Its output marks every relist with
 * `init` … `initDone`, so a cache can replace its content atomically.
 */
import { ApiError, type KubeObject, type Status, type WatchEvent } from '@kplane/api';
import type { ResourceClient, WatchOptions } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';
import { catchRejection, reportPanic } from '../recover.js';
import { createBackoff, type Backoff, type BackoffOptions } from './backoff.js';

/** What a watcher yields (kube-rs's `watcher::Event`). */
export type WatcherEvent<T extends KubeObject = KubeObject> =
  /** A (re)list starts: the objects that follow replace everything seen before. */
  | { type: 'init' }
  /** One object of the (re)list. */
  | { type: 'initApply'; object: T }
  /** The (re)list is complete: objects not listed since `init` are gone. */
  | { type: 'initDone' }
  /** An object was created or changed. */
  | { type: 'apply'; object: T }
  /** An object was deleted (its last state). */
  | { type: 'delete'; object: T };

/** The states of the watcher machine. */
export type WatcherState<T extends KubeObject = KubeObject> =
  /** Nothing known: the next step lists the first page. */
  | { phase: 'empty' }
  /** Listing: more pages follow `continueToken`. */
  | { phase: 'initPage'; continueToken: string }
  /** Streaming the initial list (a watch with sendInitialEvents): ADDED events until the initial-events-end bookmark. */
  | { phase: 'initStream'; stream: AsyncIterator<WatchEvent<T>[]> }
  /** Listed (or a watch ended cleanly): the next step opens a watch from `resourceVersion`. */
  | { phase: 'initListed'; resourceVersion: string }
  /** A watch is open. */
  | { phase: 'watching'; resourceVersion: string; stream: AsyncIterator<WatchEvent<T>[]>; startedAt: number; received: number };

/** The part of a ResourceClient the watcher uses (`watchBatches` when present, else `watch`). */
export type WatchableApi<T extends KubeObject = KubeObject> = Pick<ResourceClient<T>, 'list' | 'watch'> & Partial<Pick<ResourceClient<T>, 'watchBatches'>>;

/** Opens a watch as a stream of event batches. */
function openStream<T extends KubeObject>(api: WatchableApi<T>, options: WatchOptions): AsyncIterator<WatchEvent<T>[]> {
  if (api.watchBatches) return api.watchBatches(options)[Symbol.asyncIterator]();
  const events = api.watch(options);
  return (async function* () {
    for await (const ev of events) yield [ev];
  })();
}

/** Options of watcher. */
export interface WatcherOptions {
  /** Namespace to watch; absent or '' watches all namespaces. Ignored for cluster-scoped resources. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * How the initial list (and every relist) is read (kube-rs's InitialListStrategy):
   * - 'streaming' (default): one watch with `sendInitialEvents=true` (Kubernetes' streaming
   *   lists, KEP-3157): the server sends the current objects as ADDED events, then a bookmark
   *   annotated `k8s.io/initial-events-end`, and the same stream goes on with changes. Objects
   *   are decoded as they arrive, so the list costs no big response in memory. A server that
   *   refuses it (400 or 422, as API servers without the WatchList feature answer) makes this
   *   watcher fall back to 'paged' for the rest of its life.
   * - 'paged': list in pages of `pageSize` (following `continue`), then watch from the list's
   *   resourceVersion.
   */
  initialList?: 'streaming' | 'paged';
  /** List page size (default 500). */
  pageSize?: number;
  /** Server-side timeout of each watch request, in seconds (default 290, as kube-rs). */
  watchTimeoutSeconds?: number;
  /** Time source for backoff and the short-watch check (default the real clock). */
  clock?: Clock;
  /** Backoff settings, or a ready Backoff (default: 800 ms → 30 s, jitter 1, reset after 2 min). */
  backoff?: BackoffOptions | Backoff;
  /** Stops the watcher: the iteration ends quietly. */
  signal?: AbortSignal;
  /**
   * Watches take their objects read-only (WatchOptions.sharedObjects): from an in-process API
   * server, the objects of `initApply`, `apply` and `delete` may be deep-frozen and shared with
   * its other in-process watchers (no encoding, no parsing). Default false; informers set it,
   * their cache being frozen anyway.
   */
  sharedObjects?: boolean;
  /** Told about every failure before the watcher backs off and retries. */
  onError?: (err: unknown) => void;
}

/** The outcome of one transition. */
interface Step<T extends KubeObject> {
  events: WatcherEvent<T>[];
  next: WatcherState<T>;
  /** Set when the transition failed: the watcher backs off before the next one. */
  error?: unknown;
  /** The server refused a streaming list: use paged lists from now on (retried at once, no backoff). */
  fallBackToPaged?: boolean;
}

const isBackoff = (b: BackoffOptions | Backoff | undefined): b is Backoff =>
  typeof (b as Backoff | undefined)?.next === 'function';

/** The annotation of the bookmark that ends a streaming list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

const rvOf = (obj: KubeObject | undefined): string | undefined => obj?.metadata?.resourceVersion || undefined;

/** A watch ERROR event's Status as an ApiError. */
function errorFromStatus(object: unknown): ApiError {
  const s = (object ?? {}) as Partial<Status>;
  const code = typeof s.code === 'number' ? s.code : 500;
  return new ApiError(code, s.reason ?? 'InternalError', s.message ?? 'watch ERROR event', s.details);
}

/**
 * Watches a resource forever (until `signal` aborts or the consumer stops iterating).
 *
 * Guarantees:
 * - The first events are `init`, one `initApply` per listed object, `initDone`; the same
 *   sequence follows every relist, so applying it as one replacement never misses a deletion.
 * - Lists are paginated (`limit`, default 500, following `continue`); a failure part-way restarts
 *   the list from its first page.
 * - Watches start from the last resourceVersion seen (list, event or BOOKMARK) with
 *   `allowWatchBookmarks=true`; bookmarks only move that resourceVersion and yield nothing.
 * - A watch that ends cleanly is reopened from the last resourceVersion at once; so is one whose
 *   stream breaks (connection lost: the client may fail over to another server) or that fails
 *   with a 429 or 5xx, after the backoff. A 410 (ERROR event or thrown) or any other ERROR
 *   event leads to a relist, as does a failure before the initial list is complete; every
 *   failure (including a watch closing in under a second with no event, as client-go's "very
 *   short watch") first waits the backoff, on the injected clock.
 *
 * Errors are never thrown to the consumer: they go to `onError` and are retried.
 */
export async function* watcher<T extends KubeObject = KubeObject>(
  api: WatchableApi<T>,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>> {
  for await (const batch of watcherBatches(api, options)) yield* batch;
}

/**
 * watcher(), with the events of each transition grouped (each array is non-empty): a page of
 * a list, or the events of one network read of a watch. Same guarantees as watcher().
 */
export async function* watcherBatches<T extends KubeObject = KubeObject>(
  api: WatchableApi<T>,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>[]> {
  const clock = options.clock ?? realClock;
  const backoff = isBackoff(options.backoff) ? options.backoff : createBackoff(clock, options.backoff);
  const signal = options.signal;
  let state: WatcherState<T> = { phase: 'empty' };
  let stepOptions = options;
  const onError = (err: unknown): void => {
    const failed = (thrown: unknown): void => void reportPanic(undefined, 'watch-error-handler', thrown);
    try {
      catchRejection(options.onError?.(err), failed);
    } catch (thrown) {
      failed(thrown);
    }
  };
  try {
    while (!signal?.aborted) {
      const step: Step<T> = await stepWatcher(api, state, stepOptions, clock);
      state = step.next;
      if (signal?.aborted) return;
      if (step.events.length > 0) yield step.events;
      if (step.fallBackToPaged) {
        stepOptions = { ...stepOptions, initialList: 'paged' };
        onError(step.error);
        continue;
      }
      if (step.error !== undefined) {
        onError(step.error);
        try {
          await clock.sleep(backoff.next(), signal);
        } catch {
          return; // aborted while waiting
        }
      }
    }
  } finally {
    if (state.phase === 'watching' || state.phase === 'initStream') closeStream(state.stream);
  }
}

function closeStream(stream: AsyncIterator<unknown>): void {
  try {
    void Promise.resolve(stream.return?.(undefined)).catch(() => undefined);
  } catch {
    // A stream that throws on close is closed enough.
  }
}

/** One transition of the state machine. Never throws: failures are returned as `error`. */
export async function stepWatcher<T extends KubeObject>(
  api: WatchableApi<T>,
  state: WatcherState<T>,
  options: WatcherOptions,
  clock: Clock,
): Promise<Step<T>> {
  try {
    return await transition(api, state, options, clock);
  } catch (error) {
    // An api whose list or watch throws instead of rejecting: a failure like any other.
    if (state.phase === 'watching' || state.phase === 'initStream') closeStream(state.stream);
    return { events: [], next: { phase: 'empty' }, error };
  }
}

async function transition<T extends KubeObject>(
  api: WatchableApi<T>,
  state: WatcherState<T>,
  options: WatcherOptions,
  clock: Clock,
): Promise<Step<T>> {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const namespace = options.namespace ?? '';
  switch (state.phase) {
    case 'empty':
      if ((options.initialList ?? 'streaming') === 'streaming') {
        const stream = openStream(api, {
          ...selectors,
          namespace,
          resourceVersion: '',
          resourceVersionMatch: 'NotOlderThan',
          sendInitialEvents: true,
          allowWatchBookmarks: true,
          timeoutSeconds: options.watchTimeoutSeconds ?? 290,
          signal: options.signal,
          ...(options.sharedObjects ? { sharedObjects: true } : {}),
        });
        return { events: [{ type: 'init' }], next: { phase: 'initStream', stream } };
      }
      return stepListPage(api, state, options);
    case 'initPage':
      return stepListPage(api, state, options);
    case 'initListed': {
      const stream = openStream(api, {
        ...selectors,
        namespace,
        resourceVersion: state.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: options.watchTimeoutSeconds ?? 290,
        signal: options.signal,
        ...(options.sharedObjects ? { sharedObjects: true } : {}),
      });
      return { events: [], next: { phase: 'watching', resourceVersion: state.resourceVersion, stream, startedAt: clock.now(), received: 0 } };
    }
    case 'initStream':
    case 'watching':
      return stepStream(state, clock);
  }
}

/** Lists one page (the first when `state` is empty); the last page completes the list. */
async function stepListPage<T extends KubeObject>(
  api: WatchableApi<T>,
  state: Extract<WatcherState<T>, { phase: 'empty' | 'initPage' }>,
  options: WatcherOptions,
): Promise<Step<T>> {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const namespace = options.namespace ?? '';
  const first = state.phase === 'empty';
  try {
    const page = await api.list({
      ...selectors,
      namespace,
      limit: options.pageSize ?? 500,
      continue: first ? undefined : state.continueToken,
      signal: options.signal,
    });
    const events: WatcherEvent<T>[] = first ? [{ type: 'init' }] : [];
    for (const object of page.items) events.push({ type: 'initApply', object });
    if (page.metadata.continue) return { events, next: { phase: 'initPage', continueToken: page.metadata.continue } };
    events.push({ type: 'initDone' });
    return { events, next: { phase: 'initListed', resourceVersion: page.metadata.resourceVersion ?? '' } };
  } catch (error) {
    // Any failure, including an expired continue token, restarts the list from scratch.
    return { events: [], next: { phase: 'empty' }, error };
  }
}

/** A watch stream that failed without an answer from the server (its connection lost or refused). */
class WatchBrokenError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'WatchBrokenError';
  }
}

/**
 * Can a watch that failed with this resume from its last resourceVersion (as client-go's
 * reflector does)? Yes when the connection broke or the server answered 429 or 5xx; not after a
 * 410 (the resourceVersion is gone) or any other refusal, which relist.
 */
function resumable(error: unknown): boolean {
  if (error instanceof WatchBrokenError) return true;
  return error instanceof ApiError && (error.code === 429 || error.code >= 500);
}

/** Does this ERROR Status or thrown error say that the server does not do streaming lists? */
function refusesStreaming(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 400 || error.code === 422);
}

type StreamState<T extends KubeObject> = Extract<WatcherState<T>, { phase: 'initStream' | 'watching' }>;

/** What one watch event does to a stream's state: the next state, or the error that ends the stream. */
type Transition<T extends KubeObject> = StreamState<T> | { error: unknown };

/** One event of a streaming list; the initial-events-end bookmark completes it and the stream goes on as a watch. */
function initStreamEvent<T extends KubeObject>(state: Extract<WatcherState<T>, { phase: 'initStream' }>, event: WatchEvent<T>, out: WatcherEvent<T>[], clock: Clock): Transition<T> {
  const { type, object } = event;
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
      out.push({ type: 'initApply', object });
      return state;
    case 'DELETED':
      // Not sent before the end of the initial events; nothing to remove from a list in progress.
      return state;
    case 'BOOKMARK':
      if (object?.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') return state;
      out.push({ type: 'initDone' });
      return { phase: 'watching', resourceVersion: rvOf(object) ?? '', stream: state.stream, startedAt: clock.now(), received: 1 };
    case 'ERROR':
      return { error: errorFromStatus(object) };
    default:
      return { error: new Error(`unable to understand watch event ${JSON.stringify(type)}`) };
  }
}

/** One event of a watch. */
function watchEvent<T extends KubeObject>(state: Extract<WatcherState<T>, { phase: 'watching' }>, event: WatchEvent<T>, out: WatcherEvent<T>[]): Transition<T> {
  const { type, object } = event;
  const advanced = (rv: string | undefined): StreamState<T> => ({ ...state, resourceVersion: rv ?? state.resourceVersion, received: state.received + 1 });
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
      out.push({ type: 'apply', object });
      return advanced(rvOf(object));
    case 'DELETED':
      out.push({ type: 'delete', object });
      return advanced(rvOf(object));
    case 'BOOKMARK':
      return advanced(rvOf(object));
    case 'ERROR':
      return { error: errorFromStatus(object) };
    default:
      return { error: new Error(`unable to understand watch event ${JSON.stringify(type)}`) };
  }
}

/** Reads one batch of events from an open stream (a streaming list or a watch) and applies them in order. */
async function stepStream<T extends KubeObject>(state: StreamState<T>, clock: Clock): Promise<Step<T>> {
  const events: WatcherEvent<T>[] = [];
  const fail = (error: unknown): Step<T> => {
    closeStream(state.stream);
    // A watch cut off (its server gone, a 5xx, a 429) resumes from its resourceVersion, maybe on
    // another server; only a watch that can no longer resume (410) or was refused relists.
    if (current.phase === 'watching' && resumable(error)) return { events, next: { phase: 'initListed', resourceVersion: current.resourceVersion }, error };
    const fallBackToPaged = current.phase === 'initStream' && refusesStreaming(error);
    return { events, next: { phase: 'empty' }, error, ...(fallBackToPaged ? { fallBackToPaged } : {}) };
  };
  let current: StreamState<T> = state;
  let item: IteratorResult<WatchEvent<T>[]>;
  try {
    item = await state.stream.next();
  } catch (error) {
    return fail(error instanceof ApiError ? error : new WatchBrokenError(error));
  }
  if (item.done) {
    if (state.phase === 'initStream') return fail(new Error('the watch stream ended before the initial events were complete'));
    const next: WatcherState<T> = { phase: 'initListed', resourceVersion: state.resourceVersion };
    if (state.received === 0 && clock.now() - state.startedAt < 1000) {
      const error = new Error('very short watch: Unexpected watch close - watch lasted less than a second and no items received');
      return { events, next, error };
    }
    return { events, next };
  }
  for (const event of item.value) {
    const t: Transition<T> = current.phase === 'initStream' ? initStreamEvent(current, event, events, clock) : watchEvent(current, event, events);
    if ('error' in t) return fail(t.error);
    current = t;
  }
  return { events, next: current };
}
