import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createFakeClock } from './clock.js';
import { createMetrics, type RuntimeMetrics } from './metrics.js';
import { itemExponentialFailureRateLimiter } from './workqueue/rate-limiters.js';
import { createWorkqueue } from './workqueue/workqueue.js';

/** Value of one series of a counter or gauge. */
async function value(metric: { get(): Promise<{ values: { labels: object; value: number }[] }> }, labels: object): Promise<number | undefined> {
  const { values } = await metric.get();
  return values.find((v) => JSON.stringify(v.labels) === JSON.stringify(labels))?.value;
}

/** `_sum` and `_count` of one histogram series. */
async function histogram(m: RuntimeMetrics['workqueueQueueDuration'], name: string): Promise<{ sum: number; count: number }> {
  const { values } = await m.get();
  const pick = (suffix: string) =>
    values.find((v) => (v as { metricName?: string }).metricName?.endsWith(suffix) && v.labels.name === name)?.value ?? NaN;
  return { sum: pick('_sum'), count: pick('_count') };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

test('metrics: workqueue metrics after a scripted sequence on the fake clock', async () => {
  const clock = createFakeClock(1_000_000);
  const metrics = createMetrics();
  const q = createWorkqueue({ name: 'pods', clock, metrics, rateLimiter: itemExponentialFailureRateLimiter(5, 1000) });
  const unnamed = createWorkqueue({ clock, metrics });
  unnamed.add('ignored'); // unnamed queues report nothing

  const n = { name: 'pods' };
  assert.equal(await value(metrics.workqueueAdds, n), 0, 'series exist from creation');
  q.add('ns/a');
  q.add('ns/b');
  q.add('ns/a'); // collapsed: not an add
  assert.equal(await value(metrics.workqueueAdds, n), 2);
  assert.equal(await value(metrics.workqueueDepth, n), 2);

  clock.advance(100);
  assert.equal(q.tryGet(), 'ns/a'); // waited 0.1 s
  assert.equal(await value(metrics.workqueueDepth, n), 1);
  clock.advance(200);
  // Scrape while ns/a is in flight for 0.2 s.
  assert.ok(close((await value(metrics.workqueueUnfinishedWork, n))!, 0.2));
  assert.ok(close((await value(metrics.workqueueLongestRunningProcessor, n))!, 0.2));
  assert.equal(q.tryGet(), 'ns/b'); // waited 0.3 s
  clock.advance(100);
  assert.ok(close((await value(metrics.workqueueUnfinishedWork, n))!, 0.3 + 0.1));
  assert.ok(close((await value(metrics.workqueueLongestRunningProcessor, n))!, 0.3));

  q.add('ns/a'); // while in flight: counted, remembered
  assert.equal(await value(metrics.workqueueAdds, n), 3);
  assert.equal(await value(metrics.workqueueDepth, n), 1);
  clock.advance(100);
  q.done('ns/a'); // worked 0.4 s, re-queued
  q.done('ns/b'); // worked 0.2 s
  assert.equal(q.tryGet(), 'ns/a'); // waited 0.1 s since its re-add
  clock.advance(50);
  q.done('ns/a'); // worked 0.05 s

  q.addRateLimited('ns/c'); // retry 1, due in 5 ms
  q.addAfter('ns/d', 0); // retry 2, immediate
  clock.advance(5);
  assert.equal(await value(metrics.workqueueRetries, n), 2);
  assert.equal(await value(metrics.workqueueAdds, n), 5);
  assert.equal(await value(metrics.workqueueDepth, n), 2);

  const queued = await histogram(metrics.workqueueQueueDuration, 'pods');
  assert.equal(queued.count, 3);
  assert.ok(close(queued.sum, 0.1 + 0.3 + 0.1), `queue duration sum ${queued.sum}`);
  const worked = await histogram(metrics.workqueueWorkDuration, 'pods');
  assert.equal(worked.count, 3);
  assert.ok(close(worked.sum, 0.4 + 0.2 + 0.05), `work duration sum ${worked.sum}`);
  assert.equal(await value(metrics.workqueueUnfinishedWork, n), 0);
  assert.equal(await value(metrics.workqueueLongestRunningProcessor, n), 0);

  const text = await metrics.metricsText();
  assert.match(text, /^# TYPE workqueue_adds_total counter$/m);
  assert.match(text, /^workqueue_adds_total\{name="pods"\} 5$/m);
  assert.match(text, /^workqueue_depth\{name="pods"\} 2$/m);
  assert.match(text, /^workqueue_retries_total\{name="pods"\} 2$/m);
  assert.match(text, /^workqueue_queue_duration_seconds_count\{name="pods"\} 3$/m);
  assert.match(text, /^workqueue_work_duration_seconds_bucket\{le="1",name="pods"\} 3$/m);
  assert.match(text, /^# HELP workqueue_depth Current depth of workqueue$/m);
  assert.doesNotMatch(text, /name=""/);
  q.shutDown();
  unnamed.shutDown();
});

test('metrics: in-flight gauges freeze at shutdown once the queue is drained', async () => {
  const clock = createFakeClock();
  const metrics = createMetrics();
  const q = createWorkqueue({ name: 'q', clock, metrics });
  q.add('a');
  q.tryGet();
  const drain = q.shutDownWithDrain();
  clock.advance(1000);
  assert.equal(await value(metrics.workqueueUnfinishedWork, { name: 'q' }), 1, 'still refreshed while draining');
  q.done('a');
  await drain;
  clock.advance(1000);
  assert.equal(await value(metrics.workqueueUnfinishedWork, { name: 'q' }), 0);
});

test('metrics: without onCollect the in-flight gauges refresh on a 500 ms clock tick', () => {
  const clock = createFakeClock();
  const set: number[] = [];
  const noop = { inc() {}, dec() {}, observe() {}, set() {} };
  const provider = {
    newDepthMetric: () => noop,
    newAddsMetric: () => noop,
    newLatencyMetric: () => noop,
    newWorkDurationMetric: () => noop,
    newUnfinishedWorkSecondsMetric: () => ({ set: (v: number) => set.push(v) }),
    newLongestRunningProcessorSecondsMetric: () => noop,
    newRetriesMetric: () => noop,
  };
  const q = createWorkqueue({ name: 'ticking', clock, metrics: provider });
  q.add('a');
  q.tryGet();
  clock.advance(1000);
  assert.deepEqual(set, [0.5, 1]);
  q.done('a');
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0, 'tick stopped at shutdown');
});

test('metrics: reconcile, error and leader election series; registry reuse', async () => {
  const registry = new Registry();
  const m = createMetrics(registry);
  m.initController('replicaset');
  m.recordReconcile('replicaset', 'success');
  m.recordReconcile('replicaset', 'success');
  m.recordReconcile('replicaset', 'error');
  m.recordReconcile('replicaset', 'requeue_after');
  m.setLeader('kplane-controller-manager', true);
  const again = createMetrics(registry); // same registry: no duplicate-registration error
  again.recordReconcile('replicaset', 'error');
  assert.equal(again.reconcileTotal, m.reconcileTotal);

  const text = await m.metricsText();
  assert.match(text, /^controller_runtime_reconcile_total\{controller="replicaset",result="success"\} 2$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="replicaset",result="error"\} 2$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="replicaset",result="requeue"\} 0$/m);
  assert.match(text, /^controller_runtime_reconcile_total\{controller="replicaset",result="requeue_after"\} 1$/m);
  assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="replicaset"\} 2$/m);
  assert.match(text, /^leader_election_master_status\{name="kplane-controller-manager"\} 1$/m);
  m.setLeader('kplane-controller-manager', false);
  assert.match(await m.metricsText(), /^leader_election_master_status\{name="kplane-controller-manager"\} 0$/m);
  assert.match(m.contentType, /^text\/plain/);
});
