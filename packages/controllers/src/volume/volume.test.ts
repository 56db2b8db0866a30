import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  PersistentVolumeClaims, PersistentVolumes, Pods, StorageClasses,
  type PersistentVolume, type PersistentVolumeClaim, type Pod,
} from '@kplane/runtime';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { createPersistentVolumeBinderController } from './binder.js';
import { createPvProtectionController, createPvcProtectionController } from './protection.js';
import { PVC_PROTECTION_FINALIZER, PV_PROTECTION_FINALIZER, bestMatch, storageBytes } from './util.js';

let kp: TestKplane;
let stop: () => Promise<void>;

before(async () => {
  ({ kp, stop } = await startControllerBed(async (mgr) => {
    createPersistentVolumeBinderController(mgr, { recorder: false });
    createPvcProtectionController(mgr);
    createPvProtectionController(mgr);
  }));
});
after(() => stop());

const claims = () => kp.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims);
const volumes = () => kp.client.resource<PersistentVolume>(PersistentVolumes);
const ns = { namespace: 'default' };
const claim = (name: string, size: string, spec: PersistentVolumeClaim['spec'] = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...spec },
});
const volume = (name: string, size: string, cls: string, extra: Partial<NonNullable<PersistentVolume['spec']>> = {}, labels?: Record<string, string>): PersistentVolume => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, labels },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: cls, hostPath: { path: `/v/${name}` }, ...extra },
});
const phaseOf = async (name: string) => (await claims().get(name, ns)).status?.phase;
const gone = async (get: () => Promise<unknown>) => get().then(() => false, () => true);

it('storageBytes reads storage quantities; bestMatch picks the smallest fitting volume of the class', () => {
  assert.equal(storageBytes('1Gi'), 1n << 30n);
  assert.equal(storageBytes('1.5k'), 1500n);
  assert.equal(storageBytes('500m'), 1n);
  assert.equal(storageBytes('x'), undefined);
  const c = claim('c', '2Gi', { storageClassName: 'a', selector: { matchLabels: { t: 'x' } } });
  const avail = (v: PersistentVolume): PersistentVolume => ({ ...v, status: { phase: 'Available' } });
  const vs = [avail(volume('big', '10Gi', 'a', {}, { t: 'x' })), avail(volume('small', '3Gi', 'a', {}, { t: 'x' })), avail(volume('tiny', '1Gi', 'a', {}, { t: 'x' })),
    avail(volume('other', '2Gi', 'b', {}, { t: 'x' })), avail(volume('unlabelled', '2Gi', 'a')), avail(volume('rox', '2Gi', 'a', { accessModes: ['ReadOnlyMany'] }, { t: 'x' }))];
  assert.equal(bestMatch(c, vs)?.metadata?.name, 'small');
});

it('provisions pvc-<uid> for a claim of the default class and binds both ways', async () => {
  const made = await claims().create(claim('data', '1Gi'), ns);
  assert.equal(made.spec?.storageClassName, 'standard', 'DefaultStorageClass');
  await eventually('bound', async () => (await phaseOf('data')) === 'Bound');
  const c = await claims().get('data', ns);
  const pv = await volumes().get(`pvc-${c.metadata!.uid}`);
  assert.equal(c.spec?.volumeName, pv.metadata!.name);
  assert.deepEqual(c.status?.capacity, { storage: '1Gi' });
  assert.deepEqual(c.status?.accessModes, ['ReadWriteOnce']);
  assert.equal(c.metadata?.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
  assert.equal(c.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  assert.equal(c.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'], 'kplane.io/simulated');
  assert.equal(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'], 'kplane.io/simulated');
  assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Delete');
  assert.equal(pv.spec?.claimRef?.uid, c.metadata!.uid);
  assert.equal(pv.status?.phase, 'Bound');
  await eventually('finalizers', async () =>
    (await claims().get('data', ns)).metadata?.finalizers?.includes(PVC_PROTECTION_FINALIZER) && (await volumes().get(pv.metadata!.name!)).metadata?.finalizers?.includes(PV_PROTECTION_FINALIZER));

  // A larger request on the expandable class grows the volume and the claim's capacity.
  const cur = await claims().get('data', ns);
  cur.spec!.resources!.requests!.storage = '3Gi';
  await claims().update(cur, ns);
  await eventually('expanded', async () => (await claims().get('data', ns)).status?.capacity?.storage === '3Gi');
  assert.equal((await volumes().get(pv.metadata!.name!)).spec?.capacity?.storage, '3Gi');

  // Reclaim policy Delete: the volume goes with the claim.
  await claims().delete('data', ns);
  await eventually('volume deleted', () => gone(() => volumes().get(pv.metadata!.name!)));
});

it('binds an Available volume by class, modes, size and selector; Retain leaves it Released', async () => {
  await volumes().create(volume('gold-1', '5Gi', 'manual', {}, { tier: 'gold' }));
  await volumes().create(volume('silver', '2Gi', 'manual', {}, { tier: 'silver' }));
  await eventually('available', async () => (await volumes().get('gold-1')).status?.phase === 'Available');
  await claims().create(claim('gold', '2Gi', { storageClassName: 'manual', selector: { matchLabels: { tier: 'gold' } } }), ns);
  await eventually('bound', async () => (await phaseOf('gold')) === 'Bound');
  assert.equal((await claims().get('gold', ns)).spec?.volumeName, 'gold-1');
  assert.equal((await volumes().get('silver')).status?.phase, 'Available');
  await claims().delete('gold', ns);
  await eventually('released', async () => (await volumes().get('gold-1')).status?.phase === 'Released');
  // pv-protection: a deleted volume goes once it is not Bound.
  await volumes().delete('gold-1');
  await eventually('released volume deleted', () => gone(() => volumes().get('gold-1')));
});

it('a claim of a class nobody provisions and no volume stays Pending', async () => {
  await claims().create(claim('none', '1Gi', { storageClassName: '' }), ns);
  await eventually('pending', async () => (await phaseOf('none')) === 'Pending');
  assert.equal((await claims().get('none', ns)).spec?.volumeName, undefined);
});

it('WaitForFirstConsumer: nothing is provisioned until a node is selected', async () => {
  await kp.client.resource(StorageClasses).create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'late' }, provisioner: 'kplane.io/simulated', volumeBindingMode: 'WaitForFirstConsumer' });
  const c = await claims().create(claim('late', '1Gi', { storageClassName: 'late' }), ns);
  await eventually('pending', async () => (await phaseOf('late')) === 'Pending');
  assert.ok(await gone(() => volumes().get(`pvc-${c.metadata!.uid}`)), 'no volume yet');
  await claims().patch('late', { metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'node-1' } } }, 'merge', ns);
  await eventually('bound', async () => (await phaseOf('late')) === 'Bound');
  const pv = await volumes().get(`pvc-${c.metadata!.uid}`);
  assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, ['node-1']);
});

it('pvc-protection holds a used claim until its pod finishes', async () => {
  await claims().create(claim('held', '1Gi'), ns);
  await eventually('finalizer', async () => (await claims().get('held', ns)).metadata?.finalizers?.includes(PVC_PROTECTION_FINALIZER));
  const pods = kp.client.resource<Pod>(Pods);
  await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'user' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'held' } }] } }, ns);
  await claims().delete('held', ns);
  // Give the controller its chances: the claim stays while the pod runs.
  await eventually('terminating', async () => !!(await claims().get('held', ns)).metadata?.deletionTimestamp);
  await new Promise((r) => setImmediate(r));
  assert.ok((await claims().get('held', ns)).metadata?.finalizers?.includes(PVC_PROTECTION_FINALIZER));
  const pod = await pods.get('user', ns);
  await pods.updateStatus({ ...pod, status: { phase: 'Succeeded' } }, ns);
  await eventually('claim gone', () => gone(() => claims().get('held', ns)));
});

it('pv-protection holds a deleted Bound volume; once its claim goes it is Released and goes too', async () => {
  const c = await claims().create(claim('kept', '1Gi'), ns);
  const name = `pvc-${c.metadata!.uid}`;
  await eventually('bound', async () => (await phaseOf('kept')) === 'Bound');
  await eventually('pv-protection', async () => (await volumes().get(name)).metadata?.finalizers?.includes(PV_PROTECTION_FINALIZER));
  await volumes().delete(name);
  const held = await volumes().get(name);
  assert.ok(held.metadata?.deletionTimestamp, 'Terminating');
  assert.equal(held.status?.phase, 'Bound');
  await claims().delete('kept', ns);
  await eventually('the volume gone', () => gone(() => volumes().get(name)));
});
