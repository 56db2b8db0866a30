import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@kplane/api/testing';
import { createMemoryBackend } from '@kplane/storage';
import { createApiServer, ensurePki, type ApiServer, type Pki } from '@kplane/apiserver';
import { createClient } from '@kplane/client';
import { createKubelet, type Kubelet } from '@kplane/kubelet';
import { kubeletClientCredentials } from '../control-plane.js';
import { kubeletServingCertificate, startKubeletServer, type KubeletServer } from './kubelet-server.js';

const LOG = '/api/v1/namespaces/default/pods/web/log';

describe('the kubelet port of a kplane kubelet process, and the API server proxying to it', () => {
  let dir: string;
  let pki: Pki;
  let server: ApiServer;
  let kubelet: Kubelet | undefined;
  let ks: KubeletServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kplane-kubelet-port-'));
    pki = await ensurePki(dir);
    server = createApiServer({ backend: createMemoryBackend() });
    await server.start();
    await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, kubeletClient: await kubeletClientCredentials(pki.ca.cert, pki.ca.key) });
    const client = createClient({ transport: server.handle, defaultNamespace: 'default' });
    ks = await startKubeletServer({ kubelet: () => kubelet, ...(await kubeletServingCertificate(pki.ca.cert, pki.ca.key, '127.0.0.1')), clientCa: pki.ca.cert, port: 0 });
    kubelet = createKubelet({ client, nodes: 1, address: '127.0.0.1', port: ks.port, events: false });
    await kubelet.start();
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', annotations: { 'kplane.io/start-after-ms': '0', 'kplane.io/log': 'from the other process' } }, spec: { nodeName: 'kplane-node-0', containers: [{ name: 'app', image: 'nginx' }] } };
    assert.equal((await server.handle({ method: 'POST', path: '/api/v1/namespaces/default/pods', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(pod)) })).status, 201);
  });
  after(async () => {
    await ks?.close();
    await kubelet?.stop();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const direct = (path: string, withCert: boolean) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: ks.port, path, ca: pki.ca.cert, ...(withCert ? { cert: pki.admin.cert, key: pki.admin.key } : {}) }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers 401 without a client certificate and 403 to any user but the API server', async () => {
    assert.deepEqual(await direct('/containerLogs/default/web/app', false), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await direct('/containerLogs/default/web/app', true), { status: 403, body: 'Forbidden (user=kplane-admin, verb=get, resource=nodes, subresource=proxy)' });
  });

  it('pods/log reads the log through the kubelet port; the kubelet\'s 400 reaches the client as is', async () => {
    await until('the log', async () => Buffer.from((await server.handle({ method: 'GET', path: LOG, headers: {} })).body ?? []).toString().includes('from the other process'));
    const tail = await server.handle({ method: 'GET', path: LOG, query: { tailLines: '1' }, headers: {} });
    assert.equal(tail.status, 200);
    assert.match(Buffer.from(tail.body ?? []).toString(), /^kplane: container app is ready\n$/);
    const previous = await server.handle({ method: 'GET', path: LOG, query: { previous: 'true' }, headers: {} });
    assert.equal(previous.status, 400);
    assert.equal(JSON.parse(Buffer.from(previous.body ?? []).toString()).message, 'previous terminated container "app" in pod "web" not found');
  });

  it('answers 500 naming the kubelet address when the kubelet port is gone', async () => {
    await ks.close();
    const r = await server.handle({ method: 'GET', path: LOG, headers: {} });
    assert.equal(r.status, 500);
    assert.match(JSON.parse(Buffer.from(r.body ?? []).toString()).message, new RegExp(`^Internal error occurred: Get "https://127\\.0\\.0\\.1:${ks.port}/containerLogs/default/web/app": connect ECONNREFUSED`));
  });
});
