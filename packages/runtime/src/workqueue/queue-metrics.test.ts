import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFakeClock } from '../clock.js';
import { watchProcessFailures } from '../testing/process-failures.js';
import { unfinishedWorkUpdatePeriodMs, type WorkqueueMetricsProvider } from './queue-metrics.js';
import { createWorkqueue } from './workqueue.js';

test('queue metrics: a throwing metrics provider never breaks the queue, its timers or its shutdown', async () => {
  const failures = watchProcessFailures();
  const broken = () => {
    throw new Error('instrument broken');
  };
  const instrument = { inc: broken, dec: broken, set: broken, observe: broken };
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: () => instrument,
    newAddsMetric: () => instrument,
    newLatencyMetric: () => instrument,
    newWorkDurationMetric: () => instrument,
    newUnfinishedWorkSecondsMetric: () => instrument,
    newLongestRunningProcessorSecondsMetric: () => instrument,
    newRetriesMetric: () => instrument,
  };
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const clock = createFakeClock();
    const queue = createWorkqueue({ name: 'q', clock, metrics: provider });
    queue.add('a');
    queue.addAfter('b', 10);
    const first = await queue.get();
    assert.equal(first.key, 'a');
    clock.advance(unfinishedWorkUpdatePeriodMs * 3); // the refresh timer and the delayed add fire without throwing
    queue.done('a');
    assert.equal((await queue.get()).key, 'b', 'the delayed key arrived');
    queue.done('b');
    queue.shutDown();
    assert.equal(clock.pendingTimers(), 0);
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 1, 'reported once, not once per call');
  assert.match(String(logged[0]![0]), /^panic: instrument broken \[recovered\] in metrics \(name="workqueue q"\)$/);
  assert.deepEqual(await failures.stop(), []);
});
