/**
 * The storage contract: an etcd-like key-value store over one append-only revision log.
 *
 * Guarantees:
 * - Every successful write (create, update, delete) gets a new revision from one global,
 *   strictly increasing counter; a key's `modRevision` is the revision of its last write.
 * - A write is durable when its promise resolves (for durable drivers).
 * - A value over the backend's size limit (default MAX_VALUE_BYTES) is refused with
 *   ValueTooLargeError.
 * - A key written with a TTL is deleted by `expireKeys` once the TTL has passed.
 * - `watch(prefix, rev)` yields, in revision order and without gaps, every write with
 *   revision > rev under the prefix; it throws CompactedError if rev is below the compacted
 *   revision.
 * - `list` at a revision returns the state as it was at that revision (a consistent snapshot).
 *
 * Errors: KeyExistsError, KeyNotFoundError, RevisionMismatchError, CompactedError,
 * FutureRevisionError, ValueTooLargeError, BackendClosedError (all StorageError).
 */

/** One stored key at one revision. */
export interface KeyValue {
  key: string;
  /** The stored bytes as a string (kplane stores JSON). */
  value: string;
  /** Revision at which the key was created (this incarnation). */
  createRevision: number;
  /** Revision of the key's last write. */
  modRevision: number;
}

/** Options of create and update. */
export interface WriteOptions {
  /**
   * Time to live in seconds, as an etcd lease: the key is deleted (a normal delete, with its
   * own revision and watch event) once this long has passed without another write. A later
   * write replaces the TTL with its own, and a write without one removes it. Expired keys are
   * deleted by `expireKeys`, which the owner of the backend calls on a schedule.
   */
  ttlSeconds?: number;
}

/** Options of list. */
export interface ListOptions {
  /** Read the state as of this revision (0 or absent: current). */
  revision?: number;
  /** At most this many keys (0 or absent: all). */
  limit?: number;
  /** Start strictly after this key (for continue tokens). */
  startAfter?: string;
  /** Also count the keys after the page (`remaining`); costs a scan of the rest of the range. */
  countRemaining?: boolean;
}

/** Result of list. */
export interface ListResult {
  items: KeyValue[];
  /** The revision the snapshot was read at. */
  revision: number;
  /** True when more keys follow the last one returned. */
  more: boolean;
  /** How many keys follow the last one returned (only with `countRemaining`, or when the list is complete: 0). */
  remaining?: number;
}

/** One stored key at one revision, its value as the stored UTF-8 bytes (see Backend.listRaw). */
export interface RawKeyValue {
  key: string;
  /** The stored bytes, as stored (UTF-8 JSON for kplane). */
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
}

/** Result of listRaw: ListResult with the values as bytes. */
export interface RawListResult {
  items: RawKeyValue[];
  revision: number;
  more: boolean;
  remaining?: number;
}

/** Options of watch. */
export interface WatchOptions {
  /**
   * Progress: called with a revision when the driver knows that no event under the prefix with
   * a revision up to it is still to come (etcd's progress notifications), so a watch cache can
   * count itself fresh up to there although nothing under its prefix changed. Drivers that
   * have no such notifications (memory, sqlite) never call it.
   */
  onProgress?: (revision: number) => void;
}

/** One change seen by a watch. */
export interface StorageEvent {
  type: 'create' | 'update' | 'delete';
  /**
   * For create/update: the new value; for delete: the key's final value (the value before the
   * delete, or the one deleteWithFinalValue recorded) with modRevision = the delete's revision.
   */
  kv: KeyValue;
  /** The value before this write (update and delete). */
  prevKv?: KeyValue;
  /** The revision of this write. */
  revision: number;
}

/** The backend every driver implements. */
export interface Backend {
  /** The highest revision written so far (0 for an empty store). */
  currentRevision(): Promise<number>;
  /** The revision below which history was compacted. */
  compactedRevision(): Promise<number>;
  /** Reads one key, at the current or a given revision; null when absent. */
  get(key: string, revision?: number): Promise<KeyValue | null>;
  /** Lists keys starting with prefix, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /**
   * Optional: list, with each value as its stored bytes rather than a string, for drivers that
   * hold bytes (sqlite, etcd): a LIST written to a client as stored copies them without decoding
   * UTF-8 into a string and encoding it again. Same arguments, order and errors as list.
   */
  listRaw?(prefix: string, options?: ListOptions): Promise<RawListResult>;
  /** Counts keys under prefix at the current revision. */
  count(prefix: string): Promise<number>;
  /** Creates key; throws KeyExistsError if present, ValueTooLargeError over the size limit. */
  create(key: string, value: string, options?: WriteOptions): Promise<KeyValue>;
  /** Replaces key if its modRevision equals expectedRevision; throws RevisionMismatchError / KeyNotFoundError / ValueTooLargeError. */
  update(key: string, value: string, expectedRevision: number, options?: WriteOptions): Promise<KeyValue>;
  /** Deletes key (if expectedRevision is given, only at that modRevision); returns the deleted value, with modRevision = the delete's revision. */
  delete(key: string, expectedRevision?: number): Promise<KeyValue>;
  /**
   * Deletes key at expectedRevision in one write that also records `value` as the key's final
   * value: the returned KeyValue and the delete event's `kv` carry `value` (with the delete's
   * revision), `prevKv` the value it replaced. For removing an object whose last finalizer is
   * going: the object without finalizers is what watchers see deleted, and no crash can leave
   * it stored. Throws like update (KeyNotFoundError, RevisionMismatchError, ValueTooLargeError).
   */
  deleteWithFinalValue(key: string, value: string, expectedRevision: number): Promise<KeyValue>;
  /** Deletes every key whose TTL has passed (by the backend's clock); returns how many it deleted. */
  expireKeys(): Promise<number>;
  /** Streams changes under prefix after revision `afterRevision`, until the signal aborts. */
  watch(prefix: string, afterRevision: number, signal?: AbortSignal, options?: WatchOptions): AsyncIterable<StorageEvent>;
  /** Forgets history at or below revision (current values are kept). */
  compact(revision: number): Promise<void>;
  /** Releases resources. */
  close(): Promise<void>;
}

/** The largest value a backend stores by default, in UTF-8 bytes: etcd's default request limit (1.5 MiB). */
export const MAX_VALUE_BYTES = 1.5 * 1024 * 1024;

/** Base of the storage error family. */
export class StorageError extends Error {
  constructor(message: string, readonly key?: string) {
    super(message);
    this.name = new.target.name;
  }
}
/** Any call on a backend after close(). */
export class BackendClosedError extends StorageError {
  constructor() {
    super('storage backend is closed');
  }
}
/** create of a key that exists. */
export class KeyExistsError extends StorageError {}
/** update/delete/get of a key that does not exist. */
export class KeyNotFoundError extends StorageError {}
/** update/delete whose expected revision is not the key's modRevision. */
export class RevisionMismatchError extends StorageError {
  constructor(message: string, key: string, readonly actual: KeyValue) {
    super(message, key);
  }
}
/** A read or watch at a revision older than the compacted one. */
export class CompactedError extends StorageError {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`required revision ${requested} has been compacted (compacted revision ${compacted})`);
  }
}
/** A read at a revision not yet written. */
export class FutureRevisionError extends StorageError {}
/** A write whose value is larger than the backend's limit; nothing is written. */
export class ValueTooLargeError extends StorageError {
  constructor(key: string, readonly size: number, readonly limit: number) {
    super(`value of key "${key}" is ${size} bytes, more than the limit of ${limit} bytes`, key);
  }
}
