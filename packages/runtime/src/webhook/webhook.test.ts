import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { Registry } from 'prom-client';
import { ApiError, type KubeObject } from '@kplane/api';
import { kindDescriptor } from '../kinds/descriptors.js';
import {
  conversionWebhook,
  createJsonPatch,
  createWebhookServer,
  generateWebhookCertificates,
  webhookConfigurations,
  webhookPath,
  type AdmissionReview,
  type ConversionReview,
  type WebhookServer,
} from './index.js';

interface Greeting extends KubeObject {
  spec?: { message?: string; replicas?: number; tags?: string[] };
}
const Greetings = kindDescriptor<Greeting>({ group: 'demo.kplane.io', version: 'v1', resource: 'greetings', kind: 'Greeting', namespaced: true });

/** POSTs `body` as JSON to the server over HTTPS, trusting only its caBundle. */
async function post(server: WebhookServer, path: string, body: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const ca = Buffer.from(server.caBundle!, 'base64').toString();
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: 'POST', ca, headers: { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        let parsed: unknown = raw;
        try {
          parsed = JSON.parse(raw);
        } catch {
          /* plain text */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

const review = (operation: 'CREATE' | 'UPDATE' | 'DELETE', object?: Greeting, oldObject?: Greeting): AdmissionReview => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: `uid-${operation}`,
    kind: { group: 'demo.kplane.io', version: 'v1', kind: 'Greeting' },
    resource: { group: 'demo.kplane.io', version: 'v1', resource: 'greetings' },
    name: 'hello',
    namespace: 'default',
    operation,
    userInfo: { username: 'admin' },
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
  },
});

const greeting = (spec: Greeting['spec']): Greeting => ({ apiVersion: 'demo.kplane.io/v1', kind: 'Greeting', metadata: { name: 'hello', namespace: 'default' }, spec });

const decodePatch = (b64: string): unknown => JSON.parse(Buffer.from(b64, 'base64').toString());

test('generated certificates: a CA, and a serving certificate it signed for localhost and 127.0.0.1', () => {
  const certs = generateWebhookCertificates();
  const ca = new X509Certificate(certs.caCert);
  const leaf = new X509Certificate(certs.cert);
  assert.equal(ca.ca, true);
  assert.equal(leaf.ca, false);
  assert.ok(leaf.verify(ca.publicKey), 'the CA signed the serving certificate');
  assert.ok(leaf.checkIssued(ca));
  assert.equal(leaf.checkHost('localhost'), 'localhost');
  assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(leaf.checkIP('::1'), '::1');
  assert.equal(leaf.checkHost('example.com'), undefined);
  assert.equal(Buffer.from(certs.caBundle, 'base64').toString(), certs.caCert);
  assert.match(certs.key, /BEGIN PRIVATE KEY/);
  const other = generateWebhookCertificates({ hosts: ['webhook.example.com', '10.0.0.7'], days: 2 });
  const otherLeaf = new X509Certificate(other.cert);
  assert.equal(otherLeaf.checkHost('webhook.example.com'), 'webhook.example.com');
  assert.equal(otherLeaf.checkIP('10.0.0.7'), '10.0.0.7');
  assert.equal(otherLeaf.checkIP('127.0.0.1'), undefined);
  assert.ok(!otherLeaf.verify(ca.publicKey), 'each call makes its own CA');
});

test('createJsonPatch: adds, removes and replaces, escapes keys, arrays element-wise or whole', () => {
  assert.deepEqual(createJsonPatch({ a: 1 }, { a: 1 }), []);
  assert.deepEqual(createJsonPatch({ a: 1, b: 2 }, { a: 3, c: { d: 4 } }), [
    { op: 'remove', path: '/b' },
    { op: 'replace', path: '/a', value: 3 },
    { op: 'add', path: '/c', value: { d: 4 } },
  ]);
  assert.deepEqual(createJsonPatch({ metadata: {} }, { metadata: { labels: { 'app.kubernetes.io/name': 'x', 'a~b': 'y' } } }), [
    { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'x', 'a~b': 'y' } },
  ]);
  assert.deepEqual(createJsonPatch({ l: { 'a/b': 1 } }, { l: { 'a/b': 2, 'c~d': 3 } }), [
    { op: 'replace', path: '/l/a~1b', value: 2 },
    { op: 'add', path: '/l/c~0d', value: 3 },
  ]);
  assert.deepEqual(createJsonPatch({ x: [1, 2] }, { x: [1, 3] }), [{ op: 'replace', path: '/x/1', value: 3 }]);
  assert.deepEqual(createJsonPatch({ x: [1, 2] }, { x: [1, 2, 3] }), [{ op: 'replace', path: '/x', value: [1, 2, 3] }]);
});

test('the webhook server: a defaulter answers with a base64 JSONPatch, a validator allows, warns and denies, over HTTPS', async (t) => {
  const calls: string[] = [];
  const server = createWebhookServer({ port: 0 }).forKind(Greetings, {
    defaulter: {
      default(obj, req) {
        calls.push(`default ${req.operation}`);
        obj.spec ??= {};
        obj.spec.replicas ??= 1;
        obj.metadata!.labels = { ...obj.metadata!.labels, 'greeting.demo/defaulted': 'true' };
      },
    },
    validator: {
      validateCreate(obj) {
        if (!obj.spec?.message) throw new Error('spec.message: Required value');
        return obj.spec.message.length > 10 ? ['spec.message is long'] : [];
      },
      validateUpdate(oldObj, newObj) {
        if (oldObj.spec?.message !== newObj.spec?.message) {
          throw new ApiError(422, 'Invalid', 'Greeting.demo.kplane.io "hello" is invalid: spec.message: Invalid value: field is immutable');
        }
      },
      validateDelete(obj) {
        return [`deleting ${obj.metadata!.name!}`];
      },
    },
  });
  await server.start();
  t.after(() => server.stop());
  assert.match(server.url!, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(webhookPath('mutate', Greetings), '/mutate-demo-kplane-io-v1-greeting');
  assert.equal(webhookPath('validate', { group: '', version: 'v1', kind: 'Pod' }), '/validate--v1-pod');

  const mutated = await post(server, '/mutate-demo-kplane-io-v1-greeting', review('CREATE', greeting({ message: 'hi' })));
  assert.equal(mutated.status, 200);
  assert.equal(mutated.body.apiVersion, 'admission.k8s.io/v1');
  assert.equal(mutated.body.kind, 'AdmissionReview');
  assert.equal(mutated.body.response.uid, 'uid-CREATE');
  assert.equal(mutated.body.response.allowed, true);
  assert.equal(mutated.body.response.patchType, 'JSONPatch');
  assert.deepEqual(decodePatch(mutated.body.response.patch), [
    { op: 'add', path: '/metadata/labels', value: { 'greeting.demo/defaulted': 'true' } },
    { op: 'add', path: '/spec/replicas', value: 1 },
  ]);

  const unchanged = await post(server, '/mutate-demo-kplane-io-v1-greeting', review('UPDATE', { ...greeting({ message: 'hi', replicas: 2 }), metadata: { name: 'hello', labels: { 'greeting.demo/defaulted': 'true' } } }));
  assert.deepEqual(unchanged.body.response, { uid: 'uid-UPDATE', allowed: true });
  const deleting = await post(server, '/mutate-demo-kplane-io-v1-greeting', review('DELETE', undefined, greeting({})));
  assert.equal(deleting.body.response.allowed, true);
  assert.equal(deleting.body.response.patch, undefined);
  assert.deepEqual(calls, ['default CREATE', 'default UPDATE']);

  const ok = await post(server, '/validate-demo-kplane-io-v1-greeting', review('CREATE', greeting({ message: 'hi' })));
  assert.deepEqual(ok.body.response, { uid: 'uid-CREATE', allowed: true, status: { metadata: {}, code: 200 } });
  const warned = await post(server, '/validate-demo-kplane-io-v1-greeting', review('CREATE', greeting({ message: 'hello, world!' })));
  assert.equal(warned.body.response.allowed, true);
  assert.deepEqual(warned.body.response.warnings, ['spec.message is long']);
  const denied = await post(server, '/validate-demo-kplane-io-v1-greeting', review('CREATE', greeting({})));
  assert.deepEqual(denied.body.response, {
    uid: 'uid-CREATE',
    allowed: false,
    status: { metadata: {}, message: 'spec.message: Required value', reason: 'Forbidden', code: 403 },
  });
  const invalid = await post(server, '/validate-demo-kplane-io-v1-greeting', review('UPDATE', greeting({ message: 'b' }), greeting({ message: 'a' })));
  assert.equal(invalid.body.response.allowed, false);
  assert.equal(invalid.body.response.status.code, 422);
  assert.equal(invalid.body.response.status.reason, 'Invalid');
  assert.match(invalid.body.response.status.message, /field is immutable/);
  const deleted = await post(server, '/validate-demo-kplane-io-v1-greeting', review('DELETE', undefined, greeting({ message: 'a' })));
  assert.equal(deleted.body.response.allowed, true);
  assert.deepEqual(deleted.body.response.warnings, ['deleting hello']);
});

test('the webhook server: bad requests get 400 responses, unknown paths 404; metrics by path and code', async (t) => {
  const registry = new Registry();
  const server = createWebhookServer({ port: 0, registry }).forKind(Greetings, { validator: {} });
  await server.start();
  t.after(() => server.stop());
  const path = '/validate-demo-kplane-io-v1-greeting';
  assert.equal((await post(server, '/nowhere', review('CREATE', greeting({})))).status, 404);
  const wrongType = await post(server, path, review('CREATE', greeting({})), 'text/plain');
  assert.equal(wrongType.body.response.allowed, false);
  assert.equal(wrongType.body.response.status.code, 400);
  assert.match(wrongType.body.response.status.message, /contentType=text\/plain, expected application\/json/);
  const v1beta1 = await post(server, path, { ...review('CREATE', greeting({})), apiVersion: 'admission.k8s.io/v1beta1' });
  assert.equal(v1beta1.body.response.status.code, 400);
  const noObject = await post(server, path, review('CREATE'));
  assert.deepEqual(noObject.body.response, { uid: 'uid-CREATE', allowed: false, status: { metadata: {}, message: 'there is no content to decode', code: 400 } });
  // No validateDelete: DELETE is allowed; and the rules leave DELETE out.
  assert.equal((await post(server, path, review('DELETE', undefined, greeting({})))).body.response.allowed, true);
  assert.deepEqual(server.webhooks.map((w) => w.operations), [['CREATE', 'UPDATE']]);
  assert.throws(() => server.forKind(Greetings, { validator: {} }), /already registered/);
  const text = await registry.metrics();
  assert.match(text, /controller_runtime_webhook_requests_total\{webhook="\/validate-demo-kplane-io-v1-greeting",code="200"\} 4/);
  assert.match(text, /controller_runtime_webhook_requests_total\{webhook="\/nowhere",code="404"\} 1/);
  assert.match(text, /controller_runtime_webhook_requests_in_flight\{webhook="\/validate-demo-kplane-io-v1-greeting"\} 0/);
  assert.match(text, /controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-demo-kplane-io-v1-greeting"\} 4/);
});

test('conversion through the hub: ConversionReview v1 at /convert', async (t) => {
  // v1 is the hub; v1alpha1 has spec.text where v1 has spec.message.
  const server = createWebhookServer({ port: 0 }).conversion({
    group: 'demo.kplane.io',
    kind: 'Greeting',
    hub: 'v1',
    spokes: {
      v1alpha1: {
        toHub: (o) => {
          const { text, ...rest } = (o as { spec?: { text?: string } }).spec ?? {};
          return { ...o, spec: { ...rest, message: text } };
        },
        fromHub: (o) => {
          const { message, ...rest } = (o as Greeting).spec ?? {};
          return { ...o, spec: { ...rest, text: message } };
        },
      },
    },
  });
  await server.start();
  t.after(() => server.stop());
  const ask = (desiredAPIVersion: string, objects: KubeObject[]) =>
    post(server, '/convert', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c1', desiredAPIVersion, objects } });

  const alpha = { apiVersion: 'demo.kplane.io/v1alpha1', kind: 'Greeting', metadata: { name: 'a' }, spec: { text: 'hi', replicas: 2 } };
  const up = (await ask('demo.kplane.io/v1', [alpha])).body as ConversionReview;
  assert.deepEqual(up.response, {
    uid: 'c1',
    convertedObjects: [{ apiVersion: 'demo.kplane.io/v1', kind: 'Greeting', metadata: { name: 'a' }, spec: { replicas: 2, message: 'hi' } }],
    result: { status: 'Success', metadata: {} },
  });
  const down = (await ask('demo.kplane.io/v1alpha1', [greeting({ message: 'yo' }), alpha])).body as ConversionReview;
  assert.deepEqual(down.response!.convertedObjects.map((o) => [o.apiVersion, (o as { spec?: unknown }).spec]), [
    ['demo.kplane.io/v1alpha1', { text: 'yo' }],
    ['demo.kplane.io/v1alpha1', { text: 'hi', replicas: 2 }],
  ]);
  const unknown = (await ask('demo.kplane.io/v2', [alpha])).body as ConversionReview;
  assert.equal(unknown.response!.result.status, 'Failure');
  assert.match(unknown.response!.result.message!, /no converter for Greeting version "v2"/);
  assert.deepEqual(unknown.response!.convertedObjects, []);
  const otherGroup = (await ask('other.io/v1', [alpha])).body as ConversionReview;
  assert.match(otherGroup.response!.result.message!, /cannot convert from group "demo.kplane.io" to group "other.io"/);
  assert.deepEqual(conversionWebhook(server), {
    strategy: 'Webhook',
    webhook: { clientConfig: { url: `${server.url}/convert`, caBundle: server.caBundle }, conversionReviewVersions: ['v1'] },
  });
});

test('webhookConfigurations: one webhook per kind and type, pointing at the server with its caBundle', async (t) => {
  const server = createWebhookServer({ port: 0 })
    .forKind(Greetings, { defaulter: { default: () => undefined }, validator: { validateDelete: () => [] } })
    .forKind(kindDescriptor({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }), { validator: {} });
  assert.throws(() => webhookConfigurations(server), /not started/);
  await server.start();
  t.after(() => server.stop());
  const { mutating, validating } = webhookConfigurations(server, { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } });
  const common = {
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
  };
  assert.deepEqual(mutating, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'mutating-webhook-configuration' },
    webhooks: [{
      name: 'mgreeting-v1.demo.kplane.io',
      clientConfig: { url: `${server.url}/mutate-demo-kplane-io-v1-greeting`, caBundle: server.caBundle },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['demo.kplane.io'], apiVersions: ['v1'], resources: ['greetings'] }],
      ...common,
      reinvocationPolicy: 'Never',
    }],
  });
  assert.equal(validating.metadata!.name, 'validating-webhook-configuration');
  assert.deepEqual(validating.webhooks!.map((w) => [w.name, w.clientConfig.url, w.rules![0]!.operations, w.rules![0]!.apiGroups]), [
    ['vgreeting-v1.demo.kplane.io', `${server.url}/validate-demo-kplane-io-v1-greeting`, ['CREATE', 'UPDATE', 'DELETE'], ['demo.kplane.io']],
    ['vconfigmap-v1.core.k8s.io', `${server.url}/validate--v1-configmap`, ['CREATE', 'UPDATE'], ['']],
  ]);
  const ignoring = webhookConfigurations(server, { failurePolicy: 'Ignore', url: 'https://10.0.0.1:9443/', mutatingName: 'm', validatingName: 'v' });
  assert.equal(ignoring.mutating.metadata!.name, 'm');
  assert.equal(ignoring.validating.webhooks![0]!.failurePolicy, 'Ignore');
  assert.equal(ignoring.validating.webhooks![0]!.clientConfig.url, 'https://10.0.0.1:9443/validate-demo-kplane-io-v1-greeting');
  const bySvc = webhookConfigurations(server, { service: { namespace: 'demo-system', name: 'demo-webhook', port: 443 } });
  assert.deepEqual(bySvc.mutating.webhooks![0]!.clientConfig, {
    service: { namespace: 'demo-system', name: 'demo-webhook', path: '/mutate-demo-kplane-io-v1-greeting', port: 443 },
    caBundle: server.caBundle,
  });
  assert.deepEqual(conversionWebhook(server, { service: { namespace: 'demo-system', name: 'demo-webhook' } }).webhook!.clientConfig, {
    service: { namespace: 'demo-system', name: 'demo-webhook', path: '/convert' },
    caBundle: server.caBundle,
  });
});

test('a given certificate is served, and the caBundle comes from the given CA', async (t) => {
  const certs = generateWebhookCertificates();
  assert.throws(() => createWebhookServer({ cert: certs.cert }), /cert and key go together/);
  const server = createWebhookServer({ port: 0, cert: certs.cert, key: certs.key, caCert: certs.caCert }).forKind(Greetings, { validator: {} });
  await server.start();
  t.after(() => server.stop());
  assert.equal(server.caBundle, certs.caBundle);
  const res = await post(server, '/validate-demo-kplane-io-v1-greeting', review('CREATE', greeting({})));
  assert.equal(res.body.response.allowed, true);
  await server.stop();
  assert.equal(server.url, undefined);
});
