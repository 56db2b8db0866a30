import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@kplane/api';
import { createCa, issueCertificate } from '../auth/pki.js';
import { postJson, resolveWebhookTarget, WebhookRequestError, type WebhookTarget } from './client.js';

let server: Server;
let port = 0;
let caBundle = '';
/** What the test server answers: status, content type and body. */
let answer: { code: number; type: string; body: string } = { code: 200, type: 'application/json', body: '{}' };

before(async () => {
  const ca = await createCa('webhookutil-test-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=hook.default.svc', usage: 'server', dnsNames: ['hook.default.svc'] });
  caBundle = Buffer.from(ca.pem.cert).toString('base64');
  server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(answer.code, { 'content-type': answer.type }).end(answer.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

const svc = (name: string, ports: object[]): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports } });
const slice = (service: string, ports: object[], endpoints: object[]): KubeObject =>
  ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${service}-x`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } }, ports, endpoints }) as KubeObject;

test('a service reference resolves to a ready endpoint at the slice port named as the service port', async () => {
  const services = [svc('hook', [{ name: 'metrics', port: 8080 }, { name: 'https', port: 443 }])];
  const slices = [
    slice('hook', [{ name: 'https', port: 1111 }], [{ addresses: ['10.0.0.9'], conditions: { ready: false } }]),
    slice('hook', [{ name: 'metrics', port: 2222 }, { name: 'https', port }], [{ addresses: ['127.0.0.1'] }]),
    slice('other', [{ name: 'https', port: 3333 }], [{ addresses: ['10.0.0.1'] }]),
  ];
  const objects = { list: async (_g: string, _v: string, r: string) => (r === 'services' ? services : slices) };
  const target = await resolveWebhookTarget({ service: { namespace: 'default', name: 'hook', path: '/convert' } }, 30, objects);
  assert.deepEqual(target, { url: 'https://hook.default.svc:443/convert?timeout=30s', serverName: 'hook.default.svc', host: '127.0.0.1', port, path: '/convert?timeout=30s' });
  await assert.rejects(resolveWebhookTarget({ service: { namespace: 'default', name: 'hook', port: 9 } }, 10, objects), (e: Error) =>
    e instanceof WebhookRequestError && e.message === 'Post "https://hook.default.svc:9/?timeout=10s": no service port 9 found for service "hook"',
  );
  const byUrl = await resolveWebhookTarget({ url: 'https://[::1]:8443/x?a=b' }, 5, objects);
  assert.deepEqual([byUrl.url, byUrl.host, byUrl.port, byUrl.path], ['https://[::1]:8443/x?a=b&timeout=5s', '::1', 8443, '/x?a=b&timeout=5s']);
});

test('postJson verifies the certificate against the service name and words bad answers as kube\'s REST client', async () => {
  const target: WebhookTarget = { url: 'https://hook.default.svc:443/x', serverName: 'hook.default.svc', host: '127.0.0.1', port, path: '/x' };
  answer = { code: 200, type: 'application/json', body: '{"ok":true}' };
  assert.deepEqual(await postJson(target, { a: 1 }, caBundle, 5000), { ok: true });
  await assert.rejects(postJson({ ...target, serverName: 'other.default.svc' }, {}, caBundle, 5000), {
    message: 'Post "https://hook.default.svc:443/x": tls: failed to verify certificate: x509: certificate is valid for other names, not other.default.svc',
  });
  answer = { code: 200, type: 'application/json', body: '' };
  await assert.rejects(postJson(target, {}, caBundle, 5000), { message: '0-length response with status code: 200 and content type: application/json' });
  answer = { code: 500, type: 'text/plain', body: 'boom' };
  await assert.rejects(postJson(target, {}, caBundle, 5000), { message: 'Post "https://hook.default.svc:443/x": the server responded with the status code 500 but did not return more information', statusCode: 500 });
  answer = { code: 200, type: 'application/json', body: 'not json' };
  await assert.rejects(postJson(target, {}, caBundle, 5000), (e: unknown) => e instanceof WebhookRequestError && e.invalidResponse);
});

test('calls to one webhook share a kept-alive connection', async () => {
  const target: WebhookTarget = { url: 'https://hook.default.svc:443/x', serverName: 'hook.default.svc', host: '127.0.0.1', port, path: '/x' };
  answer = { code: 200, type: 'application/json', body: '{"ok":true}' };
  server.closeIdleConnections();
  let connections = 0;
  const count = () => connections++;
  server.on('secureConnection', count);
  try {
    for (let i = 0; i < 3; i++) assert.deepEqual(await postJson(target, { i }, caBundle, 5000), { ok: true });
    assert.equal(connections, 1);
  } finally {
    server.off('secureConnection', count);
  }
});
