import 'reflect-metadata';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { until } from '@kplane/api/testing';
import type { KubeObject } from '@kplane/api';
import { ApiError } from '@kplane/api';
import { createCa, issueCertificate } from '../auth/pki.js';
import { startTestServer } from '../testing.js';
import { createConverter } from './conversion.js';

let server: Server;
let url = '';
let caBundle = '';
const reviews: any[] = [];
let mode: 'ok' | 'fail' | 'badVersion' = 'ok';

/** v1 spec.size <-> v2 spec.dimensions.size; the webhook also tries to rename the object. */
function convert(obj: any, to: string): any {
  const out = structuredClone(obj);
  out.apiVersion = mode === 'badVersion' ? 'demo.example.com/v9' : to;
  out.metadata = { ...out.metadata, name: 'renamed', labels: { ...(out.metadata.labels ?? {}), converted: 'true' } };
  if (to.endsWith('/v2') && out.spec && 'size' in out.spec) out.spec = { dimensions: { size: out.spec.size } };
  if (to.endsWith('/v1') && out.spec?.dimensions) out.spec = { size: out.spec.dimensions.size };
  return out;
}

before(async () => {
  const ca = await createCa('conversion-test-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=conversion-webhook', usage: 'server', ipAddresses: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.pem.cert).toString('base64');
  server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push(review);
      const { uid, desiredAPIVersion, objects } = review.request;
      const response =
        mode === 'fail'
          ? { uid, result: { status: 'Failure', message: 'cannot convert' } }
          : { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: unknown) => convert(o, desiredAPIVersion)) };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/convert`;
});

after(() => {
  server.close();
});

test('conversion None rewrites apiVersion only', async () => {
  const c = createConverter({ conversion: { strategy: 'None' }, group: 'demo.example.com', kind: 'Widget' });
  const [o] = await c.convert([{ apiVersion: 'demo.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }], 'demo.example.com/v2');
  assert.deepEqual(o, { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
});

test('conversion Webhook: a ConversionReview round trip over HTTPS with the CA bundle', async () => {
  mode = 'ok';
  const c = createConverter({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } }, group: 'demo.example.com', kind: 'Widget' });
  const objs: KubeObject[] = [
    { apiVersion: 'demo.example.com/v1', kind: 'Widget', metadata: { name: 'a', uid: 'u' }, spec: { size: 2 } },
    { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'b' }, spec: { dimensions: { size: 5 } } },
  ];
  reviews.length = 0;
  const out = await c.convert(objs, 'demo.example.com/v2');
  assert.equal(reviews.length, 1);
  assert.equal(reviews[0].apiVersion, 'apiextensions.k8s.io/v1');
  assert.equal(reviews[0].kind, 'ConversionReview');
  assert.equal(reviews[0].request.desiredAPIVersion, 'demo.example.com/v2');
  assert.equal(reviews[0].request.objects.length, 1, 'objects already in the desired version are not sent');
  assert.deepEqual(out[0], { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'a', uid: 'u', labels: { converted: 'true' } }, spec: { dimensions: { size: 2 } } });
  assert.equal(out[1], objs[1]);

  mode = 'fail';
  await assert.rejects(c.convert(objs, 'demo.example.com/v2'), (e: unknown) => e instanceof ApiError && e.code === 500 && e.message.endsWith('conversion webhook for demo.example.com/v2, Kind=Widget failed: cannot convert'));
  mode = 'badVersion';
  await assert.rejects(c.convert(objs, 'demo.example.com/v2'), /invalid apiVersion "demo.example.com\/v9"/);
  const untrusted = createConverter({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1'] } }, group: 'demo.example.com', kind: 'Widget' });
  mode = 'ok';
  await assert.rejects(untrusted.convert(objs, 'demo.example.com/v2'), /failed: Post ".*": /);
});

test('a CRD with Webhook conversion serves both versions from one storage version', async () => {
  mode = 'ok';
  const t = await startTestServer();
  try {
    const schema = (props: object) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.demo.example.com' },
      spec: {
        group: 'demo.example.com',
        scope: 'Cluster',
        names: { kind: 'Widget', plural: 'widgets' },
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } },
        versions: [
          { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
          { name: 'v2', served: true, storage: false, schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } } }) },
        ],
      },
    };
    assert.equal((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    await until('v2 widgets served', async () => (await t.call('GET', '/apis/demo.example.com/v2/widgets')).status === 200);
    const created = await t.call('POST', '/apis/demo.example.com/v2/widgets', { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { dimensions: { size: 7 } } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.spec, { dimensions: { size: 7 } });
    const v1 = await t.call('GET', '/apis/demo.example.com/v1/widgets/w');
    assert.deepEqual([v1.body.apiVersion, v1.body.spec, v1.body.metadata.name], ['demo.example.com/v1', { size: 7 }, 'w']);
    const v2 = await t.call('GET', '/apis/demo.example.com/v2/widgets');
    assert.deepEqual(v2.body.items.map((o: any) => [o.apiVersion, o.spec, o.metadata.labels]), [['demo.example.com/v2', { dimensions: { size: 7 } }, { converted: 'true' }]]);
  } finally {
    await t.close();
  }
});
