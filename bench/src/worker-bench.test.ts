import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatWorkerSpeedup, readyRate } from './worker-bench.js';

const run = (readyReplicas: number, seconds: number, reached = true) => ({ replicas: 1000, readyReplicas, reached, seconds, milestones: [] });

test('readyRate counts the replicas Ready by the end of a run, cut or not', () => {
  assert.equal(readyRate(run(1000, 4)), 250);
  assert.equal(readyRate(run(600, 10, false)), 60);
  assert.equal(readyRate(run(0, 0, false)), 0);
});

test('formatWorkerSpeedup shows both runs and the ratio of their rates', () => {
  const lines = formatWorkerSpeedup(run(1000, 4), run(1000, 2.5)).split('\n');
  assert.match(lines[2]!, /^in the API server's thread\s+4\.00\s+1000\/1000\s+250\s+1\.00x$/);
  assert.match(lines[3]!, /^in a worker thread\s+2\.50\s+1000\/1000\s+400\s+1\.60x$/);
  assert.match(formatWorkerSpeedup(run(600, 10, false), run(1000, 5)), /600\/1000 \(cut at the deadline\)\s+60\s+1\.00x\n.*3\.33x/);
});
