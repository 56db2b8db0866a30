import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock, realClock } from './clock.js';

test('fake clock: advance fires due timers in time order, ties in scheduling order', () => {
  const clock = createFakeClock(1000);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`c@${clock.now()}`), 30);
  clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`b@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`late@${clock.now()}`), 31);
  assert.equal(clock.pendingTimers(), 4);
  clock.advance(30);
  assert.deepEqual(fired, ['a@1010', 'b@1010', 'c@1030']);
  assert.equal(clock.now(), 1030);
  assert.equal(clock.pendingTimers(), 1);
  assert.equal(clock.nextTimerAt(), 1031);
});

test('fake clock: timers scheduled by callbacks inside the window fire in the same advance', () => {
  const clock = createFakeClock();
  const fired: number[] = [];
  const tick = (): void => {
    fired.push(clock.now());
    if (fired.length < 10) clock.setTimeout(tick, 7);
  };
  clock.setTimeout(tick, 7);
  clock.advance(50);
  assert.deepEqual(fired, [7, 14, 21, 28, 35, 42, 49]);
  assert.equal(clock.now(), 50);
  assert.equal(clock.pendingTimers(), 1);
  clock.advance(0);
  assert.equal(fired.length, 7);
  clock.advance(6);
  assert.deepEqual(fired.slice(7), [56]);
});

test('fake clock: clearTimeout cancels; zero delay fires on advance(0); runNext jumps', () => {
  const clock = createFakeClock();
  const fired: string[] = [];
  const h = clock.setTimeout(() => fired.push('cancelled'), 5);
  clock.setTimeout(() => fired.push('zero'), 0);
  clock.clearTimeout(h);
  clock.clearTimeout(h);
  assert.equal(clock.pendingTimers(), 1);
  clock.advance(0);
  assert.deepEqual(fired, ['zero']);
  clock.setTimeout(() => fired.push('far'), 1_000_000);
  assert.equal(clock.runNext(), true);
  assert.equal(clock.now(), 1_000_000);
  assert.equal(clock.runNext(), false);
  assert.deepEqual(fired, ['zero', 'far']);
  assert.throws(() => clock.advance(-1), RangeError);
});

test('fake clock: sleep resolves on advance and rejects on abort; advanceAsync runs await chains', async () => {
  const clock = createFakeClock();
  const steps: number[] = [];
  const loop = (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.sleep(10);
      steps.push(clock.now());
    }
  })();
  await clock.advanceAsync(30);
  await loop;
  assert.deepEqual(steps, [10, 20, 30]);

  const ac = new AbortController();
  const p = clock.sleep(100, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
  assert.equal(clock.pendingTimers(), 0);
  await assert.rejects(clock.sleep(1, AbortSignal.abort(new Error('already'))), /already/);
});

test('real clock: sleep waits roughly the requested time', async () => {
  const started = realClock.now();
  await realClock.sleep(15);
  assert.ok(realClock.now() - started >= 10);
});

test('real clock: a delay beyond Node\'s timer limit is not clamped to 1 ms', async () => {
  let fired = false;
  const h = realClock.setTimeout(() => (fired = true), 3_000_000_000);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(fired, false);
  realClock.clearTimeout(h);
});
