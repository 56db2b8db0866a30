import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryBackend } from './memory.js';
import { runBackendConformance } from './testing/conformance.js';

runBackendConformance('memory', async () => createMemoryBackend());

test('memory: list of 10k keys under a prefix stays fast', async () => {
  const b = createMemoryBackend();
  // Insert in reverse order so every insert lands at the front of the sorted key array.
  for (let i = 9999; i >= 0; i--) await b.create(`/registry/pods/ns/p${String(i).padStart(5, '0')}`, '{}');
  await b.create('/registry/services/ns/s', '{}');
  const started = performance.now();
  const all = await b.list('/registry/pods/');
  const page = await b.list('/registry/pods/', { limit: 500, startAfter: '/registry/pods/ns/p05000' });
  const elapsed = performance.now() - started;
  assert.equal(all.items.length, 10000);
  assert.equal(all.items[0].key, '/registry/pods/ns/p00000');
  assert.equal(page.items[0].key, '/registry/pods/ns/p05001');
  assert.equal(page.remaining, 10000 - 5001 - 500);
  assert.ok(elapsed < 500, `list took ${elapsed.toFixed(1)} ms`);
  await b.close();
});
