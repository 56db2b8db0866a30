import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGarbageCollector, garbageCollectorInChild } from './gc-bench.js';

test('garbageCollectorInChild runs the collector benchmark in a child and returns its figures', async () => {
  const r = await garbageCollectorInChild(40, 60_000);
  assert.equal(r.dependents, 40);
  assert.ok(r.setupMs > 0 && r.syncMs >= 0 && r.deleteMs > 0);
});

test('formatGarbageCollector reads the delete target', () => {
  const r = { dependents: 10_000, setupMs: 2000, syncMs: 300, deleteMs: 4000 };
  assert.match(formatGarbageCollector(r, 10), /to last dependent gone\s+4000\s+<=10s met\s+2500 dependents deleted\/s/);
  assert.match(formatGarbageCollector({ ...r, deleteMs: 12_000 }, 10), /12000\s+<=10s MISSED/);
  assert.match(formatGarbageCollector(r, 10), /create owner \+ 10000 dependents\s+2000/);
});
