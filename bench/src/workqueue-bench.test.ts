import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkqueue } from '@kplane/runtime';
import { asyncWorkers, benchWorkqueue, duplicateAdds, formatWorkqueue, makeKeys, syncBatches } from './workqueue-bench.js';

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

test('duplicateAdds hands each key out once per round however often it was added', () => {
  assert.equal(duplicateAdds(createWorkqueue(), makeKeys(7), 3), 3 * (7 * 4 + 7 * 2));
});

test('benchWorkqueue runs the three measured patterns and two for information', async () => {
  const rows = await benchWorkqueue(0.01);
  assert.deepEqual(
    rows.map((r) => `${r.name}${r.info ? ' (info)' : ''}`),
    [
      'add, tryGet, done: batches of 100 keys',
      'add, tryGet, done: batches of 10,000 keys',
      'add, await get(), done: 8 async workers',
      'add x4 (duplicates collapse), tryGet, done (info)',
      'with metrics (named queue): batches of 100 keys (info)',
    ],
  );
  assert.ok(rows.every((r) => r.ops > 0 && r.ms >= 0));
});

test('formatWorkqueue shows M ops/s and reads the target per line', () => {
  const text = formatWorkqueue([{ name: 'fast', ops: 3_000_000, ms: 1000 }, { name: 'slow', ops: 500_000, ms: 1000 }], 1_000_000);
  const lines = text.split('\n');
  assert.match(lines[2]!, /^fast\s+3\.00\s+3000000\s+1000\s+>=1\.0M met$/);
  assert.match(lines[3]!, /^slow\s+0\.50\s+500000\s+1000\s+>=1\.0M MISSED$/);
  assert.match(formatWorkqueue([{ name: 'extra', ops: 1, ms: 1000, info: true }], 1_000_000).split('\n')[2]!, /^extra\s+0\.00\s+1\s+1000\s+info$/);
});
