import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatUpStartup } from './up-startup-bench.js';

test('formatUpStartup reports the median start against the median node -e 0', () => {
  const lines = formatUpStartup({ upMs: [400, 300, 500], nodeStartMs: [50, 60, 40] }).split('\n');
  assert.match(lines[2]!, /^kplane up to \/readyz\s+400\.0\s+8\.00x\s+3 fresh processes \(target <= 5x\): 400\.0, 300\.0, 500\.0$/);
  assert.match(lines[3]!, /^node -e 0\s+50\.0\s+1\.00x/);
});
