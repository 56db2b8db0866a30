import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, until } from '@kplane/api/testing';
import { startTestServer, type TestServer } from '../testing.js';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

const widgetsCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

describe('APIServices', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('lists one Local, Available APIService per served built-in group/version, as kube-apiserver does', async () => {
    const r = await t.call('GET', APISERVICES);
    assert.equal(r.status, 200);
    const byName = new Map((r.body.items as any[]).map((o) => [o.metadata.name, o]));
    for (const name of ['v1.', 'v1.apps', 'v1.coordination.k8s.io', 'v1.rbac.authorization.k8s.io', 'v1.apiextensions.k8s.io']) assert.ok(byName.has(name), name);
    // As kube-apiserver: none for the aggregator's own group.
    assert.equal(byName.has('v1.apiregistration.k8s.io'), false);
    const apps = byName.get('v1.apps');
    assert.deepEqual(apps.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.deepEqual(byName.get('v1.').spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    const [cond] = apps.status.conditions;
    assert.deepEqual({ ...cond, lastTransitionTime: undefined }, { type: 'Available', status: 'True', lastTransitionTime: undefined, reason: 'Local', message: 'Local APIServices are always available' });
    const table = await t.call('GET', `${APISERVICES}/v1.apps`, undefined, TABLE);
    assert.deepEqual(table.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Service', 'Available', 'Age']);
    assert.deepEqual(table.body.rows[0].cells.slice(0, 3), ['v1.apps', 'Local', 'True']);
  });

  it("registers a CRD's group/versions while it serves them", async () => {
    assert.equal((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetsCRD)).status, 201);
    const svc = await eventually('the APIService registered', async () => {
      const r = await t.call('GET', `${APISERVICES}/v1.example.com`);
      return r.status === 200 ? r.body : undefined;
    }, { intervalMs: 0 });
    assert.deepEqual(svc.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    assert.deepEqual(svc.spec, { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.ok([200, 202].includes((await t.call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status));
    await until('the APIService removed', async () => (await t.call('GET', `${APISERVICES}/v1.example.com`)).status === 404, { intervalMs: 0 });
  });

  it('stores APIServices clients create, Local ones Available, and validates them as kube-aggregator', async () => {
    const local = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.example.org' }, spec: { group: 'example.org', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 10 } };
    const created = await t.call('POST', APISERVICES, local);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status.conditions[0].type, 'Available');
    const remote = await t.call('POST', APISERVICES, {
      ...local,
      metadata: { name: 'v1.metrics.example.org' },
      spec: { group: 'metrics.example.org', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'kube-system', name: 'metrics' } },
    });
    assert.equal(remote.status, 201);
    assert.equal(remote.body.spec.service.port, 443);
    assert.equal(remote.body.status.conditions, undefined);
    const table = await t.call('GET', `${APISERVICES}/v1.metrics.example.org`, undefined, TABLE);
    assert.deepEqual(table.body.rows[0].cells.slice(0, 3), ['v1.metrics.example.org', 'kube-system/metrics', 'Unknown']);

    const bad = await t.call('POST', APISERVICES, { ...local, metadata: { name: 'wrong' }, spec: { ...local.spec, versionPriority: 0 } });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'APIService.apiregistration.k8s.io "wrong" is invalid: [metadata.name: Invalid value: "wrong": must be `spec.version+"."+spec.group`: "v1beta1.example.org", spec.versionPriority: Invalid value: 0: must be positive and less than 1000]',
    );
    // No unconditional update: a resourceVersion is required.
    const put = await t.call('PUT', `${APISERVICES}/v1beta1.example.org`, { ...local, spec: { ...local.spec, versionPriority: 11 } });
    assert.equal(put.status, 422);
    assert.match(put.body.message, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
  });
});
