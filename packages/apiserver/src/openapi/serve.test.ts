import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { RawRequest } from '@kplane/api';
import { greetingCRD, startTestServer } from '../testing.js';
import { decodeSwaggerProtobuf } from './gnostic.js';
import { servedDocument, swaggerSpec } from './swagger.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED, parseAcceptClauses, serveOpenAPIV2, serveOpenAPIV3Document, serveOpenAPIV3Root } from './serve.js';

const DOC = {
  swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {},
  definitions: { X: { type: 'object', description: 'x'.repeat(2000) } }, parameters: {}, securityDefinitions: {}, security: [],
};
const spec = swaggerSpec(DOC, new Date('2026-01-02T03:04:05.678Z'));
const get = (headers: Record<string, string> = {}): ReturnType<typeof serveOpenAPIV2> =>
  serveOpenAPIV2({ method: 'GET', path: '/openapi/v2', headers } as RawRequest, () => spec);

test('Accept picks JSON or protobuf (both spellings); no match is 406', () => {
  const json = get({ accept: 'application/json' });
  assert.equal(json.status, 200);
  assert.equal(json.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(Buffer.from(json.body!).toString()), DOC);
  for (const accept of [OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF, `application/json;q=0.5, ${OPENAPI_V2_PROTOBUF_DEPRECATED}`]) {
    const pb = get({ accept });
    assert.equal(pb.status, 200, accept);
    assert.equal(pb.headers['content-type'], OPENAPI_V2_PROTOBUF, accept);
    assert.deepEqual(decodeSwaggerProtobuf(pb.body!), DOC);
  }
  assert.equal(get().headers['content-type'], 'application/json', 'no Accept: */*');
  assert.equal(get({ accept: 'application/*' }).headers['content-type'], 'application/json');
  const refused = get({ accept: 'text/html' });
  assert.equal(refused.status, 406);
  assert.equal(refused.body!.byteLength, 0);
  assert.equal(refused.headers.vary, 'Accept-Encoding, Accept');
});

test('clauses are tried by quality, then concrete types before wildcards', () => {
  assert.deepEqual(parseAcceptClauses('*/*;q=0.8, application/json;q=0.9, text/plain').map((c) => `${c.type}/${c.subType}`), ['text/plain', 'application/json', '*/*']);
  assert.deepEqual(parseAcceptClauses('*/*, application/*, application/json').map((c) => `${c.type}/${c.subType}`), ['application/json', 'application/*', '*/*']);
});

test('ETag: quoted upper-case SHA-512 of the JSON, the same for protobuf; 304 on a match', () => {
  const etag = `"${createHash('sha512').update(JSON.stringify(DOC)).digest('hex').toUpperCase()}"`;
  const json = get({ accept: 'application/json' });
  assert.equal(json.headers.etag, etag);
  assert.equal(get({ accept: OPENAPI_V2_PROTOBUF_DEPRECATED }).headers.etag, etag);
  assert.equal(json.headers['last-modified'], 'Fri, 02 Jan 2026 03:04:05 GMT');
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const r = get({ accept: 'application/json', 'if-none-match': inm });
    assert.equal(r.status, 304, inm);
    assert.equal(r.body!.byteLength, 0);
    assert.equal(r.headers.etag, etag);
    assert.equal(r.headers['content-type'], undefined);
  }
  assert.equal(get({ 'if-none-match': '"other"' }).status, 200);
  assert.equal(get({ 'if-modified-since': 'Fri, 02 Jan 2026 03:04:05 GMT' }).status, 304);
  assert.equal(get({ 'if-modified-since': 'Fri, 02 Jan 2026 03:04:04 GMT' }).status, 200);
});

test('gzip when accepted and the body is large enough', () => {
  const zipped = get({ accept: 'application/json', 'accept-encoding': 'gzip, deflate' });
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.deepEqual(JSON.parse(gunzipSync(zipped.body!).toString()), DOC);
  assert.equal(get({ 'accept-encoding': 'gzip;q=0' }).headers['content-encoding'], undefined);
  assert.equal(get({ 'accept-encoding': 'identity' }).headers['content-encoding'], undefined);
  const small = swaggerSpec({ swagger: '2.0' }, new Date());
  const r = serveOpenAPIV2({ method: 'GET', path: '/openapi/v2', headers: { 'accept-encoding': 'gzip' } } as RawRequest, () => small);
  assert.equal(r.headers['content-encoding'], undefined, 'under 1400 bytes');
});

test('/openapi/v2 is served, listed at /, cached, and rebuilt when a CRD is served', async (t) => {
  const ts = await startTestServer();
  t.after(() => ts.close());
  const root = await ts.call('GET', '/');
  assert.ok(root.body.paths.includes('/openapi/v2'));
  const first = await ts.call('GET', '/openapi/v2', undefined, { accept: 'application/json' });
  assert.equal(first.status, 200);
  assert.equal(first.body.swagger, '2.0');
  assert.ok(first.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments']);
  const again = await ts.call('GET', '/openapi/v2', undefined, { 'if-none-match': first.headers.etag! });
  assert.equal(again.status, 304);
  const pb = await ts.raw('GET', '/openapi/v2', {}, { accept: OPENAPI_V2_PROTOBUF_DEPRECATED });
  assert.equal(pb.headers.etag, first.headers.etag);
  assert.deepEqual(decodeSwaggerProtobuf(pb.body!), first.body);

  const registry = ts.server.registry;
  const served = new Promise<void>((resolve) => registry.onChange(() => registry.get('demo.example.com', 'v1', 'greetings') && resolve()));
  assert.equal((await ts.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', greetingCRD())).status, 201);
  await served;
  const after = await ts.call('GET', '/openapi/v2');
  assert.ok(after.body.paths['/apis/demo.example.com/v1/namespaces/{namespace}/greetings/{name}'], 'the CRD is in the document');
  assert.notEqual(after.headers.etag, first.headers.etag);
  assert.equal((await ts.call('GET', '/openapi/v2', undefined, { 'if-none-match': first.headers.etag! })).status, 200, 'the old ETag no longer matches');
  const greeting = after.body.definitions['com.example.demo.v1.Greeting'];
  assert.deepEqual(greeting['x-kubernetes-group-version-kind'], [{ group: 'demo.example.com', kind: 'Greeting', version: 'v1' }]);
  assert.equal(greeting.properties.spec.properties.message.default, 'hello');
});

test('/openapi/v3 documents: ETag and 304; a hashed request is immutable, a stale hash redirects', () => {
  const doc = servedDocument({ openapi: '3.0.0', paths: {} }, new Date('2026-01-02T03:04:05Z'));
  const now = new Date('2026-06-01T00:00:00Z');
  const req = (query: Record<string, string> = {}, headers: Record<string, string> = {}) => ({ method: 'GET', path: '/openapi/v3/apis/apps/v1', query, headers }) as RawRequest;
  const plain = serveOpenAPIV3Document(req(), 'apis/apps/v1', doc, now);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.etag, `"${doc.etag}"`);
  assert.equal(plain.headers.vary, 'Accept');
  assert.equal(plain.headers['cache-control'], undefined, 'no cache headers without a hash');
  const hashed = serveOpenAPIV3Document(req({ hash: doc.etag }), 'apis/apps/v1', doc, now);
  assert.equal(hashed.headers['cache-control'], 'public, immutable');
  assert.equal(hashed.headers.expires, 'Tue, 01 Jun 2027 00:00:00 UTC');
  assert.deepEqual(JSON.parse(Buffer.from(hashed.body!).toString()), { openapi: '3.0.0', paths: {} });
  const stale = serveOpenAPIV3Document(req({ hash: 'ABC' }), 'apis/apps/v1', doc, now);
  assert.equal(stale.status, 301);
  assert.equal(stale.headers.location, `/openapi/v3/apis/apps/v1?hash=${doc.etag}`);
  assert.equal(serveOpenAPIV3Document(req({}, { 'if-none-match': `"${doc.etag}"` }), 'apis/apps/v1', doc, now).status, 304);
  assert.equal(serveOpenAPIV3Document(req({}, { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' }), 'apis/apps/v1', doc, now).status, 406);
  const root = servedDocument({ paths: {} }, new Date());
  assert.equal(serveOpenAPIV3Root(req(), root).headers.etag, `"${root.etag}"`);
  assert.equal(serveOpenAPIV3Root(req({}, { 'if-none-match': `"${root.etag}"` }), root).status, 304);
});

test('the /openapi/v3 root links each document under the ETag it is served with', async (t) => {
  const ts = await startTestServer();
  t.after(() => ts.close());
  const root = await ts.call('GET', '/openapi/v3');
  const url: string = root.body.paths['apis/apps/v1'].serverRelativeURL;
  const [path, query] = url.split('?');
  const doc = await ts.call('GET', path!, undefined, {}, Object.fromEntries(new URLSearchParams(query)));
  assert.equal(doc.status, 200);
  assert.equal(doc.headers.etag, `"${new URLSearchParams(query).get('hash')}"`);
  assert.equal(doc.headers['cache-control'], 'public, immutable');
  assert.equal(doc.body.openapi, '3.0.0');
});
