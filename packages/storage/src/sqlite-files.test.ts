import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KeyExistsError, RevisionMismatchError } from './backend.js';
import { createSqliteBackend } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'kplane-sqlite-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `db-${++n}`, 'state.db');
const mode = (file: string): number => statSync(file).mode & 0o777;
const size = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

test('sqlite: synchronous=FULL unless asked otherwise', async () => {
  const full = createSqliteBackend({ path: freshPath() });
  const normal = createSqliteBackend({ path: freshPath(), synchronous: 'normal' });
  assert.equal(full.stats().synchronous, 'full');
  assert.equal(normal.stats().synchronous, 'normal');
  // 'full': the WAL is fsynced before writes resolve, one fsync for the commits made during the
  // previous one; 'normal' never fsyncs a commit.
  await Promise.all([full.create('/a', '1'), normal.create('/a', '1')]);
  await Promise.all(Array.from({ length: 50 }, (_, i) => [full.create(`/k${i}`, 'v'), normal.create(`/k${i}`, 'v')]).flat());
  assert.equal(full.stats().syncs, 2);
  assert.equal(normal.stats().syncs, 0);
  await full.close();
  await normal.close();
});

test('sqlite: writes of one event-loop turn share one commit, each with its own result', async () => {
  const b = createSqliteBackend({ path: freshPath() });
  const a = await b.create('/a', 'a0');
  const before = b.stats();
  const results = await Promise.allSettled([
    b.create('/k1', '1'),
    b.create('/a', 'duplicate'),
    b.update('/a', 'a1', a.modRevision),
    b.update('/a', 'a2', a.modRevision),
    b.create('/k2', '2'),
    b.delete('/k1'),
  ]);
  const after = b.stats();
  assert.equal(after.commits - before.commits, 1);
  assert.equal(after.writes - before.writes, 4);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  assert.ok((results[1] as PromiseRejectedResult).reason instanceof KeyExistsError);
  assert.ok((results[3] as PromiseRejectedResult).reason instanceof RevisionMismatchError);
  // Revisions follow the order the writes were made in; failed writes take none.
  const revisions = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.modRevision] : []));
  assert.deepEqual(revisions, [2, 3, 4, 5]);
  assert.equal((await b.get('/a'))?.value, 'a1');
  assert.equal(await b.get('/k1'), null);
  await b.close();
});

test('sqlite: writes still queued when the backend closes are committed first', async () => {
  const path = freshPath();
  const b = createSqliteBackend({ path });
  const pending = b.create('/late', 'x');
  await b.close();
  assert.equal((await pending).modRevision, 1);
  const reopened = createSqliteBackend({ path });
  assert.equal((await reopened.get('/late'))?.value, 'x');
  await reopened.close();
});

test('sqlite: TTLs survive a restart', async () => {
  const path = freshPath();
  let time = Date.UTC(2026, 0, 1);
  const now = (): number => time;
  const first = createSqliteBackend({ path, now });
  await first.create('/e/short', 's', { ttlSeconds: 60 });
  await first.create('/e/long', 'l', { ttlSeconds: 3600 });
  await first.close();
  time += 120_000;
  const second = createSqliteBackend({ path, now });
  assert.equal(await second.expireKeys(), 1);
  assert.deepEqual((await second.list('/e/')).items.map((kv) => kv.key), ['/e/long']);
  await second.close();
});

test('sqlite: the database and its WAL files are owner-only', async () => {
  const path = freshPath();
  const b = createSqliteBackend({ path });
  await b.create('/secret', 'data');
  assert.equal(mode(path), 0o600);
  assert.equal(mode(`${path}-wal`), 0o600);
  assert.equal(mode(`${path}-shm`), 0o600);
  await b.close();
  chmodSync(path, 0o644);
  const reopened = createSqliteBackend({ path });
  assert.equal(mode(path), 0o600);
  await reopened.close();
});

test('sqlite: a database without incremental vacuum is converted once, keeping its data', async () => {
  const path = freshPath();
  mkdirSync(join(path, '..'), { recursive: true });
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec(`CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created INTEGER NOT NULL,
    deleted INTEGER NOT NULL, create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, value TEXT NOT NULL);
    CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO kv (name, created, deleted, create_revision, prev_revision, value) VALUES ('/old', 1, 0, 0, 0, 'kept');`);
  assert.equal(old.pragma('auto_vacuum', { simple: true }), 0);
  old.close();

  const b = createSqliteBackend({ path });
  assert.deepEqual(await b.get('/old'), { key: '/old', value: 'kept', createRevision: 1, modRevision: 1 });
  assert.equal((await b.create('/new', 'x')).modRevision, 2);
  await b.close();
  const check = new Database(path, { readonly: true });
  assert.equal(check.pragma('auto_vacuum', { simple: true }), 2);
  assert.equal(check.pragma('journal_mode', { simple: true }), 'wal');
  check.close();
});

test('sqlite: the file shrinks after compaction', async () => {
  const path = freshPath();
  const b = createSqliteBackend({ path });
  const big = 'x'.repeat(20_000);
  let kv = await b.create('/churn', big);
  for (let round = 0; round < 40; round++) {
    const writes = Array.from({ length: 25 }, (_, i) => b.create(`/tmp/${round}-${i}`, big));
    writes.push(b.update('/churn', big + round, kv.modRevision).then((v) => (kv = v)));
    await Promise.all(writes);
    await Promise.all(Array.from({ length: 25 }, (_, i) => b.delete(`/tmp/${round}-${i}`)));
  }
  const before = size(path) + size(`${path}-wal`);
  assert.ok(before > 20_000_000, `history takes room: ${before} bytes`);
  await b.compact(await b.currentRevision());
  const afterCompaction = size(path) + size(`${path}-wal`);
  assert.ok(afterCompaction < 1_000_000, `${before} bytes before compaction, ${afterCompaction} after`);
  assert.equal((await b.get('/churn'))?.value, big + 39);
  await b.close();
});

test('sqlite: a long history is compacted in steps, serving requests between them', async () => {
  const b = createSqliteBackend({ path: freshPath() });
  for (let chunk = 0; chunk < 11; chunk++) {
    const keys = Array.from({ length: 1000 }, (_, i) => `/h/${chunk}-${i}`);
    await Promise.all(keys.map((key) => b.create(key, 'v')));
    await Promise.all(keys.map((key) => b.delete(key)));
  }
  await b.create('/h/live', 'kept');
  const target = await b.currentRevision();
  assert.equal(target, 22_001);
  let done = false;
  const compaction = b.compact(target).then(() => (done = true));
  const seen = new Set<number>();
  while (!done) {
    seen.add(await b.compactedRevision());
    await new Promise((resolve) => setImmediate(resolve));
  }
  await compaction;
  assert.ok(seen.has(10_000) && seen.has(20_000), `steps seen: ${[...seen].join(', ')}`);
  assert.equal(await b.compactedRevision(), target);
  assert.deepEqual((await b.list('/h/')).items.map((kv) => [kv.key, kv.value]), [['/h/live', 'kept']]);
  await b.close();
});
