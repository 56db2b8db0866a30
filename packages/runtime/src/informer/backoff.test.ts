import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFakeClock } from '../clock.js';
import { createBackoff } from './backoff.js';

describe('createBackoff', () => {
  it('starts at 800 ms, doubles, and caps the base delay at 30 s (no jitter)', () => {
    const clock = createFakeClock();
    const b = createBackoff(clock, { jitter: 0 });
    const delays = Array.from({ length: 9 }, () => b.next());
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it('adds client-go jitter on top: d + random * jitter * d', () => {
    const clock = createFakeClock();
    const b = createBackoff(clock, { random: () => 0.5 });
    assert.deepEqual([b.next(), b.next(), b.next()], [1200, 2400, 4800]);
    const never = createBackoff(clock, { random: () => 0.999999 });
    for (let i = 0; i < 20; i++) assert.ok(never.next() < 60_000);
  });

  it('resets after two healthy minutes, not before', () => {
    const clock = createFakeClock();
    const b = createBackoff(clock, { jitter: 0 });
    b.next();
    b.next();
    clock.advance(120_000);
    assert.equal(b.next(), 3200, 'exactly 2 min since the last failure is not yet healthy');
    clock.advance(120_001);
    assert.equal(b.next(), 800);
    assert.equal(b.next(), 1600);
    b.reset();
    assert.equal(b.next(), 800);
  });
});
