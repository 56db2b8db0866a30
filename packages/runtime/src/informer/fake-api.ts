/**
 * An in-memory list + watch API for unit tests on a fake clock (not exported by the package):
 * objects change only when the test says so, and every change reaches the open watches as
 * soon as promise continuations run, with no timer involved.
 */
import type { KubeList, KubeObject, WatchEvent } from '@kplane/api';
import type { WatchOptions } from '@kplane/client';
import { objectKey } from './store.js';
import type { WatchableApi } from './watcher.js';

/** A fake resource: its api and the writes that drive it. */
export interface FakeApi<T extends KubeObject = KubeObject> {
  api: WatchableApi<T>;
  /** Creates or replaces an object (ADDED or MODIFIED); returns it as stored. */
  apply(obj: T): T;
  /** Deletes an object by key (DELETED). */
  remove(key: string): void;
  /** Watches currently open. */
  openWatches(): number;
}

/**
 * Creates a fake api. Lists return the current objects; watches with `sendInitialEvents`
 * send them as ADDED events and then the initial-events-end bookmark, as a streaming list does.
 */
export function createFakeApi<T extends KubeObject = KubeObject>(initial: T[] = []): FakeApi<T> {
  let rv = 0;
  let uids = 0;
  const objects = new Map<string, T>();
  const watches = new Set<(ev: WatchEvent<T>) => void>();
  const emit = (ev: WatchEvent<T>): void => {
    for (const w of watches) w(ev);
  };
  const stamp = (obj: T, uid?: string): T => ({
    ...obj,
    metadata: { ...obj.metadata, resourceVersion: String(++rv), uid: obj.metadata?.uid ?? uid ?? `uid-${++uids}` },
  });
  const apply = (obj: T): T => {
    const key = objectKey(obj);
    const old = objects.get(key);
    const stored = stamp(obj, old?.metadata?.uid);
    objects.set(key, stored);
    emit({ type: old ? 'MODIFIED' : 'ADDED', object: structuredClone(stored) });
    return stored;
  };
  for (const obj of initial) apply(obj);

  const list = async (): Promise<KubeList<T>> => ({
    apiVersion: 'v1',
    kind: 'List',
    metadata: { resourceVersion: String(rv) },
    items: [...objects.values()].map((o) => structuredClone(o)),
  });

  const watch = (options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> => {
    const buffer: WatchEvent<T>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const push = (ev: WatchEvent<T>): void => {
      buffer.push(ev);
      wake?.();
    };
    const close = (): void => {
      closed = true;
      watches.delete(push);
      wake?.();
    };
    if (options.sendInitialEvents) {
      for (const o of objects.values()) buffer.push({ type: 'ADDED', object: structuredClone(o) });
      buffer.push({
        type: 'BOOKMARK',
        object: { metadata: { resourceVersion: String(rv), annotations: { 'k8s.io/initial-events-end': 'true' } } } as unknown as T,
      });
    }
    watches.add(push);
    options.signal?.addEventListener('abort', close, { once: true });
    return {
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<WatchEvent<T>>> {
          while (buffer.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          if (buffer.length > 0) return { done: false, value: buffer.shift()! };
          return { done: true, value: undefined };
        },
        async return(): Promise<IteratorResult<WatchEvent<T>>> {
          close();
          return { done: true, value: undefined };
        },
      }),
    };
  };

  return {
    api: { list, watch },
    apply,
    remove(key) {
      const old = objects.get(key);
      if (!old) return;
      objects.delete(key);
      emit({ type: 'DELETED', object: structuredClone({ ...old, metadata: { ...old.metadata, resourceVersion: String(++rv) } }) });
    },
    openWatches: () => watches.size,
  };
}
