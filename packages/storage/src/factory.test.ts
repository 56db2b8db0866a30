import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { StorageError } from './backend.js';
import { createBackend } from './factory.js';
import type { SqliteBackend } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'kplane-factory-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('memory:// opens an empty in-memory store', async () => {
  const b = await createBackend('memory://');
  await b.create('/a', '1');
  assert.equal(await b.currentRevision(), 1);
  await b.close();
  const other = await createBackend('memory://');
  assert.equal(await other.currentRevision(), 0);
  await other.close();
});

test('sqlite:// accepts absolute and relative paths and creates directories', async () => {
  const absolute = join(dir, 'abs', 'state.db');
  const b = await createBackend(`sqlite://${absolute}`);
  await b.create('/a', '1');
  await b.close();
  assert.ok(existsSync(absolute));

  const rel = relative(process.cwd(), join(dir, 'rel', 'nested', 'state.db'));
  const r = await createBackend(`sqlite://./${rel}?synchronous=full`);
  await r.create('/a', '1');
  await r.close();
  assert.ok(existsSync(join(dir, 'rel', 'nested', 'state.db')));

  const reopened = await createBackend(`sqlite://${absolute}`);
  assert.equal(await reopened.currentRevision(), 1);
  await reopened.close();
});

test('unknown schemes and malformed URLs are StorageErrors', async () => {
  await assert.rejects(createBackend('mysql://localhost:3306'), (err: unknown) => {
    assert.ok(err instanceof StorageError);
    assert.match(err.message, /unsupported storage scheme "mysql:\/\/"/);
    return true;
  });
  await assert.rejects(createBackend('/var/lib/state.db'), StorageError);
  await assert.rejects(createBackend('sqlite://'), /needs a database path/);
  await assert.rejects(createBackend('etcd://no-port'), /expected host:port/);
  await assert.rejects(createBackend(`sqlite://${join(dir, 'x.db')}?synchronous=sometimes`), /synchronous/);
});

test('sqlite:// fsyncs every commit unless ?synchronous=normal', async () => {
  const durable = (await createBackend(`sqlite://${join(dir, 'sync', 'default.db')}`)) as SqliteBackend;
  const relaxed = (await createBackend(`sqlite://${join(dir, 'sync', 'normal.db')}?synchronous=normal`)) as SqliteBackend;
  assert.equal(durable.stats().synchronous, 'full');
  assert.equal(relaxed.stats().synchronous, 'normal');
  await durable.close();
  await relaxed.close();
});
