/**
 * The watcher: list, then watch from the list's resourceVersion, relisting when the watch can
 * no longer resume. An explicit state machine in the manner of kube-rs's `watcher`:
 * empty → (initPage)* → initListed → watching → … Its output marks every relist with
 * `init` … `initDone`, so a cache can replace its content atomically.
 */
import { ApiError, type KubeObject, type Status, type WatchEvent } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';
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
  /** Listed (or a watch ended cleanly): the next step opens a watch from `resourceVersion`. */
  | { phase: 'initListed'; resourceVersion: string }
  /** A watch is open. */
  | { phase: 'watching'; resourceVersion: string; stream: AsyncIterator<WatchEvent<T>>; startedAt: number; received: number };

/** The part of a ResourceClient the watcher uses. */
export type WatchableApi<T extends KubeObject = KubeObject> = Pick<ResourceClient<T>, 'list' | 'watch'>;

/** Options of watcher. */
export interface WatcherOptions {
  /** Namespace to watch; absent or '' watches all namespaces. Ignored for cluster-scoped resources. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
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
  /** Told about every failure before the watcher backs off and retries. */
  onError?: (err: unknown) => void;
}

/** The outcome of one transition. */
interface Step<T extends KubeObject> {
  events: WatcherEvent<T>[];
  next: WatcherState<T>;
  /** Set when the transition failed: the watcher backs off before the next one. */
  error?: unknown;
}

const isBackoff = (b: BackoffOptions | Backoff | undefined): b is Backoff =>
  typeof (b as Backoff | undefined)?.next === 'function';

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
 * - A watch that ends cleanly is reopened from the last resourceVersion at once. A 410 (ERROR
 *   event or thrown), any other ERROR event, or a stream that throws leads to a relist; every
 *   failure (including a watch closing in under a second with no event, as client-go's "very
 *   short watch") first waits the backoff, on the injected clock.
 *
 * Errors are never thrown to the consumer: they go to `onError` and are retried.
 */
export async function* watcher<T extends KubeObject = KubeObject>(
  api: WatchableApi<T>,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>> {
  const clock = options.clock ?? realClock;
  const backoff = isBackoff(options.backoff) ? options.backoff : createBackoff(clock, options.backoff);
  const signal = options.signal;
  let state: WatcherState<T> = { phase: 'empty' };
  try {
    while (!signal?.aborted) {
      const step: Step<T> = await stepWatcher(api, state, options, clock);
      state = step.next;
      if (signal?.aborted) return;
      for (const ev of step.events) yield ev;
      if (step.error !== undefined) {
        options.onError?.(step.error);
        try {
          await clock.sleep(backoff.next(), signal);
        } catch {
          return; // aborted while waiting
        }
      }
    }
  } finally {
    if (state.phase === 'watching') closeStream(state.stream);
  }
}

function closeStream(stream: AsyncIterator<unknown>): void {
  stream.return?.(undefined)?.catch(() => undefined);
}

/** One transition of the state machine. Never throws: failures are returned as `error`. */
export async function stepWatcher<T extends KubeObject>(
  api: WatchableApi<T>,
  state: WatcherState<T>,
  options: WatcherOptions,
  clock: Clock,
): Promise<Step<T>> {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const namespace = options.namespace ?? '';
  switch (state.phase) {
    case 'empty':
    case 'initPage': {
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
    case 'initListed': {
      const stream = api
        .watch({
          ...selectors,
          namespace,
          resourceVersion: state.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: options.watchTimeoutSeconds ?? 290,
          signal: options.signal,
        })
        [Symbol.asyncIterator]();
      return { events: [], next: { phase: 'watching', resourceVersion: state.resourceVersion, stream, startedAt: clock.now(), received: 0 } };
    }
    case 'watching':
      return stepWatching(state, clock);
  }
}

async function stepWatching<T extends KubeObject>(
  state: Extract<WatcherState<T>, { phase: 'watching' }>,
  clock: Clock,
): Promise<Step<T>> {
  const fail = (error: unknown): Step<T> => {
    closeStream(state.stream);
    return { events: [], next: { phase: 'empty' }, error };
  };
  let item: IteratorResult<WatchEvent<T>>;
  try {
    item = await state.stream.next();
  } catch (error) {
    return fail(error);
  }
  if (item.done) {
    const next: WatcherState<T> = { phase: 'initListed', resourceVersion: state.resourceVersion };
    if (state.received === 0 && clock.now() - state.startedAt < 1000) {
      const error = new Error('very short watch: Unexpected watch close - watch lasted less than a second and no items received');
      return { events: [], next, error };
    }
    return { events: [], next };
  }
  const { type, object } = item.value;
  const advanced = (rv: string | undefined): WatcherState<T> => ({
    ...state,
    resourceVersion: rv ?? state.resourceVersion,
    received: state.received + 1,
  });
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
      return { events: [{ type: 'apply', object }], next: advanced(rvOf(object)) };
    case 'DELETED':
      return { events: [{ type: 'delete', object }], next: advanced(rvOf(object)) };
    case 'BOOKMARK':
      return { events: [], next: advanced(rvOf(object)) };
    case 'ERROR':
      return fail(errorFromStatus(object));
    default:
      return fail(new Error(`unable to understand watch event ${JSON.stringify(type)}`));
  }
}
