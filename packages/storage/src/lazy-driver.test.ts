import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createBackend } from './index.js';

const loaded = (name = 'better-sqlite3'): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes(name));

it('loads better-sqlite3 only when a sqlite store is opened (memory:// needs none installed)', async () => {
  const memory = await createBackend('memory://');
  await memory.close();
  assert.equal(loaded(), false);
  const sqlite = await createBackend('sqlite://:memory:');
  await sqlite.close();
  assert.equal(loaded(), true);
  assert.equal(loaded('etcd3'), false, 'memory and sqlite stores do not load the etcd client');
});
