import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanDuration, translateTimestampSince } from './age.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

test('humanDuration matches apimachinery HumanDuration', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 10 * s, '5m10s'],
    [10 * m, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 20 * m, '3h20m'],
    [8 * h, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [3 * d + 5 * h, '3d5h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [2 * 365 * d, '2y'],
    [3 * 365 * d + 10 * d, '3y10d'],
    [9 * 365 * d, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
});

test('translateTimestampSince uses the injected now and reports missing timestamps', () => {
  const now = new Date('2024-01-01T00:10:00Z');
  assert.equal(translateTimestampSince('2024-01-01T00:00:00Z', now), '10m');
  assert.equal(translateTimestampSince(undefined, now), '<unknown>');
  assert.equal(translateTimestampSince('garbage', now), '<unknown>');
});
