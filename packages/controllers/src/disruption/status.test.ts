import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Pod, PodDisruptionBudget } from '@kplane/runtime';
import { DELETION_TIMEOUT_MS, buildDisruptedPods, countHealthyPods, expectedPodCount, failSafeStatus, nextStatus, scaledValue } from './status.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const pod = (name: string, ready = true, deleting = false): Pod => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: iso(T0) } : {}) },
  spec: { containers: [] },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pdb = (spec: PodDisruptionBudget['spec'], status?: PodDisruptionBudget['status']): PodDisruptionBudget => ({ metadata: { name: 'b', generation: 2 }, spec, ...(status ? { status } : {}) });

it('scaledValue: integers as they are, percentages of the total rounded as asked', () => {
  assert.equal(scaledValue(3, 10, true), 3);
  assert.equal(scaledValue('50%', 3, true), 2);
  assert.equal(scaledValue('50%', 3, false), 1);
  assert.throws(() => scaledValue('half', 3, true), /invalid value for IntOrString/);
});

it('expectedPodCount: integer minAvailable counts pods; maxUnavailable and percentages use the controllers\' scale', async () => {
  const pods = [pod('a'), pod('b')];
  assert.deepEqual(await expectedPodCount(pdb({ minAvailable: 1 }), pods, async () => 9), { expectedCount: 2, desiredHealthy: 1 });
  assert.deepEqual(await expectedPodCount(pdb({ minAvailable: '50%' }), pods, async () => 5), { expectedCount: 5, desiredHealthy: 3 });
  assert.deepEqual(await expectedPodCount(pdb({ maxUnavailable: '25%' }), pods, async () => 5), { expectedCount: 5, desiredHealthy: 3 });
  assert.deepEqual(await expectedPodCount(pdb({ maxUnavailable: 9 }), pods, async () => 5), { expectedCount: 5, desiredHealthy: 0 });
});

it('disruptedPods entries count as unhealthy for two minutes, then are dropped and reported as not deleted', () => {
  const budget = pdb({ minAvailable: 1 }, { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0, disruptedPods: { a: iso(T0), gone: iso(T0), c: iso(T0) } });
  const pods = [pod('a'), pod('b'), pod('c', true, true)];
  const early = buildDisruptedPods(pods, budget, T0 + 1000);
  assert.deepEqual(early.disrupted, { a: iso(T0) }, 'deleted and vanished pods are not kept');
  assert.equal(early.recheckAt, T0 + DELETION_TIMEOUT_MS);
  assert.equal(countHealthyPods(pods, early.disrupted, T0 + 1000), 1, 'b only: a is being evicted, c is deleting');
  const late = buildDisruptedPods(pods, budget, T0 + DELETION_TIMEOUT_MS + 1);
  assert.deepEqual(late.disrupted, {});
  assert.deepEqual(late.notDeleted.map((p) => p.metadata?.name), ['a']);
  assert.equal(countHealthyPods(pods, late.disrupted, T0 + DELETION_TIMEOUT_MS + 1), 2);
});

it('nextStatus: disruptionsAllowed never below 0, the DisruptionAllowed condition, nothing when up to date', () => {
  const s = nextStatus(pdb({ minAvailable: 1 }), 3, { expectedCount: 3, desiredHealthy: 1 }, {}, T0)!;
  assert.equal(s.disruptionsAllowed, 2);
  assert.equal(s.observedGeneration, 2);
  assert.deepEqual(s.conditions, [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 2, lastTransitionTime: iso(T0) }]);
  assert.equal(nextStatus(pdb({ minAvailable: 1 }, s), 3, { expectedCount: 3, desiredHealthy: 1 }, {}, T0 + 5000), undefined, 'unchanged');
  const none = nextStatus(pdb({ minAvailable: 1 }, s), 0, { expectedCount: 0, desiredHealthy: 1 }, {}, T0 + 5000)!;
  assert.equal(none.disruptionsAllowed, 0);
  assert.equal(none.conditions![0]!.reason, 'InsufficientPods');
  assert.equal(none.conditions![0]!.lastTransitionTime, iso(T0 + 5000));
});

it('failSafeStatus: no disruption allowed, SyncFailed with the error', () => {
  const s = failSafeStatus(pdb({ maxUnavailable: 1 }, { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 }), 'found no controllers for pod "x"', T0);
  assert.equal(s.disruptionsAllowed, 0);
  assert.equal(s.currentHealthy, 2);
  assert.deepEqual(s.conditions, [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "x"', observedGeneration: 0, lastTransitionTime: iso(T0) }]);
});
