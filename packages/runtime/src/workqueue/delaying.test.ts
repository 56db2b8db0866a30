import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock } from '../clock.js';
import { createWorkqueue } from './workqueue.js';

test('addAfter: keys appear when due, in ready-time order', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  q.addAfter('c', 30);
  q.addAfter('a', 10);
  q.addAfter('b', 20);
  q.addAfter('now', 0);
  q.addAfter('neg', -5);
  assert.deepEqual(q.inspect().queued, ['now', 'neg']);
  assert.equal(clock.pendingTimers(), 1, 'one timer for the whole heap');
  clock.advance(9);
  assert.equal(q.len(), 2);
  clock.advance(1);
  assert.deepEqual(q.inspect().queued, ['now', 'neg', 'a']);
  clock.advance(100);
  assert.deepEqual(q.inspect().queued, ['now', 'neg', 'a', 'b', 'c']);
  assert.equal(clock.pendingTimers(), 0);
});

test('addAfter: a duplicate keeps the earliest ready time', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  q.addAfter('k', 100);
  q.addAfter('k', 50); // earlier wins
  q.addAfter('k', 500); // later is ignored
  assert.equal(q.inspect().delayed, 1);
  clock.advance(49);
  assert.equal(q.len(), 0);
  clock.advance(1);
  assert.deepEqual(q.inspect().queued, ['k']);
  clock.advance(1000);
  assert.equal(q.len(), 1, 'fired once only');
  assert.equal(q.inspect().delayed, 0);
});

test('addAfter: a due key collapses with one already queued and respects in-flight keys', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  q.add('a');
  q.addAfter('a', 10);
  q.addAfter('b', 10);
  assert.equal(q.tryGet(), 'a');
  clock.advance(10);
  assert.deepEqual(q.inspect().queued, ['b'], 'a is in flight: remembered, not queued');
  q.done('a');
  assert.deepEqual(q.inspect().queued, ['b', 'a']);
});

test('addAfter: shutdown cancels the timer and drops delayed keys', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  q.addAfter('a', 10);
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0);
  clock.advance(100);
  assert.equal(q.len(), 0);
});

test('addAfter: random delays come out sorted by ready time (seeded)', () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  let s = 42;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const due = new Map<string, number>();
  for (let i = 0; i < 500; i++) {
    const key = `k${Math.floor(rand() * 200)}`;
    const ms = 1 + Math.floor(rand() * 1000);
    due.set(key, Math.min(due.get(key) ?? Infinity, ms));
    q.addAfter(key, ms);
    if (i % 50 === 0) clock.advance(0);
  }
  const seen: string[] = [];
  for (let t = 0; t <= 1000; t++) {
    clock.advance(t === 0 ? 0 : 1);
    for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
      assert.equal(due.get(k), clock.now(), `${k} fired at its earliest due time`);
      seen.push(k);
      q.done(k);
    }
  }
  assert.equal(seen.length, due.size);
});
