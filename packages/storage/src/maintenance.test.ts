import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, type Backend } from './backend.js';
import { runPeriodically } from './clock.js';
import { startCompactor, startExpirySweeper } from './maintenance.js';
import { createMemoryBackend } from './memory.js';
import { createVirtualClock } from './testing/virtual-clock.js';

const MINUTE = 60_000;

async function writes(b: Backend, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const key = `/k/${i % 3}`;
    const kv = await b.get(key);
    if (kv) await b.update(key, String(i), kv.modRevision);
    else await b.create(key, String(i));
  }
}

test('the compactor compacts every 5 minutes to the revision it saw at its previous run', async () => {
  const clock = createVirtualClock();
  const b = createMemoryBackend({ now: clock.now });
  const compactor = startCompactor({ backend: b, clock });
  await writes(b, 10);
  await clock.advance(5 * MINUTE - 1);
  assert.equal(await b.compactedRevision(), 0, 'nothing runs before the interval');
  await clock.advance(1);
  assert.equal(await b.compactedRevision(), 0, 'the first run only records revision 10');
  await writes(b, 5);
  await clock.advance(5 * MINUTE);
  assert.equal(await b.compactedRevision(), 10);
  await assert.rejects(b.get('/k/0', 9), CompactedError);
  assert.equal((await b.get('/k/0', 10))?.value, '9');
  await clock.advance(5 * MINUTE);
  assert.equal(await b.compactedRevision(), 15);
  await clock.advance(5 * MINUTE);
  assert.equal(await b.compactedRevision(), 15, 'no writes, nothing more to compact');
  await compactor.stop();
  assert.equal(clock.pendingTimers(), 0);
  await writes(b, 1);
  await clock.advance(60 * MINUTE);
  assert.equal(await b.compactedRevision(), 15, 'a stopped compactor does not run');
  await b.close();
});

test('a failed compaction is reported and the schedule goes on', async () => {
  const clock = createVirtualClock();
  const b = createMemoryBackend();
  let failures = 0;
  const compacted: number[] = [];
  const flaky: Backend = {
    ...b,
    async compact(rev) {
      if (failures++ === 0) throw new Error('disk on fire');
      compacted.push(rev);
      await b.compact(rev);
    },
  };
  const errors: string[] = [];
  const compactor = startCompactor({ backend: flaky, clock, intervalMs: 1000, onError: (err) => errors.push((err as Error).message) });
  await writes(b, 3);
  await clock.advance(3000);
  assert.deepEqual(errors, ['disk on fire']);
  assert.deepEqual(compacted, [3]);
  await compactor.stop();
  await b.close();
});

test('the expiry sweeper deletes keys about a second after their TTL passed', async () => {
  const clock = createVirtualClock();
  const b = createMemoryBackend({ now: clock.now });
  const sweeper = startExpirySweeper({ backend: b, clock });
  await b.create('/events/a', 'a', { ttlSeconds: 10 });
  await b.create('/events/b', 'b', { ttlSeconds: 20 });
  await clock.advance(9_000);
  assert.equal(await b.count('/events/'), 2);
  await clock.advance(1_000);
  assert.deepEqual((await b.list('/events/')).items.map((kv) => kv.key), ['/events/b']);
  await clock.advance(10_000);
  assert.equal(await b.count('/events/'), 0);
  await sweeper.stop();
  await b.close();
});

test('periodic runs never overlap and stop waits for the run in progress', async () => {
  const clock = createVirtualClock();
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const periodic = runPeriodically(clock, 100, async () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    runs++;
    if (runs === 2) await gate;
    running--;
  }, () => assert.fail('no errors expected'));
  await clock.advance(100);
  assert.equal(runs, 1);
  const advancing = clock.advance(1000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(runs, 2, 'the second run holds the schedule');
  let stopped = false;
  const stopping = periodic.stop().then(() => (stopped = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, false);
  release();
  await stopping;
  await advancing;
  assert.equal(runs, 2);
  assert.equal(maxRunning, 1);
  assert.equal(clock.pendingTimers(), 0);
});

test('a schedule ends quietly once its backend is closed', async () => {
  const clock = createVirtualClock();
  const b = createMemoryBackend({ now: clock.now });
  const errors: unknown[] = [];
  startExpirySweeper({ backend: b, clock, onError: (err) => errors.push(err) });
  startCompactor({ backend: b, clock, intervalMs: 1000, onError: (err) => errors.push(err) });
  await clock.advance(1000);
  assert.equal(clock.pendingTimers(), 2);
  await b.close();
  await clock.advance(10_000);
  assert.deepEqual(errors, []);
  assert.equal(clock.pendingTimers(), 0);
});
