import { test } from 'node:test';
import { seededRandom as prng } from '@kplane/api';
import assert from 'node:assert/strict';
import { createFakeClock, flushMicrotasks } from '../clock.js';
import { createWorkqueue } from './workqueue.js';


async function runScenario(seed: number): Promise<{ processed: number }> {
  const rand = prng(seed);
  const clock = createFakeClock();
  const q = createWorkqueue({ clock });
  const keys = Array.from({ length: 12 }, (_, i) => `ns/k${i}`);
  const pick = () => keys[Math.floor(rand() * keys.length)];

  let seq = 0;
  const lastAdd = new Map<string, number>(); // key -> seq of its latest add
  const lastStart = new Map<string, number>(); // key -> seq of its latest hand-out
  const holder = new Map<string, number>(); // key -> worker currently holding it
  let processed = 0;
  let workersMayAdd = true;
  // Record every add that reaches the base queue, including the ones the delaying layer makes
  // when a key falls due (it calls `add` on the same object).
  const baseAdd = q.add.bind(q);
  q.add = (key: string) => {
    lastAdd.set(key, ++seq);
    baseAdd(key);
  };
  const add = (key: string) => q.add(key);

  const worker = async (id: number) => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      const key = r.key;
      assert.equal(holder.get(key), undefined, `seed ${seed}: ${key} handed to worker ${id} while worker ${holder.get(key)} holds it`);
      holder.set(key, id);
      lastStart.set(key, ++seq);
      await clock.sleep(Math.floor(rand() * 25));
      if (workersMayAdd && rand() < 0.3) add(rand() < 0.5 ? key : pick()); // an event arrives mid-reconcile
      if (rand() < 0.2) await clock.sleep(Math.floor(rand() * 10));
      assert.equal(holder.get(key), id);
      holder.delete(key);
      processed++;
      q.done(key);
    }
  };
  const workerCount = 1 + Math.floor(rand() * 8);
  const workers = Array.from({ length: workerCount }, (_, i) => worker(i));

  for (let step = 0; step < 400; step++) {
    const burst = Math.floor(rand() * 4);
    for (let i = 0; i < burst; i++) {
      const key = pick();
      const roll = rand();
      if (roll < 0.7) add(key);
      else q.addAfter(key, 1 + Math.floor(rand() * 30));
    }
    await clock.advanceAsync(Math.floor(rand() * 8));
  }

  // Quiesce: no more adds, let every in-flight and delayed key finish.
  workersMayAdd = false;
  for (let i = 0; i < 10_000; i++) {
    const s = q.inspect();
    if (s.queued.length === 0 && s.processing.length === 0 && s.delayed === 0 && clock.pendingTimers() === 0) break;
    await clock.advanceAsync(10);
  }
  await flushMicrotasks();
  const state = q.inspect();
  assert.deepEqual(state, { queued: [], processing: [], dirty: [], delayed: 0 }, `seed ${seed}: queue did not settle`);
  // No lost update: every key was handed out after its last add.
  for (const [key, added] of lastAdd) {
    const started = lastStart.get(key) ?? -1;
    assert.ok(started > added, `seed ${seed}: ${key} added at #${added} but last processed at #${started}`);
  }
  await q.shutDownWithDrain();
  await Promise.all(workers);
  return { processed };
}

test('property: a key is never held by two workers, and no add is lost (seeded random workers)', async () => {
  let total = 0;
  for (let seed = 1; seed <= 25; seed++) total += (await runScenario(seed)).processed;
  assert.ok(total > 1000, `scenarios exercised the queue (${total} items processed)`);
});
