import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTestingStartup } from './testing-startup-bench.js';

test('formatTestingStartup shows the medians of the cold and warm starts, with every value', () => {
  const text = formatTestingStartup([
    { importMs: 300, coldMs: 900, warmMs: [40, 60], readyAtMs: 1300 },
    { importMs: 500, coldMs: 700, warmMs: [30, 70], readyAtMs: 1400 },
  ]);
  assert.match(text, /test control plane, cold\s+\|?\s*800\.0/);
  assert.match(text, /test control plane, warm\s+\|?\s*50\.0/);
  assert.match(text, /30\.0, 70\.0|40\.0, 60\.0, 30\.0, 70\.0/);
  assert.match(text, /import\('@kplane\/testing'\)\s+\|?\s*400\.0/);
});

test('formatTestingStartup reads every figure as a ratio to the median node -e 0', () => {
  const text = formatTestingStartup([{ importMs: 300, coldMs: 900, warmMs: [40, 60], readyAtMs: 1300 }], [50, 40, 60]);
  assert.match(text, /test control plane, warm\s+\|?\s*50\.0\s+\|?\s*1\.00x/);
  assert.match(text, /test control plane, cold\s+\|?\s*900\.0\s+\|?\s*18\.00x/);
  assert.match(text, /node -e 0\s+\|?\s*50\.0\s+\|?\s*1\.00x/);
});
