import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock } from '../clock.js';
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
} from './rate-limiters.js';
import { createWorkqueue } from './workqueue.js';

test('exponential backoff: 5ms, 10ms, 20ms … capped at 1000 s; forget resets; keys independent', () => {
  const rl = itemExponentialFailureRateLimiter();
  const curve = Array.from({ length: 20 }, () => rl.when('ns/a'));
  const expected = Array.from({ length: 20 }, (_, i) => Math.min(5 * 2 ** i, 1_000_000));
  assert.deepEqual(curve, expected);
  assert.deepEqual(curve.slice(0, 4), [5, 10, 20, 40]);
  assert.equal(curve[17], 655_360);
  assert.equal(curve[18], 1_000_000);
  assert.equal(rl.numRequeues('ns/a'), 20);
  for (let i = 0; i < 2000; i++) rl.when('ns/a'); // 2^2000 overflows a double: still capped
  assert.equal(rl.when('ns/a'), 1_000_000);
  assert.equal(rl.when('ns/b'), 5);
  rl.forget('ns/a');
  assert.equal(rl.numRequeues('ns/a'), 0);
  assert.equal(rl.when('ns/a'), 5);
  assert.equal(rl.numRequeues('ns/b'), 1);
});

test('fast/slow limiter: fast for the first attempts, then slow', () => {
  const rl = itemFastSlowRateLimiter(5, 10_000, 3);
  assert.deepEqual([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')], [5, 5, 5, 10_000, 10_000]);
  rl.forget('a');
  assert.equal(rl.when('a'), 5);
});

test('bucket limiter: a burst of 100 for free, then 10 per second', () => {
  const clock = createFakeClock();
  const rl = bucketRateLimiter(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.equal(rl.when(`k${i}`), 0, `token ${i} is free`);
  assert.equal(rl.when('x'), 100);
  assert.equal(rl.when('y'), 200);
  assert.equal(rl.when('z'), 300);
  assert.equal(rl.numRequeues('x'), 0);
  // 3 reservations on credit; after 1 s, 10 tokens refilled: 7 free, then 100 ms apart again.
  clock.advance(1000);
  for (let i = 0; i < 7; i++) assert.equal(rl.when('again'), 0);
  assert.equal(rl.when('again'), 100);
  // Refill is capped at the burst size.
  clock.advance(3_600_000);
  for (let i = 0; i < 100; i++) assert.equal(rl.when('later'), 0);
  assert.equal(rl.when('later'), 100);
});

test('bucket limiter: steady state is one token per 100 ms', () => {
  const clock = createFakeClock();
  const rl = bucketRateLimiter(10, 100, clock);
  for (let i = 0; i < 100; i++) rl.when('burst');
  for (let i = 0; i < 50; i++) {
    clock.advance(100);
    assert.equal(rl.when('steady'), 0, `token ${i} refilled after 100 ms`);
  }
  clock.advance(50);
  assert.equal(rl.when('early'), 50, 'half a token: wait the other 50 ms');
});

test('max-of limiter and default controller limiter', () => {
  const clock = createFakeClock();
  const rl = defaultControllerRateLimiter(clock);
  assert.equal(rl.when('a'), 5);
  assert.equal(rl.when('a'), 10);
  for (let i = 0; i < 98; i++) rl.when(`k${i}`); // exhausts the bucket's burst (100 in total)
  assert.equal(rl.when('b'), 100, 'bucket dominates a fresh key');
  assert.equal(rl.numRequeues('a'), 2);
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);

  const calls: string[] = [];
  const spy = (name: string, d: number) => ({
    when: () => (calls.push(name), d),
    forget: () => void calls.push(`forget-${name}`),
    numRequeues: () => d,
  });
  const max = maxOfRateLimiter(spy('x', 3), spy('y', 7), spy('z', 1));
  assert.equal(max.when('k'), 7);
  assert.equal(max.numRequeues('k'), 7);
  max.forget('k');
  assert.deepEqual(calls, ['x', 'y', 'z', 'forget-x', 'forget-y', 'forget-z']);
});

test('addRateLimited: re-queues after the backoff; forget resets numRequeues', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock, rateLimiter: itemExponentialFailureRateLimiter(5, 1_000_000) });
  const times: number[] = [];
  q.add('a');
  for (let attempt = 0; attempt < 6; attempt++) {
    while (q.len() === 0) clock.runNext();
    assert.equal(q.tryGet(), 'a');
    times.push(clock.now());
    q.addRateLimited('a'); // failed: retry later
    q.done('a');
  }
  assert.deepEqual(times, [0, 5, 15, 35, 75, 155]);
  assert.equal(q.numRequeues('a'), 6);
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
});
