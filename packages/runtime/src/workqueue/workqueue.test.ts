import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock, flushMicrotasks } from '../clock.js';
import { createWorkqueue } from './workqueue.js';

const newQueue = () => createWorkqueue({ clock: createFakeClock() });

test('workqueue: duplicates collapse while waiting; order is first-add FIFO', async () => {
  const q = newQueue();
  for (const k of ['ns/a', 'ns/b', 'ns/a', 'ns/c', 'ns/b', 'ns/a']) q.add(k);
  assert.equal(q.len(), 3);
  const got: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await q.get();
    assert.equal(r.shutdown, false);
    got.push(r.key!);
  }
  assert.deepEqual(got, ['ns/a', 'ns/b', 'ns/c']);
  assert.equal(q.len(), 0);
  assert.equal(q.tryGet(), undefined);
});

test('workqueue: an add while processing is held back, then re-queued once on done', async () => {
  const q = newQueue();
  q.add('a');
  const { key } = await q.get();
  assert.equal(key, 'a');
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 0, 'a key in flight is not handed out again');
  assert.equal(q.tryGet(), undefined);
  assert.deepEqual(q.inspect(), { queued: [], processing: ['a'], dirty: ['a'], delayed: 0 });
  q.done('a');
  assert.equal(q.len(), 1);
  assert.equal(q.tryGet(), 'a');
  q.done('a');
  assert.equal(q.len(), 0, 'no further re-queue without a new add');
  q.done('a'); // not in flight: ignored
  assert.deepEqual(q.inspect(), { queued: [], processing: [], dirty: [], delayed: 0 });
});

test('workqueue: get waits for an add; waiters are served in call order', async () => {
  const q = newQueue();
  const order: string[] = [];
  const w1 = q.get().then((r) => order.push(`w1:${r.key}`));
  const w2 = q.get().then((r) => order.push(`w2:${r.key}`));
  await flushMicrotasks();
  assert.deepEqual(order, []);
  q.add('x');
  q.add('y');
  await Promise.all([w1, w2]);
  assert.deepEqual(order, ['w1:x', 'w2:y']);
  assert.equal(q.len(), 0);
});

test('workqueue: a key re-queued by done goes straight to a waiting worker', async () => {
  const q = newQueue();
  q.add('a');
  assert.equal(q.tryGet(), 'a');
  const waiting = q.get();
  q.add('a'); // remembered, not handed to the waiter while in flight
  await flushMicrotasks();
  let settled = false;
  void waiting.then(() => (settled = true));
  await flushMicrotasks();
  assert.equal(settled, false);
  q.done('a');
  assert.deepEqual(await waiting, { key: 'a', shutdown: false });
});

test('workqueue: aborting a waiting get consumes nothing', async () => {
  const q = newQueue();
  const ac = new AbortController();
  const p = q.get(ac.signal);
  ac.abort(new Error('bye'));
  await assert.rejects(p, /bye/);
  q.add('a');
  assert.equal(q.len(), 1, 'the aborted waiter did not take the key');
  await assert.rejects(q.get(AbortSignal.abort(new Error('pre'))), /pre/);
  assert.equal(q.tryGet(), 'a', 'an already-aborted get takes nothing either');
});

test('workqueue: shutDown releases waiters, ignores adds, still hands out queued keys', async () => {
  const q = newQueue();
  const waiter = q.get();
  q.shutDown();
  assert.deepEqual(await waiter, { key: undefined, shutdown: true });
  q.add('late');
  q.addAfter('later', 10);
  assert.equal(q.len(), 0);
  assert.equal(q.shuttingDown(), true);

  const q2 = newQueue();
  q2.add('a');
  q2.add('b');
  q2.shutDown();
  assert.equal((await q2.get()).key, 'a');
  assert.equal((await q2.get()).key, 'b');
  assert.equal((await q2.get()).shutdown, true);
});

test('workqueue: shutDownWithDrain waits for in-flight keys to be done', async () => {
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  q.add('a');
  q.add('b');
  const a = q.tryGet()!;
  const b = q.tryGet()!;
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => (drained = true));
  assert.deepEqual(await q.get(), { key: undefined, shutdown: true });
  q.done(a);
  await flushMicrotasks();
  assert.equal(drained, false, 'b is still in flight');
  q.done(b);
  await drain;
  assert.equal(drained, true);
  assert.deepEqual(q.inspect(), { queued: [], processing: [], dirty: [], delayed: 0 });

  // With nothing in flight it resolves at once; ShutDown after a drain stops the wait.
  await createWorkqueue({ clock }).shutDownWithDrain();
  const q3 = createWorkqueue({ clock });
  q3.add('stuck');
  q3.tryGet();
  const d3 = q3.shutDownWithDrain();
  q3.shutDown();
  await d3;
});

test('workqueue: drain also covers a key that was re-added during processing', async () => {
  const q = newQueue();
  q.add('a');
  q.tryGet();
  q.add('a'); // dirty while in flight, before shutdown
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => (drained = true));
  q.done('a');
  await flushMicrotasks();
  assert.equal(drained, false);
  assert.equal((await q.get()).key, 'a', 'the remembered add is still processed');
  q.done('a');
  await drain;
  assert.equal((await q.get()).shutdown, true);
});

test('workqueue: the README worker loop retries a failing key with backoff, then drains', async () => {
  const clock = createFakeClock();
  const queue = createWorkqueue({ clock });
  const attempts: number[] = [];
  const reconcile = async (key: string): Promise<void> => {
    attempts.push(clock.now());
    if (key === 'default/flaky' && attempts.length < 4) throw new Error('not yet');
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      const { key, shutdown } = await queue.get();
      if (shutdown) return;
      try {
        await reconcile(key);
        queue.forget(key);
      } catch {
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  const workers = [worker(), worker()];
  queue.add('default/flaky');
  await clock.advanceAsync(1000);
  assert.deepEqual(attempts, [0, 5, 15, 35], 'default limiter: 5 ms, 10 ms, 20 ms');
  assert.equal(queue.numRequeues('default/flaky'), 0, 'forgotten after success');
  await queue.shutDownWithDrain();
  await Promise.all(workers);
});
