import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing.js';
import { storageVersionHash } from './discovery.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('compatibility with kube-apiserver', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('reads bool query parameters as kube-apiserver converts them: watch=True watches, only 0 and false are false', async () => {
    for (const spelling of ['True', 'TRUE', '1', 't', '']) {
      const abort = new AbortController();
      const r = await t.raw('GET', CM, { watch: spelling }, {}, abort.signal);
      assert.equal(r.status, 200, spelling);
      assert.ok(r.stream, `watch=${JSON.stringify(spelling)} must watch`);
      abort.abort();
    }
    for (const spelling of ['false', 'False', 'FALSE', '0']) {
      const r = await t.call('GET', `${CM}?watch=${spelling}`);
      assert.equal(r.body.kind, 'ConfigMapList', spelling);
    }
  });

  it('writes error Status bodies byte for byte as kube-apiserver does', async () => {
    const r = await t.raw('GET', `${CM}/missing`);
    assert.equal(r.status, 404);
    assert.equal(
      Buffer.from(r.body!).toString('utf8'),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}\n',
    );
    const del = await t.raw('GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    assert.equal(
      Buffer.from(del.body!).toString('utf8'),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","group":"apps","kind":"deployments"},"code":404}\n',
    );
  });

  it('writes a DELETE Success Status as kube-apiserver does', async () => {
    assert.equal((await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' } })).status, 201);
    const r = await t.server.handle({ method: 'DELETE', path: `${CM}/gone`, query: {}, headers: {} });
    const text = Buffer.from(r.body!).toString('utf8');
    assert.match(text, /^\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Success","details":\{"name":"gone","kind":"configmaps","uid":"[0-9a-f-]{36}"\}\}\n$/);
  });

  it('takes an update with resourceVersion "0" or none as unconditional for Nodes', async () => {
    assert.equal((await t.call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })).status, 201);
    const zero = await t.call('PUT', '/api/v1/nodes/n1', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', resourceVersion: '0', labels: { a: '1' } } });
    assert.equal(zero.status, 200, JSON.stringify(zero.body));
    assert.deepEqual(zero.body.metadata.labels, { a: '1' });
    assert.notEqual(zero.body.metadata.resourceVersion, '0');
    const none = await t.call('PUT', '/api/v1/nodes/n1', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { a: '2' } } });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.metadata.labels, { a: '2' });
  });

  it('refuses an update without a resourceVersion where the kind does not allow it (CustomResourceDefinitions), as kube-apiserver does', async () => {
    const crd = {
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
    assert.equal((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const r = await t.call('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com', { ...crd, metadata: { ...crd.metadata, resourceVersion: '0' } });
    assert.equal(r.status, 422);
    assert.equal(r.body.message, 'customresourcedefinitions.apiextensions.k8s.io "widgets.example.com" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    assert.deepEqual(r.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }]);
  });

  it('replaces a pod from its manifest: defaults and update admission run before validation, as in kube-apiserver', async () => {
    const POD = '/api/v1/namespaces/default/pods';
    const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
    const created = await t.call('POST', POD, manifest);
    assert.equal(created.status, 201);
    // The manifest as written, with only what admission chose at create that it never redoes on
    // update (the service account), and a new image: priority and tolerations are kept.
    const replaced = await t.call('PUT', `${POD}/web`, { ...manifest, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'nginx:2' }] } });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.equal(replaced.body.spec.containers[0].image, 'nginx:2');
    for (const k of ['priority', 'preemptionPolicy', 'tolerations', 'serviceAccount', 'dnsPolicy', 'restartPolicy']) assert.deepEqual(replaced.body.spec[k], created.body.spec[k], k);
    assert.equal(replaced.body.spec.containers[0].terminationMessagePath, '/dev/termination-log');
    // Without the service account, as kube-apiserver: only the image and a few fields may change.
    const bare = await t.call('PUT', `${POD}/web`, manifest);
    assert.equal(bare.status, 422);
    assert.match(bare.body.message, /pod updates may not change fields other than/);
  });

  it('gives a created Service the defaulted status.loadBalancer', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, { loadBalancer: {} });
  });

  it('shows kube-apiserver storageVersionHash values in discovery', async () => {
    // Values kube-apiserver 1.32 shows.
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
    const core = (await t.call('GET', '/api/v1')).body.resources as { name: string; storageVersionHash?: string }[];
    assert.equal(core.find((r) => r.name === 'configmaps')?.storageVersionHash, 'qFsyl6wFWjQ=');
    assert.equal(core.find((r) => r.name === 'events')?.storageVersionHash, 'r2yiGXH7wu8=');
    assert.equal(core.find((r) => r.name === 'pods/status')?.storageVersionHash, undefined);
    for (const r of core.filter((x) => !x.name.includes('/'))) assert.match(r.storageVersionHash ?? '', /^[A-Za-z0-9+/]{11}=$/, r.name);
    const apiservices = (await t.call('GET', '/apis/apiregistration.k8s.io/v1')).body.resources as { name: string; storageVersionHash?: string }[];
    assert.equal(apiservices.find((r) => r.name === 'apiservices')?.storageVersionHash, 'InPBPD7+PqM=');
    const events = (await t.call('GET', '/apis/events.k8s.io/v1')).body.resources as { name: string; storageVersionHash?: string }[];
    // events.k8s.io/v1 Events are stored as core/v1 Events.
    assert.equal(events.find((r) => r.name === 'events')?.storageVersionHash, 'r2yiGXH7wu8=');
  });
});
