import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { persistentVolumeResource } from './persistentvolume.js';
import { persistentVolumeClaimResource } from './persistentvolumeclaim.js';
import { defaultStorageClass, storageClassResource } from './storageclass.js';

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:58:30Z';
type R = { strategy: { validate?: (o: KubeObject, old?: KubeObject) => { field?: string; message?: string }[] } };
const msgs = (r: R, o: KubeObject, old?: KubeObject) => (r.strategy.validate?.(o, old) ?? []).map((c) => `${c.field}: ${c.message}`);

test('storageclasses: names, defaults, table with "(default)", immutable fields', () => {
  const sc = storageClassResource();
  assert.deepEqual([sc.group, sc.resource, sc.namespaced, sc.shortNames], ['storage.k8s.io', 'storageclasses', false, ['sc']]);
  const obj: KubeObject = { metadata: { name: 'fast', creationTimestamp: created }, provisioner: 'example.com/disk' };
  sc.strategy.defaults!(obj);
  assert.equal(obj.reclaimPolicy, 'Delete');
  assert.equal(obj.volumeBindingMode, 'Immediate');
  assert.deepEqual(msgs(sc, obj), []);
  assert.deepEqual(sc.strategy.table!.row(obj, now), ['fast', 'example.com/disk', 'Delete', 'Immediate', 'false', '90s']);
  const def = { ...defaultStorageClass(), metadata: { ...defaultStorageClass().metadata, creationTimestamp: created } };
  assert.deepEqual(sc.strategy.table!.row(def, now), ['standard (default)', 'kplane.io/simulated', 'Delete', 'Immediate', 'true', '90s']);
  assert.deepEqual(msgs(sc, { ...obj, provisioner: 'other.io/x', parameters: { a: 'b' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }, obj), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
  assert.deepEqual(msgs(sc, { metadata: { name: 'x' }, volumeBindingMode: 'Later', reclaimPolicy: 'Recycle' }).length, 3);
});

test('persistentvolumes: defaults, validation, table', () => {
  const pv = persistentVolumeResource();
  assert.deepEqual([pv.resource, pv.namespaced, pv.shortNames, !!pv.subresources?.status], ['persistentvolumes', false, ['pv'], true]);
  const obj: KubeObject = {
    metadata: { name: 'v1', creationTimestamp: created },
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], hostPath: { path: '/data' }, storageClassName: 'slow', claimRef: { namespace: 'default', name: 'c' } },
  };
  pv.strategy.defaults!(obj);
  assert.equal((obj.spec as { persistentVolumeReclaimPolicy: string }).persistentVolumeReclaimPolicy, 'Retain');
  assert.deepEqual(msgs(pv, obj), []);
  (obj.status as { phase: string }).phase = 'Bound';
  assert.deepEqual(pv.strategy.table!.row(obj, now), ['v1', '5Gi', 'RWO,ROX', 'Retain', 'Bound', 'default/c', 'slow', '<unset>', '', '90s', 'Filesystem']);
  assert.deepEqual(msgs(pv, { metadata: { name: 'x' }, spec: {} }), ['spec.accessModes: Required value', 'spec.capacity: Required value', 'spec: Required value: must specify a volume type']);
  const moved = structuredClone(obj);
  (moved.spec as { hostPath: { path: string } }).hostPath.path = '/elsewhere';
  assert.deepEqual(msgs(pv, moved, obj), ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
});

test('persistentvolumeclaims: table', () => {
  const pvc = persistentVolumeClaimResource();
  const obj: KubeObject = {
    metadata: { name: 'data', creationTimestamp: created },
    spec: { volumeName: 'pvc-1', storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
  };
  assert.deepEqual(pvc.strategy.table!.row(obj, now), ['data', 'Bound', 'pvc-1', '1Gi', 'RWO', 'standard', '<unset>', '90s', '<unset>']);
});
