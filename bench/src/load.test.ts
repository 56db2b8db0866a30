import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RawResponse } from '@kplane/api';
import { median, mergeResults, percentile, runLoad, runPool, timeRepeated, type LoadResult } from './load.js';

/** A virtual clock that only moves when a fake request "takes time". */
function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const ok = (status: number): RawResponse => ({ status, headers: {} });

test('percentile uses nearest rank and handles empty input', () => {
  assert.equal(percentile([], 0.5), 0);
  assert.equal(percentile([1, 2, 3, 4], 0.5), 2);
  assert.equal(percentile([1, 2, 3, 4], 0.99), 4);
  assert.equal(percentile([7], 0), 7);
});

test('runLoad keeps at most `concurrency` requests in flight and counts only the measured window', async () => {
  const clock = fakeClock();
  let inFlight = 0;
  let maxInFlight = 0;
  const seen = new Set<number>();
  const result = await runLoad({
    concurrency: 4,
    durationMs: 1000,
    warmupMs: 100,
    expectStatus: 200,
    now: clock.now,
    send: async (i) => {
      assert.ok(!seen.has(i), `index ${i} used twice`);
      seen.add(i);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Promise.resolve();
      clock.advance(1); // each completion moves virtual time by 1 ms
      inFlight--;
      return ok(200);
    },
  });
  assert.equal(maxInFlight, 4);
  assert.equal(result.errors, 0);
  assert.equal(result.seconds, 1);
  // Virtual time moves 1 ms per completion, so about 1000 completions fall inside the
  // 100..1100 window (a few more or less, since up to 4 finish at the same instant).
  assert.ok(result.requests >= 1000 - 4 && result.requests <= 1001 + 4, `counted ${result.requests}`);
  assert.equal(result.rps, result.requests);
  assert.equal(result.latenciesMs.length, result.requests);
  assert.ok(result.latenciesMs.every((x, k) => k === 0 || x >= result.latenciesMs[k - 1]!), 'latencies sorted');
  assert.ok(seen.size > result.requests, 'warm-up requests were sent but not counted');
  assert.equal(result.sent, seen.size);
  assert.equal(result.firstError, undefined);
});

test('runLoad counts wrong statuses and rejections as errors and keeps the first message', async () => {
  const clock = fakeClock();
  const result = await runLoad({
    concurrency: 2,
    durationMs: 100,
    expectStatus: 201,
    now: clock.now,
    send: async (i) => {
      await Promise.resolve();
      clock.advance(1);
      if (i === 3) return { status: 409, headers: {}, body: Buffer.from('already exists') };
      if (i === 5) throw new Error('socket hang up');
      return ok(201);
    },
  });
  assert.equal(result.errors, 2);
  assert.equal(result.requests, 98);
  assert.equal(result.firstError, 'HTTP 409 already exists');
});

test('runPool runs every index once within the concurrency bound and reports a failure', async () => {
  let inFlight = 0;
  let max = 0;
  const done: number[] = [];
  await runPool(50, 8, async (i) => {
    inFlight++;
    max = Math.max(max, inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight--;
    done.push(i);
  });
  assert.equal(max, 8);
  assert.deepEqual([...done].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  await assert.rejects(
    runPool(10, 3, async (i) => {
      if (i === 4) throw new Error('boom');
    }),
    /boom/,
  );
});

test('timeRepeated returns every run and the median', async () => {
  const clock = fakeClock();
  const costs = [30, 10, 20, 40];
  let k = 0;
  const r = await timeRepeated(4, async () => void clock.advance(costs[k++]!), clock.now);
  assert.deepEqual(r.runs, costs);
  assert.equal(r.medianMs, 25);
  const odd = await timeRepeated(3, async () => void clock.advance(5), clock.now);
  assert.equal(odd.medianMs, 5);
});

test('mergeResults adds counts and recomputes rate and percentiles over all latencies', () => {
  const a: LoadResult = { requests: 3, sent: 4, errors: 0, seconds: 1, rps: 3, p50Ms: 2, p99Ms: 3, latenciesMs: [1, 2, 3] };
  const b: LoadResult = { requests: 1, sent: 2, errors: 1, seconds: 1, rps: 1, p50Ms: 10, p99Ms: 10, latenciesMs: [10], firstError: 'HTTP 500' };
  const m = mergeResults([a, b]);
  assert.equal(m.requests, 4);
  assert.equal(m.sent, 6);
  assert.equal(m.errors, 1);
  assert.equal(m.seconds, 2);
  assert.equal(m.rps, 2);
  assert.deepEqual(m.latenciesMs, [1, 2, 3, 10]);
  assert.equal(m.p50Ms, 2);
  assert.equal(m.p99Ms, 10);
  assert.equal(m.firstError, 'HTTP 500');
  assert.equal(mergeResults([a]).firstError, undefined);
});

test('median takes the middle value, or the mean of the middle two', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([]), 0);
});
