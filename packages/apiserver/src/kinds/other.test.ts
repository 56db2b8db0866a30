import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { crdResource } from './crd.js';
import { coreToEventsV1, eventResource, eventsV1Resource, eventsV1ToCore } from './events.js';
import { ingressResource } from './ingress.js';
import { leaseResource } from './lease.js';
import { rbacResources } from './rbac.js';

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:58:30Z';
type R = { strategy: { validate?: (o: KubeObject, old?: KubeObject) => { field?: string; message?: string }[] } };
const msgs = (r: R, o: KubeObject, old?: KubeObject) => (r.strategy.validate?.(o, old) ?? []).map((c) => `${c.field}: ${c.message}`);

test('core events: table and field selectors', () => {
  const ev = eventResource();
  assert.equal(ev.storagePrefix, '/registry/events');
  const e: KubeObject = {
    metadata: { name: 'web.1', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', fieldPath: 'spec.containers{a}' },
    reason: 'Scheduled',
    message: ' Successfully assigned ',
    type: 'Normal',
    source: { component: 'default-scheduler' },
    firstTimestamp: '2024-05-01T11:50:00Z',
    lastTimestamp: created,
    count: 3,
  };
  assert.deepEqual(ev.strategy.table?.row(e, now), ['90s', 'Normal', 'Scheduled', 'pod/web', 'spec.containers{a}', 'default-scheduler', 'Successfully assigned', '10m', 3, 'web.1']);
  assert.deepEqual(ev.strategy.table?.columns.map((c) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
  const f = ev.strategy.fieldSelectors!;
  assert.equal(f['involvedObject.kind']!(e), 'Pod');
  assert.equal(f['involvedObject.uid']!(e), 'u1');
  assert.equal(f.reason!(e), 'Scheduled');
  assert.equal(f.source!(e), 'default-scheduler');
  assert.equal(f.type!(e), 'Normal');
});

test('events.k8s.io: conversion both ways, selectors, validation', () => {
  const v1 = eventsV1Resource();
  const e: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'x' },
    eventTime: '2024-05-01T11:58:30.000000Z',
    regarding: { kind: 'Deployment', name: 'web' },
    note: 'Scaled up',
    reason: 'ScalingReplicaSet',
    reportingController: 'deployment-controller',
    reportingInstance: 'kplane',
    action: 'Scale',
    type: 'Normal',
  };
  const core = eventsV1ToCore(e);
  assert.equal(core.apiVersion, 'v1');
  assert.deepEqual(core.involvedObject, { kind: 'Deployment', name: 'web' });
  assert.equal(core.message, 'Scaled up');
  assert.equal(core.reportingComponent, 'deployment-controller');
  assert.deepEqual(coreToEventsV1(core), e);
  assert.equal(v1.strategy.fieldSelectors?.['regarding.kind']?.(e), 'Deployment');
  assert.equal(v1.strategy.fieldSelectors?.reportingController?.(e), 'deployment-controller');
  assert.deepEqual(msgs(v1, e), []);
  assert.deepEqual(msgs(v1, { metadata: { name: 'y' }, type: 'Bad', eventTime: created, reportingController: 'c', reportingInstance: 'i', action: 'a', reason: 'r' }), [
    'type: Unsupported value: "Bad": supported values: "Normal", "Warning"',
  ]);
  assert.equal(v1.strategy.table?.row(e, now)[3], 'deployment/web');
});

test('leases: table and validation', () => {
  const l = leaseResource();
  assert.equal(l.strategy.generation, false);
  assert.deepEqual(l.strategy.table?.row({ metadata: { name: 'n1', creationTimestamp: created }, spec: { holderIdentity: 'n1' } }, now), ['n1', 'n1', '90s']);
  assert.deepEqual(msgs(l, { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0 } }), ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);
});

test('ingresses: table and validation', () => {
  const ing = ingressResource();
  assert.equal(ing.storagePrefix, '/registry/ingress');
  assert.deepEqual(ing.shortNames, ['ing']);
  const o: KubeObject = {
    metadata: { name: 'web', creationTimestamp: created },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'] }],
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
    status: { loadBalancer: { ingress: [{ ip: '192.168.1.5' }] } },
  };
  assert.deepEqual(msgs(ing, o), []);
  assert.deepEqual(ing.strategy.table?.row(o, now), ['web', 'nginx', 'a.example.com', '192.168.1.5', '80, 443', '90s']);
  const bad: KubeObject = { metadata: { name: 'b' }, spec: { rules: [{ http: { paths: [{ path: 'x', backend: { service: { name: 'web', port: {} } } }] } }] } };
  assert.deepEqual(msgs(ing, bad), [
    'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    'spec.rules[0].http.paths[0].backend: Required value: port name or number is required',
  ]);
});

test('customresourcedefinitions: defaults, storedVersions, validation, table', async () => {
  const crd = crdResource();
  assert.deepEqual(crd.shortNames, ['crd', 'crds']);
  assert.equal(crd.namespaced, false);
  const o: KubeObject = {
    metadata: { name: 'widgets.example.com', creationTimestamp: '2024-05-01T11:00:00.123Z' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
  };
  crd.strategy.defaults?.(o);
  assert.equal((o.spec as any).names.singular, 'widget');
  assert.equal((o.spec as any).names.listKind, 'WidgetList');
  assert.deepEqual((o.spec as any).conversion, { strategy: 'None' });
  await crd.strategy.prepareForCreate?.(o, {});
  assert.deepEqual(o.status, { storedVersions: ['v1'] });
  assert.deepEqual(msgs(crd, o), []);
  assert.deepEqual(crd.strategy.table?.row(o, now), ['widgets.example.com', '2024-05-01T11:00:00Z']);
  assert.deepEqual(crd.strategy.table?.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
  const bad = structuredClone(o);
  bad.metadata!.name = 'gadgets.example.com';
  (bad.spec as any).scope = 'Global';
  assert.deepEqual(msgs(crd, bad), [
    'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
  ]);
});

test('rbac: names, defaults, validation and tables', () => {
  const [roles, clusterroles, rolebindings, clusterrolebindings] = rbacResources();
  assert.deepEqual([roles!.storagePrefix, clusterroles!.storagePrefix, rolebindings!.storagePrefix, clusterrolebindings!.storagePrefix], [
    '/registry/roles', '/registry/clusterroles', '/registry/rolebindings', '/registry/clusterrolebindings',
  ]);
  assert.equal(clusterroles!.namespaced, false);
  assert.equal(rolebindings!.singular, 'rolebinding');
  assert.deepEqual(msgs(roles!, { metadata: { name: 'r' }, rules: [{ resources: ['pods'] }, { nonResourceURLs: ['/healthz'], verbs: ['get'] }] }), [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
  ]);
  const rb: KubeObject = {
    metadata: { name: 'rb', creationTimestamp: created },
    roleRef: { kind: 'Role', name: 'r' },
    subjects: [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default', namespace: 'dev' }, { kind: 'Group', name: 'devs' }],
  };
  rolebindings!.strategy.defaults?.(rb);
  assert.equal((rb.roleRef as any).apiGroup, 'rbac.authorization.k8s.io');
  assert.equal((rb.subjects as any)[0].apiGroup, 'rbac.authorization.k8s.io');
  assert.equal((rb.subjects as any)[1].apiGroup, '');
  assert.deepEqual(msgs(rolebindings!, rb), []);
  assert.deepEqual(rolebindings!.strategy.table?.row(rb, now), ['rb', 'Role/r', '90s', 'alice', 'devs', 'dev/default']);
  const changed = structuredClone(rb);
  (changed.roleRef as any).name = 'other';
  assert.deepEqual(msgs(rolebindings!, changed, rb), ['roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef']);
  const crb: KubeObject = { metadata: { name: 'c' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'x' }] };
  clusterrolebindings!.strategy.defaults?.(crb);
  assert.deepEqual(msgs(clusterrolebindings!, crb), [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'subjects[0].namespace: Required value',
  ]);
});
