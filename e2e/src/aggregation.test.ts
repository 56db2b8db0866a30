import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

const API = 'v1alpha1.example.kplane.io';

describe('an APIService naming a Service is proxied to its Endpoints (kube-aggregator)', () => {
  const suite = useKplane(['--nodes', '0', '--storage', 'memory']);
  let backend: Server;
  let port: number;
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const available = async () => JSON.parse(await k('get', 'apiservice', API, '-o', 'json')).status?.conditions?.find((c: { type: string }) => c.type === 'Available');

  before(async () => {
    // The backend serves with kplane's own serving certificate (127.0.0.1), so the caBundle is kplane's CA.
    const pki = join(suite.dir, 'pki');
    const [cert, key, ca] = await Promise.all(['serving.crt', 'serving.key', 'ca.crt'].map((f) => readFile(join(pki, f), 'utf8')));
    backend = createServer({ cert, key }, (req, res) => {
      const body =
        req.url === '/apis/example.kplane.io/v1alpha1'
          ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'example.kplane.io/v1alpha1', resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list'], shortNames: ['th'] }] }
          : req.url?.startsWith('/apis/example.kplane.io/v1alpha1/namespaces/default/things')
            ? { kind: 'ThingList', apiVersion: 'example.kplane.io/v1alpha1', metadata: {}, items: [{ kind: 'Thing', apiVersion: 'example.kplane.io/v1alpha1', metadata: { name: 'first-thing', namespace: 'default' } }] }
            : { path: req.url, user: req.headers['x-remote-user'], groups: req.headers['x-remote-group'], authorization: req.headers.authorization ?? null };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    port = (backend.address() as { port: number }).port;
    const manifest = `apiVersion: v1
kind: Service
metadata: {name: example-api}
spec:
  ports: [{name: https, port: 443, targetPort: ${port}}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: example-api}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: ${port}}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: ${API}}
spec:
  group: example.kplane.io
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 15
  service: {namespace: default, name: example-api, port: 443}
  caBundle: ${Buffer.from(ca!).toString('base64')}
`;
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], manifest);
  });
  after(() => backend?.close());

  it('is Available once its backend answers discovery, and requests reach it with the front-proxy headers', async () => {
    const cond = await eventually('Available=True', async () => ((await available())?.status === 'True' ? await available() : undefined));
    assert.deepEqual([cond.reason, cond.message], ['Passed', 'all checks passed']);
    const r = JSON.parse(await k('get', '--raw', '/apis/example.kplane.io/v1alpha1/namespaces/default/echo?limit=5'));
    assert.equal(r.path, '/apis/example.kplane.io/v1alpha1/namespaces/default/echo?limit=5');
    assert.equal(r.user, 'kplane-admin');
    assert.match(r.groups, /system:masters/);
    assert.equal(r.authorization, null);
  });

  it('lists the aggregated group in discovery, so kubectl finds and gets its resources', async () => {
    assert.match(await k('api-resources', '--api-group', 'example.kplane.io'), /^things\s+th\s+example\.kplane\.io\/v1alpha1\s+true\s+Thing$/m);
    assert.match(await k('get', 'things'), /first-thing/);
    assert.equal(JSON.parse(await k('get', '--raw', '/apis/example.kplane.io')).preferredVersion.version, 'v1alpha1');
  });

  it('turns unavailable with kube-aggregator\'s reason when the Endpoints go, and answers 503', async () => {
    await k('delete', 'endpoints', 'example-api');
    const cond = await eventually('Available=False', async () => ((await available())?.status === 'False' ? await available() : undefined));
    assert.deepEqual([cond.reason, cond.message], ['EndpointsNotFound', 'cannot find endpoints for service/example-api in "default"']);
    const r = await kubectl(suite.kp.kubeconfig, ['get', '--raw', '/apis/example.kplane.io/v1alpha1/things']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /service unavailable/);
  });
});
