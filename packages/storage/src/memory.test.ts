import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryBackend } from './memory.js';
import { runBackendConformance } from './testing/conformance.js';

runBackendConformance('memory', async ({ now }) => createMemoryBackend({ now }));

test('memory: lists and pages 10k keys under a prefix, in key order', async () => {
  const b = createMemoryBackend();
  // Insert in reverse order so every insert lands at the front of the sorted key array.
  for (let i = 9999; i >= 0; i--) await b.create(`/registry/pods/ns/p${String(i).padStart(5, '0')}`, '{}');
  await b.create('/registry/services/ns/s', '{}');
  const all = await b.list('/registry/pods/');
  const page = await b.list('/registry/pods/', { limit: 500, startAfter: '/registry/pods/ns/p05000' });
  assert.equal(all.items.length, 10000);
  assert.equal(all.items[0].key, '/registry/pods/ns/p00000');
  assert.equal(page.items[0].key, '/registry/pods/ns/p05001');
  assert.equal(page.more, true);
  await b.close();
});

test('memory: keys written between scans, one or two at a time or many, keep key order', async () => {
  const b = createMemoryBackend();
  const written: string[] = [];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 300; round++) {
    // Mostly one or two keys per scan (placed one by one), sometimes a burst (sorted at once).
    const burst = round % 50 === 0 ? 100 : 1 + (round % 2);
    for (let i = 0; i < burst; i++) {
      const key = `/registry/pods/ns/p${String(next()).padStart(10, '0')}`;
      if (written.includes(key)) continue;
      written.push(key);
      await b.create(key, '{}');
    }
    const keys = (await b.list('/registry/pods/')).items.map((kv) => kv.key);
    assert.deepEqual(keys, [...written].sort(), `round ${round}`);
  }
  await b.close();
});
