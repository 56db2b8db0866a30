import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { persistentVolumeClaimResource } from './persistentvolumeclaim.js';
import { statefulSetResource } from './statefulset.js';

const sts = statefulSetResource();
const pvc = persistentVolumeClaimResource();
const now = new Date('2024-05-01T12:00:00Z');
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };

function set(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' }, spec };
  if (status) obj.status = status;
  sts.strategy.defaults?.(obj);
  return obj;
}
const base = () => ({ serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
const messages = (obj: KubeObject, old?: KubeObject, subresource = ''): string[] =>
  (sts.strategy.validate?.(obj, old, undefined, { subresource, now }) ?? []).map((c) => `${c.field}: ${c.message}`);

test('statefulset names, storage and subresources', () => {
  assert.equal(sts.group, 'apps');
  assert.deepEqual(sts.shortNames, ['sts']);
  assert.deepEqual(sts.categories, ['all']);
  assert.equal(sts.storagePrefix, '/registry/statefulsets');
  assert.equal(sts.subresources?.status, true);
  assert.equal(sts.subresources?.scale?.specReplicasPath, '.spec.replicas');
  assert.equal(sts.strategy.generation, true);
});

test('statefulset defaults', () => {
  const s = set({ ...base(), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] });
  const spec = s.spec as Record<string, any>;
  assert.equal(spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.equal(spec.replicas, 1);
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.template.spec.restartPolicy, 'Always');
  assert.equal(spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
  assert.equal(spec.volumeClaimTemplates[0].apiVersion, 'v1');
  assert.equal(spec.volumeClaimTemplates[0].kind, 'PersistentVolumeClaim');
  assert.deepEqual(spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
  assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
  const onDelete = set({ ...base(), updateStrategy: { type: 'OnDelete' } });
  assert.deepEqual((onDelete.spec as any).updateStrategy, { type: 'OnDelete' });
  const maxUnavailable = set({ ...base(), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } });
  assert.deepEqual((maxUnavailable.spec as any).updateStrategy.rollingUpdate, { maxUnavailable: 2, partition: 0 });
  assert.deepEqual(messages(s), []);
});

test('statefulset validation messages', () => {
  assert.deepEqual(messages(set({ ...base(), podManagementPolicy: 'Sometimes' })), ["spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'"]);
  assert.deepEqual(messages(set({ ...base(), updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } })), [
    "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
  ]);
  assert.deepEqual(messages(set({ ...base(), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1, maxUnavailable: 0 } } })), [
    'spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
    'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0',
  ]);
  assert.deepEqual(messages(set({ ...base(), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } } })), [
    'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
  ]);
  assert.deepEqual(messages(set({ ...base(), persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } })), [
    'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Delete", "Retain"',
  ]);
  assert.deepEqual(messages(set({ ...base(), replicas: -1, minReadySeconds: -1, ordinals: { start: -2 } })), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.ordinals.start: Invalid value: -2: must be greater than or equal to 0',
  ]);
  assert.deepEqual(messages(set({ ...base(), selector: { matchLabels: { app: 'x' } } })), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
  ]);
  const restart = base();
  (restart.template.spec as any).restartPolicy = 'Never';
  (restart.template.spec as any).activeDeadlineSeconds = 5;
  assert.deepEqual(messages(set(restart)), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported',
  ]);
});

test('statefulset updates: only the updatable spec fields may change', () => {
  const old = set(base());
  const ok = set({ ...base(), replicas: 3, minReadySeconds: 5, ordinals: { start: 2 }, updateStrategy: { type: 'OnDelete' }, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } });
  (ok.spec as any).template.spec.containers[0].image = 'nginx:2';
  assert.deepEqual(messages(ok, old), []);
  const forbidden = "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
  assert.deepEqual(messages(set({ ...base(), serviceName: 'other' }), old), [forbidden]);
  assert.deepEqual(messages(set({ ...base(), revisionHistoryLimit: 3 }), old), [forbidden]);
  assert.deepEqual(messages(set({ ...base(), volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }), old), [forbidden]);
});

test('statefulset status validation', () => {
  const old = set(base(), { replicas: 2, collisionCount: 2 });
  assert.deepEqual(messages(set(base(), { replicas: 2, readyReplicas: 2, availableReplicas: 2, currentReplicas: 2, updatedReplicas: 2, collisionCount: 2 }), old, 'status'), []);
  assert.deepEqual(messages(set(base(), { replicas: 1, readyReplicas: 2, availableReplicas: 3, collisionCount: 1 }), old, 'status'), [
    'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 3: cannot be greater than status.readyReplicas',
    'status.collisionCount: Invalid value: 1: cannot be decremented',
  ]);
});

test('statefulset table', () => {
  const s = set({ ...base(), replicas: 3 }, { readyReplicas: 2 });
  const table = sts.strategy.table!;
  assert.deepEqual(table.columns.map((c) => [c.name, c.priority]), [['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
  assert.deepEqual(table.row(s, now), ['web', '2/3', '60m', 'nginx', 'nginx:1.27']);
});

test('persistentvolumeclaims: defaults, validation, immutability, table', () => {
  const claim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-web-0', creationTimestamp: '2024-05-01T11:00:00Z' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
  pvc.strategy.defaults?.(claim);
  assert.equal((claim.spec as any).volumeMode, 'Filesystem');
  assert.deepEqual(claim.status, { phase: 'Pending' });
  const check = (obj: KubeObject, old?: KubeObject) => (pvc.strategy.validate?.(obj, old, undefined, { subresource: '', now }) ?? []).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(check(claim), []);
  assert.deepEqual(check({ ...claim, spec: { volumeMode: 'Filesystem' } }), ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
  const bigger = structuredClone(claim);
  (bigger.spec as any).resources.requests.storage = '2Gi';
  assert.deepEqual(check(bigger, claim), ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
  const bound = { ...structuredClone(claim), status: { phase: 'Bound' } };
  assert.deepEqual(check(bigger, bound), []);
  assert.deepEqual(pvc.strategy.table!.row(claim, now), ['data-web-0', 'Pending', '', '', '', '', '<unset>', '60m', 'Filesystem']);
});
