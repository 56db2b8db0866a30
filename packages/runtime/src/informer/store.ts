/**
 * The reflector's cache: objects by key, secondary indexes, and the logic that turns watcher
 * events into per-object changes (client-go's thread_safe_store + index, kube-rs's reflector).
 */
import { deepFreeze, type KubeObject } from '@kplane/api';
import { catchRejection, isThenable, reportPanic } from '../recover.js';
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
  /**
   * Told when an index function throws or returns something else than an array (default: the
   * panic is logged). The object is stored all the same and filed under no value of that index.
   */
  onIndexError?: (err: unknown, index: string, key: string) => void;
}

/** client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" for cluster-scoped objects. */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export { deepFreeze };

/** Properties whose values are unique to an object (in metadata) and never worth interning. */
const UNIQUE_KEYS = new Set(['uid', 'resourceVersion', 'name']);

/** Interns a string found under property `key` (see createInterner). */
export type Interner = (key: string, value: string) => string;

/**
 * A small, bounded string interner: for each property name it remembers the last few
 * distinct string values seen under it, and a value equal to one of them becomes that one
 * string. Catches what sibling sharing misses: values that repeat across objects that are not
 * neighbours in a list, such as creation timestamps (one-second resolution) in a list ordered
 * by name. Values under `uid`, `resourceVersion` and `name` pass through untouched (unique, or
 * shared with the sibling already). Memory stays bounded: at
 * most `perKey` strings per property name, and the table starts over after `maxKeys` names.
 */
export function createInterner(perKey = 8, maxKeys = 4096, maxLength = 64): Interner {
  let table = new Map<string, string[]>();
  return (key, value) => {
    if (value.length > maxLength || UNIQUE_KEYS.has(key)) return value;
    let ring = table.get(key);
    if (ring === undefined) {
      if (table.size >= maxKeys) table = new Map();
      table.set(key, (ring = []));
    }
    for (let i = 0; i < ring.length; i++) if (ring[i] === value) return ring[i]!;
    if (ring.length < perKey) ring.push(value);
    else {
      ring.copyWithin(1, 0, perKey - 1);
      ring[0] = value;
    }
    return value;
  };
}

/**
 * Deep-freezes `value` in place, sharing memory with `sibling` (another object of the same
 * kind, already frozen): wherever a part of `value` equals the part of `sibling` at the same
 * path (same keys and values; the order of keys is not compared, as in Kubernetes' own maps,
 * so a shared map may list its keys in the sibling's order), the sibling's part is used
 * instead, and equal strings become one string. Objects of one kind repeat most of their
 * content (labels, owner references, pod templates, timestamps, namespaces), so a cache of
 * many objects holds much less; the parts left behind are garbage at once.
 *
 * Returns what to keep for `value`: `sibling` itself when the two are equal, else `value`.
 * Parts of `value` that are already frozen are kept as they are. Strings that differ from the
 * sibling's go through `intern` when given (see createInterner), with the name of the property
 * they are found under (`key`; array items count as under their array's property).
 */
export function freezeSharing<V>(value: V, sibling: unknown, intern?: Interner, key = ''): V {
  if (typeof value !== 'object' || value === null) {
    if (typeof value !== 'string') return value;
    if (value === sibling) return sibling as V;
    return intern ? (intern(key, value) as V) : value;
  }
  if (Object.isFrozen(value)) return value;
  const isArray = Array.isArray(value);
  const sib =
    typeof sibling === 'object' && sibling !== null && Array.isArray(sibling) === isArray && Object.isFrozen(sibling)
      ? (sibling as Record<string, unknown>)
      : undefined;
  let same = sib !== undefined;
  const target = value as Record<string, unknown>;
  if (isArray) {
    const arr = value as unknown[];
    const sibArr = sib as unknown as unknown[] | undefined;
    if (same && sibArr!.length !== arr.length) same = false;
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      const s = sibArr && i < sibArr.length ? sibArr[i] : undefined;
      const kept = freezeSharing(v, s, intern, key);
      // Strings compare by content: assign them always, so that the shared one replaces its copy.
      if (kept !== v || typeof kept === 'string') arr[i] = kept;
      if (kept !== s) same = false;
    }
  } else {
    let count = 0;
    for (const k in target) {
      if (!Object.hasOwn(target, k)) continue;
      count++;
      const v = target[k];
      const s = sib && Object.hasOwn(sib, k) ? sib[k] : undefined;
      // "__proto__" is an own data property of parsed JSON; assigning it would change the prototype.
      const kept = k === '__proto__' ? deepFreeze(v) : freezeSharing(v, s, intern, k);
      if (kept !== v || typeof kept === 'string') target[k] = kept;
      if (kept !== s) same = false;
    }
    if (same) {
      // Every key of value matched one of sibling's: equal when sibling has no other key.
      let sibCount = 0;
      for (const k in sib) if (Object.hasOwn(sib, k)) sibCount++;
      if (sibCount !== count) same = false;
    }
  }
  if (same) return sibling as V;
  return Object.freeze(value);
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
  name: string;
  fn: IndexFunc<T>;
  /** Index value → the objects filed under it. */
  values: Map<string, Set<T>>;
}

/** Objects by namespace ('' for cluster-scoped), then by name: the namespace index for free, no key strings kept. */
type Content<T> = Map<string, Map<string, T>>;

const nsOf = (obj: KubeObject): string => obj.metadata?.namespace ?? '';
const nameOf = (obj: KubeObject): string => obj.metadata?.name ?? '';

/** Splits a "namespace/name" (or "name") key. */
function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/**
 * Creates an empty cache with the `byNamespace` and `byControllerOwnerUid` indexes.
 *
 * Guarantees:
 * - Stored objects are deeply frozen, in place (the watcher's objects are not copied), and
 *   share equal parts with their previous version or the object stored before them (see
 *   freezeSharing): a stored
 *   object equals the one received, but parts of it may be the very same values as another
 *   cached object's.
 * - A relist (`init` … `initDone`) replaces the content in one step and reports the
 *   difference: `delete` for objects that disappeared, `add` for new ones, `update` for those
 *   whose resourceVersion changed, nothing for unchanged ones. An object deleted and created
 *   again under the same key (new uid) is reported as `delete` then `add`.
 * - A watch `apply` with the resourceVersion already cached, or a `delete` of an unknown key,
 *   changes nothing and reports nothing; so each key's reported history is always
 *   add (update)* delete, never an update or delete without an add before it.
 * - Indexes are always consistent with the content when a method returns.
 * - An index function that throws (or returns no array) never breaks the store: the object is
 *   stored and filed in the other indexes, that index skips it, and `onIndexError` is told.
 */
export function createStore<T extends KubeObject = KubeObject>(options: StoreOptions<T> = {}): Store<T> {
  let items: Content<T> = new Map();
  let count = 0;
  const indexes = new Map<string, Index<T>>();
  /** Objects of a relist in progress, or undefined. */
  let pending: Content<T> | undefined;
  let pendingCount = 0;
  /** The object stored last: the next one shares its equal parts. */
  let sibling: T | undefined;

  const lookup = (content: Content<T>, obj: T): T | undefined => content.get(nsOf(obj))?.get(nameOf(obj));
  /** Sets obj in content; returns true when its key was new. */
  const setIn = (content: Content<T>, obj: T): boolean => {
    const ns = nsOf(obj);
    let byName = content.get(ns);
    if (!byName) content.set(ns, (byName = new Map()));
    const size = byName.size;
    byName.set(nameOf(obj), obj);
    return byName.size > size;
  };
  const deleteIn = (content: Content<T>, obj: T): void => {
    const ns = nsOf(obj);
    const byName = content.get(ns);
    if (byName?.delete(nameOf(obj)) && byName.size === 0) content.delete(ns);
  };
  const each = function* (content: Content<T>): Generator<T> {
    for (const byName of content.values()) yield* byName.values();
  };

  const onIndexError =
    options.onIndexError ?? ((err: unknown, index: string, key: string) => reportPanic(undefined, 'indexer', err, { key, name: index }));
  /** The values `obj` is filed under in `index`, or undefined (reported) when the index function throws. */
  const valuesOf = (index: Index<T>, obj: T): string[] | undefined => {
    const failed = (err: unknown): void => {
      try {
        onIndexError(err, index.name, objectKey(obj));
      } catch {
        // The reporter must not break the store either.
      }
    };
    try {
      const values: unknown = index.fn(obj);
      if (Array.isArray(values)) return values as string[];
      if (isThenable(values)) {
        catchRejection(values, () => undefined); // reported once, as the TypeError below
        throw new TypeError(`index function ${index.name} returned a Promise, not an array of strings (index functions must be synchronous)`);
      }
      throw new TypeError(`index function ${index.name} returned ${values === null ? 'null' : typeof values}, not an array of strings`);
    } catch (err) {
      failed(err);
      return undefined;
    }
  };
  const fileIn = (index: Index<T>, obj: T): void => {
    for (const value of valuesOf(index, obj) ?? []) {
      let objs = index.values.get(value);
      if (!objs) index.values.set(value, (objs = new Set()));
      objs.add(obj);
    }
  };
  const unfileFrom = (index: Index<T>, obj: T): void => {
    const values = valuesOf(index, obj);
    if (values === undefined) {
      // The function that filed it throws now: find the object by identity instead.
      for (const [value, objs] of index.values) if (objs.delete(obj) && objs.size === 0) index.values.delete(value);
      return;
    }
    for (const value of values) {
      const objs = index.values.get(value);
      if (!objs) continue;
      objs.delete(obj);
      if (objs.size === 0) index.values.delete(value);
    }
  };
  const put = (obj: T, old: T | undefined): void => {
    if (old) for (const index of indexes.values()) unfileFrom(index, old);
    if (setIn(items, obj)) count++;
    for (const index of indexes.values()) fileIn(index, obj);
  };
  const remove = (old: T): void => {
    for (const index of indexes.values()) unfileFrom(index, old);
    deleteIn(items, old);
    count--;
  };
  const rebuild = (index: Index<T>): void => {
    index.values.clear();
    for (const obj of each(items)) fileIn(index, obj);
  };
  const indexNamed = (name: string): Index<T> | undefined => {
    const index = indexes.get(name);
    if (!index && name !== NAMESPACE_INDEX) throw new Error(`Index with name ${name} does not exist`);
    return index;
  };
  const intern = createInterner();
  /**
   * Freezes an incoming object, sharing what it can with `like` (its previous version, for an
   * update) or else with the last object stored.
   */
  const admit = (obj: T, like?: T): T => {
    const kept = freezeSharing(obj, like ?? sibling, intern);
    sibling = kept;
    return kept;
  };

  /** The delta for `obj` arriving under a key that holds `old` (or nothing). */
  const change = (old: T | undefined, obj: T, out: StoreDelta<T>[]): void => {
    if (!old) out.push({ type: 'add', object: obj });
    else if (replaced(old, obj)) out.push({ type: 'delete', object: old }, { type: 'add', object: obj });
    else out.push({ type: 'update', old, object: obj });
  };

  const finishRelist = (listed: Content<T>, listedCount: number): StoreDelta<T>[] => {
    const out: StoreDelta<T>[] = [];
    if (count === 0) {
      // The first list (or a relist after everything went): every object is new.
      for (const obj of each(listed)) out.push({ type: 'add', object: obj });
    } else {
      for (const old of each(items)) if (!lookup(listed, old)) out.push({ type: 'delete', object: old });
      for (const byName of listed.values()) {
        for (const [name, obj] of byName) {
          const old = lookup(items, obj);
          if (old && rvOf(old) === rvOf(obj) && !replaced(old, obj)) {
            byName.set(name, old); // unchanged: keep the object callers may already hold
          } else {
            change(old, obj, out);
          }
        }
      }
    }
    items = listed;
    count = listedCount;
    for (const index of indexes.values()) rebuild(index);
    return out;
  };

  const objectsUnder = (name: string, value: string): T[] => {
    const index = indexNamed(name);
    if (!index) return [...(items.get(value)?.values() ?? [])];
    return [...(index.values.get(value) ?? [])];
  };

  const store: Store<T> = {
    get(key) {
      const [ns, name] = splitKey(key);
      return items.get(ns)?.get(name);
    },
    list: () => [...each(items)],
    listKeys: () => [...each(items)].map(objectKey),
    size: () => count,
    indexKeys: (name, value) => objectsUnder(name, value).map(objectKey),
    byIndex: objectsUnder,
    addIndexer(name, fn) {
      if (indexes.has(name) || name === NAMESPACE_INDEX) throw new Error(`indexer conflict: ${name}`);
      const index: Index<T> = { name, fn, values: new Map() };
      indexes.set(name, index);
      rebuild(index);
    },
    apply(event) {
      switch (event.type) {
        case 'init':
          pending = new Map();
          pendingCount = 0;
          return [];
        case 'initApply': {
          const obj = admit(event.object);
          if (setIn((pending ??= new Map()), obj)) pendingCount++;
          return [];
        }
        case 'initDone': {
          const listed = pending ?? new Map();
          const listedCount = pending ? pendingCount : 0;
          pending = undefined;
          return finishRelist(listed, listedCount);
        }
        case 'apply': {
          const old = lookup(items, event.object);
          if (old && rvOf(old) === rvOf(event.object) && !replaced(old, event.object)) return [];
          const obj = admit(event.object, old);
          const out: StoreDelta<T>[] = [];
          change(old, obj, out);
          put(obj, old);
          return out;
        }
        case 'delete': {
          const old = lookup(items, event.object);
          if (!old) return [];
          remove(old);
          return [{ type: 'delete', object: deepFreeze(event.object) }];
        }
      }
    },
  };
  store.addIndexer(CONTROLLER_OWNER_INDEX, controllerOwnerIndexFunc as IndexFunc<T>);
  for (const [name, fn] of Object.entries(options.indexers ?? {})) store.addIndexer(name, fn);
  return store;
}
