/**
 * The reflector's cache: objects by key, secondary indexes, and the logic that turns watcher
 * events into per-object changes (client-go's thread_safe_store + index, kube-rs's reflector).
 */
import type { KubeObject } from '@kplane/api';
import type { WatcherEvent } from './watcher.js';

/** Maps an object to the index values it is filed under (client-go's IndexFunc). */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** Name of the built-in index by `metadata.namespace` ('' for cluster-scoped objects). */
export const NAMESPACE_INDEX = 'byNamespace';
/** Name of the built-in index by the uid of the controller owner (ownerReferences with `controller: true`). */
export const CONTROLLER_OWNER_INDEX = 'byControllerOwnerUid';

/** One change of the cache, as handlers are told about it. */
export type StoreDelta<T extends KubeObject = KubeObject> =
  | { type: 'add'; object: T }
  | { type: 'update'; old: T; object: T }
  | { type: 'delete'; object: T };

/** Read access to a cache. Every object returned is deeply frozen: clone before changing it. */
export interface Cache<T extends KubeObject = KubeObject> {
  /** The object stored under "namespace/name" (or "name"), if any. */
  get(key: string): T | undefined;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Every key. */
  listKeys(): string[];
  /** Number of cached objects. */
  size(): number;
  /** The objects filed under `value` in index `name`; throws when there is no such index. */
  byIndex(name: string, value: string): T[];
  /** The keys filed under `value` in index `name`; throws when there is no such index. */
  indexKeys(name: string, value: string): string[];
  /** Adds an index (built at once over the current content); throws if the name is taken. */
  addIndexer(name: string, fn: IndexFunc<T>): void;
}

/** The writable cache an informer owns. */
export interface Store<T extends KubeObject = KubeObject> extends Cache<T> {
  /**
   * Applies one watcher event and returns the resulting changes (empty while a relist is
   * being collected; the whole difference at its `initDone`).
   */
  apply(event: WatcherEvent<T>): StoreDelta<T>[];
}

/** Options of createStore. */
export interface StoreOptions<T extends KubeObject = KubeObject> {
  /** Extra indexes beside the two built-in ones. */
  indexers?: Record<string, IndexFunc<T>>;
}

/** client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" for cluster-scoped objects. */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** Freezes a value and everything reachable from it; returns the value. */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value as object)) deepFreeze(child);
  return value;
}

/** The built-in namespace index function. */
export const namespaceIndexFunc: IndexFunc = (obj) => [obj.metadata?.namespace ?? ''];

/** The built-in controller-owner index function. */
export const controllerOwnerIndexFunc: IndexFunc = (obj) => {
  const owner = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return owner?.uid ? [owner.uid] : [];
};

const rvOf = (obj: KubeObject): string | undefined => obj.metadata?.resourceVersion;
const uidOf = (obj: KubeObject): string | undefined => obj.metadata?.uid;

/** True when `b` is another object than `a` under the same key (deleted and created again). */
const replaced = (a: KubeObject, b: KubeObject): boolean => {
  const ua = uidOf(a);
  const ub = uidOf(b);
  return ua !== undefined && ub !== undefined && ua !== ub;
};

interface Index<T extends KubeObject> {
  fn: IndexFunc<T>;
  values: Map<string, Set<string>>;
}

/**
 * Creates an empty cache with the `byNamespace` and `byControllerOwnerUid` indexes.
 *
 * Guarantees:
 * - Stored objects are deeply frozen (in place: the watcher's objects are not copied).
 * - A relist (`init` … `initDone`) replaces the content in one step and reports the
 *   difference: `delete` for objects that disappeared, `add` for new ones, `update` for those
 *   whose resourceVersion changed, nothing for unchanged ones. An object deleted and created
 *   again under the same key (new uid) is reported as `delete` then `add`.
 * - A watch `apply` with the resourceVersion already cached, or a `delete` of an unknown key,
 *   changes nothing and reports nothing; so each key's reported history is always
 *   add (update)* delete, never an update or delete without an add before it.
 * - Indexes are always consistent with the content when a method returns.
 */
export function createStore<T extends KubeObject = KubeObject>(options: StoreOptions<T> = {}): Store<T> {
  let items = new Map<string, T>();
  const indexes = new Map<string, Index<T>>();
  /** Objects of a relist in progress, or undefined. */
  let pending: Map<string, T> | undefined;

  const fileUnder = (key: string, obj: T, add: boolean): void => {
    for (const index of indexes.values()) {
      for (const value of index.fn(obj)) {
        let keys = index.values.get(value);
        if (add) {
          if (!keys) index.values.set(value, (keys = new Set()));
          keys.add(key);
        } else if (keys) {
          keys.delete(key);
          if (keys.size === 0) index.values.delete(value);
        }
      }
    }
  };
  const put = (key: string, obj: T): void => {
    const old = items.get(key);
    if (old) fileUnder(key, old, false);
    items.set(key, obj);
    fileUnder(key, obj, true);
  };
  const remove = (key: string): void => {
    const old = items.get(key);
    if (!old) return;
    fileUnder(key, old, false);
    items.delete(key);
  };
  const rebuild = (index: Index<T>): void => {
    index.values.clear();
    for (const [key, obj] of items) {
      for (const value of index.fn(obj)) {
        let keys = index.values.get(value);
        if (!keys) index.values.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  };
  const indexNamed = (name: string): Index<T> => {
    const index = indexes.get(name);
    if (!index) throw new Error(`Index with name ${name} does not exist`);
    return index;
  };

  /** The delta for `obj` arriving under a key that holds `old` (or nothing). */
  const change = (old: T | undefined, obj: T, out: StoreDelta<T>[]): void => {
    if (!old) out.push({ type: 'add', object: obj });
    else if (replaced(old, obj)) out.push({ type: 'delete', object: old }, { type: 'add', object: obj });
    else out.push({ type: 'update', old, object: obj });
  };

  const finishRelist = (listed: Map<string, T>): StoreDelta<T>[] => {
    const out: StoreDelta<T>[] = [];
    for (const [key, old] of items) if (!listed.has(key)) out.push({ type: 'delete', object: old });
    const next = new Map<string, T>();
    for (const [key, obj] of listed) {
      const old = items.get(key);
      if (old && rvOf(old) === rvOf(obj) && !replaced(old, obj)) {
        next.set(key, old); // unchanged: keep the object callers may already hold
      } else {
        next.set(key, obj);
        change(old, obj, out);
      }
    }
    items = next;
    for (const index of indexes.values()) rebuild(index);
    return out;
  };

  const store: Store<T> = {
    get: (key) => items.get(key),
    list: () => [...items.values()],
    listKeys: () => [...items.keys()],
    size: () => items.size,
    indexKeys: (name, value) => [...(indexNamed(name).values.get(value) ?? [])],
    byIndex: (name, value) => [...(indexNamed(name).values.get(value) ?? [])].map((k) => items.get(k)!),
    addIndexer(name, fn) {
      if (indexes.has(name)) throw new Error(`indexer conflict: ${name}`);
      const index: Index<T> = { fn, values: new Map() };
      indexes.set(name, index);
      rebuild(index);
    },
    apply(event) {
      switch (event.type) {
        case 'init':
          pending = new Map();
          return [];
        case 'initApply': {
          const obj = deepFreeze(event.object);
          (pending ??= new Map()).set(objectKey(obj), obj);
          return [];
        }
        case 'initDone': {
          const listed = pending ?? new Map<string, T>();
          pending = undefined;
          return finishRelist(listed);
        }
        case 'apply': {
          const obj = deepFreeze(event.object);
          const key = objectKey(obj);
          const old = items.get(key);
          if (old && rvOf(old) === rvOf(obj) && !replaced(old, obj)) return [];
          const out: StoreDelta<T>[] = [];
          change(old, obj, out);
          put(key, obj);
          return out;
        }
        case 'delete': {
          const obj = deepFreeze(event.object);
          const key = objectKey(obj);
          if (!items.has(key)) return [];
          remove(key);
          return [{ type: 'delete', object: obj }];
        }
      }
    },
  };
  store.addIndexer(NAMESPACE_INDEX, namespaceIndexFunc as IndexFunc<T>);
  store.addIndexer(CONTROLLER_OWNER_INDEX, controllerOwnerIndexFunc as IndexFunc<T>);
  for (const [name, fn] of Object.entries(options.indexers ?? {})) store.addIndexer(name, fn);
  return store;
}
