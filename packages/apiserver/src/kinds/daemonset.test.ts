import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { TEMPLATE_GENERATION_ANNOTATION, daemonSetResource } from './daemonset.js';
import type { WriteRequest } from '../registry/resource.js';

const ds = daemonSetResource();
const now = new Date('2024-05-01T12:00:00Z');
const template = { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'fluentd:1.16' }, { name: 'side', image: 'busybox' }] } };

function daemonSet(spec: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' }, spec };
  ds.strategy.defaults?.(obj);
  return obj;
}

function valid(): KubeObject {
  return daemonSet({ selector: { matchLabels: { app: 'agent' } }, template: structuredClone(template) });
}

const req = (subresource = ''): WriteRequest => ({ subresource, now });

function messages(obj: KubeObject, old?: KubeObject, sub = ''): string[] {
  return (ds.strategy.validate?.(obj, old, undefined, req(sub)) ?? []).map((c) => `${c.field}: ${c.message}`);
}

test('daemonset names, storage and subresources', () => {
  assert.equal(ds.group, 'apps');
  assert.equal(ds.kind, 'DaemonSet');
  assert.deepEqual(ds.shortNames, ['ds']);
  assert.deepEqual(ds.categories, ['all']);
  assert.equal(ds.storagePrefix, '/registry/daemonsets');
  assert.deepEqual(ds.subresources, { status: true });
  assert.equal(ds.strategy.generation, true);
});

test('daemonset defaults: RollingUpdate 1/0, revisionHistoryLimit 10, template defaults', () => {
  const spec = valid().spec as Record<string, any>;
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.template.spec.restartPolicy, 'Always');
  assert.equal(spec.template.spec.containers[1].imagePullPolicy, 'Always');
  const onDelete = daemonSet({ updateStrategy: { type: 'OnDelete' }, selector: { matchLabels: { app: 'agent' } }, template: structuredClone(template) });
  assert.deepEqual((onDelete.spec as any).updateStrategy, { type: 'OnDelete' });
  const surge = daemonSet({ updateStrategy: { rollingUpdate: { maxSurge: '10%' } }, selector: { matchLabels: { app: 'agent' } }, template: structuredClone(template) });
  assert.deepEqual((surge.spec as any).updateStrategy.rollingUpdate, { maxSurge: '10%', maxUnavailable: 1 });
});

test('daemonset validation messages', () => {
  assert.deepEqual(messages(valid()), []);
  const noSelector = daemonSet({ template: structuredClone(template) });
  assert.deepEqual(messages(noSelector), ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"agent"}: `selector` does not match template `labels`']);
  const empty = daemonSet({ selector: {}, template: structuredClone(template) });
  assert.deepEqual(messages(empty), [
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
  ]);
  const bad = valid();
  const spec = bad.spec as Record<string, any>;
  spec.template.spec.restartPolicy = 'Never';
  spec.template.spec.activeDeadlineSeconds = 5;
  spec.minReadySeconds = -1;
  spec.revisionHistoryLimit = -2;
  assert.deepEqual(messages(bad), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
    'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
  ]);
});

test('daemonset rolling update parameters: exactly one of maxSurge and maxUnavailable', () => {
  const withRu = (ru: Record<string, unknown>) => {
    const obj = valid();
    (obj.spec as any).updateStrategy = { type: 'RollingUpdate', rollingUpdate: ru };
    return messages(obj);
  };
  const P = 'spec.updateStrategy.rollingUpdate';
  assert.deepEqual(withRu({ maxUnavailable: 0, maxSurge: 0 }), [`${P}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`]);
  assert.deepEqual(withRu({ maxUnavailable: 1, maxSurge: '20%' }), [
    `${P}.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"20%"}: may not be set when maxUnavailable is non-zero`,
  ]);
  assert.deepEqual(withRu({ maxUnavailable: 0, maxSurge: '20%' }), []);
  assert.deepEqual(withRu({ maxUnavailable: '150%', maxSurge: 0 }), [`${P}.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%`]);
  assert.deepEqual(withRu({ maxUnavailable: -1, maxSurge: 'x' }).slice(0, 2), [
    `${P}.maxUnavailable: Invalid value: -1: must be greater than or equal to 0`,
    `${P}.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
  ]);
  const noRu = valid();
  (noRu.spec as any).updateStrategy = { type: 'RollingUpdate', rollingUpdate: null };
  assert.deepEqual(messages(noRu), ['spec.updateStrategy.rollingUpdate: Required value']);
  const other = valid();
  (other.spec as any).updateStrategy = { type: 'Recreate' };
  assert.deepEqual(messages(other), [
    'spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Recreate", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
  ]);
});

test('daemonset selector is immutable; status counters are checked on /status', () => {
  const old = valid();
  const changed = valid();
  (changed.spec as any).selector = { matchLabels: { app: 'agent', tier: 'x' } };
  (changed.spec as any).template.metadata.labels.tier = 'x';
  assert.deepEqual(messages(changed, old), [
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"agent", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  ]);
  const withStatus = valid();
  withStatus.status = { desiredNumberScheduled: -1, numberReady: 2, collisionCount: 1 };
  const oldStatus = valid();
  oldStatus.status = { collisionCount: 2 };
  assert.deepEqual(messages(withStatus, oldStatus, 'status'), [
    'status.desiredNumberScheduled: Invalid value: -1: must be greater than or equal to 0',
    'status.collisionCount: Invalid value: 1: cannot be decremented',
  ]);
});

test('the template generation annotation starts at 1 and grows with each template change', () => {
  const created = valid();
  ds.strategy.admitCreate?.(created, req());
  assert.equal(created.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');

  const sameTemplate = structuredClone(created);
  delete sameTemplate.metadata!.annotations;
  (sameTemplate.spec as any).minReadySeconds = 5;
  ds.strategy.admitUpdate?.(sameTemplate, created, req());
  assert.equal(sameTemplate.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');

  const newImage = structuredClone(created);
  newImage.metadata!.annotations![TEMPLATE_GENERATION_ANNOTATION] = '7';
  (newImage.spec as any).template.spec.containers[0].image = 'fluentd:1.17';
  ds.strategy.admitUpdate?.(newImage, created, req());
  assert.equal(newImage.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');

  const statusWrite = structuredClone(newImage);
  (statusWrite.spec as any).template.spec.containers[0].image = 'other';
  ds.strategy.admitUpdate?.(statusWrite, newImage, req('status'));
  assert.equal(statusWrite.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');
});

test('daemonset table row, wide columns included', () => {
  const obj = valid();
  (obj.spec as any).template.spec.nodeSelector = { role: 'edge', 'kubernetes.io/os': 'linux' };
  obj.status = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2 };
  assert.deepEqual(
    ds.strategy.table?.columns.map((c) => `${c.name}/${c.priority}`),
    ['Name/0', 'Desired/0', 'Current/0', 'Ready/0', 'Up-to-date/0', 'Available/0', 'Node Selector/0', 'Age/0', 'Containers/1', 'Images/1', 'Selector/1'],
  );
  assert.deepEqual(ds.strategy.table?.row(obj, now), ['agent', 3, 3, 2, 1, 2, 'kubernetes.io/os=linux,role=edge', '60m', 'agent,side', 'fluentd:1.16,busybox', 'app=agent']);
  const bare = valid();
  assert.equal(ds.strategy.table?.row(bare, now)[6], '<none>');
});
