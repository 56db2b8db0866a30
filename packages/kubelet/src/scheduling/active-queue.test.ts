import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActiveQueue } from './active-queue.js';

describe('ActiveQueue (PrioritySort)', () => {
  it('gives the highest priority first, then the first come, each key once', async () => {
    const q = new ActiveQueue();
    for (const [key, p] of [['a', 0], ['b', 100], ['c', 0], ['d', 1000], ['b', 100], ['e', -5], ['f', 100]] as const) q.push(key, p);
    assert.equal(q.length, 6);
    const out: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) out.push(await q.pop());
    assert.deepEqual(out, ['d', 'b', 'f', 'a', 'c', 'e']);
  });

  it('hands a new key to a waiting worker, and releases waiters when closed', async () => {
    const q = new ActiveQueue();
    const waiting = q.pop();
    q.push('x', 1);
    assert.equal(await waiting, 'x');
    const idle = q.pop();
    q.close();
    assert.equal(await idle, undefined);
    q.push('y', 1);
    assert.equal(await q.pop(), undefined);
  });
});
