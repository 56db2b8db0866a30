/**
 * A view of a backend whose revisions count from `base`: revision `base + n` of the store is
 * revision `n` of the view. The conformance suite states revisions as of an empty store
 * (the first write is revision 1); a driver on a shared server (etcd: one per test file, its
 * revision going on from test to test) runs the suite through this view. Compaction done
 * before `base` shows as 0.
 */
import {
  CompactedError,
  FutureRevisionError,
  RevisionMismatchError,
  type Backend,
  type KeyValue,
  type ListResult,
  type StorageEvent,
} from '../backend.js';

/** Wraps backend so that its revision `base` reads as 0. */
export function offsetRevisions(backend: Backend, base: number): Backend {
  if (base === 0) return backend;
  const down = (rev: number): number => Math.max(0, rev - base);
  const up = (rev: number | undefined): number | undefined => (rev ? rev + base : rev);
  const kv = (v: KeyValue): KeyValue => ({ ...v, createRevision: down(v.createRevision), modRevision: down(v.modRevision) });
  const event = (e: StorageEvent): StorageEvent => {
    const out: StorageEvent = { ...e, kv: kv(e.kv), revision: down(e.revision) };
    if (e.prevKv) out.prevKv = kv(e.prevKv);
    return out;
  };
  const error = (err: unknown): unknown => {
    if (err instanceof CompactedError) return new CompactedError(down(err.requested), down(err.compacted));
    if (err instanceof RevisionMismatchError) return new RevisionMismatchError(err.message, err.key ?? '', kv(err.actual));
    if (err instanceof FutureRevisionError) return err;
    return err;
  };
  const wrap = async <T>(p: Promise<T>, map: (v: T) => T): Promise<T> => {
    try {
      return map(await p);
    } catch (err) {
      throw error(err);
    }
  };
  const same = <T>(v: T): T => v;
  return {
    currentRevision: () => wrap(backend.currentRevision(), down),
    compactedRevision: () => wrap(backend.compactedRevision(), down),
    get: (key, revision) => wrap(backend.get(key, up(revision)), (v) => (v ? kv(v) : v)),
    list: (prefix, options = {}) =>
      wrap(backend.list(prefix, { ...options, revision: up(options.revision) }), (r: ListResult) => ({ ...r, items: r.items.map(kv), revision: down(r.revision) })),
    count: (prefix) => backend.count(prefix),
    create: (key, value, options) => wrap(backend.create(key, value, options), kv),
    update: (key, value, expected, options) => wrap(backend.update(key, value, expected + base, options), kv),
    delete: (key, expected) => wrap(backend.delete(key, expected === undefined ? undefined : expected + base), kv),
    deleteWithFinalValue: (key, value, expected) => wrap(backend.deleteWithFinalValue(key, value, expected + base), kv),
    expireKeys: () => backend.expireKeys(),
    compact: (revision) => wrap(backend.compact(revision + base), same),
    close: () => backend.close(),
    watch: (prefix, afterRevision, signal) => ({
      async *[Symbol.asyncIterator]() {
        try {
          for await (const e of backend.watch(prefix, afterRevision + base, signal)) yield event(e);
        } catch (err) {
          throw error(err);
        }
      },
    }),
  };
}
