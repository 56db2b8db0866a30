import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE, lookupKind, unknownType } from '@kplane/api/protobuf';
import { KUBECTL_BODIES } from '@kplane/api/protobuf/kubectl-fixtures';
import { startTestServer, type TestServer } from '../testing.js';

const NS = '/api/v1/namespaces/default';
const PODS = `${NS}/pods`;
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const NOW = '2025-01-02T03:04:05Z';

const eviction = (name: string, extra: Record<string, unknown> = {}, apiVersion = 'policy/v1') => ({ apiVersion, kind: 'Eviction', metadata: { name, namespace: 'default' }, ...extra });

/** A protobuf body as kubectl sends it: the magic prefix and a runtime.Unknown envelope. */
function protobufBody(apiVersion: string, kind: string, obj: Record<string, unknown>): Uint8Array {
  const type = lookupKind(apiVersion, kind)!;
  const raw = type.encode(type.fromObject(obj)).finish();
  const unknown = unknownType();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish()]);
}

describe('pods/eviction and PodDisruptionBudgets', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ now: () => new Date(NOW) });
  });
  after(() => t.close());

  /** A running pod labelled app=<app>, Ready or not. */
  async function runningPod(name: string, app: string, ready = true): Promise<void> {
    const r = await t.call('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const pod = r.body as any;
    pod.status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
    assert.equal((await t.call('PUT', `${PODS}/${name}/status`, pod)).status, 200);
  }

  /** A budget with the status the disruption controller would have written. */
  async function budget(name: string, spec: Record<string, unknown>, status: Record<string, unknown>): Promise<any> {
    const r = await t.call('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const pdb = r.body as any;
    pdb.status = { observedGeneration: 1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0, ...status };
    const u = await t.call('PUT', `${PDBS}/${name}/status`, pdb);
    assert.equal(u.status, 200, JSON.stringify(u.body));
    return u.body;
  }

  it('validates budgets: minAvailable xor maxUnavailable, percentages, the eviction policy', async () => {
    const bad = await t.call('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'bad' }, spec: { minAvailable: 1, maxUnavailable: '120%', unhealthyPodEvictionPolicy: 'Never', selector: { matchLabels: { a: 'b' } } } });
    assert.equal(bad.status, 422);
    const fields = (bad.body as any).details.causes.map((c: any) => `${c.field}: ${c.message}`);
    assert.ok(fields.some((f: string) => f.startsWith('spec: ') && f.endsWith('minAvailable and maxUnavailable cannot be both set')), fields.join('\n'));
    assert.ok(fields.includes('spec.maxUnavailable: Invalid value: "120%": must not be greater than 100%'), fields.join('\n'));
    assert.ok(fields.includes('spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"'), fields.join('\n'));
    const neg = await budget('neg-ok', { minAvailable: 0, selector: { matchLabels: { a: 'b' } } }, {});
    assert.equal(neg.status.disruptionsAllowed, 0);
    const negStatus = await t.call('PUT', `${PDBS}/neg-ok/status`, { ...neg, status: { ...neg.status, disruptionsAllowed: -1 } });
    assert.equal(negStatus.status, 422);
    assert.equal((negStatus.body as any).details.causes[0].field, 'status.disruptionsAllowed');
  });

  it('lists budgets as kubectl prints them and serves the short name in discovery', async () => {
    await budget('table', { maxUnavailable: '25%', selector: { matchLabels: { app: 'none' } } }, { disruptionsAllowed: 3 });
    const r = await t.call('GET', `${PDBS}/table`, undefined, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    const table = r.body as any;
    assert.deepEqual(table.columnDefinitions.map((c: any) => c.name), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 4), ['table', 'N/A', '25%', 3]);
    const disc = (await t.call('GET', '/apis/policy/v1')).body as any;
    const pdbs = disc.resources.find((x: any) => x.name === 'poddisruptionbudgets');
    assert.deepEqual(pdbs.shortNames, ['pdb']);
    assert.ok(disc.resources.some((x: any) => x.name === 'poddisruptionbudgets/status'));
    const core = (await t.call('GET', '/api/v1')).body as any;
    assert.deepEqual(core.resources.find((x: any) => x.name === 'pods/eviction'), { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  });

  it('refuses with 429 and the DisruptionBudget cause while no disruption is allowed, and evicts once one is', async () => {
    await runningPod('web-1', 'web');
    const pdb = await budget('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }, { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    const refused = await t.call('POST', `${PODS}/web-1/eviction`, eviction('web-1'));
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }] },
      code: 429,
    });
    assert.equal((await t.call('GET', `${PODS}/web-1`)).status, 200);

    await t.call('PUT', `${PDBS}/web/status`, { ...pdb, status: { ...pdb.status, currentHealthy: 2, expectedPods: 2, disruptionsAllowed: 1 } });
    const ok = await t.call('POST', `${PODS}/web-1/eviction`, eviction('web-1'));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal((await t.call('GET', `${PODS}/web-1`)).status, 404);
    const after = (await t.call('GET', `${PDBS}/web`)).body as any;
    assert.equal(after.status.disruptionsAllowed, 0);
    assert.deepEqual(after.status.disruptedPods, { 'web-1': NOW });
    const cond = after.status.conditions.find((c: any) => c.type === 'DisruptionAllowed');
    assert.equal(cond.reason, 'InsufficientPods');
  });

  it('refuses while the budget controller has not observed the latest generation', async () => {
    await runningPod('gen-1', 'gen');
    const pdb = await budget('gen', { minAvailable: 0, selector: { matchLabels: { app: 'gen' } } }, { disruptionsAllowed: 1, currentHealthy: 1, expectedPods: 1 });
    await t.call('PUT', `${PDBS}/gen`, { ...pdb, spec: { ...pdb.spec, minAvailable: 1 } });
    const r = await t.call('POST', `${PODS}/gen-1/eviction`, eviction('gen-1'));
    assert.equal(r.status, 429);
    assert.equal((r.body as any).details.causes[0].message, 'The disruption budget gen is still being processed by the server.');
    assert.equal((r.body as any).details.retryAfterSeconds, 10);
  });

  it('answers 500 when more than one budget covers the pod', async () => {
    await runningPod('two-1', 'two');
    await budget('two-a', { minAvailable: 0, selector: { matchLabels: { app: 'two' } } }, { disruptionsAllowed: 1 });
    await budget('two-b', { maxUnavailable: 1, selector: { matchLabels: { app: 'two' } } }, { disruptionsAllowed: 1 });
    const r = await t.call('POST', `${PODS}/two-1/eviction`, eviction('two-1'));
    assert.equal(r.status, 500);
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
  });

  it('lets an unready pod go under AlwaysAllow without a decrement; IfHealthyBudget needs a healthy budget', async () => {
    await runningPod('sick-1', 'sick', false);
    const pdb = await budget('sick', { minAvailable: 1, selector: { matchLabels: { app: 'sick' } } }, { currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 });
    const refused = await t.call('POST', `${PODS}/sick-1/eviction`, eviction('sick-1'));
    assert.equal(refused.status, 429, 'IfHealthyBudget (the default) with an unhealthy budget');
    await t.call('PUT', `${PDBS}/sick`, { ...pdb, spec: { ...pdb.spec, unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
    const ok = await t.call('POST', `${PODS}/sick-1/eviction`, eviction('sick-1'));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(((await t.call('GET', `${PDBS}/sick`)).body as any).status.disruptedPods, undefined, 'no decrement');
  });

  it('evicts terminal and Pending pods without a budget check; dry-run keeps the pod; a name mismatch is 400', async () => {
    await runningPod('done-1', 'done');
    await budget('done', { minAvailable: 1, selector: { matchLabels: { app: 'done' } } }, {});
    const pod = (await t.call('GET', `${PODS}/done-1`)).body as any;
    await t.call('PUT', `${PODS}/done-1/status`, { ...pod, status: { phase: 'Succeeded' } });
    assert.equal((await t.call('POST', `${PODS}/done-1/eviction`, eviction('done-1'))).status, 201);
    assert.equal((await t.call('GET', `${PODS}/done-1`)).status, 404);

    await t.call('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dry', labels: { app: 'done' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal((await t.call('POST', `${PODS}/dry/eviction?dryRun=All`, eviction('dry'))).status, 201);
    assert.equal((await t.call('GET', `${PODS}/dry`)).status, 200);
    const mismatch = await t.call('POST', `${PODS}/dry/eviction`, eviction('other'));
    assert.equal(mismatch.status, 400);
    assert.equal((mismatch.body as any).message, 'name in URL does not match name in Eviction object');
  });

  it('marks the pod DisruptionTarget before deleting it, honouring the grace period of the Eviction (v1beta1 accepted)', async () => {
    await runningPod('grace-1', 'grace');
    // A pod on a node is deleted gracefully (an unscheduled one at once).
    await t.call('POST', `${PODS}/grace-1/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'grace-1' }, target: { kind: 'Node', name: 'n1' } });
    const r = await t.call('POST', `${PODS}/grace-1/eviction`, eviction('grace-1', { deleteOptions: { gracePeriodSeconds: 30 } }, 'policy/v1beta1'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const pod = (await t.call('GET', `${PODS}/grace-1`)).body as any;
    assert.ok(pod.metadata.deletionTimestamp, 'deleted gracefully');
    const cond = pod.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
    assert.deepEqual({ ...cond, lastProbeTime: undefined }, { type: 'DisruptionTarget', status: 'True', lastProbeTime: undefined, lastTransitionTime: NOW, reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
  });

  it('needs create on pods/eviction (RBAC)', async () => {
    await runningPod('rbac-1', 'rbac');
    const asUser = (user: { username: string; groups: string[] }) =>
      t.server.handle({ method: 'POST', path: `${PODS}/rbac-1/eviction`, query: {}, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(eviction('rbac-1'))), user });
    const bob = { username: 'bob', groups: ['system:authenticated'] };
    const denied = await asUser(bob);
    assert.equal(denied.status, 403);
    assert.equal(JSON.parse(Buffer.from(denied.body ?? []).toString()).message, 'pods "rbac-1" is forbidden: User "bob" cannot create resource "pods/eviction" in API group "" in the namespace "default"');
    await t.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'evict' }, rules: [{ apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] }] });
    await t.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'evict' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'evict' }, subjects: [{ kind: 'User', name: 'bob' }] });
    // The RBAC caches follow their watches.
    await until('bob to be allowed', async () => (await asUser(bob)).status === 201, { intervalMs: 0 });
  });

  it('decodes kubectl protobuf Eviction and DeleteOptions bodies and its captured PodDisruptionBudgets', async () => {
    await runningPod('proto-1', 'proto');
    await runningPod('proto-2', 'proto');
    const send = (method: string, path: string, body: Uint8Array) =>
      t.server.handle({ method, path, query: {}, headers: { 'content-type': KUBERNETES_PROTOBUF_MEDIA_TYPE, accept: 'application/json' }, body });
    const ev = await send('POST', `${PODS}/proto-1/eviction`, protobufBody('policy/v1', 'Eviction', { metadata: { name: 'proto-1', namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 0 } }));
    assert.equal(ev.status, 201, Buffer.from(ev.body ?? []).toString());
    assert.equal((await t.call('GET', `${PODS}/proto-1`)).status, 404);
    const del = await send('DELETE', `${PODS}/proto-2`, protobufBody('v1', 'DeleteOptions', { gracePeriodSeconds: 0 }));
    assert.equal(del.status, 200, Buffer.from(del.body ?? []).toString());
    assert.equal((await t.call('GET', `${PODS}/proto-2`)).status, 404);
    for (const name of ['pdbMin', 'pdbMax']) {
      const r = await send('POST', PDBS, Buffer.from(KUBECTL_BODIES[name]!, 'hex'));
      assert.equal(r.status, 201, `${name}: ${Buffer.from(r.body ?? []).toString()}`);
    }
    const min = (await t.call('GET', `${PDBS}/pdb1`)).body as any;
    assert.equal(min.spec.minAvailable, '50%');
  });
});
