import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, until } from '@kplane/api/testing';
import type { KubeObject } from '@kplane/api';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { humanDuration } from '../kinds/age.js';
import { storageVersionHash } from '../server/discovery.js';
import { createApiServer, type ApiServer } from '../server/server.js';
import { readEvents } from '../testing.js';
import { greeting, greetingCRD } from './greeting.fixture.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

let backend: Backend;
let server: ApiServer;
let clock = new Date('2026-01-01T10:00:00Z');

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const [p, qs] = path.split('?');
  const r = await server.handle({
    method,
    path: p!,
    query: Object.fromEntries(new URLSearchParams(qs ?? '')),
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, headers: r.headers, body: parsed };
}

/** Polls until `path` answers `status` (the CRD controller follows its watch), and returns that answer. */
const answer = (path: string, status = 200): Promise<Answer> =>
  eventually(`GET ${path} to answer ${status}`, async () => {
    const r = await call('GET', path);
    return r.status === status && r;
  });

const G = '/apis/demo.example.com/v1/namespaces/demo/greetings';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const causes = (r: Answer) => (r.body.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

before(async () => {
  backend = createMemoryBackend();
  server = createApiServer({ backend, now: () => clock });
  await server.start();
  await call('POST', '/api/v1/namespaces', { metadata: { name: 'demo' } });
});

after(async () => {
  await server.close();
  await backend.close();
});

test('a CRD is validated, accepted, established and served within a second', async () => {
  const bad = greetingCRD();
  (bad.spec as any).versions[0].storage = false;
  const refused = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
  assert.equal(refused.status, 422);
  assert.match(refused.body.message, /must have exactly one version marked as storage version/);

  // Read (and so cached) before the CRD exists: the document must follow the new resource.
  const discoveryAccept = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
  const before = (await call('GET', '/apis', undefined, discoveryAccept)).body;
  assert.ok(!before.items.some((g: any) => g.metadata.name === 'demo.example.com'));
  const created = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', greetingCRD());
  assert.equal(created.status, 201);
  const list = await answer(G);
  assert.equal(JSON.stringify(list.body), `{"apiVersion":"demo.example.com/v1","items":[],"kind":"GreetingList","metadata":{"continue":"","resourceVersion":"${list.body.metadata.resourceVersion}"}}`);
  const crd = (await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/greetings.demo.example.com')).body;
  assert.deepEqual(crd.status.conditions.map((c: any) => `${c.type}=${c.status}`), ['NamesAccepted=True', 'Established=True']);
  assert.deepEqual(crd.status.acceptedNames.shortNames, ['gr']);
  assert.deepEqual(crd.status.storedVersions, ['v1']);

  const resources = (await call('GET', '/apis/demo.example.com/v1')).body.resources;
  assert.deepEqual(resources.map((r: any) => r.name), ['greetings', 'greetings/scale', 'greetings/status']);
  assert.deepEqual([resources[0].shortNames, resources[0].categories], [['gr'], ['demo']]);
  const aggregated = (await call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body;
  assert.ok(aggregated.items.some((g: any) => g.metadata.name === 'demo.example.com'));
  const doc = (await call('GET', '/openapi/v3/apis/demo.example.com/v1')).body;
  const schema = doc.components.schemas['com.example.demo.v1.Greeting'];
  assert.equal(schema.properties.spec.properties.version.description, 'Tag of the ghcr.io/example/hello image');
  assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'demo.example.com', kind: 'Greeting', version: 'v1' }]);
  assert.ok(doc.paths['/apis/demo.example.com/v1/namespaces/{namespace}/greetings/{name}/scale']);
});

test("the chapter's invalid Greeting, unknown fields, defaults and the immutable host", async () => {
  const invalid = await call('POST', G, greeting({ version: '1.0', replicas: 1, host: 'hello.example.org' }));
  assert.equal(invalid.status, 422);
  assert.equal(invalid.body.details.kind, 'Greeting');
  assert.equal(invalid.body.details.name, 'hello');
  assert.deepEqual(causes(invalid), ['spec.host: Invalid value: host must be in the apps.example.com zone', 'spec: Forbidden: a public application needs at least 2 replicas, got 1']);

  const strict = await call('POST', `${G}?fieldValidation=Strict`, greeting({ version: '1.0', replica: 3 }));
  assert.equal(strict.status, 400);
  assert.equal(strict.body.message, 'Greeting in version "v1" cannot be handled as a Greeting: strict decoding error: unknown field "spec.replica"');
  const warn = await call('POST', `${G}?fieldValidation=Warn&dryRun=All`, greeting({ version: '1.0', replica: 3 }));
  assert.equal(warn.status, 201);
  assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.replica\\""');
  assert.equal(warn.body.spec.replica, undefined);

  const bad = await call('POST', G, greeting({ version: 'latest', replicas: 11, message: 'x'.repeat(201) }));
  assert.deepEqual(causes(bad), [
    'spec.version: Invalid value: "latest": spec.version in body should match \'^[0-9]+\\.[0-9]+(\\.[0-9]+)?$\'',
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    'spec.message: Too long: must have at most 200 bytes',
  ]);
  const typed = await call('POST', G, greeting({ version: 1, host: 'x' }));
  assert.deepEqual(causes(typed), [
    'spec.version: Invalid value: "integer": spec.version in body must be of type string: "integer"',
    '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  ]);

  const ok = await call('POST', G, greeting({ version: '1.0', message: 'hi', host: 'hello.apps.example.com' }));
  assert.equal(ok.status, 201);
  assert.deepEqual(ok.body.spec, { host: 'hello.apps.example.com', message: 'hi', replicas: 2, version: '1.0' });
  assert.deepEqual(Object.keys(ok.body), ['apiVersion', 'kind', 'metadata', 'spec'], 'served with sorted keys');
  const stored = JSON.parse((await backend.get('/registry/demo.example.com/greetings/demo/hello'))!.value);
  assert.equal(stored.spec.replicas, 2, 'defaults are applied on write');
  assert.equal(stored.metadata.generation, 1);

  const changed = await call('PATCH', `${G}/hello`, { spec: { host: 'hello2.apps.example.com' } }, MERGE);
  assert.equal(changed.status, 422);
  assert.equal(changed.body.message, 'Greeting.demo.example.com "hello" is invalid: spec.host: Invalid value: "hello2.apps.example.com": host cannot be changed, create a new Greeting');
  const smp = await call('PATCH', `${G}/hello`, { spec: { message: 'x' } }, { 'content-type': 'application/strategic-merge-patch+json' });
  assert.equal(smp.status, 415);
  assert.match(smp.body.message, /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/);
});

test('defaults are applied on read to objects stored without them', async () => {
  await backend.create('/registry/demo.example.com/greetings/demo/legacy', JSON.stringify({ apiVersion: 'demo.example.com/v1', kind: 'Greeting', metadata: { name: 'legacy', namespace: 'demo', uid: 'u1', creationTimestamp: '2026-01-01T09:00:00Z', generation: 1 }, spec: { version: '0.9' } }));
  const r = await call('GET', `${G}/legacy`);
  assert.deepEqual(r.body.spec, { message: 'hello', replicas: 2, version: '0.9' });
  assert.equal((await call('DELETE', `${G}/legacy`)).status, 200);
});

test('status subresource, generation and the scale subresource', async () => {
  const cur = (await call('GET', `${G}/hello`)).body;
  const withStatus = await call('PUT', `${G}/hello`, { ...cur, spec: { ...cur.spec, message: 'hey' }, status: { readyReplicas: 9 } });
  assert.equal(withStatus.body.status, undefined, 'a main-resource write ignores status');
  assert.equal(withStatus.body.metadata.generation, 2);
  const status = await call('PATCH', `${G}/hello/status`, { spec: { message: 'ignored' }, status: { readyReplicas: 2, selector: 'app.kubernetes.io/instance=hello' } }, MERGE);
  assert.equal(status.status, 200);
  assert.equal(status.body.spec.message, 'hey', 'a status write ignores spec');
  assert.equal(status.body.metadata.generation, 2, 'status changes do not bump generation');
  const labels = await call('PATCH', `${G}/hello`, { metadata: { labels: { a: 'b' } } }, MERGE);
  assert.equal(labels.body.metadata.generation, 2, 'metadata changes do not bump generation');

  const scale = await call('PATCH', `${G}/hello/scale`, { spec: { replicas: 3 } }, MERGE);
  assert.equal(scale.status, 200);
  assert.deepEqual([scale.body.kind, scale.body.apiVersion, scale.body.spec, scale.body.status], ['Scale', 'autoscaling/v1', { replicas: 3 }, { replicas: 2, selector: 'app.kubernetes.io/instance=hello' }]);
  const after = (await call('GET', `${G}/hello`)).body;
  assert.deepEqual([after.spec.replicas, after.metadata.generation], [3, 3]);
  const tooMany = await call('PATCH', `${G}/hello/scale`, { spec: { replicas: 20 } }, MERGE);
  assert.equal(tooMany.status, 422);
  assert.deepEqual(causes(tooMany), ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10']);
});

test('printer columns, field selectors on selectableFields, categories in discovery', async () => {
  clock = new Date(Date.parse(clock.toISOString()) + 90_000);
  const table = (await call('GET', G, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).body;
  assert.deepEqual(table.columnDefinitions.map((c: any) => `${c.name}:${c.type}:${c.priority}`), ['Name:string:0', 'Version:string:0', 'Replicas:integer:0', 'Ready:integer:0', 'URL:string:1', 'Age:date:0']);
  const created = Date.parse((await call('GET', `${G}/hello`)).body.metadata.creationTimestamp);
  assert.deepEqual(table.rows[0].cells, ['hello', '1.0', 3, 2, null, humanDuration(clock.getTime() - created)]);
  assert.match(humanDuration(clock.getTime() - created), /^\d+s$|^\dm\d*s?$/);
  assert.equal((await call('GET', `${G}?fieldSelector=spec.version%3D1.1`)).body.items.length, 0);
  assert.equal((await call('GET', `${G}?fieldSelector=spec.version%3D1.0`)).body.items[0].metadata.name, 'hello');
  assert.equal((await call('GET', `${G}?fieldSelector=metadata.name%3Dhello`)).body.items.length, 1);
  const refused = await call('GET', `${G}?fieldSelector=spec.host%3Dx`);
  assert.deepEqual([refused.status, refused.body.message], [400, 'field label not supported: spec.host']);
});

test('watches stream custom objects from the resource version of a list', async () => {
  const rv = (await call('GET', G)).body.metadata.resourceVersion;
  const abort = new AbortController();
  const stream = await server.handle({ method: 'GET', path: G, query: { watch: 'true', resourceVersion: rv }, headers: {}, signal: abort.signal });
  await call('PATCH', `${G}/hello`, { metadata: { annotations: { seen: 'yes' } } }, MERGE);
  const events = await readEvents(stream, 1);
  abort.abort();
  assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata?.annotations?.seen]), [['MODIFIED', 'Greeting', 'yes']]);
});

test('finalizers on custom objects hold their deletion', async () => {
  await call('PATCH', `${G}/hello`, { metadata: { finalizers: ['demo.example.com/cleanup'] } }, MERGE);
  const del = await call('DELETE', `${G}/hello`);
  assert.equal(del.status, 200);
  const held = (await call('GET', `${G}/hello`)).body;
  assert.ok(held.metadata.deletionTimestamp);
  assert.deepEqual(held.metadata.finalizers, ['demo.example.com/cleanup']);
  await call('PATCH', `${G}/hello`, { metadata: { finalizers: null } }, MERGE);
  assert.equal((await call('GET', `${G}/hello`)).status, 404);
});

test('a finalizer added without a domain is accepted on a custom object with a Warning, refused on a built-in kind', async () => {
  const prefer = (f: string) => `299 - "metadata.finalizers: \\"${f}\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"`;
  const obj = greeting({ version: '1.0' }, 'warned');
  obj.metadata!.finalizers = ['cleanup', 'demo.example.com/cleanup'];
  const created = await call('POST', G, obj);
  assert.equal(created.status, 201);
  assert.equal(created.headers.warning, prefer('cleanup'));
  // Only the finalizers a write adds are warned about.
  const kept = await call('PATCH', `${G}/warned`, { metadata: { labels: { a: 'b' } } }, MERGE);
  assert.equal(kept.status, 200);
  assert.equal(kept.headers.warning, undefined);
  const added = await call('PATCH', `${G}/warned`, { metadata: { finalizers: ['cleanup', 'archive.example.com', 'orphan'] } }, MERGE);
  assert.equal(added.status, 200);
  assert.equal(added.headers.warning, prefer('archive.example.com'));
  await call('PATCH', `${G}/warned`, { metadata: { finalizers: null } }, MERGE);
  assert.equal((await call('DELETE', `${G}/warned`)).status, 200);
  // An invalid object gets its errors, not the warning.
  const invalid = await call('POST', G, { ...greeting({ version: 'latest' }, 'warned2'), metadata: { name: 'warned2', namespace: 'demo', finalizers: ['cleanup'] } });
  assert.equal(invalid.status, 422);
  assert.equal(invalid.headers.warning, undefined);
  const builtin = await call('POST', '/api/v1/namespaces/demo/configmaps', { metadata: { name: 'garde', finalizers: ['cleanup'] } });
  assert.equal(builtin.status, 422);
  assert.deepEqual(causes(builtin), ['metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified']);
  assert.equal(builtin.headers.warning, undefined);
});

test('versions: served flags, storedVersions, conversion None, cluster scope', async () => {
  const crd = greetingCRD();
  crd.metadata!.name = 'widgets.demo.example.com';
  const spec = crd.spec as any;
  spec.scope = 'Cluster';
  spec.names = { kind: 'Widget', plural: 'widgets' };
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  spec.versions = [
    { name: 'v1alpha1', served: false, storage: false, schema },
    { name: 'v1', served: true, storage: true, schema },
    { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { ...schema.openAPIV3Schema, description: 'v2' } } },
  ];
  assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  await answer('/apis/demo.example.com/v2/widgets');
  assert.equal((await call('GET', '/apis/demo.example.com/v1alpha1/widgets')).status, 404);
  const w = await call('POST', '/apis/demo.example.com/v2/widgets', { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } });
  assert.equal(w.status, 201);
  assert.equal(w.body.apiVersion, 'demo.example.com/v2');
  const raw = JSON.parse((await backend.get('/registry/demo.example.com/widgets/w'))!.value);
  assert.equal(raw.apiVersion, 'demo.example.com/v1', 'stored in the storage version');
  assert.equal((await call('GET', '/apis/demo.example.com/v1/widgets/w')).body.apiVersion, 'demo.example.com/v1');
  assert.equal((await call('GET', '/apis/demo.example.com/v2/widgets')).body.items[0].apiVersion, 'demo.example.com/v2');
  // Make v2 the storage version: storedVersions keeps v1, new writes store v2.
  const current = (await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.demo.example.com')).body;
  current.spec.versions[1].storage = false;
  current.spec.versions[2].storage = true;
  const updated = await call('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.demo.example.com', current);
  assert.deepEqual(updated.body.status.storedVersions, ['v1', 'v2']);
  const v2Hash = storageVersionHash('demo.example.com', 'v2', 'Widget');
  await until('discovery to show v2 as the storage version', async () => (await call('GET', '/apis/demo.example.com/v1')).body.resources.find((r: { name: string }) => r.name === 'widgets')?.storageVersionHash === v2Hash);
  await call('PATCH', '/apis/demo.example.com/v1/widgets/w', { spec: { size: 4 } }, MERGE);
  assert.equal(JSON.parse((await backend.get('/registry/demo.example.com/widgets/w'))!.value).apiVersion, 'demo.example.com/v2');
});

test('deleting a CRD deletes its objects, then the resource leaves discovery', async () => {
  await call('POST', G, greeting({ version: '2.0' }, 'one'));
  await call('POST', G, greeting({ version: '2.0' }, 'two'));
  const del = await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/greetings.demo.example.com');
  assert.equal(del.status, 200);
  assert.deepEqual(del.body.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  await answer('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/greetings.demo.example.com', 404);
  assert.equal((await backend.list('/registry/demo.example.com/greetings/')).items.length, 0);
  assert.equal((await call('GET', G)).status, 404);
  assert.deepEqual((await call('GET', '/apis/demo.example.com/v1')).body.resources.map((r: KubeObject) => r.name), ['widgets']);
});

test('a CRD watch closed by its watch cache is followed by a new list: new CRDs are still served', async () => {
  const crds = server.registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  // What the cache does when storage loses the history it follows: every watcher is closed.
  (crds.cache as unknown as { reset(rev: number): void }).reset(await backend.currentRevision());
  assert.equal((await call('GET', G)).status, 404);
  assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', greetingCRD())).status, 201);
  await answer(G); // the CRD created after the watch closed is served
});
