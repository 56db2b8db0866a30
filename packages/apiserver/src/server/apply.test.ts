import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing.js';

const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

function deploy(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...spec,
    },
  };
}

describe('server-side apply and managedFields', () => {
  let t: TestServer;
  before(async () => {
    // One fixed second: entries of a second are ordered by manager name, as Kubernetes orders them.
    t = await startTestServer({ now: () => new Date('2026-01-01T00:00:00Z') });
  });
  after(async () => {
    await t.close();
  });

  it('records an Update entry on create, with the manager from the User-Agent', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ua', labels: { a: 'b' } }, data: { k: 'v' } }, { 'user-agent': 'kubectl-create/v1.32.0 (linux/amd64) kubernetes/abc' });
    assert.equal(r.status, 201);
    assert.equal(r.body.metadata.managedFields.length, 1);
    const e = r.body.metadata.managedFields[0];
    assert.equal(e.manager, 'kubectl-create');
    assert.equal(e.operation, 'Update');
    assert.equal(e.apiVersion, 'v1');
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(e.fieldsType, 'FieldsV1');
    assert.deepEqual(e.fieldsV1, { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
    assert.deepEqual(Object.keys(e), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  it('a patch by another manager adds its own entry; fieldManager wins over the User-Agent', async () => {
    const r = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/ua', { data: { k2: 'v' } }, { 'content-type': 'application/merge-patch+json', 'user-agent': 'x/1' }, { fieldManager: 'patcher' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.metadata.managedFields.map((e: { manager: string }) => e.manager), ['kubectl-create', 'patcher']);
    assert.deepEqual(r.body.metadata.managedFields[1].fieldsV1, { 'f:data': { 'f:k2': {} } });
  });

  it('creates by apply (201) and applies again (200) with one Apply entry', async () => {
    const created = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replicas: 2 }), APPLY, { fieldManager: 'alice' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.replicas, 2);
    assert.equal(created.body.spec.strategy.type, 'RollingUpdate');
    const [entry] = created.body.metadata.managedFields;
    assert.equal(entry.manager, 'alice');
    assert.equal(entry.operation, 'Apply');
    assert.ok(entry.fieldsV1['f:spec']['f:replicas']);
    assert.equal(entry.fieldsV1['f:spec']['f:strategy'], undefined);
    const again = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replicas: 3 }), APPLY, { fieldManager: 'alice' });
    assert.equal(again.status, 200);
    assert.equal(again.body.spec.replicas, 3);
    assert.equal(again.body.metadata.managedFields.length, 1);
  });

  it('an identical apply writes nothing: same resourceVersion', async () => {
    const a = await t.call('PATCH', `${DEPLOYS}/same`, deploy('same', { replicas: 1 }), APPLY, { fieldManager: 'alice' });
    const b = await t.call('PATCH', `${DEPLOYS}/same`, deploy('same', { replicas: 1 }), APPLY, { fieldManager: 'alice' });
    assert.equal(b.status, 200);
    assert.equal(b.body.metadata.resourceVersion, a.body.metadata.resourceVersion);
  });

  it('answers a conflict with 409 and its causes; force takes ownership', async () => {
    const scaled = await t.call('PATCH', `${DEPLOYS}/web`, { spec: { replicas: 5 } }, { 'content-type': 'application/merge-patch+json', 'user-agent': 'kubectl-scale/v1.32.0' });
    assert.equal(scaled.status, 200);
    const refused = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replicas: 3 }), APPLY, { fieldManager: 'alice' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.reason, 'Conflict');
    assert.equal(refused.body.message, 'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas');
    assert.deepEqual(refused.body.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-scale" using apps/v1', field: '.spec.replicas' }] });
    const forced = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replicas: 3 }), APPLY, { fieldManager: 'alice', force: 'true' });
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.replicas, 3);
    assert.ok(!forced.body.metadata.managedFields.some((e: { manager: string }) => e.manager === 'kubectl-scale'));
  });

  it('requires fieldManager for apply, refuses force on other patches, and checks the apply version', async () => {
    const noManager = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web'), APPLY);
    assert.equal(noManager.status, 422);
    assert.equal(noManager.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const force = await t.call('PATCH', `${DEPLOYS}/web`, { spec: {} }, { 'content-type': 'application/merge-patch+json' }, { force: 'true' });
    assert.equal(force.status, 422);
    assert.equal(force.body.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const version = await t.call('PATCH', `${DEPLOYS}/web`, { ...deploy('web'), apiVersion: 'apps/v1beta1' }, APPLY, { fieldManager: 'a' });
    assert.equal(version.status, 400);
    assert.equal(version.body.message, 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1');
    const withManaged = await t.call('PATCH', `${DEPLOYS}/web`, { ...deploy('web'), metadata: { name: 'web', managedFields: [] } }, APPLY, { fieldManager: 'a' });
    assert.equal(withManaged.status, 400);
    assert.equal(withManaged.body.message, 'metadata.managedFields must be nil');
  });

  it('refuses fields the schema does not declare, as a typed patch object error', async () => {
    const r = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replica: 3 }), APPLY, { fieldManager: 'alice' });
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.replica: field not declared in schema');
  });

  it('honours dryRun=All on apply', async () => {
    const dry = await t.call('PATCH', `${DEPLOYS}/dry`, deploy('dry'), APPLY, { fieldManager: 'a', dryRun: 'All' });
    assert.equal(dry.status, 201);
    assert.equal((await t.call('GET', `${DEPLOYS}/dry`)).status, 404);
    const dry2 = await t.call('PATCH', `${DEPLOYS}/web`, deploy('web', { replicas: 9 }), APPLY, { fieldManager: 'alice', dryRun: 'All' });
    assert.equal(dry2.body.spec.replicas, 9);
    assert.equal((await t.call('GET', `${DEPLOYS}/web`)).body.spec.replicas, 3);
  });

  it('applies to the status and scale subresources with their own entries', async () => {
    const st = await t.call('PATCH', `${DEPLOYS}/web/status`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { observedGeneration: 1 } }, APPLY, { fieldManager: 'ctl' });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal(st.body.status.observedGeneration, 1);
    const e = st.body.metadata.managedFields.find((x: { manager: string }) => x.manager === 'ctl');
    assert.equal(e.subresource, 'status');
    assert.deepEqual(e.fieldsV1, { 'f:status': { 'f:observedGeneration': {} } });
    const sc = await t.call('PATCH', `${DEPLOYS}/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } }, APPLY, { fieldManager: 'hpa' });
    assert.equal(sc.status, 409);
    assert.equal(sc.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    const forced = await t.call('PATCH', `${DEPLOYS}/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } }, APPLY, { fieldManager: 'hpa', force: 'true' });
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.replicas, 4);
    const d = (await t.call('GET', `${DEPLOYS}/web`)).body;
    const hpa = d.metadata.managedFields.find((x: { manager: string }) => x.manager === 'hpa');
    assert.equal(hpa.subresource, 'scale');
    assert.deepEqual(hpa.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  });

  it('an update keeps the live managedFields when the body has none, and [] strips them', async () => {
    const live = (await t.call('GET', '/api/v1/namespaces/default/configmaps/ua')).body;
    const { managedFields: _m, ...meta } = live.metadata;
    const kept = await t.call('PUT', '/api/v1/namespaces/default/configmaps/ua', { ...live, metadata: meta, data: { ...live.data, k3: 'x' } }, { 'user-agent': 'kubectl-edit/v1' });
    // Same second: ordered by manager name, as Kubernetes orders them.
    assert.deepEqual(kept.body.metadata.managedFields.map((e: { manager: string }) => e.manager), ['kubectl-create', 'kubectl-edit', 'patcher']);
    // As kube-apiserver: a reset leaves the object untracked, and later updates do not track it.
    const reset = await t.call('PUT', '/api/v1/namespaces/default/configmaps/ua', { ...kept.body, metadata: { ...kept.body.metadata, managedFields: [] }, data: { k: 'changed' } }, { 'user-agent': 'kubectl-edit/v1' });
    assert.equal(reset.body.metadata.managedFields, undefined);
    const untracked = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/ua', { data: { k2: 'v2' } }, { 'content-type': 'application/merge-patch+json' }, { fieldManager: 'patcher' });
    assert.equal(untracked.body.metadata.managedFields, undefined);
    // The first apply gives every field it finds to before-first-apply.
    const applied = await t.call('PATCH', '/api/v1/namespaces/default/configmaps/ua', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ua' }, data: { mine: 'x' } }, APPLY, { fieldManager: 'alice' });
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.deepEqual(
      applied.body.metadata.managedFields.map((e: { manager: string; operation: string; fieldsV1: unknown }) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['alice', 'Apply', { 'f:data': { 'f:mine': {} } }],
        ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:k': {}, 'f:k2': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
      ],
    );
  });

  it('writes of the server itself are recorded as kube-apiserver; a binding leaves managedFields as they were', async () => {
    const ns = await t.call('GET', '/api/v1/namespaces/default');
    assert.deepEqual(ns.body.metadata.managedFields.map((e: { manager: string }) => e.manager), ['kube-apiserver']);
    const pod = await t.call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bound' }, spec: { containers: [{ name: 'c', image: 'x' }] } }, { 'user-agent': 'kubectl-run/v1.32.0' });
    assert.equal(pod.status, 201);
    const bound = await t.call('POST', '/api/v1/namespaces/default/pods/bound/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'n1' } }, { 'user-agent': 'kube-scheduler/v1.32.0' });
    assert.equal(bound.status, 201, JSON.stringify(bound.body));
    const after = await t.call('GET', '/api/v1/namespaces/default/pods/bound');
    assert.equal(after.body.spec.nodeName, 'n1');
    assert.deepEqual(after.body.metadata.managedFields, pod.body.metadata.managedFields);
  });

  it('discriminated unions get no special treatment (as kube 1.32): a Recreate strategy needs rollingUpdate: null', async () => {
    const mk = (strategy?: Record<string, unknown>) => deploy('union', strategy ? { strategy } : {});
    assert.equal((await t.call('PATCH', `${DEPLOYS}/union`, mk(), APPLY, { fieldManager: 'alice' })).status, 201);
    // The defaulted rollingUpdate stays: the object is invalid.
    const refused = await t.call('PATCH', `${DEPLOYS}/union`, mk({ type: 'Recreate' }), APPLY, { fieldManager: 'alice' });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.message, "Deployment.apps \"union\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    // An applied null removes it, and the applier owns it.
    const recreate = await t.call('PATCH', `${DEPLOYS}/union`, mk({ type: 'Recreate', rollingUpdate: null }), APPLY, { fieldManager: 'alice' });
    assert.equal(recreate.status, 200, JSON.stringify(recreate.body));
    assert.deepEqual(recreate.body.spec.strategy, { type: 'Recreate' });
    const entry = recreate.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'alice');
    assert.deepEqual(entry.fieldsV1['f:spec']['f:strategy'], { 'f:rollingUpdate': {}, 'f:type': {} });
  });
});
