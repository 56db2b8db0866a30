/** A list of objects kept current by a watch, so admission reads memory rather than storage. */
import type { KubeObject } from '@kplane/api';

/** The part of a store a cache follows: a list, then a watch from its resourceVersion. */
export interface Followable {
  list(namespace: undefined): Promise<{ items: KubeObject[]; metadata: { resourceVersion?: string } }>;
  readonly cache: { watch(fromRv: number, signal: AbortSignal): AsyncIterable<{ type: string; object: KubeObject; revision?: number }> };
}

/** A followed resource: its objects as last seen. */
export interface FollowedList {
  /** The objects, as last seen (a new array after each change). */
  items(): readonly KubeObject[];
  /** Lists and starts watching (resolves after the first list). */
  start(store: Followable): Promise<void>;
  /** Whether the first list is in (before it, `items` is empty). */
  readonly started: boolean;
  /** Takes an object this server just wrote, ahead of its watch event (ignored when older than what is kept). */
  observe(obj: KubeObject): void;
  stop(): void;
}

/** Creates a cache that lists, then watches, and relists when the watch ends (a too-old resourceVersion). */
export function followedList(onError: (err: unknown) => void = () => {}): FollowedList {
  const byName = new Map<string, KubeObject>();
  let snapshot: readonly KubeObject[] = [];
  const stop = new AbortController();
  const refresh = () => (snapshot = [...byName.values()]);
  // Namespaced objects are kept by namespace and name.
  const keyOf = (o: KubeObject) => (o.metadata?.namespace ? `${o.metadata.namespace}/` : '') + (o.metadata?.name ?? '');
  async function relist(store: Followable): Promise<number> {
    const list = await store.list(undefined);
    byName.clear();
    for (const o of list.items) byName.set(keyOf(o), o);
    refresh();
    return Number(list.metadata.resourceVersion);
  }
  const rvOf = (o: KubeObject | undefined) => Number(o?.metadata?.resourceVersion ?? 0);
  let started = false;
  return {
    items: () => snapshot,
    get started() {
      return started;
    },
    observe(obj) {
      const key = keyOf(obj);
      if (rvOf(byName.get(key)) >= rvOf(obj)) return;
      byName.set(key, obj);
      refresh();
    },
    async start(store) {
      let rv = await relist(store);
      started = true;
      void (async () => {
        while (!stop.signal.aborted) {
          try {
            for await (const e of store.cache.watch(rv, stop.signal)) {
              if (e.type === 'BOOKMARK' || e.type === 'ERROR') continue;
              if (e.type === 'DELETED') byName.delete(keyOf(e.object));
              // An object written here and taken by observe() may be newer than this event.
              else if (rvOf(byName.get(keyOf(e.object))) <= rvOf(e.object)) byName.set(keyOf(e.object), e.object);
              rv = e.revision ?? Number(e.object.metadata?.resourceVersion ?? rv);
              refresh();
            }
          } catch (err) {
            if (stop.signal.aborted) return;
            onError(err);
          }
          if (stop.signal.aborted) return;
          try {
            rv = await relist(store);
          } catch (err) {
            onError(err);
            return;
          }
        }
      })();
    },
    stop: () => stop.abort(),
  };
}
