/**
 * Bodies and query parameters of the wrong shape: each is answered as Kubernetes answers it
 * (400 for what cannot be decoded, 422 for what decodes but is invalid), nothing is stored, no
 * canary changes and /readyz answers 200.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertAnswer, billionLaughs, checkCanaries, nested, plantCanaries, prototypeFingerprint, send, startTestServer, type CanarySnapshot, type ExpectedAnswer, type TestServer } from '../testing.js';

let t: TestServer;
let canaries: CanarySnapshot;
const NS = 'canary-a';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;

beforeEach(async () => {
  t = await startTestServer();
  canaries = await plantCanaries(t.server.handle);
});
afterEach(() => t.close());

async function check(what: string): Promise<void> {
  assert.deepEqual(await checkCanaries(t.server.handle, canaries), [], `after ${what}`);
}

/** POSTs a body (text or object), checks the answer, that `name` was not stored, and the canaries. */
async function rejectCreate(path: string, body: unknown, expected: ExpectedAnswer, name: string, contentType = 'application/json'): Promise<void> {
  const answer = await send(t.server.handle, 'POST', path, body, { 'content-type': contentType });
  assertAnswer(answer, expected, `POST ${path} ${typeof body === 'string' ? body.slice(0, 120) : JSON.stringify(body).slice(0, 120)}`);
  const got = await send(t.server.handle, 'GET', `${path}/${name}`);
  assert.equal(got.status, 404, `${name} must not be stored`);
  await check(`POST ${path}`);
}

const BAD_REQUEST: ExpectedAnswer = { code: 400, reason: 'BadRequest' };
const cm = (metadata: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed', ...metadata }, ...extra });

describe('metadata and data of the wrong JSON type → 400, nothing stored', () => {
  it('metadata.name: [false]', async () => {
    await rejectCreate(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: [false] } }, { ...BAD_REQUEST, message: /name/ }, 'false');
  });
  it('labels as an array', async () => {
    await rejectCreate(CMS, cm({ labels: ['a', 'b'] }), { ...BAD_REQUEST, message: /labels/ }, 'typed');
  });
  it('ConfigMap data values as objects', async () => {
    await rejectCreate(CMS, cm({}, { data: { k: { nested: 'object' } } }), { ...BAD_REQUEST, message: /data/ }, 'typed');
  });
  it('ConfigMap data as an array', async () => {
    await rejectCreate(CMS, cm({}, { data: ['a'] }), { ...BAD_REQUEST, message: /data/ }, 'typed');
  });
  it('finalizers: "abc"', async () => {
    await rejectCreate(CMS, cm({ finalizers: 'abc' }), { ...BAD_REQUEST, message: /finalizers/ }, 'typed');
  });
  it('ownerReferences: {}', async () => {
    await rejectCreate(CMS, cm({ ownerReferences: {} }), { ...BAD_REQUEST, message: /ownerReferences/ }, 'typed');
  });
  it('managedFields not an array', async () => {
    await rejectCreate(CMS, cm({ managedFields: 'x' }), { ...BAD_REQUEST, message: /managedFields/ }, 'typed');
    await rejectCreate(CMS, cm({ managedFields: { manager: 'x' } }), { ...BAD_REQUEST, message: /managedFields/ }, 'typed');
  });
  it('annotations with a non-string value', async () => {
    await rejectCreate(CMS, cm({ annotations: { a: 1 } }), { ...BAD_REQUEST, message: /annotations/ }, 'typed');
  });
  it('a Deployment with replicas 18446744073709551616 (beyond int32) → 400', async () => {
    const body = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"huge"},"spec":{"replicas":18446744073709551616,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;
    await rejectCreate(`/apis/apps/v1/namespaces/${NS}/deployments`, body, { ...BAD_REQUEST, message: /replicas/ }, 'huge');
  });
  it('a Deployment with replicas 2147483648 (int32 + 1) → 400', async () => {
    const body = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"huge"},"spec":{"replicas":2147483648,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;
    await rejectCreate(`/apis/apps/v1/namespaces/${NS}/deployments`, body, { ...BAD_REQUEST, message: /replicas/ }, 'huge');
  });
});

describe('bodies built to exhaust the decoder → 400', () => {
  it('3,000-deep nesting → 400', async () => {
    await rejectCreate(CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"k":${nested(3000)}}}`, BAD_REQUEST, 'deep');
  });
  it('20,000-deep nesting (arrays and objects) → 400', async () => {
    await rejectCreate(CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested(20000)}}`, BAD_REQUEST, 'deep');
    await rejectCreate(CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested(20000, 'object')}}`, BAD_REQUEST, 'deep');
  });
  it('20,000-deep nesting in a merge patch → 400, object unchanged', async () => {
    const answer = await send(t.server.handle, 'PATCH', `${CMS}/canary-cm`, `{"x":${nested(20000, 'object')}}`, { 'content-type': 'application/merge-patch+json' });
    assertAnswer(answer, BAD_REQUEST, 'deep merge patch');
    await check('deep merge patch');
  });
  it('YAML with aliases (billion laughs) → 400', async () => {
    await rejectCreate(CMS, billionLaughs(9), BAD_REQUEST, 'fz-lol', 'application/yaml');
  });
});

describe('query parameters that are not what their type says → 400', () => {
  const list = async (query: Record<string, string>, expected: ExpectedAnswer) => {
    const answer = await send(t.server.handle, 'GET', CMS, undefined, {}, query);
    assertAnswer(answer, expected, `GET ${CMS} ${JSON.stringify(query)}`);
    await check(`list ${JSON.stringify(query)}`);
  };
  it('timeoutSeconds=1e100 → 400', async () => {
    await list({ timeoutSeconds: '1e100' }, BAD_REQUEST);
    await list({ watch: 'true', timeoutSeconds: '1e100' }, BAD_REQUEST);
  });
  it('limit that is not an int64 → 400', async () => {
    for (const limit of ['abc', '1e100', '99999999999999999999', '9223372036854775808', '1.5']) await list({ limit }, BAD_REQUEST);
  });
  it('a continue token that is not one → 400', async () => {
    await list({ continue: '!!!not-base64' }, BAD_REQUEST);
  });
  it('gracePeriodSeconds=abc on a delete → 400, object kept', async () => {
    const answer = await send(t.server.handle, 'DELETE', `${CMS}/canary-cm`, undefined, {}, { gracePeriodSeconds: 'abc' });
    assertAnswer(answer, BAD_REQUEST, 'DELETE ?gracePeriodSeconds=abc');
    await check('DELETE ?gracePeriodSeconds=abc');
  });
});

describe('__proto__ keys are data, never prototypes', () => {
  const patchPath = `/api/v1/namespaces/canary-b/configmaps`;
  const makeProto = async () => {
    const created = await send(t.server.handle, 'POST', patchPath, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'proto' }, data: { a: '1' } });
    assert.equal(created.status, 201, created.text);
  };
  it('a merge patch with top-level and nested __proto__ keys touches no prototype; data keys named __proto__ are stored as kube stores them', async () => {
    const fingerprint = prototypeFingerprint();
    await makeProto();
    // Top level: an unknown field, dropped; data.__proto__: a valid ConfigMap key, kept as data.
    const patched = await send(t.server.handle, 'PATCH', `${patchPath}/proto`, '{"__proto__":{"polluted":"yes"},"data":{"__proto__":"x","b":"2"}}', { 'content-type': 'application/merge-patch+json' });
    assertAnswer(patched, { code: 200 }, 'merge patch with __proto__');
    const got = await send(t.server.handle, 'GET', `${patchPath}/proto`);
    assert.equal(got.status, 200);
    assert.ok(Object.hasOwn(got.body.data, '__proto__'), `data keeps its own key "__proto__": ${got.text}`);
    assert.deepEqual({ ...got.body.data }, JSON.parse('{"a":"1","__proto__":"x","b":"2"}'));
    assert.doesNotMatch(got.text, /polluted/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    assert.equal(prototypeFingerprint(), fingerprint);
    await check('merge patch with __proto__');
  });
  it('a strategic merge patch with __proto__ keys, the same', async () => {
    const fingerprint = prototypeFingerprint();
    await makeProto();
    // ConfigMap keys may be any of [-._a-zA-Z0-9]+, so "__proto__" and "constructor" are data.
    const patched = await send(t.server.handle, 'PATCH', `${patchPath}/proto`, '{"__proto__":{"polluted":"yes"},"data":{"__proto__":"y","constructor":"z"}}', { 'content-type': 'application/strategic-merge-patch+json' });
    assertAnswer(patched, { code: 200 }, 'strategic merge patch with __proto__');
    const got = await send(t.server.handle, 'GET', `${patchPath}/proto`);
    assert.ok(Object.hasOwn(got.body.data, '__proto__'), got.text);
    assert.deepEqual({ ...got.body.data }, JSON.parse('{"a":"1","__proto__":"y","constructor":"z"}'));
    assert.doesNotMatch(got.text, /polluted/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(prototypeFingerprint(), fingerprint);
  });
  it('a label key "__proto__" is not a valid label key → 422, object unchanged', async () => {
    await makeProto();
    const before = await send(t.server.handle, 'GET', `${patchPath}/proto`);
    const patched = await send(t.server.handle, 'PATCH', `${patchPath}/proto`, '{"metadata":{"labels":{"__proto__":"x"}}}', { 'content-type': 'application/merge-patch+json' });
    assertAnswer(patched, { code: 422, reason: 'Invalid', field: 'metadata.labels' }, 'label __proto__');
    const after = await send(t.server.handle, 'GET', `${patchPath}/proto`);
    assert.equal(after.text, before.text);
  });
  it('a JSON patch adding /__proto__/polluted touches no prototype', async () => {
    await makeProto();
    const patched = await send(t.server.handle, 'PATCH', `${patchPath}/proto`, '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]', { 'content-type': 'application/json-patch+json' });
    // kube-apiserver: a JSON patch that cannot be applied is 422 Invalid.
    assertAnswer(patched, { code: 422, reason: 'Invalid' }, 'json patch /__proto__/polluted');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    await check('json patch /__proto__');
  });
});
