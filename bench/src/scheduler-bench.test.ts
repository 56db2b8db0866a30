import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchPodSpec, formatScheduler, schedulerInChild, zoneOf } from './scheduler-bench.js';

test('the scheduler case binds every batch on zoned nodes and compares with plain pods', async () => {
  const r = await schedulerInChild(20, 20, 30_000);
  const { batches, ratios } = r.result;
  assert.deepEqual(batches.map((b) => [b.variant, b.reached, b.bound]), [['plain', true, 20], ['anti-affinity+spread', true, 20], ['preferred-affinity+spread', true, 20]]);
  assert.ok(Math.abs(ratios['anti-affinity+spread']! - batches[1]!.podsPerSecond / batches[0]!.podsPerSecond) < 1e-9);
  assert.match(formatScheduler(r), /^plain\s+20 pods bound in \d+\.\d\d s, \d+ pods\/s \(baseline\)\nanti-affinity\+spread\s+20 pods bound .*x plain \(target >=0.5x (met|MISSED)\)/);
});

test('the batches carry the constraints they are named after', () => {
  assert.equal(zoneOf(13), 'zone-3');
  assert.equal(batchPodSpec('plain', 'a', 's').affinity, undefined);
  const anti = batchPodSpec('anti-affinity+spread', 'a', 's');
  assert.equal(anti.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey, 'kubernetes.io/hostname');
  assert.equal(anti.topologySpreadConstraints?.[0]?.whenUnsatisfiable, 'DoNotSchedule');
  const pref = batchPodSpec('preferred-affinity+spread', 'a', 's');
  assert.equal(pref.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.weight, 100);
  assert.equal(pref.topologySpreadConstraints?.[0]?.whenUnsatisfiable, 'ScheduleAnyway');
});
