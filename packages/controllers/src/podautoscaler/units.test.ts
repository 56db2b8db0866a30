import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '@kplane/runtime';
import { milliValue, resourceReplicas, type PodSample } from './replica-calculator.js';
import { newHistory, normalizeReplicas, recordScale, scaleDownLimit, scaleUpLimit } from './scaling.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const LONG_AGO = '2024-05-01T11:00:00Z';

function pod(name: string, opts: { cpu?: string; phase?: 'Running' | 'Pending' | 'Failed'; ready?: boolean; started?: string; readySince?: string } = {}): Pod {
  return {
    metadata: { name, namespace: 'a' },
    spec: { containers: [{ name: 'c', image: 'x', resources: opts.cpu === undefined ? {} : { requests: { cpu: opts.cpu } } }] },
    status: {
      phase: opts.phase ?? 'Running',
      startTime: opts.started ?? LONG_AGO,
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True', lastTransitionTime: opts.readySince ?? LONG_AGO }],
    },
  };
}
const samples = (entries: Record<string, number>): Map<string, PodSample> => new Map(Object.entries(entries).map(([k, milli]) => [k, { milli, timestamp: NOW, windowMs: 10_000 }]));

describe('replica calculator', () => {
  it('reads quantities as milli-values', () => {
    assert.equal(milliValue('250m'), 250);
    assert.equal(milliValue('1'), 1000);
    assert.equal(milliValue('1500000n'), 2);
    assert.equal(milliValue('nope'), undefined);
  });

  it('keeps the count within the 10 % tolerance, else scales by the usage ratio', () => {
    const pods = [pod('a', { cpu: '100m' }), pod('b', { cpu: '100m' })];
    assert.deepEqual(resourceReplicas(2, pods, samples({ a: 52, b: 52 }), 'cpu', { utilization: 50 }, NOW), { replicas: 2, utilization: 52, rawAverage: 52 });
    assert.deepEqual(resourceReplicas(2, pods, samples({ a: 150, b: 150 }), 'cpu', { utilization: 50 }, NOW), { replicas: 6, utilization: 150, rawAverage: 150 });
    assert.equal(resourceReplicas(4, pods, samples({ a: 10, b: 10 }), 'cpu', { utilization: 50 }, NOW).replicas, 1);
    assert.equal(resourceReplicas(2, pods, samples({ a: 300, b: 300 }), 'cpu', { averageMilli: 100 }, NOW).replicas, 6);
  });

  it('damps a scale-down with missing pods taken at 100 %, and a scale-up with unready pods taken at 0', () => {
    const pods = [pod('a', { cpu: '100m' }), pod('b', { cpu: '100m' }), pod('c', { cpu: '100m' })];
    // Down: a and b use 20 % of a 50 % target; c has no sample and counts as 100 %: 140/300 = 46 %, within tolerance of 50 %? No: ratio 0.93 → kept.
    assert.equal(resourceReplicas(3, pods, samples({ a: 20, b: 20 }), 'cpu', { utilization: 50 }, NOW).replicas, 3);
    // Up: a and b use 200 %, c is not ready yet and counts as 0: 400/300 = 133 % of 50 % → ceil(2.67 × 3) = 8.
    const unready = [pod('a', { cpu: '100m' }), pod('b', { cpu: '100m' }), pod('c', { cpu: '100m', phase: 'Pending' })];
    assert.equal(resourceReplicas(3, unready, samples({ a: 200, b: 200 }), 'cpu', { utilization: 50 }, NOW).replicas, 8);
  });

  it('ignores cpu samples of pods not ready for a full window within their initialisation period', () => {
    const fresh = [pod('a', { cpu: '100m', started: '2024-05-01T11:59:55Z', readySince: '2024-05-01T11:59:58Z' })];
    assert.throws(() => resourceReplicas(1, fresh, samples({ a: 100 }), 'cpu', { utilization: 50 }, NOW), /did not receive metrics for targeted pods \(pods might be unready\)/);
  });

  it('needs a request for a Utilization target', () => {
    assert.throws(() => resourceReplicas(1, [pod('a')], samples({ a: 100 }), 'cpu', { utilization: 50 }, NOW), /^Error: missing request for cpu in container c of Pod a$/);
  });
});

describe('scaling rules', () => {
  it('without behavior: scale up at most to max(2×current, 4), down only after 5 minutes of lower recommendations', () => {
    const h = newHistory();
    let out = normalizeReplicas(h, { current: 1, desired: 9, min: 1, max: 10, nowMs: NOW });
    assert.equal(out.replicas, 4);
    assert.deepEqual(out.conditions[1], { type: 'ScalingLimited', status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    // The 9 of 15 s ago still stands (5-minute window), capped again by the rate: 2 × 4.
    out = normalizeReplicas(h, { current: 4, desired: 2, min: 1, max: 10, nowMs: NOW + 15_000 });
    assert.equal(out.replicas, 8);
    assert.equal(out.conditions[0]!.reason, 'ScaleDownStabilized');
    out = normalizeReplicas(h, { current: 8, desired: 2, min: 1, max: 10, nowMs: NOW + 5 * 60_000 + 1 });
    assert.equal(out.replicas, 2);
    assert.equal(out.conditions[0]!.reason, 'ReadyForNewScale');
    out = normalizeReplicas(h, { current: 2, desired: 20, min: 1, max: 3, nowMs: NOW + 6 * 60_000 });
    assert.deepEqual([out.replicas, out.conditions[1]!.reason], [3, 'TooManyReplicas']);
    out = normalizeReplicas(newHistory(), { current: 2, desired: 1, min: 2, max: 3, nowMs: NOW });
    assert.deepEqual([out.replicas, out.conditions[1]!.reason, out.conditions[1]!.status], [2, 'TooFewReplicas', 'True']);
  });

  it('with behavior: policies per period and stabilisation windows', () => {
    const behavior = {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
    };
    assert.equal(scaleUpLimit(10, [], behavior.scaleUp, NOW), 20);
    assert.equal(scaleUpLimit(2, [], behavior.scaleUp, NOW), 6);
    assert.equal(scaleDownLimit(10, [], { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 50, periodSeconds: 15 }] }, NOW), 5);
    const h = newHistory();
    let out = normalizeReplicas(h, { current: 2, desired: 30, min: 1, max: 50, nowMs: NOW, behavior });
    assert.deepEqual([out.replicas, out.conditions[1]!.reason], [6, 'ScaleUpLimit']);
    recordScale(h, behavior, 2, 6, NOW);
    // Within the same 15 s period the 4 pods already added count: 6 - 4 + 4 = 6, or 2 × 2 = 4 → at most 6, no more.
    out = normalizeReplicas(h, { current: 6, desired: 30, min: 1, max: 50, nowMs: NOW + 5_000, behavior });
    assert.equal(out.replicas, 6);
    out = normalizeReplicas(h, { current: 6, desired: 30, min: 1, max: 50, nowMs: NOW + 16_000, behavior });
    assert.equal(out.replicas, 12);
    // Down: the 60 s window keeps the highest recent recommendation (30), then 1 pod per 30 s.
    out = normalizeReplicas(h, { current: 12, desired: 3, min: 1, max: 50, nowMs: NOW + 30_000, behavior });
    assert.deepEqual([out.replicas, out.conditions[0]!.reason], [12, 'ScaleDownStabilized']);
    out = normalizeReplicas(h, { current: 12, desired: 3, min: 1, max: 50, nowMs: NOW + 120_000, behavior });
    assert.deepEqual([out.replicas, out.conditions[1]!.reason], [11, 'ScaleDownLimit']);
  });
});
