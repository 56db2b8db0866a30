/**
 * The in-memory driver: the revision log as an array, plus a per-key history and a sorted key
 * array for ordered prefix scans (binary search to the start of the range, then a linear walk).
 *
 * Guarantees: the Backend contract, except durability (everything is lost with the process).
 * Caveats: key order is JavaScript string order (UTF-16 code units); it matches the sqlite
 * driver's byte order for every key without characters above U+FFFF.
 */
import {
  BackendClosedError,
  MAX_VALUE_BYTES,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type StorageEvent,
} from './backend.js';
import {
  checkReadRevision,
  checkValueSize,
  futureCompaction,
  keyExists,
  keyNotFound,
  revisionMismatch,
  rowToEvent,
  rowToKeyValue,
  type LogRow,
} from './log.js';
import { createWatchHub, runWatch, type WatchSource } from './watch-hub.js';

/** First index i with keys[i] >= target (keys sorted ascending). */
function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i with rows[i].revision > revision (rows sorted by revision). */
function upperBoundRevision(rows: readonly LogRow[], revision: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].revision <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last row at or below revision, if any. */
function rowAt(rows: readonly LogRow[] | undefined, revision: number): LogRow | undefined {
  if (!rows || rows.length === 0) return undefined;
  const last = rows[rows.length - 1];
  if (last.revision <= revision) return last;
  const i = upperBoundRevision(rows, revision);
  return i === 0 ? undefined : rows[i - 1];
}

/** Options of createMemoryBackend. */
export interface MemoryBackendOptions {
  /** Clock for TTLs, in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Largest value stored, in UTF-8 bytes (default MAX_VALUE_BYTES, 1.5 MiB). */
  maxValueBytes?: number;
}

/** Creates an empty in-memory backend. */
export function createMemoryBackend(options: MemoryBackendOptions = {}): Backend {
  const now = options.now ?? Date.now;
  const maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
  let log: LogRow[] = [];
  /** Expiry time (ms) of each live key written with a TTL. */
  const expiries = new Map<string, number>();
  const byRevision = new Map<number, LogRow>();
  const history = new Map<string, LogRow[]>();
  /** Every key with history, sorted up to `sortedUpTo`; keys added since are appended and sorted on the next scan. */
  let keys: string[] = [];
  let sortedUpTo = 0;
  let revision = 0;
  let compacted = 0;
  let closed = false;
  const hub = createWatchHub();

  const assertOpen = (): void => {
    if (closed) throw new BackendClosedError();
  };

  const current = (key: string): LogRow | undefined => {
    const rows = history.get(key);
    const last = rows?.[rows.length - 1];
    return last && !last.deleted ? last : undefined;
  };

  const append = (row: Omit<LogRow, 'revision'>, ttlSeconds?: number): LogRow => {
    const full: LogRow = { ...row, revision: ++revision };
    if (ttlSeconds !== undefined && !row.deleted) expiries.set(row.key, now() + ttlSeconds * 1000);
    else expiries.delete(row.key);
    log.push(full);
    byRevision.set(full.revision, full);
    let rows = history.get(full.key);
    if (!rows) {
      rows = [];
      history.set(full.key, rows);
      keys.push(full.key);
    }
    const prev = rows[rows.length - 1];
    rows.push(full);
    hub.publish(rowToEvent(full, prev));
    return full;
  };

  const readEvents = (prefix: string, after: number, limit: number): StorageEvent[] => {
    const out: StorageEvent[] = [];
    for (let i = upperBoundRevision(log, after); i < log.length && out.length < limit; i++) {
      const row = log[i];
      if (row.key.startsWith(prefix)) out.push(rowToEvent(row, byRevision.get(row.prevRevision)));
    }
    return out;
  };

  /**
   * Sorts the keys appended since the last scan into place. A few (the usual case: a scan after
   * each write or two, as admission's per-request lists) are each placed by binary search and one
   * splice, a native move of the array; many at once are sorted together with the rest (a
   * comparator call per key of the whole array, too slow to pay for one new key).
   */
  const sortKeys = (): void => {
    const added = keys.length - sortedUpTo;
    if (added > 64) {
      keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    } else {
      const tail = keys.splice(sortedUpTo, added);
      for (const key of tail) keys.splice(lowerBound(keys, key), 0, key);
    }
    sortedUpTo = keys.length;
  };

  /** Walks live keys under prefix at rev, starting strictly after startAfter when given. */
  /** Visits live rows under prefix in key order; `visit` returning false stops the scan. */
  const scan = (prefix: string, rev: number, startAfter: string | undefined, visit: (row: LogRow) => boolean | void): void => {
    const from = startAfter !== undefined && startAfter >= prefix ? startAfter : prefix;
    if (sortedUpTo < keys.length) sortKeys();
    for (let i = lowerBound(keys, from); i < keys.length; i++) {
      const key = keys[i];
      if (!key.startsWith(prefix)) break;
      if (key === startAfter) continue;
      const row = rowAt(history.get(key), rev);
      if (row && !row.deleted && visit(row) === false) return;
    }
  };

  const source: WatchSource = {
    hub,
    compactedRevision: () => compacted,
    readEvents,
    assertOpen,
  };

  return {
    async currentRevision() {
      assertOpen();
      return revision;
    },

    async compactedRevision() {
      assertOpen();
      return compacted;
    },

    async get(key, atRevision) {
      assertOpen();
      const rev = atRevision || revision;
      checkReadRevision(rev, compacted, revision);
      const row = rowAt(history.get(key), rev);
      return row && !row.deleted ? rowToKeyValue(row) : null;
    },

    async list(prefix, options: ListOptions = {}): Promise<ListResult> {
      assertOpen();
      const rev = options.revision || revision;
      checkReadRevision(rev, compacted, revision);
      const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
      const items: KeyValue[] = [];
      let remaining = 0;
      scan(prefix, rev, options.startAfter, (row) => {
        if (items.length < limit) items.push(rowToKeyValue(row));
        else {
          remaining++;
          // One key past the page tells `more`; counting the rest is asked for explicitly.
          if (!options.countRemaining) return false;
        }
      });
      const more = remaining > 0;
      return options.countRemaining || !more ? { items, revision: rev, more, remaining } : { items, revision: rev, more };
    },

    async count(prefix) {
      assertOpen();
      let n = 0;
      scan(prefix, revision, undefined, () => {
        n++;
      });
      return n;
    },

    async create(key, value, writeOptions) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      if (current(key)) throw keyExists(key);
      const prev = history.get(key)?.at(-1);
      const row = append({
        key,
        value,
        createRevision: revision + 1,
        prevRevision: prev?.revision ?? 0,
        deleted: false,
      }, writeOptions?.ttlSeconds);
      return rowToKeyValue(row);
    },

    async update(key, value, expectedRevision, writeOptions) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      const prev = current(key);
      if (!prev) throw keyNotFound(key);
      if (prev.revision !== expectedRevision) throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
      const row = append({
        key,
        value,
        createRevision: prev.createRevision,
        prevRevision: prev.revision,
        deleted: false,
      }, writeOptions?.ttlSeconds);
      return rowToKeyValue(row);
    },

    async delete(key, expectedRevision) {
      assertOpen();
      const prev = current(key);
      if (!prev) throw keyNotFound(key);
      if (expectedRevision !== undefined && prev.revision !== expectedRevision) {
        throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
      }
      const row = append({
        key,
        value: prev.value,
        createRevision: prev.createRevision,
        prevRevision: prev.revision,
        deleted: true,
      });
      return rowToKeyValue(row);
    },

    async deleteWithFinalValue(key, value, expectedRevision) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      const prev = current(key);
      if (!prev) throw keyNotFound(key);
      if (prev.revision !== expectedRevision) throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
      const row = append({ key, value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: true });
      return rowToKeyValue(row);
    },

    async expireKeys() {
      assertOpen();
      const at = now();
      const due = [...expiries].filter(([, expiresAt]) => expiresAt <= at).sort((a, b) => a[1] - b[1]);
      for (const [key] of due) {
        const prev = current(key)!;
        append({ key, value: prev.value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: true });
      }
      return due.length;
    },

    watch(prefix, afterRevision, signal) {
      return runWatch(source, prefix, afterRevision, signal);
    },

    async compact(target) {
      assertOpen();
      if (target > revision) throw futureCompaction(target, revision);
      if (target <= compacted) return;
      // Drop every row superseded by a later row at or below target, and every tombstone
      // at or below target: what is left answers reads at any revision >= target.
      const removed = new Set<number>();
      for (let i = upperBoundRevision(log, compacted); i < log.length && log[i].revision <= target; i++) {
        const row = log[i];
        if (row.prevRevision !== 0 && byRevision.has(row.prevRevision)) removed.add(row.prevRevision);
        if (row.deleted) removed.add(row.revision);
      }
      compacted = target;
      if (removed.size === 0) return;
      const touched = new Set<string>();
      for (const rev of removed) {
        const row = byRevision.get(rev);
        if (!row) continue;
        touched.add(row.key);
        byRevision.delete(rev);
      }
      log = log.filter((row) => !removed.has(row.revision));
      let emptied = false;
      for (const key of touched) {
        const rows = history.get(key)!.filter((row) => !removed.has(row.revision));
        if (rows.length === 0) {
          history.delete(key);
          emptied = true;
        } else {
          history.set(key, rows);
        }
      }
      if (emptied) {
        keys = keys.filter((key) => history.has(key));
        sortedUpTo = 0;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      hub.closeAll();
    },
  };
}
