import 'reflect-metadata';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { until } from '@kplane/api/testing';
import type { KubeObject } from '@kplane/api';
import { ApiError } from '@kplane/api';
import { createCa, issueCertificate } from '../auth/pki.js';
import { readEvents, startTestServer } from '../testing.js';
import { createConverter, type ConverterOptions } from './conversion.js';

let server: Server;
let port = 0;
let url = '';
let caBundle = '';
const reviews: any[] = [];
/** How the test webhook answers a review; the default converts every object. */
let respond: (review: any) => unknown = ok();

/** v1 spec.size <-> v2 spec.dimensions.size; `edit` changes each converted object further. */
function convert(obj: any, to: string): any {
  const out = structuredClone(obj);
  out.apiVersion = to;
  out.metadata = { ...out.metadata, labels: { ...(out.metadata.labels ?? {}), converted: 'true' } };
  if (to.endsWith('/v2') && out.spec && 'size' in out.spec) out.spec = { dimensions: { size: out.spec.size } };
  if (to.endsWith('/v1') && out.spec?.dimensions) out.spec = { size: out.spec.dimensions.size };
  return out;
}

function ok(edit: (o: any) => void = () => {}): (review: any) => unknown {
  return (review) => {
    const { uid, desiredAPIVersion, objects } = review.request;
    const convertedObjects = objects.map((o: unknown) => {
      const c = convert(o, desiredAPIVersion);
      edit(c);
      return c;
    });
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid, result: { status: 'Success' }, convertedObjects } };
  };
}

before(async () => {
  const ca = await createCa('conversion-test-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=conversion-webhook', usage: 'server', ipAddresses: ['127.0.0.1'], dnsNames: ['conv.default.svc'] });
  caBundle = Buffer.from(ca.pem.cert).toString('base64');
  server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push({ ...review, path: req.url });
      const answer = respond(review);
      if (answer === 'hang') return;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  url = `https://127.0.0.1:${port}/convert`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const widgets = (): KubeObject[] => [
  { apiVersion: 'demo.example.com/v1', kind: 'Widget', metadata: { name: 'a', uid: 'u' }, spec: { size: 2 } },
  { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'b' }, spec: { dimensions: { size: 5 } } },
];

const webhookConverter = (over: Partial<ConverterOptions> = {}, versions = ['v1']) =>
  createConverter({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: versions } }, group: 'demo.example.com', kind: 'Widget', ...over });

/** Asserts a conversion fails as kube-apiserver's plain error does: a 500 without reason, with this message. */
async function rejectsWith(p: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.deepEqual([e.code, e.reason], [500, '']);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

test('conversion None rewrites apiVersion only', async () => {
  const c = createConverter({ conversion: { strategy: 'None' }, group: 'demo.example.com', kind: 'Widget' });
  const [o] = await c.convert([{ apiVersion: 'demo.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }], 'demo.example.com/v2');
  assert.deepEqual(o, { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
});

test('conversion Webhook: a v1 ConversionReview round trip over HTTPS with the CA bundle and a 30s timeout', async () => {
  respond = ok();
  const objs = widgets();
  reviews.length = 0;
  const out = await webhookConverter().convert(objs, 'demo.example.com/v2');
  assert.equal(reviews.length, 1);
  const sent = reviews[0];
  assert.equal(sent.path, '/convert?timeout=30s');
  assert.deepEqual([sent.kind, sent.apiVersion, sent.request.desiredAPIVersion], ['ConversionReview', 'apiextensions.k8s.io/v1', 'demo.example.com/v2']);
  assert.deepEqual(sent.request.objects, [objs[0]], 'objects already in the desired version are not sent');
  assert.deepEqual(out[0], { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'a', uid: 'u', labels: { converted: 'true' } }, spec: { dimensions: { size: 2 } } });
  assert.equal(out[1], objs[1]);
  reviews.length = 0;
  assert.equal((await webhookConverter().convert([objs[1]!], 'demo.example.com/v2'))[0], objs[1]);
  assert.equal(reviews.length, 0, 'nothing to convert: no call');
});

test('conversionReviewVersions: the first version kube-apiserver speaks is sent', async () => {
  respond = (review) => {
    const { desiredAPIVersion, objects } = review.request;
    // A v1beta1 answer is not checked for its uid nor its kind, as kube-apiserver does not.
    return { response: { uid: 'other', result: { status: 'Success' }, convertedObjects: objects.map((o: unknown) => convert(o, desiredAPIVersion)) } };
  };
  reviews.length = 0;
  const [o] = await webhookConverter({}, ['v2', 'v1beta1', 'v1']).convert([widgets()[0]!], 'demo.example.com/v2');
  assert.equal(reviews[0].apiVersion, 'apiextensions.k8s.io/v1beta1');
  assert.deepEqual(o!.spec, { dimensions: { size: 2 } });
  await rejectsWith(webhookConverter({}, ['v9']).convert([widgets()[0]!], 'demo.example.com/v2'), 'no supported conversion review versions');
});

test('a failed or malformed answer is kube-apiserver\'s error, naming the source version', async () => {
  const c = webhookConverter();
  const one = [widgets()[0]!];
  const to = 'demo.example.com/v2';
  const prefix = 'conversion webhook for demo.example.com/v1, Kind=Widget';
  respond = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure', message: 'cannot convert' } } });
  await rejectsWith(c.convert(one, to), `${prefix} failed: cannot convert`);
  respond = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure' } } });
  await rejectsWith(c.convert(one, to), `${prefix} failed: response.result.status was 'Failure', not 'Success'`);
  respond = () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
  await rejectsWith(c.convert(one, to), `${prefix} failed: no response provided`);
  respond = () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'nope', result: { status: 'Success' } } });
  await rejectsWith(c.convert(one, to), new RegExp(`^${prefix} failed: expected response.uid="[0-9a-f-]{36}", got "nope"$`));
  respond = () => ({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', response: {} });
  await rejectsWith(c.convert(one, to), `${prefix} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`);
  respond = (r) => ({ ...(ok()(r) as object), response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: [] } });
  await rejectsWith(c.convert(one, to), `${prefix} returned 0 objects, expected 1`);
  respond = ok((o) => (o.apiVersion = 'demo.example.com/v9'));
  await rejectsWith(c.convert(one, to), `${prefix} returned invalid object at index 0: invalid groupVersion (expected demo.example.com/v2, received demo.example.com/v9)`);
  // Several objects are sent at once; a bad one is reported as kube reports it for one object, by its own version.
  const two: KubeObject[] = [one[0]!, { ...one[0]!, apiVersion: 'demo.example.com/v3', metadata: { name: 'c' } }];
  respond = ok((o) => o.metadata.name === 'c' && (o.apiVersion = 'demo.example.com/v9'));
  await rejectsWith(c.convert(two, to), 'conversion webhook for demo.example.com/v3, Kind=Widget returned invalid object at index 0: invalid groupVersion (expected demo.example.com/v2, received demo.example.com/v9)');
  respond = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: ['text'] } });
  await rejectsWith(c.convert(one, to), 'json: cannot unmarshal string into Go value of type map[string]interface {}');
  respond = ok((o) => delete o.kind);
  await rejectsWith(c.convert(one, to), /^Object 'Kind' is missing in '\{"apiVersion":"demo.example.com\/v2",/);
  respond = ok((o) => (o.kind = 'Gadget'));
  await rejectsWith(c.convert(one, to), `${prefix} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)`);
});

test('a conversion may change labels and annotations only', async () => {
  const c = webhookConverter();
  const to = 'demo.example.com/v2';
  const prefix = 'conversion webhook for demo.example.com/v1, Kind=Widget returned';
  const obj: KubeObject = { apiVersion: 'demo.example.com/v1', kind: 'Widget', metadata: { name: 'a', namespace: 'ns', uid: 'u', generation: 3, annotations: { keep: 'me' } }, spec: { size: 2 } };
  respond = ok((o) => (o.metadata.name = 'renamed'));
  await rejectsWith(c.convert([obj], to), `${prefix} invalid object: must have the same name: a != renamed`);
  respond = ok((o) => (o.metadata.uid = 'other'));
  await rejectsWith(c.convert([obj], to), `${prefix} invalid object: must have the same UID: u != other`);
  respond = ok((o) => (o.metadata.labels = { 'bad key': 'x' }));
  await rejectsWith(c.convert([obj], to), /^conversion webhook for demo.example.com\/v1, Kind=Widget returned invalid metadata: metadata.labels: Invalid value: "bad key": name part must consist of/);
  respond = ok((o) => (o.metadata.annotations = { n: 1 }));
  await rejectsWith(c.convert([obj], to), `${prefix} invalid metadata: metadata.annotations[n] must be a string, but is int64 in converted object`);
  respond = ok((o) => {
    o.metadata.generation = 99;
    o.metadata.annotations = { added: 'yes' };
  });
  const [out] = await c.convert([obj], to);
  assert.deepEqual(out!.metadata, { name: 'a', namespace: 'ns', uid: 'u', generation: 3, annotations: { added: 'yes' }, labels: { converted: 'true' } });
});

test('transport failures and timeouts are worded as Go\'s HTTP client words them', async () => {
  respond = ok();
  const one = [widgets()[0]!];
  const untrusted = createConverter({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1'] } }, group: 'demo.example.com', kind: 'Widget' });
  await rejectsWith(untrusted.convert(one, 'demo.example.com/v2'), `conversion webhook for demo.example.com/v1, Kind=Widget failed: Post "${url}?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
  respond = () => 'hang';
  await rejectsWith(webhookConverter({ timeoutMs: 50 }).convert(one, 'demo.example.com/v2'), `conversion webhook for demo.example.com/v1, Kind=Widget failed: Post "${url}?timeout=50ms": context deadline exceeded`);
});

test('a service reference is resolved through the Service\'s EndpointSlices; its DNS name is the certificate\'s', async () => {
  respond = ok();
  const services: KubeObject[] = [];
  const slices: KubeObject[] = [];
  const objects = { list: async (_g: string, _v: string, resource: string) => (resource === 'services' ? services : slices) };
  const c = createConverter({
    conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'default', name: 'conv', path: '/convert', port: 443 }, caBundle }, conversionReviewVersions: ['v1'] } },
    group: 'demo.example.com',
    kind: 'Widget',
    objects,
  });
  const one = [widgets()[0]!];
  const svcUrl = 'https://conv.default.svc:443/convert?timeout=30s';
  await rejectsWith(c.convert(one, 'demo.example.com/v2'), `conversion webhook for demo.example.com/v1, Kind=Widget failed: Post "${svcUrl}": service "conv" not found`);
  services.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443 }] } });
  await rejectsWith(c.convert(one, 'demo.example.com/v2'), `conversion webhook for demo.example.com/v1, Kind=Widget failed: Post "${svcUrl}": no endpoints available for service "conv"`);
  slices.push({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'conv-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'conv' } }, ports: [{ name: 'https', port }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }] } as KubeObject);
  reviews.length = 0;
  const [o] = await c.convert(one, 'demo.example.com/v2');
  assert.deepEqual(o!.spec, { dimensions: { size: 2 } });
  assert.equal(reviews[0].path, '/convert?timeout=30s');
});

test('a CRD with Webhook conversion by service reference serves both versions from one storage version', async () => {
  respond = ok();
  const t = await startTestServer();
  try {
    const schema = (props: object) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } });
    const endpoints = [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443 }] } },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'conv-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'conv' } }, addressType: 'IPv4', ports: [{ name: 'https', port }], endpoints: [{ addresses: ['127.0.0.1'] }] },
    ];
    assert.equal((await t.call('POST', '/api/v1/namespaces/default/services', endpoints[0])).status, 201);
    assert.equal((await t.call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', endpoints[1])).status, 201);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.demo.example.com' },
      spec: {
        group: 'demo.example.com',
        scope: 'Cluster',
        names: { kind: 'Widget', plural: 'widgets' },
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'default', name: 'conv', path: '/convert' }, caBundle }, conversionReviewVersions: ['v1'] } },
        versions: [
          { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
          { name: 'v2', served: true, storage: false, schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } } }) },
        ],
      },
    };
    assert.equal((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    await until('v2 widgets served', async () => (await t.call('GET', '/apis/demo.example.com/v2/widgets')).status === 200);
    const abort = new AbortController();
    const watch = await t.raw('GET', '/apis/demo.example.com/v2/widgets', { watch: '1', resourceVersion: '0' }, {}, abort.signal);
    const created = await t.call('POST', '/apis/demo.example.com/v2/widgets', { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { dimensions: { size: 7 } } });
    const [added] = await readEvents(watch, 1);
    abort.abort();
    assert.deepEqual([added?.type, added?.object.apiVersion, (added?.object as any).spec], ['ADDED', 'demo.example.com/v2', { dimensions: { size: 7 } }], 'watch events come converted');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.spec, { dimensions: { size: 7 } });
    const stored = JSON.parse((await t.backend.get('/registry/demo.example.com/widgets/w'))!.value);
    assert.deepEqual([stored.apiVersion, stored.spec], ['demo.example.com/v1', { size: 7 }]);
    const v1 = await t.call('GET', '/apis/demo.example.com/v1/widgets/w');
    assert.deepEqual([v1.body.apiVersion, v1.body.spec, v1.body.metadata.name], ['demo.example.com/v1', { size: 7 }, 'w']);
    const v2 = await t.call('GET', '/apis/demo.example.com/v2/widgets');
    assert.deepEqual(v2.body.items.map((o: any) => [o.apiVersion, o.spec, o.metadata.labels]), [['demo.example.com/v2', { dimensions: { size: 7 } }, { converted: 'true' }]]);

    respond = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure', message: 'down for maintenance' } } });
    const failed = await t.call('GET', '/apis/demo.example.com/v2/widgets/w');
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'conversion webhook for demo.example.com/v1, Kind=Widget failed: down for maintenance', code: 500 }, 'no reason: kube\'s StatusReasonUnknown');
    const refused = await t.call('POST', '/apis/demo.example.com/v2/widgets', { apiVersion: 'demo.example.com/v2', kind: 'Widget', metadata: { name: 'x' }, spec: { dimensions: { size: 1 } } });
    assert.deepEqual([refused.status, refused.body.message], [500, 'conversion webhook for demo.example.com/v2, Kind=Widget failed: down for maintenance']);
    assert.equal((await t.call('GET', '/apis/demo.example.com/v1/widgets/x')).status, 404, 'nothing stored');
  } finally {
    respond = ok();
    await t.close();
  }
});
