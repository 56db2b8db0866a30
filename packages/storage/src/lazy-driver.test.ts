import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createBackend } from './index.js';

const loaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('better-sqlite3'));

it('loads better-sqlite3 only when a sqlite store is opened (memory:// needs none installed)', async () => {
  const memory = await createBackend('memory://');
  await memory.close();
  assert.equal(loaded(), false);
  const sqlite = await createBackend('sqlite://:memory:');
  await sqlite.close();
  assert.equal(loaded(), true);
});
