import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatInformers, measureSync, medianRun, type SyncMeasurement } from './informer-bench.js';

const run = (syncMs: number, heap: number, rss = heap * 2, peak = rss * 2): SyncMeasurement => ({
  syncMs,
  items: 10,
  heapBefore: 1_000_000,
  heapAfter: 1_000_000 + heap,
  rssBefore: 5_000_000,
  rssAfter: 5_000_000 + rss,
  peakRss: 5_000_000 + peak,
});

test('measureSync snapshots memory after GC around the sync, with the informer still alive, then stops it', async () => {
  const log: string[] = [];
  let heap = 100;
  let clock = 0;
  const m = await measureSync(
    async () => {
      log.push('prepare');
      return {
        async sync() {
          log.push('sync');
          clock += 250;
          heap += 900;
          return 42;
        },
        async stop() {
          log.push('stop');
          heap = 0;
        },
      };
    },
    {
      gc: () => log.push('gc'),
      memoryUsage: () => (log.push('mem'), { heapUsed: heap, rss: heap * 10 }),
      peakRss: () => 77_777,
      now: () => clock,
    },
  );
  assert.deepEqual(log, ['prepare', 'gc', 'gc', 'mem', 'sync', 'gc', 'gc', 'mem', 'stop']);
  assert.deepEqual(m, { syncMs: 250, items: 42, heapBefore: 100, heapAfter: 1000, rssBefore: 1000, rssAfter: 10000, peakRss: 77_777 });
});

test('measureSync rejects when the sync fails', async () => {
  await assert.rejects(
    measureSync(async () => ({ sync: () => Promise.reject(new Error('list failed')), stop: async () => {} }), { gc: () => {} }),
    /list failed/,
  );
});

test('medianRun picks the middle run by sync time', () => {
  assert.equal(medianRun([run(30, 1), run(10, 2), run(20, 3)]).syncMs, 20);
  assert.equal(medianRun([run(30, 1), run(10, 2)]).syncMs, 10);
  assert.throws(() => medianRun([]), /no runs/);
});

test('formatInformers shows each informer and reads both targets', () => {
  const ours = { name: 'ours', runs: [run(100, 10 * 1048576)] };
  const theirs = { name: 'theirs', runs: [run(300, 40 * 1048576), run(250, 30 * 1048576), run(400, 50 * 1048576)] };
  const met = formatInformers(ours, theirs, { maxMemoryRatio: 0.5, minSpeedup: 2 }, [{ name: 'extra', runs: [run(50, 1048576)] }]);
  const lines = met.split('\n');
  assert.match(lines[0]!, /^informer\s+sync ms\s+runs \(ms\)\s+objects\s+heap \+MB\s+RSS \+MB\s+peak RSS \+MB$/);
  assert.match(lines[2]!, /^ours\s+100\s+100\s+10\s+10\.0\s+20\.0\s+40\.0$/);
  assert.match(lines[3]!, /^theirs\s+300\s+300, 250, 400\s+10\s+40\.0\s+80\.0\s+160\.0$/);
  assert.match(lines[4]!, /^extra\s+50/);
  assert.match(met, /sync time = 3\.00x \(target >= 2x: met\)/);
  assert.match(met, /heap growth = 0\.25x \(target <= 0\.5x: met\); RSS growth 0\.25x, peak RSS growth 0\.25x/);

  const missed = formatInformers({ name: 'ours', runs: [run(200, 30)] }, { name: 'theirs', runs: [run(300, 40)] }, { maxMemoryRatio: 0.5, minSpeedup: 2 });
  assert.match(missed, /sync time = 1\.50x \(target >= 2x: MISSED\)/);
  assert.match(missed, /heap growth = 0\.75x \(target <= 0\.5x: MISSED\)/);
});
