import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatStartup, measureStartup } from './startup-bench.js';

test('measureStartup times the import, one cold start and the warm starts, stopping each control plane', async () => {
  let clock = 0;
  let running = 0;
  let starts = 0;
  const costs = [50, 5, 4, 6];
  const sample = await measureStartup(
    async () => {
      clock += 300;
      return async () => {
        assert.equal(running, 0, 'the previous control plane was stopped first');
        clock += costs[starts++]!;
        running++;
        return { stop: async () => void running-- };
      };
    },
    3,
    () => clock,
  );
  assert.deepEqual(sample, { importMs: 300, coldMs: 50, warmMs: [5, 4, 6], readyAtMs: 350 });
  assert.equal(running, 0);
});

test('formatStartup shows medians and every value', () => {
  const text = formatStartup([
    { importMs: 300, coldMs: 40, warmMs: [3, 5], readyAtMs: 400 },
    { importMs: 500, coldMs: 20, warmMs: [4, 9], readyAtMs: 600 },
    { importMs: 400, coldMs: 30, warmMs: [2, 8], readyAtMs: 500 },
  ]);
  const lines = text.split('\n');
  assert.match(lines[2]!, /^startControlPlane, cold\s+30\.0\s+first call in each of 3 fresh processes: 40\.0, 20\.0, 30\.0$/);
  assert.match(lines[3]!, /^startControlPlane, warm\s+4\.5\s+later calls in the same processes \(6\)/);
  assert.match(lines[4]!, /^import\('kplane'\)\s+400\.0/);
  assert.match(lines[5]!, /^process start to ready\s+500\.0/);
});
