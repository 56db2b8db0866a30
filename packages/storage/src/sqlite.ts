/**
 * The sqlite driver: the revision log as one append-only table (the kine layout). The row id
 * (INTEGER PRIMARY KEY AUTOINCREMENT) is the revision, so revisions keep increasing across
 * restarts and after compaction; a UNIQUE (name, prev_revision) index rejects two writes
 * built on the same predecessor, which is the optimistic-concurrency check.
 *
 * Guarantees:
 * - Group commit: the writes that arrive in one turn of the event loop are committed in one
 *   IMMEDIATE transaction, each in a savepoint of its own, so one write's error leaves the
 *   others alone; each promise resolves (or rejects) after that COMMIT.
 * - Durable (the default, 'full'): after a COMMIT the WAL is fsynced off the event loop
 *   (fdatasync on libuv's thread pool) and the batch's writes resolve once it is done; batches
 *   committed during one fsync share the next. A resolved write survives power loss and OS
 *   crashes. synchronous='normal' resolves at the COMMIT: it survives a crash or SIGKILL of the
 *   process but may lose the last commits on power loss.
 * - Reads (get/list/count) run in one read transaction: a consistent snapshot.
 * - Compaction gives the freed pages back to the file system (incremental vacuum).
 *
 * Caveats:
 * - Watchers see live only the writes made through this Backend instance; one process should
 *   own the database file.
 * - Prefix scans use the key range [prefix, prefix + U+10FFFF) in byte order.
 */
import {
  BackendClosedError,
  MAX_VALUE_BYTES,
  StorageError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type RawListResult,
  type StorageEvent,
} from './backend.js';
import {
  checkReadRevision,
  checkValueSize,
  futureCompaction,
  keyExists,
  keyNotFound,
  prefixEnd,
  revisionMismatch,
  rowToEvent,
  rowToKeyValue,
  type LogRow,
} from './log.js';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { createGroupCommit, type Outcome } from './group-commit.js';
import { openDatabase, reclaimFreePages } from './sqlite-schema.js';
import { createWatchHub, runWatch, type WatchSource } from './watch-hub.js';

/** Options of createSqliteBackend. */
export interface SqliteBackendOptions {
  /** Database file; its directory is created when missing. ':memory:' for a throwaway store. */
  path: string;
  /**
   * Durability. 'full' (default): a write resolves once its commit is fsynced (the driver's own
   * fsync of the WAL, off the event loop), so a resolved write survives power loss. 'normal'
   * (SQLite's synchronous=NORMAL in WAL mode): a resolved write survives a process crash, the
   * last commits may be lost on power loss or an OS crash.
   */
  synchronous?: 'normal' | 'full';
  /** Clock for TTLs, in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Largest value stored, in UTF-8 bytes (default MAX_VALUE_BYTES, 1.5 MiB). */
  maxValueBytes?: number;
}

/** Counters and settings of the sqlite driver's write path. */
export interface SqliteStats {
  /** The durability in force: 'full' when every commit is fsynced before its writes resolve. */
  synchronous: 'normal' | 'full' | 'other';
  /** Writes committed (create, update, delete, deleteWithFinalValue). */
  writes: number;
  /** Write transactions committed: fewer than writes when group commit batched them. */
  commits: number;
  /** fsyncs of the WAL made for 'full' durability: fewer than commits when commits shared one. */
  syncs: number;
}

/** The sqlite driver's Backend, with its counters. */
export interface SqliteBackend extends Backend {
  stats(): SqliteStats;
}

const COLUMNS = 'kv.id, kv.name, kv.created, kv.deleted, kv.create_revision, kv.prev_revision, kv.value';

/**
 * The latest row per key in [lo, hi) at or below a revision, live keys only, in key order:
 * kine's "max(id) group by name". The other columns are SQLite's bare columns of a MAX()
 * aggregate, taken from the row holding the maximum. Grouped along the (name, id) order, the
 * scan stops once LIMIT rows are out, so a page costs its own rows, not the rest of the range
 * (joined to a subquery, every page read every row after it). `value` is the column read.
 */
const LATEST_IN_RANGE = (lowOp: '>=' | '>', value = 'value'): string =>
  `SELECT MAX(id) AS id, name, created, deleted, create_revision, prev_revision, ${value} AS value FROM kv
   WHERE name ${lowOp} ? AND name < ? AND id <= ? GROUP BY name HAVING deleted = 0 ORDER BY name`;

interface DbRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

/** A row of the raw list queries (raw mode: the columns in order), the value as stored bytes. */
type DbRawRow = [id: number, name: string, created: number, deleted: number, createRevision: number, prevRevision: number, value: Buffer];

interface DbEventRow extends DbRow {
  p_id: number | null;
  p_created: number | null;
  p_deleted: number | null;
  p_create_revision: number | null;
  p_prev_revision: number | null;
  p_value: string | null;
}

function toLogRow(r: DbRow): LogRow {
  return {
    revision: r.id,
    key: r.name,
    value: r.value,
    // A creating row cannot know its own id before the insert; it stores 0 and means "itself".
    createRevision: r.created ? r.id : r.create_revision,
    prevRevision: r.prev_revision,
    deleted: r.deleted !== 0,
  };
}

function prevOf(r: DbEventRow): LogRow | undefined {
  if (r.p_id === null) return undefined;
  return toLogRow({
    id: r.p_id,
    name: r.name,
    created: r.p_created!,
    deleted: r.p_deleted!,
    create_revision: r.p_create_revision!,
    prev_revision: r.p_prev_revision!,
    value: r.p_value!,
  });
}

/** What a write adds to the log, plus the key's new expiry (undefined: none). */
type Next = Omit<LogRow, 'revision' | 'key'> & { expiresAt?: number };
/** Builds a write from the key's latest row (inside the transaction); throws to refuse it. */
type Build = (latest: LogRow | undefined) => Next;
/** A committed write: its row and the row it follows. */
interface Written {
  row: LogRow;
  prev: LogRow | undefined;
}

/** How many expired keys one expiry transaction deletes. */
const EXPIRY_BATCH = 1000;
/** Revisions compacted per transaction: a long history is compacted in steps, letting requests through between them. */
const COMPACTION_STEP = 10_000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Opens (creating if needed) a sqlite-backed store at options.path. */
export function createSqliteBackend(options: SqliteBackendOptions): SqliteBackend {
  const { path } = options;
  if (!path) throw new StorageError('sqlite storage needs a database path');
  const now = options.now ?? Date.now;
  const maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
  const durability = options.synchronous ?? 'full';
  const memory = path === ':memory:';
  // 'full' is SQLite's NORMAL (no fsync inside COMMIT, which would block the event loop) plus
  // the driver's fsync of the WAL after each commit, off the event loop, before writes resolve.
  const db = openDatabase(path, durability === 'full' && memory ? 'full' : 'normal');
  const syncWal = durability === 'full' && !memory ? walSyncer(resolvePath(path)) : undefined;

  const q = {
    latest: db.prepare<[string], DbRow>(`SELECT ${COLUMNS} FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1`),
    at: db.prepare<[string, number], DbRow>(
      `SELECT ${COLUMNS} FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`,
    ),
    insert: db.prepare<[string, number, number, number, number, string]>(
      'INSERT INTO kv (name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    revision: db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'kv'"),
    compacted: db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_revision'"),
    setCompacted: db.prepare<[number]>(
      "INSERT INTO meta (name, value) VALUES ('compact_revision', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    ),
    listFrom: db.prepare<[string, string, number, number], DbRow>(`${LATEST_IN_RANGE('>=')} LIMIT ?`),
    listAfter: db.prepare<[string, string, number, number], DbRow>(`${LATEST_IN_RANGE('>')} LIMIT ?`),
    // The value as a BLOB: better-sqlite3 hands it back as a Buffer, not decoded into a string;
    // each row as an array (raw mode), not an object with named properties.
    listFromRaw: db.prepare<[string, string, number, number], DbRawRow>(`${LATEST_IN_RANGE('>=', 'CAST(value AS BLOB)')} LIMIT ?`).raw(true),
    listAfterRaw: db.prepare<[string, string, number, number], DbRawRow>(`${LATEST_IN_RANGE('>', 'CAST(value AS BLOB)')} LIMIT ?`).raw(true),
    countFrom: db.prepare<[string, string, number], { n: number }>(`SELECT COUNT(*) AS n FROM (${LATEST_IN_RANGE('>=', 'NULL')})`),
    countAfter: db.prepare<[string, string, number], { n: number }>(`SELECT COUNT(*) AS n FROM (${LATEST_IN_RANGE('>', 'NULL')})`),
    // The unary + keeps the planner on the primary key: a replay walks recent revisions.
    events: db.prepare<[number, string, string, number], DbEventRow>(
      `SELECT ${COLUMNS}, p.id AS p_id, p.created AS p_created, p.deleted AS p_deleted,
         p.create_revision AS p_create_revision, p.prev_revision AS p_prev_revision, p.value AS p_value
       FROM kv LEFT JOIN kv p ON p.id = kv.prev_revision
       WHERE kv.id > ? AND +kv.name >= ? AND +kv.name < ? ORDER BY kv.id LIMIT ?`,
    ),
    compact: db.prepare<[number, number, number, number]>(
      `DELETE FROM kv WHERE id IN (
         SELECT prev_revision FROM kv WHERE id > ? AND id <= ? AND prev_revision != 0
         UNION
         SELECT id FROM kv WHERE id > ? AND id <= ? AND deleted != 0)`,
    ),
    setTtl: db.prepare<[string, number]>(
      'INSERT INTO ttl (name, expires_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at',
    ),
    clearTtl: db.prepare<[string]>('DELETE FROM ttl WHERE name = ?'),
    expired: db.prepare<[number, number], { name: string }>('SELECT name FROM ttl WHERE expires_at <= ? ORDER BY expires_at LIMIT ?'),
    anyExpired: db.prepare<[number], { n: number }>('SELECT 1 AS n FROM ttl WHERE expires_at <= ? LIMIT 1'),
  };

  let closed = false;
  const hub = createWatchHub();
  const stats = { writes: 0, commits: 0 };
  const assertOpen = (): void => {
    if (closed) throw new BackendClosedError();
  };
  const revisionNow = (): number => q.revision.get()?.seq ?? 0;
  const compactedNow = (): number => q.compacted.get()?.value ?? 0;
  const publish = (w: Written): void => hub.publish(rowToEvent(w.row, w.prev));

  /**
   * Set while a write has appended its row and not yet set its TTL: a failure then would leave
   * the write half done (a failure before changes nothing: a refused build, or a statement,
   * which SQLite undoes alone).
   */
  let halfDone = false;
  /** Appends one row and sets or clears the key's TTL. */
  const appendRow = (key: string, build: Build): Written => {
    halfDone = false;
    const latest = q.latest.get(key);
    const prev = latest ? toLogRow(latest) : undefined;
    const { expiresAt, ...next } = build(prev);
    const created = next.createRevision === 0;
    const info = q.insert.run(key, created ? 1 : 0, next.deleted ? 1 : 0, next.createRevision, next.prevRevision, next.value);
    halfDone = true;
    if (expiresAt !== undefined) q.setTtl.run(key, expiresAt);
    else q.clearTtl.run(key);
    halfDone = false;
    const revision = Number(info.lastInsertRowid);
    return { row: { ...next, key, revision, createRevision: created ? revision : next.createRevision }, prev };
  };
  // Transaction functions are compiled once: better-sqlite3 makes them costly to create per call.
  /** appendRow in a savepoint (when called inside a transaction): a failure undoes it whole. */
  const writeOne = db.transaction(appendRow);
  /** Do the writes of a batch run in savepoints (the second run of a batch that had a half-done write)? */
  let savepoints = false;
  /** A write of a batch failed half done: the transaction is rolled back and the batch run again in savepoints. */
  class HalfDoneWrite extends Error {}
  /**
   * Runs a batch of writes in one transaction, each isolated from the others' failures: a
   * failure before a write changes anything leaves nothing to undo, so the writes run without a
   * savepoint each; one that fails half done rolls the transaction back, and the batch runs
   * again with a savepoint per write.
   */
  const batchTx = db.transaction((writes: Array<() => Written>): Outcome<Written>[] =>
    writes.map((write) => {
      try {
        return { ok: true, value: write() };
      } catch (error) {
        // Some errors (disk full, I/O) roll back the whole transaction: then the batch fails.
        if (!db.inTransaction) throw error;
        if (halfDone && !savepoints) throw new HalfDoneWrite();
        return { ok: false, error };
      }
    }),
  );
  const runBatch = (writes: Array<() => Written>): Outcome<Written>[] => {
    try {
      return batchTx.immediate(writes);
    } catch (err) {
      if (!(err instanceof HalfDoneWrite)) throw err;
    }
    savepoints = true;
    try {
      return batchTx.immediate(writes);
    } finally {
      savepoints = false;
    }
  };
  const group = createGroupCommit<Written>({
    transaction: (writes) => {
      const outcomes = runBatch(writes);
      stats.commits++;
      for (const o of outcomes) if (o.ok) stats.writes++;
      return outcomes;
    },
    committed: publish,
    ...(syncWal ? { sync: syncWal.sync } : {}),
  });
  const write = async (key: string, build: Build): Promise<KeyValue> => rowToKeyValue((await group.submit(() => (savepoints ? writeOne : appendRow)(key, build))).row);

  const live = (row: LogRow | undefined): LogRow | undefined => (row && !row.deleted ? row : undefined);
  /** The live row a guarded write replaces: KeyNotFound without one, RevisionMismatch at another revision. */
  const expectLive = (key: string, latest: LogRow | undefined, expectedRevision: number | undefined): LogRow => {
    const prev = live(latest);
    if (!prev) throw keyNotFound(key);
    if (expectedRevision !== undefined && prev.revision !== expectedRevision) throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
    return prev;
  };
  const expiry = (ttlSeconds: number | undefined): number | undefined => (ttlSeconds === undefined ? undefined : now() + ttlSeconds * 1000);
  const tombstone = (prev: LogRow, value = prev.value): Next => ({ value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: true });

  /** One page of a list, values as strings or (raw) as bytes, in one read transaction. */
  const listTx = db.transaction((prefix: string, options: ListOptions, raw: boolean): ListResult | RawListResult => {
    const current = revisionNow();
    const rev = options.revision || current;
    checkReadRevision(rev, compactedNow(), current);
    const end = prefixEnd(prefix);
    const after = options.startAfter !== undefined && options.startAfter >= prefix ? options.startAfter : undefined;
    const limit = options.limit && options.limit > 0 ? options.limit : -1;
    // One row past the page tells `more`; counting the rest is asked for explicitly.
    const fetch = limit > 0 ? limit + 1 : -1;
    // A creating row cannot know its own id before the insert; it stores 0 and means "itself".
    let items: ListResult['items'] | RawListResult['items'];
    if (raw) {
      const rows = (after === undefined ? q.listFromRaw : q.listAfterRaw).all(after ?? prefix, end, rev, fetch) as unknown as DbRawRow[];
      items = rows.map(([id, key, created, , createRevision, , value]) => ({ key, value, createRevision: created ? id : createRevision, modRevision: id }));
    } else {
      const rows = (after === undefined ? q.listFrom : q.listAfter).all(after ?? prefix, end, rev, fetch);
      items = rows.map((r) => ({ key: r.name, value: r.value, createRevision: r.created ? r.id : r.create_revision, modRevision: r.id }));
    }
    const more = limit > 0 && items.length > limit;
    if (more) items.length = limit;
    if (!more) return { items, revision: rev, more, remaining: 0 } as ListResult | RawListResult;
    if (!options.countRemaining) return { items, revision: rev, more } as ListResult | RawListResult;
    const remaining = q.countAfter.get(items[items.length - 1]!.key, end, rev)!.n;
    return { items, revision: rev, more, remaining } as ListResult | RawListResult;
  });
  const list = (prefix: string, options: ListOptions): ListResult => listTx(prefix, options, false) as ListResult;

  const get = db.transaction((key: string, atRevision: number | undefined): KeyValue | null => {
    const current = revisionNow();
    const rev = atRevision || current;
    checkReadRevision(rev, compactedNow(), current);
    const row = live(rev === current ? toLogRowOrUndefined(q.latest.get(key)) : toLogRowOrUndefined(q.at.get(key, rev)));
    return row ? rowToKeyValue(row) : null;
  });

  /** Compacts; returns how many rows it removed. */
  const compact = db.transaction((target: number): number => {
    const current = revisionNow();
    if (target > current) throw futureCompaction(target, current);
    const compacted = compactedNow();
    if (target <= compacted) return 0;
    const removed = q.compact.run(compacted, target, compacted, target).changes;
    q.setCompacted.run(target);
    return removed;
  });

  /** Deletes up to EXPIRY_BATCH keys whose TTL passed by `at`. */
  const expireTx = db.transaction((at: number): Written[] => {
    const out: Written[] = [];
    for (const { name } of q.expired.all(at, EXPIRY_BATCH)) {
      const latest = live(toLogRowOrUndefined(q.latest.get(name)));
      if (!latest) {
        q.clearTtl.run(name);
        continue;
      }
      out.push(writeOne(name, (prev) => tombstone(prev!)));
    }
    return out;
  });

  const source: WatchSource = {
    hub,
    compactedRevision: compactedNow,
    readEvents(prefix, after, limit): StorageEvent[] {
      return q.events.all(after, prefix, prefixEnd(prefix), limit).map((r) => rowToEvent(toLogRow(r), prevOf(r)));
    },
    assertOpen,
  };

  return {
    async currentRevision() {
      assertOpen();
      return revisionNow();
    },

    async compactedRevision() {
      assertOpen();
      return compactedNow();
    },

    async get(key, revision) {
      assertOpen();
      if (!revision) {
        // The current value needs no revision bookkeeping: one indexed read.
        const row = live(toLogRowOrUndefined(q.latest.get(key)));
        return row ? rowToKeyValue(row) : null;
      }
      return get(key, revision);
    },

    async list(prefix, options = {}) {
      assertOpen();
      return list(prefix, options);
    },

    async listRaw(prefix, options = {}): Promise<RawListResult> {
      assertOpen();
      return listTx(prefix, options, true) as RawListResult;
    },

    async count(prefix) {
      assertOpen();
      return q.countFrom.get(prefix, prefixEnd(prefix), Number.MAX_SAFE_INTEGER)!.n;
    },

    async create(key, value, writeOptions) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      return write(key, (latest) => {
        if (live(latest)) throw keyExists(key);
        return { value, createRevision: 0, prevRevision: latest?.revision ?? 0, deleted: false, expiresAt: expiry(writeOptions?.ttlSeconds) };
      });
    },

    async update(key, value, expectedRevision, writeOptions) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      return write(key, (latest) => {
        const prev = expectLive(key, latest, expectedRevision);
        return { value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: false, expiresAt: expiry(writeOptions?.ttlSeconds) };
      });
    },

    async delete(key, expectedRevision) {
      assertOpen();
      return write(key, (latest) => {
        return tombstone(expectLive(key, latest, expectedRevision));
      });
    },

    async deleteWithFinalValue(key, value, expectedRevision) {
      assertOpen();
      checkValueSize(key, value, maxValueBytes);
      return write(key, (latest) => {
        return tombstone(expectLive(key, latest, expectedRevision), value);
      });
    },

    async expireKeys() {
      assertOpen();
      // The sweeper asks every second: without expired keys it costs one indexed read, no lock.
      if (!q.anyExpired.get(now())) return 0;
      let total = 0;
      for (;;) {
        const written = expireTx.immediate(now());
        // Published in commit order with the group's writes, after the same fsync.
        await group.committedOutside(written);
        total += written.length;
        if (written.length < EXPIRY_BATCH) return total;
        // A large backlog goes a batch per turn, letting requests through in between.
        await nextTurn();
        if (closed) return total;
      }
    },

    watch(prefix, afterRevision, signal) {
      return runWatch(source, prefix, afterRevision, signal);
    },

    async compact(revision) {
      assertOpen();
      const current = revisionNow();
      if (revision > current) throw futureCompaction(revision, current);
      let removed = 0;
      // Each step is one transaction; the event loop serves requests between steps.
      for (let from = compactedNow(); from < revision; ) {
        removed += compact(Math.min(revision, from + COMPACTION_STEP));
        from = compactedNow();
        if (from < revision) {
          await nextTurn();
          if (closed) return;
        }
      }
      if (removed > 0 && path !== ':memory:') await reclaimFreePages(db, () => closed);
    },

    stats() {
      const level = db.pragma('synchronous', { simple: true });
      const synchronous = syncWal || level === 2 ? 'full' : level === 1 ? 'normal' : 'other';
      return { ...stats, synchronous, syncs: group.syncs() };
    },

    async close() {
      if (closed) return;
      closed = true;
      try {
        await group.drain();
      } finally {
        await syncWal?.close();
        hub.closeAll();
        db.close();
      }
    },
  };
}

/**
 * fsyncs the WAL of the database at `path` (fdatasync, on libuv's thread pool); the first sync
 * also fsyncs the directory, so a new WAL (or database) file's entry is durable too.
 */
function walSyncer(path: string): { sync(): Promise<void>; close(): Promise<void> } {
  let wal: FileHandle | undefined;
  return {
    async sync() {
      if (!wal) {
        // Opened after the first commit: the WAL exists by then (it is truncated, never
        // removed, while the database is open).
        wal = await open(`${path}-wal`, 'r+');
        await wal.datasync();
        await syncDirectory(dirname(path));
        return;
      }
      await wal.datasync();
    },
    async close() {
      await wal?.close();
      wal = undefined;
    },
  };
}

/** fsyncs a directory; where the platform or file system cannot (Windows, some network file systems), it does nothing, as SQLite. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, 'r');
  } catch (err) {
    if (UNSYNCABLE_DIR.has((err as NodeJS.ErrnoException).code ?? '')) return;
    throw err;
  }
  try {
    await handle.sync();
  } catch (err) {
    if (!UNSYNCABLE_DIR.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  } finally {
    await handle.close();
  }
}
const UNSYNCABLE_DIR = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

function toLogRowOrUndefined(r: DbRow | undefined): LogRow | undefined {
  return r ? toLogRow(r) : undefined;
}
