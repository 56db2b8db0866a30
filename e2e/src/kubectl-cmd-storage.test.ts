/**
 * kubectl's own command tests for PersistentVolumes, PersistentVolumeClaims and StorageClasses,
 * replayed with the real kubectl against `kplane up`: volumes of three sources created and
 * deleted (and `delete pv -n X --all` warning that they are cluster-scoped), claims created and
 * deleted, a StorageClass created and deleted, and the list pages `describe` requests. kplane
 * serves a default StorageClass `standard` from the start (kubectl's scripts start with none).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useKplane } from './harness.js';
import { NAMES, kubectlCmd } from './kubectl-cmd.js';

const volume = (name: string, source: Record<string, unknown>) =>
  JSON.stringify({ kind: 'PersistentVolume', apiVersion: 'v1', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' }, ...source } });

const claim = (name: string, modes: string[], storage: string) =>
  JSON.stringify({ kind: 'PersistentVolumeClaim', apiVersion: 'v1', metadata: { name }, spec: { accessModes: modes, resources: { requests: { storage } } } });

describe('kubectl command tests: storage', () => {
  const suite = useKplane(['--nodes', '0']);
  const k = kubectlCmd(() => suite.kp.kubeconfig);

  it('persistent volumes: create and delete three, then delete --all from a namespace', async () => {
    await k.getAssert('pv', NAMES, '');
    await k.ok(['create', '-f', '-'], volume('pv0001', { hostPath: { path: '/somepath/data01' } }));
    await k.getAssert('pv', NAMES, 'pv0001:');
    await k.ok(['delete', 'pv', 'pv0001']);
    await k.ok(['create', '-f', '-'], volume('pv0002', { local: { path: '/somepath/data02' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } } }));
    await k.getAssert('pv', NAMES, 'pv0002:');
    await k.ok(['delete', 'pv', 'pv0002']);
    await k.ok(['create', '-f', '-'], volume('pv0003', { gcePersistentDisk: { pdName: 'abc123', fsType: 'ext4' } }));
    await k.getAssert('pv', NAMES, 'pv0003:');
    await k.describeChunkSizeAssert('persistentvolumes', ['events']);
    await k.ok(['delete', 'pv', 'pv0003']);
    await k.getAssert('pv', NAMES, '');

    await k.ok(['create', '-f', '-'], volume('pv0001', { hostPath: { path: '/somepath/data01' } }));
    await k.getAssert('pv', NAMES, 'pv0001:');
    const out = await k.all(['delete', 'pv', '-n', 'test', '--all']);
    // kubectl 1.32 capitalises its warning (later kubectl prints it in lower case).
    assert.match(out, /warning: deleting cluster-scoped resources/i);
    assert.match(out, /persistentvolume "pv0001" deleted/);
    await k.getAssert('pv', NAMES, '');
  });

  it('persistent volume claims: create and delete three', async () => {
    await k.ok(['create', 'namespace', 'claims']);
    const ns = ['--namespace=claims'];
    await k.getAssert('pvc --namespace=claims', NAMES, '');
    await k.ok(['create', '-f', '-', ...ns], claim('myclaim-1', ['ReadWriteOnce'], '3Gi'));
    await k.getAssert('pvc --namespace=claims', NAMES, 'myclaim-1:');
    await k.describeChunkSizeAssert('persistentvolumeclaims', ['pods', 'events'], ns);
    await k.ok(['delete', 'pvc', 'myclaim-1', ...ns]);
    await k.ok(['create', '-f', '-', ...ns], claim('myclaim-2', ['ReadWriteOnce'], '8Gi'));
    await k.getAssert('pvc --namespace=claims', NAMES, 'myclaim-2:');
    await k.ok(['delete', 'pvc', 'myclaim-2', ...ns]);
    await k.ok(['create', '-f', '-', ...ns], claim('myclaim-3', ['ReadWriteOnce'], '10Gi'));
    await k.getAssert('pvc --namespace=claims', NAMES, 'myclaim-3:');
    await k.ok(['delete', 'pvc', 'myclaim-3', ...ns]);
    await k.getAssert('pvc --namespace=claims', NAMES, '');
  });

  it('storage classes: create and delete one', async () => {
    await k.getAssert('storageclass', NAMES, 'standard:');
    const sc = { kind: 'StorageClass', apiVersion: 'storage.k8s.io/v1', metadata: { name: 'storage-class-name' }, provisioner: 'kubernetes.io/fake-provisioner-type', parameters: { zone: 'us-east-1b', type: 'ssd' } };
    await k.ok(['create', '-f', '-'], JSON.stringify(sc, null, 2));
    await k.getAssert('storageclass', NAMES, 'standard:storage-class-name:');
    await k.getAssert('sc', NAMES, 'standard:storage-class-name:');
    await k.describeChunkSizeAssert('storageclasses', ['events']);
    await k.ok(['delete', 'storageclass', 'storage-class-name']);
    await k.getAssert('storageclass', NAMES, 'standard:');
  });
});
