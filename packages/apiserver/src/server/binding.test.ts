import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing.js';

const PODS = '/api/v1/namespaces/default/pods';

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...meta },
  target: { apiVersion: 'v1', kind: 'Node', name: node },
});

describe('pods/binding', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ now: () => new Date('2025-01-02T03:04:05Z') });
  });
  after(async () => {
    await t.close();
  });

  it('sets spec.nodeName once and adds PodScheduled=True', async () => {
    const created = await t.call('POST', PODS, pod('p1'));
    assert.equal(created.status, 201);
    const r = await t.call('POST', `${PODS}/p1/binding`, binding('p1', 'node-a', { uid: created.body.metadata.uid, annotations: { 'x/y': 'z' } }));
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = await t.call('GET', `${PODS}/p1`);
    assert.equal(got.body.spec.nodeName, 'node-a');
    assert.equal(got.body.metadata.annotations['x/y'], 'z');
    assert.ok(Number(got.body.metadata.resourceVersion) > Number(created.body.metadata.resourceVersion));
    const cond = got.body.status.conditions.find((c: any) => c.type === 'PodScheduled');
    assert.deepEqual(cond, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:05Z' });

    const again = await t.call('POST', `${PODS}/p1/binding`, binding('p1', 'node-b'));
    assert.equal(again.status, 409);
    assert.equal(again.body.reason, 'Conflict');
    assert.equal(again.body.message, 'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "node-a"');
  });

  it('a watch sees the binding', async () => {
    await t.call('POST', PODS, pod('p2'));
    const list = await t.call('GET', PODS, undefined, {}, { fieldSelector: 'spec.nodeName=node-w' });
    assert.equal(list.body.items.length, 0);
    const ac = new AbortController();
    const res = await t.server.handle({ method: 'GET', path: PODS, query: { watch: 'true', fieldSelector: 'spec.nodeName=node-w', resourceVersion: list.body.metadata.resourceVersion }, headers: {}, signal: ac.signal });
    await t.call('POST', `${PODS}/p2/binding`, binding('p2', 'node-w'));
    const it = res.stream![Symbol.asyncIterator]();
    const first = await it.next();
    const ev = JSON.parse(Buffer.from(first.value as Uint8Array).toString('utf8').split('\n')[0]!);
    assert.equal(ev.type, 'ADDED');
    assert.equal(ev.object.spec.nodeName, 'node-w');
    ac.abort();
  });

  it('refuses a mismatched name, an invalid target, a stale uid, a missing pod, and other verbs', async () => {
    await t.call('POST', PODS, pod('p3'));
    const mismatch = await t.call('POST', `${PODS}/p3/binding`, binding('other', 'n'));
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, 'name in URL does not match name in Binding object');
    const bad = await t.call('POST', `${PODS}/p3/binding`, { kind: 'Binding', apiVersion: 'v1', metadata: { name: 'p3' }, target: { kind: 'Service', name: '' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /target\.kind: Unsupported value: "Service"/);
    assert.match(bad.body.message, /target\.name: Required value/);
    const stale = await t.call('POST', `${PODS}/p3/binding`, binding('p3', 'n', { uid: 'nope' }));
    assert.equal(stale.status, 409);
    assert.match(stale.body.message, /Precondition failed: UID in precondition: nope/);
    const missing = await t.call('POST', `${PODS}/ghost/binding`, binding('ghost', 'n'));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "ghost" not found');
    assert.equal((await t.call('GET', `${PODS}/p3/binding`)).status, 405);
    assert.equal((await t.call('POST', '/api/v1/namespaces/default/configmaps/x/binding', binding('x', 'n'))).status, 404);
    const dry = await t.call('POST', `${PODS}/p3/binding?dryRun=All`, binding('p3', 'n'));
    assert.equal(dry.status, 201);
    assert.equal((await t.call('GET', `${PODS}/p3`)).body.spec.nodeName, undefined);
  });

  it('refuses a pod being deleted', async () => {
    await t.call('POST', PODS, { ...pod('p4'), metadata: { name: 'p4', finalizers: ['example.com/hold'] } });
    await t.call('DELETE', `${PODS}/p4`);
    const r = await t.call('POST', `${PODS}/p4/binding`, binding('p4', 'n'));
    assert.equal(r.status, 409);
    assert.equal(r.body.message, 'Operation cannot be fulfilled on pods/binding "p4": pod p4 is being deleted, cannot be assigned to a host');
  });

  it('is listed in discovery with verb create', async () => {
    const r = await t.call('GET', '/api/v1');
    const b = r.body.resources.find((x: any) => x.name === 'pods/binding');
    assert.deepEqual(b, { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
  });
});
