/**
 * A controller's memory of its own latest writes. Right after a controller writes an object
 * (typically its status), its informer cache still shows the version before the write for a
 * while; a sync that starts from that stale copy would base its next write on it and meet a 409
 * Conflict. Remembering what the API server answered lets the next sync start from the newer
 * copy instead, as long as the cache shows nothing newer than the controller's own writes.
 *
 * No ordering of resourceVersions is assumed: the record is the chain of versions this
 * controller produced itself, starting from the version its first write was based on.
 */
import type { KubeObject } from '@kplane/api';

/** Latest own writes by object key. */
export interface OwnWrites<T extends KubeObject> {
  /**
   * The copy a sync should start from: the last object this controller wrote when the cache
   * still shows a version of the chain that led to it (the cache is behind), else `cached`.
   */
  latest(key: string, cached: T): T;
  /** Records the API server's answer to a write that was based on version `baseVersion`. */
  wrote(key: string, baseVersion: string | undefined, written: T): void;
  /**
   * True when `obj` is a version this controller wrote itself and has not yet seen in its cache
   * (the update event it causes tells the controller nothing it does not know).
   */
  isOwn(key: string, obj: T): boolean;
  /** Forgets a key (the object was deleted). */
  forget(key: string): void;
}

interface Record<T> {
  /** Versions known to be at or before `object`: the base of the first write and every version written since. */
  versions: Set<string>;
  /** The version the first write of the chain was based on (not one of ours). */
  base: string;
  object: T;
}

const rvOf = (obj: KubeObject): string | undefined => obj.metadata?.resourceVersion;

/**
 * Creates an empty record of own writes.
 *
 * Guarantees: `latest` never returns an object older than `cached` (it returns the remembered
 * write only when `cached`'s version is one that write superseded), and a version written by
 * anyone else drops the record.
 */
export function createOwnWrites<T extends KubeObject>(): OwnWrites<T> {
  const records = new Map<string, Record<T>>();
  return {
    latest(key, cached) {
      const r = records.get(key);
      if (!r) return cached;
      const rv = rvOf(cached);
      if (rv !== undefined && rv !== rvOf(r.object) && r.versions.has(rv) && r.object.metadata?.uid === cached.metadata?.uid) return r.object;
      records.delete(key); // the cache caught up with the write, or someone else wrote since
      return cached;
    },
    wrote(key, baseVersion, written) {
      const rv = rvOf(written);
      if (baseVersion === undefined || rv === undefined) return;
      let r = records.get(key);
      if (!r || !r.versions.has(baseVersion) || r.object.metadata?.uid !== written.metadata?.uid) {
        r = { versions: new Set([baseVersion]), base: baseVersion, object: written };
        records.set(key, r);
      }
      r.versions.add(rv);
      r.object = written;
    },
    isOwn(key, obj) {
      const r = records.get(key);
      const rv = rvOf(obj);
      return r !== undefined && rv !== undefined && rv !== r.base && r.versions.has(rv) && r.object.metadata?.uid === obj.metadata?.uid;
    },
    forget(key) {
      records.delete(key);
    },
  };
}
