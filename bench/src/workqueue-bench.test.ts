import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkqueue } from '@kplane/runtime';
import { asyncWorkers, benchWorkqueue, formatWorkqueue, makeKeys, syncBatches } from './workqueue-bench.js';

test('makeKeys makes distinct namespace/name keys', () => {
  const keys = makeKeys(120);
  assert.equal(new Set(keys).size, 120);
  assert.equal(keys[51], 'namespace-1/object-51');
});

test('syncBatches counts add, tryGet and done per key and leaves the queue empty', () => {
  const q = createWorkqueue();
  assert.equal(syncBatches(q, makeKeys(50), 7, 20), 7 * 20 * 3);
  assert.equal(q.len(), 0);
  assert.equal(q.tryGet(), undefined);
  assert.deepEqual(q.inspect().processing, []);
});

test('asyncWorkers hands every distinct key to a worker and ends once the queue is shut down', async () => {
  const q = createWorkqueue();
  assert.equal(await asyncWorkers(q, makeKeys(5000), 5000, 3), 5000 * 3);
  assert.equal(q.shuttingDown(), true);
  // Keys re-added while still queued collapse: fewer gets and dones than adds.
  const ops = await asyncWorkers(createWorkqueue(), makeKeys(10), 4000, 2);
  assert.ok(ops >= 4000 + 2 * 10 && ops < 4000 * 3, `ops ${ops}`);
});

test('benchWorkqueue runs the three patterns', async () => {
  const rows = await benchWorkqueue(0.01);
  assert.deepEqual(
    rows.map((r) => r.name),
    ['add, tryGet, done: batches of 100 keys', 'add, tryGet, done: batches of 10,000 keys', 'add, await get(), done: 8 async workers'],
  );
  assert.ok(rows.every((r) => r.ops > 0 && r.ms >= 0));
});

test('formatWorkqueue shows M ops/s and reads the target per line', () => {
  const text = formatWorkqueue([{ name: 'fast', ops: 3_000_000, ms: 1000 }, { name: 'slow', ops: 500_000, ms: 1000 }], 1_000_000);
  const lines = text.split('\n');
  assert.match(lines[2]!, /^fast\s+3\.00\s+3000000\s+1000\s+>=1\.0M met$/);
  assert.match(lines[3]!, /^slow\s+0\.50\s+500000\s+1000\s+>=1\.0M MISSED$/);
});
