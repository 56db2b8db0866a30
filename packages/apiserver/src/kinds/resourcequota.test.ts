import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { priorityClassResource, systemPriorityClasses } from './priorityclass.js';
import { limitRangeResource, resourceQuotaResource } from './resourcequota.js';

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:58:30Z';

test('resourcequotas: kubectl\'s columns, requests and limits split, sorted, used defaulting to 0', () => {
  const rq = resourceQuotaResource();
  assert.deepEqual(rq.strategy.table?.columns.map((c) => c.name), ['Name', 'Age', 'Request', 'Limit']);
  const q: KubeObject = {
    metadata: { name: 'compute', creationTimestamp: created },
    spec: {},
    status: { hard: { pods: '3', 'requests.cpu': '1', 'limits.memory': '1Gi', 'limits.cpu': '2' }, used: { pods: '1', 'limits.cpu': '500m' } },
  };
  assert.deepEqual(rq.strategy.table?.row(q, now), ['compute', '90s', 'pods: 1/3, requests.cpu: 0/1', 'limits.cpu: 500m/2, limits.memory: 0/1Gi']);
  assert.equal(rq.shortNames?.[0], 'quota');
  assert.equal(rq.strategy.returnDeletedObject, true);
});

test('resourcequotas: negative quantities, unknown and conflicting scopes are invalid', () => {
  const v = (spec: object) => resourceQuotaResource().strategy.validate!({ metadata: { name: 'q' }, spec }, undefined).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(v({ hard: { pods: '-1' } }), ['spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0']);
  assert.equal(v({ scopes: ['Sometimes'] }).length, 1);
  assert.equal(v({ scopes: ['BestEffort', 'NotBestEffort'] }).length, 1);
  assert.deepEqual(v({ hard: { pods: '3' }, scopes: ['Terminating'] }), []);
});

test('limitranges: Created At column; a Container item is defaulted from max, default and min', () => {
  const lr = limitRangeResource();
  assert.deepEqual(lr.strategy.table?.row({ metadata: { name: 'l', creationTimestamp: created } }, now), ['l', created]);
  const o: KubeObject = { metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '10Mi' } }, { type: 'Pod', max: { cpu: '4' } }] } };
  lr.strategy.defaults!(o);
  const [c, p] = (o.spec as { limits: Record<string, unknown>[] }).limits;
  assert.deepEqual(c!.default, { cpu: '2' });
  assert.deepEqual(c!.defaultRequest, { cpu: '2', memory: '10Mi' });
  assert.equal(p!.default, undefined);
  const bad = lr.strategy.validate!({ metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' }, min: { cpu: '2' } }] } }, undefined);
  assert.equal(`${bad[0]?.field}: ${bad[0]?.message}`, 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1');
});

test('priorityclasses: columns, the system classes, value immutable', () => {
  const pc = priorityClassResource();
  assert.deepEqual(pc.strategy.table?.columns.map((c) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
  const [node, cluster] = systemPriorityClasses();
  assert.equal(node?.metadata?.name, 'system-node-critical');
  assert.equal((node as { value?: number }).value, 2000001000);
  assert.equal((cluster as { value?: number }).value, 2000000000);
  assert.deepEqual(pc.strategy.table?.row({ ...cluster!, metadata: { name: 'system-cluster-critical', creationTimestamp: created } }, now), ['system-cluster-critical', 2000000000, false, '90s', 'PreemptLowerPriority']);
  assert.deepEqual(pc.strategy.validate!(cluster!, undefined), []);
  const old = { metadata: { name: 'x' }, value: 1, preemptionPolicy: 'Never' } as KubeObject;
  const msgs = pc.strategy.validate!({ ...old, value: 2 } as KubeObject, old).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(msgs, ['value: Forbidden: may not be changed in an update.']);
});
