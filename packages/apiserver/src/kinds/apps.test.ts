import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { deploymentResource, replicaSetResource } from './apps.js';

const deploy = deploymentResource();
const rs = replicaSetResource();
const now = new Date('2024-05-01T12:00:00Z');

function deployment(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' }, spec };
}

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };

function messages(obj: KubeObject, old?: KubeObject, r = deploy): string[] {
  return (r.strategy.validate?.(obj, old) ?? []).map((c) => `${c.field}: ${c.message}`);
}

test('deployment names, storage and scale subresource', () => {
  assert.equal(deploy.group, 'apps');
  assert.deepEqual(deploy.shortNames, ['deploy']);
  assert.equal(deploy.storagePrefix, '/registry/deployments');
  assert.deepEqual(deploy.subresources?.scale, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' });
  assert.equal(deploy.strategy.generation, true);
  assert.deepEqual(rs.shortNames, ['rs']);
  assert.equal(rs.storagePrefix, '/registry/replicasets');
});

test('deployment defaults', () => {
  const d = deployment({ selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  deploy.strategy.defaults?.(d);
  const spec = d.spec as Record<string, any>;
  assert.equal(spec.replicas, 1);
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  assert.equal(spec.template.spec.restartPolicy, 'Always');
  assert.equal(spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
  assert.equal(spec.template.spec.enableServiceLinks, undefined);
  const recreate = deployment({ strategy: { type: 'Recreate' }, selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  deploy.strategy.defaults?.(recreate);
  assert.deepEqual((recreate.spec as any).strategy, { type: 'Recreate' });
  assert.deepEqual(messages(recreate), []);
});

test('deployment validation messages', () => {
  const ok = deployment({ selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  deploy.strategy.defaults?.(ok);
  assert.deepEqual(messages(ok), []);

  const mismatch = deployment({ selector: { matchLabels: { app: 'x' } }, template: { ...structuredClone(template), metadata: { labels: { app: 'y' } } } });
  deploy.strategy.defaults?.(mismatch);
  assert.deepEqual(messages(mismatch), ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`']);

  const noSelector = deployment({ template: structuredClone(template) });
  deploy.strategy.defaults?.(noSelector);
  assert.deepEqual(messages(noSelector), [
    'spec.selector: Required value',
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
  ]);

  const negative = deployment({ replicas: -1, selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  deploy.strategy.defaults?.(negative);
  assert.deepEqual(messages(negative), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);

  const never = deployment({ selector: { matchLabels: { app: 'web' } }, template: { ...structuredClone(template), spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'b' }] } } });
  deploy.strategy.defaults?.(never);
  assert.deepEqual(messages(never), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);

  const empty = deployment({ selector: {}, template: structuredClone(template) });
  deploy.strategy.defaults?.(empty);
  assert.deepEqual(messages(empty), ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment']);
});

test('the selector is immutable on update', () => {
  const old = deployment({ selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  deploy.strategy.defaults?.(old);
  const next = structuredClone(old);
  (next.spec as any).selector = { matchLabels: { app: 'web', tier: 'x' } };
  (next.spec as any).template.metadata.labels.tier = 'x';
  assert.deepEqual(messages(next, old), [
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  ]);
});

test('deployment and replicaset table rows', () => {
  const d = deployment({ replicas: 3, selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) });
  d.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
  assert.deepEqual(deploy.strategy.table?.row(d, now), ['web', '2/3', 3, 2, '60m', 'nginx', 'nginx:1.27', 'app=web']);
  assert.deepEqual(deploy.strategy.table?.columns.map((c) => c.name), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
  const r: KubeObject = { ...d, kind: 'ReplicaSet', status: { replicas: 3, readyReplicas: 1 } };
  assert.deepEqual(rs.strategy.table?.row(r, now), ['web', 3, 3, 1, '60m', 'nginx', 'nginx:1.27', 'app=web']);
  assert.equal(rs.strategy.fieldSelectors?.['status.replicas']?.(r), '3');
});

test('replicaset defaults and validation', () => {
  const r: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) } };
  rs.strategy.defaults?.(r);
  assert.equal((r.spec as any).replicas, 1);
  assert.deepEqual(messages(r, undefined, rs), []);
});
