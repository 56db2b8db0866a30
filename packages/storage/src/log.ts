/**
 * The revision log shared by every driver: one row per write, the row's revision being its
 * position in the log. Helpers here turn rows into the public KeyValue / StorageEvent shapes
 * and build the error messages, so every driver reports the same things the same way.
 */
import {
  CompactedError,
  ValueTooLargeError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type KeyValue,
  type StorageEvent,
} from './backend.js';

/** One entry of the revision log. */
export interface LogRow {
  /** The revision of this write (the log position). */
  revision: number;
  key: string;
  /** For a delete: the value the key had before it was deleted. */
  value: string;
  /** Revision at which this incarnation of the key was created. */
  createRevision: number;
  /** Revision of the previous row of the same key (0 when none). */
  prevRevision: number;
  /** True for a delete (a tombstone). */
  deleted: boolean;
}

/** The public view of a live row. */
export function rowToKeyValue(row: LogRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.createRevision, modRevision: row.revision };
}

/** The event a row stands for; `prev` is the row at `row.prevRevision` when it still exists. */
export function rowToEvent(row: LogRow, prev: LogRow | undefined): StorageEvent {
  const kv = rowToKeyValue(row);
  if (row.deleted) {
    const prevKv: KeyValue = prev && !prev.deleted
      ? rowToKeyValue(prev)
      : { key: row.key, value: row.value, createRevision: row.createRevision, modRevision: row.prevRevision };
    return { type: 'delete', kv, prevKv, revision: row.revision };
  }
  if (row.createRevision === row.revision) {
    return { type: 'create', kv, revision: row.revision };
  }
  const event: StorageEvent = { type: 'update', kv, revision: row.revision };
  if (prev && !prev.deleted) event.prevKv = rowToKeyValue(prev);
  return event;
}

/**
 * The exclusive upper bound of the key range under `prefix`, for drivers that scan sorted
 * keys: every key starting with prefix sorts below prefix + U+10FFFF (the largest code point,
 * also the largest UTF-8 sequence), except keys containing U+10FFFF right after the prefix.
 */
export function prefixEnd(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

/** Throws when `revision` cannot be read: below the compacted revision or above the current one. */
export function checkReadRevision(revision: number, compacted: number, current: number): void {
  if (revision > current) {
    throw new FutureRevisionError(`required revision ${revision} is a future revision (current revision ${current})`);
  }
  if (revision < compacted) throw new CompactedError(revision, compacted);
}

/** KeyExistsError for create. */
export function keyExists(key: string): KeyExistsError {
  return new KeyExistsError(`key "${key}" already exists`, key);
}

/** KeyNotFoundError for update / delete. */
export function keyNotFound(key: string): KeyNotFoundError {
  return new KeyNotFoundError(`key "${key}" not found`, key);
}

/** RevisionMismatchError for a stale expected revision; carries the current value. */
export function revisionMismatch(key: string, expected: number, actual: KeyValue): RevisionMismatchError {
  return new RevisionMismatchError(
    `revision mismatch for key "${key}": expected ${expected}, actual ${actual.modRevision}`,
    key,
    actual,
  );
}

/** FutureRevisionError for compacting past the end of the log. */
export function futureCompaction(revision: number, current: number): FutureRevisionError {
  return new FutureRevisionError(`cannot compact to future revision ${revision} (current revision ${current})`);
}

/** Throws ValueTooLargeError when value is over `limit` UTF-8 bytes. */
export function checkValueSize(key: string, value: string, limit: number): void {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair 4 for 2 units): only values near
  // the limit need counting.
  if (value.length * 3 <= limit) return;
  const size = Buffer.byteLength(value, 'utf8');
  if (size > limit) throw new ValueTooLargeError(key, size, limit);
}
