/**
 * The sqlite driver: the revision log as one append-only table (the kine layout). The row id
 * (INTEGER PRIMARY KEY AUTOINCREMENT) is the revision, so revisions keep increasing across
 * restarts and after compaction; a UNIQUE (name, prev_revision) index rejects two writes
 * built on the same predecessor, which is the optimistic-concurrency check.
 *
 * Guarantees:
 * - Every write is one IMMEDIATE transaction; its promise resolves after COMMIT.
 * - With the default synchronous=NORMAL in WAL mode a resolved write survives a crash or
 *   SIGKILL of the process; synchronous=FULL also survives power loss / OS crash.
 * - Reads (get/list/count) run in one read transaction: a consistent snapshot.
 *
 * Caveats:
 * - Watchers see live only the writes made through this Backend instance; one process should
 *   own the database file.
 * - Prefix scans use the key range [prefix, prefix + U+10FFFF) in byte order.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  StorageError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type StorageEvent,
} from './backend.js';
import {
  checkReadRevision,
  futureCompaction,
  keyExists,
  keyNotFound,
  prefixEnd,
  revisionMismatch,
  rowToEvent,
  rowToKeyValue,
  type LogRow,
} from './log.js';
import { createWatchHub, runWatch, type WatchSource } from './watch-hub.js';

/** Options of createSqliteBackend. */
export interface SqliteBackendOptions {
  /** Database file; its directory is created when missing. ':memory:' for a throwaway store. */
  path: string;
  /**
   * SQLite `synchronous` setting in WAL mode. 'normal' (default): a committed write survives a
   * process crash, the last commits may be lost on power loss. 'full': fsync on every commit.
   */
  synchronous?: 'normal' | 'full';
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id);
CREATE UNIQUE INDEX IF NOT EXISTS kv_name_prev_revision ON kv (name, prev_revision);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

const COLUMNS = 'kv.id, kv.name, kv.created, kv.deleted, kv.create_revision, kv.prev_revision, kv.value';

/** The latest row id per key in [lo, hi) at or below a revision: kine's "max(id) group by name". */
const LATEST_IN_RANGE = (lowOp: '>=' | '>'): string =>
  `SELECT MAX(id) AS mid FROM kv WHERE name ${lowOp} ? AND name < ? AND id <= ? GROUP BY name`;

interface DbRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

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

/** Opens (creating if needed) a sqlite-backed store at options.path. */
export function createSqliteBackend(options: SqliteBackendOptions): Backend {
  const { path } = options;
  if (!path) throw new StorageError('sqlite storage needs a database path');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);

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
    listFrom: db.prepare<[string, string, number, number], DbRow>(
      `SELECT ${COLUMNS} FROM kv JOIN (${LATEST_IN_RANGE('>=')}) m ON kv.id = m.mid WHERE kv.deleted = 0 ORDER BY kv.name LIMIT ?`,
    ),
    listAfter: db.prepare<[string, string, number, number], DbRow>(
      `SELECT ${COLUMNS} FROM kv JOIN (${LATEST_IN_RANGE('>')}) m ON kv.id = m.mid WHERE kv.deleted = 0 ORDER BY kv.name LIMIT ?`,
    ),
    countFrom: db.prepare<[string, string, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM kv JOIN (${LATEST_IN_RANGE('>=')}) m ON kv.id = m.mid WHERE kv.deleted = 0`,
    ),
    countAfter: db.prepare<[string, string, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM kv JOIN (${LATEST_IN_RANGE('>')}) m ON kv.id = m.mid WHERE kv.deleted = 0`,
    ),
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
  };

  let closed = false;
  const hub = createWatchHub();
  const assertOpen = (): void => {
    if (closed) throw new StorageError('storage backend is closed');
  };
  const revisionNow = (): number => q.revision.get()?.seq ?? 0;
  const compactedNow = (): number => q.compacted.get()?.value ?? 0;

  /** Appends one row inside an IMMEDIATE transaction and publishes its event after commit. */
  type Build = (latest: LogRow | undefined) => Omit<LogRow, 'revision' | 'key'>;
  // Compiled once: better-sqlite3 transaction functions are costly to create per call.
  const writeTx = db.transaction((key: string, build: Build): { row: LogRow; prev: LogRow | undefined } => {
    const latest = q.latest.get(key);
    const prev = latest ? toLogRow(latest) : undefined;
    const next = build(prev);
    const created = next.createRevision === 0;
    const info = q.insert.run(key, created ? 1 : 0, next.deleted ? 1 : 0, next.createRevision, next.prevRevision, next.value);
    const revision = Number(info.lastInsertRowid);
    return { row: { ...next, key, revision, createRevision: created ? revision : next.createRevision }, prev };
  });
  const write = (key: string, build: Build): LogRow => {
    const { row, prev } = writeTx.immediate(key, build);
    hub.publish(rowToEvent(row, prev));
    return row;
  };

  const live = (row: LogRow | undefined): LogRow | undefined => (row && !row.deleted ? row : undefined);

  const list = db.transaction((prefix: string, options: ListOptions): ListResult => {
    const current = revisionNow();
    const rev = options.revision || current;
    checkReadRevision(rev, compactedNow(), current);
    const end = prefixEnd(prefix);
    const after = options.startAfter !== undefined && options.startAfter >= prefix ? options.startAfter : undefined;
    const limit = options.limit && options.limit > 0 ? options.limit : -1;
    // One row past the page tells `more`; counting the rest is asked for explicitly.
    const fetch = limit > 0 ? limit + 1 : -1;
    const rows = after === undefined
      ? q.listFrom.all(prefix, end, rev, fetch)
      : q.listAfter.all(after, end, rev, fetch);
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    const items: KeyValue[] = rows.map((r) => rowToKeyValue(toLogRow(r)));
    if (!more) return { items, revision: rev, more, remaining: 0 };
    if (!options.countRemaining) return { items, revision: rev, more };
    const remaining = q.countAfter.get(items[items.length - 1].key, end, rev)!.n;
    return { items, revision: rev, more, remaining };
  });

  const get = db.transaction((key: string, atRevision: number | undefined): KeyValue | null => {
    const current = revisionNow();
    const rev = atRevision || current;
    checkReadRevision(rev, compactedNow(), current);
    const row = live(rev === current ? toLogRowOrUndefined(q.latest.get(key)) : toLogRowOrUndefined(q.at.get(key, rev)));
    return row ? rowToKeyValue(row) : null;
  });

  const compact = db.transaction((target: number): void => {
    const current = revisionNow();
    if (target > current) throw futureCompaction(target, current);
    const compacted = compactedNow();
    if (target <= compacted) return;
    q.compact.run(compacted, target, compacted, target);
    q.setCompacted.run(target);
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

    async count(prefix) {
      assertOpen();
      return q.countFrom.get(prefix, prefixEnd(prefix), Number.MAX_SAFE_INTEGER)!.n;
    },

    async create(key, value) {
      assertOpen();
      const row = write(key, (latest) => {
        if (live(latest)) throw keyExists(key);
        return { value, createRevision: 0, prevRevision: latest?.revision ?? 0, deleted: false };
      });
      return rowToKeyValue(row);
    },

    async update(key, value, expectedRevision) {
      assertOpen();
      const row = write(key, (latest) => {
        const prev = live(latest);
        if (!prev) throw keyNotFound(key);
        if (prev.revision !== expectedRevision) throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
        return { value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: false };
      });
      return rowToKeyValue(row);
    },

    async delete(key, expectedRevision) {
      assertOpen();
      const row = write(key, (latest) => {
        const prev = live(latest);
        if (!prev) throw keyNotFound(key);
        if (expectedRevision !== undefined && prev.revision !== expectedRevision) {
          throw revisionMismatch(key, expectedRevision, rowToKeyValue(prev));
        }
        return { value: prev.value, createRevision: prev.createRevision, prevRevision: prev.revision, deleted: true };
      });
      return rowToKeyValue(row);
    },

    watch(prefix, afterRevision, signal) {
      return runWatch(source, prefix, afterRevision, signal);
    },

    async compact(revision) {
      assertOpen();
      compact(revision);
    },

    async close() {
      if (closed) return;
      closed = true;
      hub.closeAll();
      db.close();
    },
  };
}

function toLogRowOrUndefined(r: DbRow | undefined): LogRow | undefined {
  return r ? toLogRow(r) : undefined;
}
