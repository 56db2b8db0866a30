import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionAttributes, startTestServer } from '../testing.js';
import { persistentVolumeClaimResize, pickDefaultStorageClass } from './storage.js';

const claim = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
});

const CLAIMS = '/api/v1/namespaces/default/persistentvolumeclaims';

test('DefaultStorageClass gives a claim without a class the default one; an empty class or the beta annotation stays', async () => {
  const s = await startTestServer();
  try {
    const plain = await s.call('POST', CLAIMS, claim('plain'));
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    assert.equal(plain.body.spec.storageClassName, 'standard');
    const empty = await s.call('POST', CLAIMS, claim('empty', { storageClassName: '' }));
    assert.equal(empty.body.spec.storageClassName, '');
    const beta = await s.call('POST', CLAIMS, claim('beta', {}, { 'volume.beta.kubernetes.io/storage-class': 'slow' }));
    assert.equal(beta.body.spec.storageClassName, undefined);
    // With no default class left, a claim keeps no class.
    const unmark = await s.call('PATCH', '/apis/storage.k8s.io/v1/storageclasses/standard', { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(unmark.status, 200, JSON.stringify(unmark.body));
    const none = await s.call('POST', CLAIMS, claim('none'));
    assert.equal(none.body.spec.storageClassName, undefined);
  } finally {
    await s.close();
  }
});

test('the default class is the newest one annotated as default, then the first by name', () => {
  const sc = (name: string, at: string, isDefault = true) => ({
    metadata: { name, creationTimestamp: at, annotations: { 'storageclass.kubernetes.io/is-default-class': String(isDefault) } },
  });
  assert.equal(pickDefaultStorageClass([sc('a', '2024-01-01T00:00:00Z'), sc('b', '2024-02-01T00:00:00Z'), sc('c', '2024-03-01T00:00:00Z', false)])?.metadata?.name, 'b');
  assert.equal(pickDefaultStorageClass([sc('z', '2024-01-01T00:00:00Z'), sc('y', '2024-01-01T00:00:00Z')])?.metadata?.name, 'y');
  assert.equal(pickDefaultStorageClass([sc('a', '2024-01-01T00:00:00Z', false)]), undefined);
});

test('StorageObjectInUseProtection puts the protection finalizers on new volumes and claims, once', async () => {
  const s = await startTestServer();
  try {
    const pv = await s.call('POST', '/api/v1/persistentvolumes', volume('v1'));
    assert.equal(pv.status, 201, JSON.stringify(pv.body));
    assert.deepEqual(pv.body.metadata.finalizers, ['kubernetes.io/pv-protection']);
    const own = { ...claim('c'), metadata: { name: 'c', finalizers: ['example.com/keep', 'kubernetes.io/pvc-protection'] } };
    const pvc = await s.call('POST', CLAIMS, own);
    assert.deepEqual(pvc.body.metadata.finalizers, ['example.com/keep', 'kubernetes.io/pvc-protection']);
    const plain = await s.call('POST', CLAIMS, claim('d'));
    assert.deepEqual(plain.body.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  } finally {
    await s.close();
  }
});

test('PersistentVolumeClaimResize refuses an unbound claim that grows, and passes a shrink or a same size', async () => {
  const step = persistentVolumeClaimResize({ list: async () => [], updateStatus: async (_g, _v, _r, o) => o });
  const attrs = (size: string, oldSize: string) =>
    admissionAttributes(claim('c', { resources: { requests: { storage: size } } }), {
      operation: 'UPDATE',
      namespace: 'default',
      oldObject: { ...claim('c', { resources: { requests: { storage: oldSize } } }), status: { phase: 'Pending' } },
    });
  await assert.rejects(async () => step.validate(attrs('2Gi', '1Gi')), { code: 403, message: 'persistentvolumeclaims "c" is forbidden: Only bound persistent volume claims can be expanded' });
  await step.validate(attrs('1Gi', '1Gi'));
  await step.validate(attrs('512Mi', '1Gi'));
});

test('PersistentVolumeClaimResize lets only a bound claim of an expandable class grow', async () => {
  const s = await startTestServer();
  try {
    const grow = (name: string, size: string) =>
      s.call('PATCH', `${CLAIMS}/${name}`, { spec: { resources: { requests: { storage: size } } } }, { 'content-type': 'application/merge-patch+json' });
    const bind = async (name: string, volumeName: string) => {
      const cur = (await s.call('GET', `${CLAIMS}/${name}`)).body;
      const spec = await s.call('PUT', `${CLAIMS}/${name}`, { ...cur, spec: { ...cur.spec, volumeName } });
      assert.equal(spec.status, 200, JSON.stringify(spec.body));
      const st = await s.call('PUT', `${CLAIMS}/${name}/status`, { ...spec.body, status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
      assert.equal(st.status, 200, JSON.stringify(st.body));
    };
    // An unbound claim's spec is immutable: the strategy's 422 comes before admission.
    await s.call('POST', CLAIMS, claim('pending'));
    const pending = await grow('pending', '2Gi');
    assert.equal(pending.status, 422);

    await s.call('POST', '/api/v1/persistentvolumes', volume('pv-a'));
    await s.call('POST', CLAIMS, claim('fixed', { storageClassName: 'fixed' }));
    await s.call('POST', '/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'example.com/x' });
    await bind('fixed', 'pv-a');
    const fixed = await grow('fixed', '2Gi');
    assert.equal(fixed.status, 403);
    assert.equal(
      fixed.body.message,
      'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );

    await s.call('POST', CLAIMS, claim('lost'));
    await bind('lost', 'pv-missing');
    const lost = await grow('lost', '2Gi');
    assert.equal(lost.status, 403);
    assert.match(lost.body.message, /fetching associated persistent volume failed$/);

    await s.call('POST', '/api/v1/persistentvolumes', volume('pv-b'));
    await s.call('POST', CLAIMS, claim('ok'));
    await bind('ok', 'pv-b');
    const ok = await grow('ok', '2Gi');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.spec.resources.requests.storage, '2Gi');
  } finally {
    await s.close();
  }
});
