import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqliteBackend } from './sqlite.js';
import { runBackendConformance } from './testing/conformance.js';
import { writeUntilKilled } from './testing/durability.js';

const dir = mkdtempSync(join(tmpdir(), 'kplane-sqlite-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `db-${++n}`, 'state.db');

runBackendConformance('sqlite', async ({ now }) => createSqliteBackend({ path: freshPath(), now }));
runBackendConformance('sqlite (synchronous=normal)', async ({ now }) => createSqliteBackend({ path: freshPath(), synchronous: 'normal', now }));

test('sqlite: reopening keeps data, compaction state and increasing revisions', async () => {
  const path = freshPath();
  const first = createSqliteBackend({ path });
  const a = await first.create('/a', '1');
  await first.update('/a', '2', a.modRevision);
  await first.create('/b', '1');
  await first.delete('/b');
  await first.compact(4);
  await first.close();

  const second = createSqliteBackend({ path });
  assert.equal(await second.currentRevision(), 4);
  assert.equal(await second.compactedRevision(), 4);
  assert.deepEqual(await second.get('/a'), { key: '/a', value: '2', createRevision: 1, modRevision: 2 });
  assert.equal(await second.get('/b'), null);
  const b = await second.create('/b', 'again');
  assert.equal(b.modRevision, 5);
  await second.close();

  const third = createSqliteBackend({ path });
  assert.equal(await third.currentRevision(), 5);
  assert.equal((await third.create('/c', 'x')).modRevision, 6);
  await third.close();
});

test('sqlite: lists and pages 10k keys under a prefix, latest values only', async () => {
  const b = createSqliteBackend({ path: freshPath() });
  // Issued together, the writes share commits (group commit): 12k fsyncs would take seconds.
  await Promise.all(Array.from({ length: 10000 }, (_, i) => b.create(`/registry/pods/ns/p${String(i).padStart(5, '0')}`, '{"kind":"Pod"}')));
  await Promise.all(Array.from({ length: 2000 }, (_, i) => b.update(`/registry/pods/ns/p${String(i).padStart(5, '0')}`, '{}', i + 1)));
  await b.create('/registry/services/ns/s', '{}');
  const all = await b.list('/registry/pods/');
  const page = await b.list('/registry/pods/', { limit: 500, startAfter: '/registry/pods/ns/p05000' });
  const count = await b.count('/registry/pods/');
  assert.equal(all.items.length, 10000);
  assert.equal(all.items[1].value, '{}');
  assert.equal(page.items[0].key, '/registry/pods/ns/p05001');
  assert.equal(page.more, true);
  assert.equal(count, 10000);
  await b.close();
});

test('sqlite: a write of a batch that fails after its row is in (its TTL refused) is undone alone; the others commit', async () => {
  const path = freshPath();
  const b = createSqliteBackend({ path });
  await b.create('/before', '0');
  // Another connection makes the TTL of one key fail: its write fails after appending its row.
  const other = new Database(path);
  other.exec("CREATE TRIGGER refuse_ttl BEFORE INSERT ON ttl WHEN NEW.name = '/bad' BEGIN SELECT RAISE(ABORT, 'ttl refused'); END");
  other.close();
  const watched: string[] = [];
  const ac = new AbortController();
  const events = b.watch('/', await b.currentRevision(), ac.signal);
  // Issued together: one batch, one transaction.
  const [a, bad, exists, c] = await Promise.allSettled([b.create('/a', '1'), b.create('/bad', '2', { ttlSeconds: 60 }), b.create('/before', 'again'), b.create('/c', '3', { ttlSeconds: 60 })]);
  assert.equal(a.status, 'fulfilled');
  assert.equal(c.status, 'fulfilled');
  assert.equal(bad.status, 'rejected');
  assert.match(String((bad as PromiseRejectedResult).reason), /ttl refused/);
  assert.equal(exists.status, 'rejected');
  assert.equal((exists as PromiseRejectedResult).reason.name, 'KeyExistsError');
  const ra = (a as PromiseFulfilledResult<{ modRevision: number }>).value.modRevision;
  const rc = (c as PromiseFulfilledResult<{ modRevision: number }>).value.modRevision;
  // Nothing of the failed write is left: no row, no revision taken.
  assert.equal(await b.get('/bad'), null);
  assert.equal(rc, ra + 1);
  assert.equal(await b.currentRevision(), rc);
  assert.deepEqual((await b.list('/')).items.map((i) => [i.key, i.value]), [['/a', '1'], ['/before', '0'], ['/c', '3']]);
  for await (const e of events) {
    watched.push(`${e.type} ${e.kv.key}`);
    if (watched.length === 2) break;
  }
  ac.abort();
  assert.deepEqual(watched, ['create /a', 'create /c']);
  await b.close();
});

test('sqlite: every acknowledged write survives SIGKILL of the writer', async () => {
  const path = freshPath();
  const { acked, exit } = await writeUntilKilled(path, (child) => {
    child.kill('SIGKILL');
  });
  assert.equal(exit, 'SIGKILL');
  assert.ok(acked.length >= 300);

  const reopened = createSqliteBackend({ path });
  const stored = new Set((await reopened.list('/durability/')).items.map((kv) => kv.key));
  const missing = acked.filter((key) => !stored.has(key));
  assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged keys lost`);
  assert.ok(stored.size >= acked.length);
  // The log is still writable after the crash and continues its revision sequence.
  const next = await reopened.create('/after-crash', 'ok');
  assert.equal(next.modRevision, (await reopened.currentRevision()));
  assert.ok(next.modRevision > acked.length);
  await reopened.close();
});
