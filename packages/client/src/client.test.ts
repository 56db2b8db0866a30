import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, conflict, gone, type KubeObject, type RawRequest, type RawResponse, type WatchEvent } from '@kplane/api';
import { createClient } from './client.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Fake {
  requests: RawRequest[];
  transport: (req: RawRequest) => Promise<RawResponse>;
}

/** A transport that records requests and answers from a script (default: 200 with `{}`). */
function fakeTransport(answer: (req: RawRequest, i: number) => RawResponse | Promise<RawResponse> = () => json(200, {})): Fake {
  const requests: RawRequest[] = [];
  return {
    requests,
    transport: async (req) => {
      requests.push(req);
      return answer(req, requests.length - 1);
    },
  };
}

function json(status: number, body: unknown): RawResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: enc.encode(JSON.stringify(body)) };
}

const bodyOf = (req: RawRequest): unknown => (req.body ? JSON.parse(dec.decode(req.body)) : undefined);

const configmaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const deployments = { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, kind: 'Deployment' };
const nodes = { group: '', version: 'v1', resource: 'nodes', namespaced: false };

test('get builds the path, defaults the namespace and asks for JSON', async () => {
  const f = fakeTransport(() => json(200, { kind: 'ConfigMap', metadata: { name: 'x' } }));
  const cms = createClient({ transport: f.transport, defaultNamespace: 'team' }).resource(configmaps);
  const obj = await cms.get('x');
  assert.equal(obj.metadata?.name, 'x');
  await cms.get('y z', { namespace: 'other', resourceVersion: '0' });
  await createClient({ transport: f.transport }).resource(nodes).get('n1');
  assert.deepEqual(f.requests.map((r) => [r.method, r.path, r.query]), [
    ['GET', '/api/v1/namespaces/team/configmaps/x', {}],
    ['GET', '/api/v1/namespaces/other/configmaps/y%20z', { resourceVersion: '0' }],
    ['GET', '/api/v1/nodes/n1', {}],
  ]);
  assert.equal(f.requests[0]!.headers!['accept'], 'application/json');
  assert.equal(f.requests[0]!.body, undefined);
  await assert.rejects(cms.get(''), /resource name may not be empty/);
});

test('list passes every query option; namespace "" lists all namespaces; items are normalized', async () => {
  const f = fakeTransport(() => json(200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: null }));
  const client = createClient({ transport: f.transport });
  const l = await client.resource(deployments).list({
    namespace: 'ns',
    labelSelector: 'app=web',
    fieldSelector: 'metadata.name=a',
    limit: 10,
    continue: 'tok',
    resourceVersion: '5',
    resourceVersionMatch: 'NotOlderThan',
    timeoutSeconds: 3,
  });
  assert.deepEqual(l.items, []);
  assert.equal(l.metadata.resourceVersion, '9');
  await client.resource(configmaps).list({ namespace: '' });
  await client.resource(configmaps).list();
  assert.equal(f.requests[0]!.path, '/apis/apps/v1/namespaces/ns/deployments');
  assert.deepEqual(f.requests[0]!.query, {
    labelSelector: 'app=web',
    fieldSelector: 'metadata.name=a',
    limit: '10',
    continue: 'tok',
    resourceVersion: '5',
    resourceVersionMatch: 'NotOlderThan',
    timeoutSeconds: '3',
  });
  assert.equal(f.requests[1]!.path, '/api/v1/configmaps');
  assert.equal(f.requests[2]!.path, '/api/v1/namespaces/default/configmaps');
});

test('listAll follows continue tokens and keeps the last page metadata', async () => {
  const pages = [
    { metadata: { resourceVersion: '7', continue: 'c1' }, items: [{ metadata: { name: 'a' } }] },
    { metadata: { resourceVersion: '7', continue: 'c2' }, items: [{ metadata: { name: 'b' } }] },
    { metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'c' } }] },
  ];
  const f = fakeTransport((_r, i) => json(200, { kind: 'ConfigMapList', apiVersion: 'v1', ...pages[i] }));
  const all = await createClient({ transport: f.transport }).resource(configmaps).listAll({ limit: 1, labelSelector: 'x' });
  assert.deepEqual(all.items.map((o) => o.metadata?.name), ['a', 'b', 'c']);
  assert.equal(all.metadata.resourceVersion, '7');
  assert.equal(all.metadata.continue, undefined);
  assert.deepEqual(f.requests.map((r) => r.query), [
    { labelSelector: 'x', limit: '1' },
    { labelSelector: 'x', limit: '1', continue: 'c1' },
    { labelSelector: 'x', limit: '1', continue: 'c2' },
  ]);
});

test('listAll falls back to a full list when the continue token expired', async () => {
  const f = fakeTransport((req, i) => {
    if (i === 0) return json(200, { metadata: { continue: 'c1' }, items: [{ metadata: { name: 'a' } }] });
    if (req.query?.['continue']) return json(410, gone('The provided continue parameter is too old').toStatus());
    return json(200, { metadata: { resourceVersion: '20' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] });
  });
  const all = await createClient({ transport: f.transport }).resource(configmaps).listAll();
  assert.deepEqual(all.items.map((o) => o.metadata?.name), ['a', 'b']);
  assert.deepEqual(f.requests[2]!.query, {});
  assert.equal(f.requests[0]!.query!['limit'], '500');
});

test('create takes the namespace from options, then the object, and fills kind/apiVersion', async () => {
  const f = fakeTransport((req) => json(201, bodyOf(req)));
  const deps = createClient({ transport: f.transport }).resource(deployments);
  const created = await deps.create({ metadata: { name: 'web', namespace: 'prod' }, spec: {} }, { dryRun: true, fieldValidation: 'Strict', fieldManager: 'me' });
  assert.equal(created.kind, 'Deployment');
  await deps.create({ metadata: { name: 'web', namespace: 'prod' } }, { namespace: 'explicit' });
  await deps.create({ metadata: { generateName: 'web-' } });
  const r = f.requests[0]!;
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/apis/apps/v1/namespaces/prod/deployments');
  assert.deepEqual(r.query, { dryRun: 'All', fieldManager: 'me', fieldValidation: 'Strict' });
  assert.equal(r.headers!['content-type'], 'application/json');
  assert.deepEqual(bodyOf(r), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'prod' }, spec: {} });
  assert.equal(f.requests[1]!.path, '/apis/apps/v1/namespaces/explicit/deployments');
  assert.equal(f.requests[2]!.path, '/apis/apps/v1/namespaces/default/deployments');
});

test('update and updateStatus PUT to the object and its status', async () => {
  const f = fakeTransport((req) => json(200, bodyOf(req)));
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'n', resourceVersion: '3' } };
  await cms.update(obj);
  await cms.updateStatus(obj);
  assert.deepEqual(f.requests.map((r) => [r.method, r.path]), [
    ['PUT', '/api/v1/namespaces/n/configmaps/x'],
    ['PUT', '/api/v1/namespaces/n/configmaps/x/status'],
  ]);
  assert.deepEqual(bodyOf(f.requests[0]!), obj);
  await assert.rejects(cms.update({ metadata: {} }), /resource name may not be empty/);
});

test('patch sends the right content type per patch type, and subresources', async () => {
  const f = fakeTransport(() => json(200, {}));
  const deps = createClient({ transport: f.transport }).resource(deployments);
  await deps.patch('web', [{ op: 'replace', path: '/spec/replicas', value: 2 }], 'json');
  await deps.patch('web', { spec: { replicas: 3 } }, 'merge', { namespace: 'n' });
  await deps.patch('web', { spec: { replicas: 4 } }, 'strategic', { subresource: 'scale' });
  await deps.patch('web', 'apiVersion: apps/v1\nkind: Deployment\n', 'apply', { fieldManager: 'kubectl', force: true });
  assert.deepEqual(f.requests.map((r) => [r.method, r.path, r.headers!['content-type']]), [
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', 'application/json-patch+json'],
    ['PATCH', '/apis/apps/v1/namespaces/n/deployments/web', 'application/merge-patch+json'],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', 'application/strategic-merge-patch+json'],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', 'application/apply-patch+yaml'],
  ]);
  assert.deepEqual(bodyOf(f.requests[0]!), [{ op: 'replace', path: '/spec/replicas', value: 2 }]);
  assert.equal(dec.decode(f.requests[3]!.body), 'apiVersion: apps/v1\nkind: Deployment\n');
  assert.deepEqual(f.requests[3]!.query, { fieldManager: 'kubectl', force: 'true' });
  await assert.rejects(deps.patch('web', {}, 'apply'), /fieldManager is required/);
});

test('delete sends DeleteOptions and returns the object or the Status', async () => {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'x', kind: 'configmaps' } };
  const f = fakeTransport((_r, i) => (i === 0 ? json(200, status) : json(200, { kind: 'ConfigMap', metadata: { name: 'x', deletionTimestamp: 't' } })));
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  assert.deepEqual(await cms.delete('x'), status);
  const obj = await cms.delete('x', {
    namespace: 'n',
    propagationPolicy: 'Foreground',
    preconditions: { uid: 'u1', resourceVersion: '5' },
    gracePeriodSeconds: 0,
    dryRun: true,
  });
  assert.equal((obj as KubeObject).metadata?.deletionTimestamp, 't');
  assert.equal(f.requests[0]!.method, 'DELETE');
  assert.equal(f.requests[0]!.body, undefined);
  assert.equal(f.requests[1]!.path, '/api/v1/namespaces/n/configmaps/x');
  assert.deepEqual(bodyOf(f.requests[1]!), {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: 'Foreground',
    preconditions: { uid: 'u1', resourceVersion: '5' },
    gracePeriodSeconds: 0,
    dryRun: ['All'],
  });
});

test('deleteCollection targets the collection with selectors', async () => {
  const f = fakeTransport(() => json(200, { kind: 'ConfigMapList', metadata: {}, items: [] }));
  await createClient({ transport: f.transport }).resource(configmaps).deleteCollection({ namespace: 'n', labelSelector: 'a=b', propagationPolicy: 'Background' });
  const r = f.requests[0]!;
  assert.deepEqual([r.method, r.path, r.query], ['DELETE', '/api/v1/namespaces/n/configmaps', { labelSelector: 'a=b' }]);
  assert.equal((bodyOf(r) as { propagationPolicy: string }).propagationPolicy, 'Background');
});

test('subresources: get/update scale, create binding', async () => {
  const f = fakeTransport((req) => json(200, req.body ? bodyOf(req) : { kind: 'Scale', spec: { replicas: 1 } }));
  const client = createClient({ transport: f.transport });
  const deps = client.resource(deployments);
  const scale = await deps.getSubresource('web', 'scale');
  assert.equal(scale.kind, 'Scale');
  await deps.updateSubresource('web', 'scale', { kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 5 } }, { namespace: 'n' });
  const pods = client.resource({ group: '', version: 'v1', resource: 'pods', namespaced: true });
  await pods.createSubresource('p1', 'binding', { kind: 'Binding', metadata: { name: 'p1', namespace: 'n' }, target: { kind: 'Node', name: 'n1' } });
  assert.deepEqual(f.requests.map((r) => [r.method, r.path]), [
    ['GET', '/apis/apps/v1/namespaces/default/deployments/web/scale'],
    ['PUT', '/apis/apps/v1/namespaces/n/deployments/web/scale'],
    ['POST', '/api/v1/namespaces/n/pods/p1/binding'],
  ]);
});

test('a Status error response throws ApiError with code, reason, message and details', async () => {
  const f = fakeTransport(() => json(409, conflict('', 'configmaps', 'x').toStatus()));
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  await assert.rejects(cms.update({ metadata: { name: 'x' } }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual(err.details, { name: 'x', kind: 'configmaps' });
    return true;
  });
});

test('a non-Status error body throws ApiError with the HTTP code', async () => {
  const f = fakeTransport(() => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: enc.encode('404 page not found') }));
  const deps = createClient({ transport: f.transport }).resource(deployments);
  await assert.rejects(deps.get('web'), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 404);
    assert.equal(err.reason, 'NotFound');
    assert.equal(err.message, 'the server could not find the requested resource (get deployments.apps web)');
    return true;
  });
});

test('raw and request reach arbitrary paths; client headers are added', async () => {
  const f = fakeTransport((req) => (req.path === '/missing' ? { status: 404, headers: {}, body: enc.encode('nope') } : json(200, { kind: 'APIVersions', versions: ['v1'] })));
  const client = createClient({ transport: f.transport, headers: { 'user-agent': 'kplane-test' } });
  const versions = await client.request<{ versions: string[] }>({ path: '/api' });
  assert.deepEqual(versions.versions, ['v1']);
  const res = await client.raw({ method: 'GET', path: '/apis' });
  assert.equal(res.status, 200);
  assert.equal(f.requests[0]!.headers!['user-agent'], 'kplane-test');
  await assert.rejects(client.raw({ method: 'GET', path: '/missing' }), (e: unknown) => e instanceof ApiError && e.code === 404);
  await client.request({ method: 'POST', path: '/apis/x', body: { a: 1 } });
  assert.deepEqual(bodyOf(f.requests[3]!), { a: 1 });
});

/** A controllable stream: push chunks, end it, and observe whether it was closed early. */
function controlledStream() {
  const queue: (Uint8Array | null)[] = [];
  let wake: (() => void) | undefined;
  const state = { returned: false };
  const stream: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          const v = queue.shift()!;
          return v === null ? { done: true, value: undefined } : { done: false, value: v };
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          state.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return {
    stream,
    state,
    push(s: string | null) {
      queue.push(s === null ? null : enc.encode(s));
      wake?.();
    },
  };
}

test('watch sends watch=true with options and parses events split across chunks', async () => {
  const s = controlledStream();
  const f = fakeTransport(() => ({ status: 200, headers: {}, stream: s.stream }));
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  const e1 = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } });
  const e2 = JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
  const e3 = JSON.stringify({ type: 'ERROR', object: gone('too old resource version: 1 (5)').toStatus() });
  s.push(e1.slice(0, 10));
  s.push(e1.slice(10) + '\n' + e2.slice(0, 3));
  s.push(e2.slice(3) + '\n' + e3 + '\n');
  s.push(null);
  const got: WatchEvent[] = [];
  for await (const ev of cms.watch({ namespace: 'n', resourceVersion: '4', allowWatchBookmarks: true, timeoutSeconds: 30, labelSelector: 'a=b' })) got.push(ev);
  assert.deepEqual(got.map((e) => e.type), ['ADDED', 'BOOKMARK', 'ERROR']);
  assert.equal((got[2]!.object as { code?: number }).code, 410);
  const r = f.requests[0]!;
  assert.equal(r.path, '/api/v1/namespaces/n/configmaps');
  assert.deepEqual(r.query, { labelSelector: 'a=b', resourceVersion: '4', timeoutSeconds: '30', allowWatchBookmarks: 'true', watch: 'true' });
  assert.ok(r.signal instanceof AbortSignal);
});

test('watch ends quietly when the signal aborts, even if the stream never yields', async () => {
  const s = controlledStream();
  let transportSignal: AbortSignal | undefined;
  const f = fakeTransport((req) => {
    transportSignal = req.signal;
    return { status: 200, headers: {}, stream: s.stream };
  });
  const ctl = new AbortController();
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  s.push(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
  const got: string[] = [];
  for await (const ev of cms.watch({ signal: ctl.signal })) {
    got.push(ev.type);
    ctl.abort();
  }
  assert.deepEqual(got, ['ADDED']);
  assert.equal(transportSignal?.aborted, true);
});

test('breaking out of a watch aborts the transport request and closes the stream', async () => {
  const s = controlledStream();
  let transportSignal: AbortSignal | undefined;
  const f = fakeTransport((req) => {
    transportSignal = req.signal;
    return { status: 200, headers: {}, stream: s.stream };
  });
  s.push(JSON.stringify({ type: 'ADDED', object: {} }) + '\n' + JSON.stringify({ type: 'ADDED', object: {} }) + '\n');
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  for await (const _ev of cms.watch()) break;
  assert.equal(transportSignal?.aborted, true);
  await new Promise((r) => setImmediate(r));
  assert.equal(s.state.returned, true);
});

test('watch: an already-aborted signal yields nothing and sends nothing', async () => {
  const f = fakeTransport();
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  const got = [];
  for await (const ev of cms.watch({ signal: AbortSignal.abort() })) got.push(ev);
  assert.equal(got.length, 0);
  assert.equal(f.requests.length, 0);
});

test('watch: a non-2xx response throws ApiError; a buffered body is also accepted', async () => {
  const f = fakeTransport((_r, i) =>
    i === 0 ? json(410, gone('too old resource version: 1 (5)').toStatus()) : { status: 200, headers: {}, body: enc.encode('{"type":"ADDED","object":{}}\n') },
  );
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  await assert.rejects(async () => {
    for await (const _ of cms.watch({ resourceVersion: '1' })) { /* none */ }
  }, (e: unknown) => e instanceof ApiError && e.code === 410 && e.reason === 'Expired');
  const got = [];
  for await (const ev of cms.watch()) got.push(ev.type);
  assert.deepEqual(got, ['ADDED']);
});

test('watch with sharedObjects asks for objects and yields the batches of a response answered as events; without it asks nothing', async () => {
  const shared = Object.freeze({ kind: 'ConfigMap', metadata: Object.freeze({ name: 'a' }) });
  let returned = false;
  const events = (async function* () {
    try {
      yield [{ type: 'ADDED' as const, object: shared }];
      yield [{ type: 'MODIFIED' as const, object: shared }, { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '9' } } }];
    } finally {
      returned = true;
    }
  })();
  const f = fakeTransport((req) => (req.objects ? { status: 200, headers: {}, events } : { status: 200, headers: {}, body: enc.encode('{"type":"ADDED","object":{}}\n') }));
  const cms = createClient({ transport: f.transport }).resource(configmaps);
  const batches: WatchEvent[][] = [];
  for await (const batch of cms.watchBatches({ sharedObjects: true })) batches.push(batch);
  assert.deepEqual(batches.map((b) => b.map((e) => e.type)), [['ADDED'], ['MODIFIED', 'BOOKMARK']]);
  assert.equal(batches[0]![0]!.object, shared, 'the very object, not a copy');
  assert.equal(f.requests[0]!.objects, true);
  assert.equal(returned, true);
  const plain: string[] = [];
  for await (const ev of cms.watch()) plain.push(ev.type);
  assert.deepEqual(plain, ['ADDED']);
  assert.equal('objects' in f.requests[1]!, false, 'a watch without sharedObjects does not ask for objects');
});

test('breaking out of a watch answered as events closes them', async () => {
  let returned = false;
  const events = (async function* () {
    try {
      for (;;) yield [{ type: 'ADDED' as const, object: {} }];
    } finally {
      returned = true;
    }
  })();
  const cms = createClient({ transport: fakeTransport(() => ({ status: 200, headers: {}, events })).transport }).resource(configmaps);
  for await (const _ev of cms.watch({ sharedObjects: true })) break;
  await new Promise((r) => setImmediate(r));
  assert.equal(returned, true);
});

test('apply sends an apply patch of the partial object, with kind, fieldManager and force', async () => {
  const f = fakeTransport(() => json(200, { kind: 'Deployment', metadata: { name: 'web' } }));
  const deps = createClient({ transport: f.transport }).resource(deployments);
  await deps.apply({ metadata: { name: 'web', namespace: 'prod' }, spec: { replicas: 2 } }, { fieldManager: 'me', force: true });
  const req = f.requests[0]!;
  assert.equal(req.method, 'PATCH');
  assert.equal(req.path, '/apis/apps/v1/namespaces/prod/deployments/web');
  assert.equal(req.headers!['content-type'], 'application/apply-patch+yaml');
  assert.deepEqual(req.query, { fieldManager: 'me', force: 'true' });
  assert.deepEqual(bodyOf(req), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'prod' }, spec: { replicas: 2 } });
  await deps.apply({ metadata: { name: 'web' }, status: { replicas: 1 } }, { fieldManager: 'me', subresource: 'status' });
  assert.equal(f.requests[1]!.path, '/apis/apps/v1/namespaces/default/deployments/web/status');
  await assert.rejects(deps.apply({ metadata: { name: 'web' } }, { fieldManager: '' }), /fieldManager is required/);
});
