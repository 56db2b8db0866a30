import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createMemoryBackend } from '@kplane/storage';
import { ApiError } from '@kplane/api';
import { createApiServer, type ApiServer } from './server.js';
import { createAggregator, type Aggregator } from './aggregator.js';

const NAME = 'v1alpha1.example.kplane.io';

describe('the aggregator: APIServices naming a Service', () => {
  let server: ApiServer;
  let agg: Aggregator;
  let closedPort: number;
  const call = async (method: string, path: string, body?: object) => {
    const r = await server.handle({ method, path, headers: { 'content-type': 'application/json' }, body: body ? Buffer.from(JSON.stringify(body)) : undefined });
    return { status: r.status, body: r.body?.length ? JSON.parse(Buffer.from(r.body).toString()) : undefined };
  };
  const condition = async () => (await call('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${NAME}`)).body.status.conditions.find((c: { type: string }) => c.type === 'Available');
  const check = async () => {
    await agg.checkAvailability();
    const c = await condition();
    return [c.status, c.reason, c.message];
  };

  before(async () => {
    server = createApiServer({ backend: createMemoryBackend() });
    await server.start();
    agg = createAggregator({ registry: server.registry, timeoutMs: 2000 });
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    closedPort = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    const created = await call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: NAME },
      spec: { group: 'example.kplane.io', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'api', port: 8443 }, insecureSkipTLSVerify: true },
    });
    assert.equal(created.status, 201);
  });
  after(() => server.close());

  it('gives kube-aggregator\'s reasons, step by step, until the discovery check', async () => {
    assert.deepEqual(await check(), ['False', 'ServiceNotFound', 'service/api in "default" is not present']);
    await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443 }] } });
    assert.deepEqual(await check(), ['False', 'ServicePortError', 'service/api in "default" is not listening on port 8443']);
    const svc = (await call('GET', '/api/v1/namespaces/default/services/api')).body;
    svc.spec.ports = [{ name: 'https', port: 8443 }];
    assert.equal((await call('PUT', '/api/v1/namespaces/default/services/api', svc)).status, 200);
    assert.deepEqual(await check(), ['False', 'EndpointsNotFound', 'cannot find endpoints for service/api in "default"']);
    await call('POST', '/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'other', port: closedPort }] }] });
    assert.deepEqual(await check(), ['False', 'MissingEndpoints', 'endpoints for service/api in "default" have no addresses with port name "https"']);
    const eps = (await call('GET', '/api/v1/namespaces/default/endpoints/api')).body;
    eps.subsets[0].ports[0].name = 'https';
    assert.equal((await call('PUT', '/api/v1/namespaces/default/endpoints/api', eps)).status, 200);
    const [status, reason, message] = await check();
    assert.deepEqual([status, reason], ['False', 'FailedDiscoveryCheck']);
    assert.match(message, new RegExp(`^failing or missing response from https://127\\.0\\.0\\.1:${closedPort}/apis/example\\.kplane\\.io/v1alpha1: connect ECONNREFUSED`));
  });

  it('proxies only group/versions an APIService with a service names; an unreachable backend is a 503', async () => {
    assert.equal(await agg.serve({ method: 'GET', path: '/apis/apps/v1/deployments', headers: {} }, 'apps', 'v1'), undefined);
    assert.equal(await agg.serve({ method: 'GET', path: '/apis/nothing.example/v1/x', headers: {} }, 'nothing.example', 'v1'), undefined);
    await assert.rejects(agg.serve({ method: 'GET', path: '/apis/example.kplane.io/v1alpha1/things', headers: {} }, 'example.kplane.io', 'v1alpha1'), (err: unknown) => err instanceof ApiError && err.code === 503);
    const viaHandler = await call('GET', '/apis/example.kplane.io/v1alpha1/things');
    assert.equal(viaHandler.status, 503);
    assert.equal(viaHandler.body.reason, 'ServiceUnavailable');
  });
});
