/**
 * Opening a sqlite database for the sqlite driver: the file (created owner-only), the pragmas
 * and the schema, and the one-time conversion of databases made before incremental vacuum.
 *
 * Guarantees:
 * - A new database file is created with mode 0600 (it holds every Secret); an existing one,
 *   and its -wal / -shm files, are set to 0600 when it is opened.
 * - The database runs with auto_vacuum=INCREMENTAL, so the pages compaction frees can be
 *   given back to the file system; a database without it is converted once, on open
 *   (VACUUM, which rewrites the file: it takes a while on a large database).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { StorageError } from './backend.js';

let driver: typeof Database | undefined;

/**
 * better-sqlite3, loaded on first use: it is a native module and an optional peer dependency,
 * so a process that only uses memory:// storage never needs it installed.
 */
function loadDriver(): typeof Database {
  if (driver) return driver;
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new StorageError('sqlite storage needs the better-sqlite3 package: npm install better-sqlite3 (memory storage, memory:// or kplane up --storage memory, needs none)');
    }
    throw err;
  }
  return driver;
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
CREATE TABLE IF NOT EXISTS ttl (name TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ttl_expires_at ON ttl (expires_at);
`;

/** auto_vacuum values as `PRAGMA auto_vacuum` reports them. */
const INCREMENTAL = 2;

/** Creates the database file owner-only, or makes an existing one (and its WAL files) owner-only. */
function ownerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) {
    // An empty file is an empty database; sqlite gives its -wal and -shm files the same mode.
    closeSync(openSync(path, 'wx', 0o600));
    return;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** A new connection; a driver installed without its native build (install scripts skipped) is a clear StorageError. */
function openWithDriver(path: string): Database.Database {
  const Driver = loadDriver();
  try {
    return new Driver(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_DLOPEN_FAILED' || /bindings file|NODE_MODULE_VERSION/.test(e.message ?? '')) {
      throw new StorageError(
        'sqlite storage: better-sqlite3 is installed but its native module is missing or built for another Node.js: ' +
          'npm rebuild better-sqlite3 (memory storage, memory:// or kplane up --storage memory, needs none)',
      );
    }
    throw err;
  }
}

/** Bytes of the database file SQLite reads through a memory map. */
const MMAP_BYTES = 1024 ** 3;

/** Opens (creating and converting if needed) the database at path, with the schema in place. */
export function openDatabase(path: string, synchronous: 'normal' | 'full'): Database.Database {
  const memory = path === ':memory:';
  if (!memory) ownerOnly(path);
  const db = openWithDriver(path);
  try {
    db.pragma('busy_timeout = 5000');
    if (!memory && db.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL) {
      const empty = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
      if (empty.n > 0) {
        // The setting changes an existing file only through VACUUM, and only outside WAL mode.
        db.pragma('journal_mode = DELETE');
        db.pragma('auto_vacuum = INCREMENTAL');
        db.exec('VACUUM');
      } else {
        db.pragma('auto_vacuum = INCREMENTAL');
      }
    }
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    // Reads through a memory map of the file's first GiB instead of a pread per page: a LIST
    // of 150,000 pods took a third less CPU. The mapped pages are the OS's page cache (clean,
    // reclaimable) but count in the process's RSS, as etcd's mapped database does.
    if (!memory) db.pragma(`mmap_size = ${MMAP_BYTES}`);
    db.exec(SCHEMA);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Free pages returned to the file system per step (16 MiB of 4 KiB pages). */
const VACUUM_STEP = 4096;

/**
 * Gives the pages freed by a compaction back to the file system, a step at a time, letting the
 * event loop run between steps; stops early once `closed()` says the database was closed.
 */
export async function reclaimFreePages(db: Database.Database, closed: () => boolean): Promise<void> {
  while (!closed() && (db.pragma('freelist_count', { simple: true }) as number) > 0) {
    db.pragma(`incremental_vacuum(${VACUUM_STEP})`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  // In WAL mode the file shrinks when the WAL is checkpointed; TRUNCATE also empties the WAL.
  if (!closed()) db.pragma('wal_checkpoint(TRUNCATE)');
}
