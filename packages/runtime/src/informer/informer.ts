/**
 * The informer: a watcher feeding a store, and event handlers told about every change once the
 * store holds it (client-go's sharedIndexInformer, on one event loop).
 */
import type { KubeObject } from '@kplane/api';
import { realClock, type TimerHandle } from '../clock.js';
import type { RuntimeMetrics } from '../metrics.js';
import { catchRejection, reportPanic, type PanicHandler } from '../recover.js';
import { createBackoff } from './backoff.js';
import { createStore, objectKey, type Cache, type IndexFunc, type StoreDelta } from './store.js';
import { watcherBatches, type WatchableApi, type WatcherEvent, type WatcherOptions } from './watcher.js';

/** Callbacks for cache changes; all optional. Objects are frozen: clone before changing them. */
export interface EventHandler<T extends KubeObject = KubeObject> {
  /** A new object; `isInInitialList` is true for objects of the first list (and the adds a late handler gets). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** A changed object (or, on a periodic resync, the same object twice). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** A deleted object, in its last known state. */
  onDelete?(obj: T): void;
}

/** Returned by addEventHandler. */
export interface HandlerRegistration {
  /** Stops calling the handler. */
  remove(): void;
}

/** Options of createInformer: the watcher's options plus the informer's own. */
export interface InformerOptions<T extends KubeObject = KubeObject> extends Omit<WatcherOptions, 'signal'> {
  /** What to list and watch (a ResourceClient). */
  api: WatchableApi<T>;
  /** When > 0, every handler gets onUpdate(obj, obj) for every cached object this often (ms). */
  resyncMs?: number;
  /** Extra indexes beside `byNamespace` and `byControllerOwnerUid`. */
  indexers?: Record<string, IndexFunc<T>>;
  /**
   * Told when an event handler or an index function throws, with a RecoveredPanic naming the
   * resource, the object key and the handler method or index (default: logged). The other
   * handlers still run, the object is still stored, and the informer goes on.
   */
  onPanic?: PanicHandler;
  /** Names the resource in panics and metrics (the factory passes `group/version/resource`). */
  resource?: string;
  /**
   * Watch with WatchOptions.sharedObjects (default true): from an in-process API server, the
   * cache then holds the server's own frozen objects, shared by every in-process informer,
   * with nothing encoded or parsed. The cache is frozen either way.
   */
  sharedObjects?: boolean;
  /** Counts caught exceptions in `kplane_informer_callback_panics_total`. */
  metrics?: Pick<RuntimeMetrics, 'recordInformerPanic'>;
}

/** A running cache of one resource with change notifications. */
export interface Informer<T extends KubeObject = KubeObject> {
  /** The cache (read-only; objects are frozen). */
  readonly store: Cache<T>;
  /** Registers a handler; objects already cached are passed to its onAdd before this returns. */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration;
  /** The resource it caches, as given in its options (the factory's are `group/version/resource`). */
  readonly resource?: string;
  /** True once the first full list is in the store and its adds were delivered. */
  hasSynced(): boolean;
  /** Resolves true once synced; false if `signal` aborts or the informer stops first. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /** Lists and watches until `signal` aborts; calling it again returns the same run. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Creates an informer over `options.api`.
 *
 * Guarantees:
 * - Handlers are called synchronously, in registration order, after the store has applied
 *   the change, so a handler reading the store sees the new state.
 * - Per object key, a handler sees add (update)* delete, with every delete that happened
 *   while the watch was broken reported at the relist; it never sees an update or delete
 *   for an object it was not told about.
 * - A handler or index function that throws does not stop the others or the informer: it
 *   is reported to `onPanic` and counted; the object is stored all the same.
 * - `run` never rejects.
 */
export function createInformer<T extends KubeObject = KubeObject>(options: InformerOptions<T>): Informer<T> {
  const clock = options.clock ?? realClock;
  const resource = options.resource;
  const panicked = (callback: 'event-handler' | 'indexer', err: unknown, key: string, name: string): void => {
    try {
      if (resource !== undefined) options.metrics?.recordInformerPanic(resource, callback);
    } catch {
      // A failing metric must not hide the panic.
    }
    reportPanic(options.onPanic, callback, err, { resource, key, name });
  };
  const store = createStore<T>({
    indexers: options.indexers,
    onIndexError: (err, index, key) => panicked('indexer', err, key, index),
  });
  const handlers = new Set<EventHandler<T>>();
  const waiters = new Set<(synced: boolean) => void>();
  let synced = false;
  let running: Promise<void> | undefined;

  /** Calls one handler method; what it throws is reported, never propagated. */
  const call = (h: EventHandler<T>, d: StoreDelta<T>, initial: boolean): void => {
    const name = d.type === 'add' ? 'onAdd' : d.type === 'update' ? 'onUpdate' : 'onDelete';
    const failed = (err: unknown): void => panicked('event-handler', err, objectKey(d.object), name);
    try {
      // An async handler's rejection is caught too (handlers are meant to be synchronous).
      if (d.type === 'add') catchRejection(h.onAdd?.(d.object, initial), failed);
      else if (d.type === 'update') catchRejection(h.onUpdate?.(d.old, d.object), failed);
      else catchRejection(h.onDelete?.(d.object), failed);
    } catch (err) {
      failed(err);
    }
  };
  const dispatch = (deltas: StoreDelta<T>[], initial: boolean): void => {
    if (deltas.length === 0 || handlers.size === 0) return;
    const targets = [...handlers];
    for (const d of deltas) {
      for (const h of targets) {
        if (!handlers.has(h)) continue; // removed by an earlier callback
        call(h, d, initial);
      }
    }
  };
  const settle = (value: boolean): void => {
    for (const w of [...waiters]) w(value);
  };

  const resync = (): void => {
    if (!synced) return;
    dispatch(store.list().map((o) => ({ type: 'update', old: o, object: o })), false);
  };

  /** Applies one watcher event and tells the handlers (in a function of its own, so that no suspended frame keeps a relist's deltas alive). */
  const handle = (ev: WatcherEvent<T>): void => {
    const deltas = store.apply(ev);
    const first = ev.type === 'initDone' && !synced;
    dispatch(deltas, first);
    if (first) {
      synced = true;
      settle(true);
    }
  };

  const loop = async (signal: AbortSignal): Promise<void> => {
    let timer: TimerHandle | undefined;
    const resyncMs = options.resyncMs ?? 0;
    const schedule = (): void => {
      timer = clock.setTimeout(() => {
        try {
          resync();
        } catch (err) {
          reportPanic(options.onPanic, 'informer', err, { resource, name: 'resync' });
        }
        schedule();
      }, resyncMs);
    };
    if (resyncMs > 0) schedule();
    const restarts = createBackoff(clock);
    try {
      // The watcher reports its own failures and retries; this outer loop only guards against
      // anything else (a bug, an api object that throws where it should reject): it is
      // reported and the watch starts over with a relist, after a backoff.
      while (!signal.aborted) {
        try {
          for await (const batch of watcherBatches(options.api, { ...options, sharedObjects: options.sharedObjects ?? true, clock, signal })) for (const ev of batch) handle(ev);
          return;
        } catch (err) {
          reportPanic(options.onPanic, 'informer', err, { resource, name: 'watch' });
          try {
            await clock.sleep(restarts.next(), signal);
          } catch {
            return;
          }
        }
      }
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
      if (!synced) settle(false);
    }
  };

  return {
    store,
    resource,
    addEventHandler(handler) {
      handlers.add(handler);
      if (handler.onAdd) for (const obj of store.list()) call(handler, { type: 'add', object: obj }, true);
      return { remove: () => void handlers.delete(handler) };
    },
    hasSynced: () => synced,
    waitForSync(signal) {
      if (synced) return Promise.resolve(true);
      if (signal?.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (value: boolean): void => {
          waiters.delete(done);
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        };
        const onAbort = (): void => done(false);
        waiters.add(done);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    run(signal) {
      running ??= loop(signal);
      return running;
    },
  };
}
