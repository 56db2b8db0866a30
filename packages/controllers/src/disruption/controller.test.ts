import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { PodDisruptionBudgets, Pods, ReplicaSets, formatTime, type FakeClock, type Pod, type PodDisruptionBudget, type ReplicaSet } from '@kplane/runtime';
import { settle } from '@kplane/runtime/testing';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { createDisruptionController } from './controller.js';
import { DELETION_TIMEOUT_MS } from './status.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let kp: TestKplane;
let clock: FakeClock;
let stop: () => Promise<void>;

before(async () => {
  ({ kp, clock, stop } = await startControllerBed(async (mgr) => {
    createDisruptionController(mgr, { recorder: false });
  }, T0));
});
after(() => stop());

const ns = { namespace: 'default' };
const pdbs = () => kp.client.resource<PodDisruptionBudget>(PodDisruptionBudgets);

/** A running, Ready pod labelled app=<app>, controlled by `owner` when given. */
async function readyPod(name: string, app: string, owner?: { apiVersion: string; kind: string; name: string; uid: string }): Promise<void> {
  const made = await kp.client.resource<Pod>(Pods).create(
    { metadata: { name, labels: { app }, ...(owner ? { ownerReferences: [{ ...owner, controller: true }] } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ns,
  );
  made.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  await kp.client.resource<Pod>(Pods).updateStatus(made, ns);
}

/** Moves virtual time on in 20-second steps, letting the controller run after each. */
const advance = async (ms: number) => {
  for (let t = 0; t < ms; t += 20_000) {
    await clock.advanceAsync(Math.min(20_000, ms - t));
    await settle();
  }
};

const statusOf = async (name: string) => (await pdbs().get(name, ns)).status;

it('computes the status of a maxUnavailable budget from the ReplicaSet scale, and counts pods as they come', async () => {
  const rs = await kp.client.resource<ReplicaSet>(ReplicaSets).create(
    { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    ns,
  );
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata!.uid! };
  await readyPod('web-1', 'web', owner);
  await readyPod('web-2', 'web', owner);
  await pdbs().create({ metadata: { name: 'web' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } }, ns);
  const first = await eventually('status', async () => {
    const s = await statusOf('web');
    return s?.observedGeneration === 1 ? s : undefined;
  });
  assert.equal(first.expectedPods, 3);
  assert.equal(first.desiredHealthy, 2);
  assert.equal(first.currentHealthy, 2);
  assert.equal(first.disruptionsAllowed, 0);
  assert.equal(first.conditions?.[0]?.reason, 'InsufficientPods');
  await readyPod('web-3', 'web', owner);
  const third = await eventually('third pod counted', async () => {
    const s = await statusOf('web');
    return s?.currentHealthy === 3 ? s : undefined;
  });
  assert.equal(third.disruptionsAllowed, 1);
  assert.deepEqual({ ...third.conditions?.[0], lastTransitionTime: undefined }, { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: undefined });
});

it('a pod the eviction API let go counts as disrupted for two minutes of virtual time, then again as healthy', async () => {
  const pdb = await pdbs().get('web', ns);
  pdb.status = { ...pdb.status!, disruptionsAllowed: 0, disruptedPods: { 'web-1': formatTime(clock.now()) } };
  await pdbs().updateStatus(pdb, ns);
  const held = await eventually('disrupted pod kept', async () => {
    const s = await statusOf('web');
    return s?.currentHealthy === 2 && s.disruptedPods?.['web-1'] ? s : undefined;
  });
  assert.equal(held.disruptionsAllowed, 0);
  await advance(DELETION_TIMEOUT_MS - 1000);
  assert.ok((await statusOf('web'))?.disruptedPods?.['web-1'], 'still kept before the timeout');
  await advance(2000);
  const expired = await eventually('entry expired', async () => {
    const s = await statusOf('web');
    return s?.disruptedPods === undefined && s?.currentHealthy === 3 ? s : undefined;
  });
  assert.equal(expired.disruptionsAllowed, 1);
});

it('an integer minAvailable counts the selected pods; a spec change bumps the observed generation', async () => {
  await readyPod('solo-1', 'solo');
  await readyPod('solo-2', 'solo');
  await pdbs().create({ metadata: { name: 'solo' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'solo' } } } }, ns);
  await eventually('allowed 1', async () => (await statusOf('solo'))?.disruptionsAllowed === 1);
  await pdbs().patch('solo', { spec: { minAvailable: 2 } }, 'merge', ns);
  const s = await eventually('generation 2', async () => {
    const st = await statusOf('solo');
    return st?.observedGeneration === 2 ? st : undefined;
  });
  assert.equal(s.disruptionsAllowed, 0);
  assert.equal(s.expectedPods, 2);
});

it('fails safe (SyncFailed, no disruption) when a pod\'s controller cannot be found', async () => {
  await readyPod('orphan-1', 'lost', { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1' });
  await pdbs().create({ metadata: { name: 'lost' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'lost' } } } }, ns);
  const s = await eventually('sync failed', async () => {
    const st = await statusOf('lost');
    return st?.conditions?.[0]?.reason === 'SyncFailed' ? st : undefined;
  });
  assert.equal(s.disruptionsAllowed, 0);
  assert.equal(s.conditions?.[0]?.message, 'found no controllers for pod "orphan-1"');
});
