import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBackend } from '@kplane/storage';
import { createVirtualClock, type VirtualClock } from '@kplane/storage/testing';
import { ensurePki, type Pki } from '../auth/pki.js';
import { endpointSubsets, MASTER_LEASES_PREFIX } from './endpoint-reconciler.js';
import { createApiServer, type ApiServer } from './server.js';

type Obj = Record<string, any>;

describe('the lease endpoint reconciler: several API servers over one storage', () => {
  // One storage on clock `shared`; each server runs its schedules on a clock of its own, so a
  // server whose clock stands still is one that died without a word.
  const shared = createVirtualClock();
  const backend = createMemoryBackend({ now: () => shared.now() });
  const servers: ApiServer[] = [];
  let dir: string;
  let pki: Pki;

  const start = async (clock: VirtualClock, host = '127.0.0.1'): Promise<{ server: ApiServer; port: number }> => {
    const server = createApiServer({ backend, clock, now: () => new Date(clock.now()), authorizationMode: 'AlwaysAllow', compactionIntervalMs: 0 });
    servers.push(server);
    await server.start();
    const port = await server.listen({ host, port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert });
    return { server, port };
  };
  const get = async (server: ApiServer, path: string, query: Record<string, string> = {}): Promise<Obj> => {
    const r = await server.handle({ method: 'GET', path, query, headers: {} });
    assert.equal(r.status, 200, path);
    return JSON.parse(Buffer.from(r.body!).toString('utf8'));
  };
  const endpoints = (server: ApiServer) => get(server, '/api/v1/namespaces/default/endpoints/kubernetes');
  const slices = async (server: ApiServer) =>
    ((await get(server, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices')).items as Obj[])
      .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'kubernetes')
      .map((s) => ({ name: s.metadata.name, addresses: s.endpoints.map((e: Obj) => e.addresses[0]), ports: s.ports.map((p: Obj) => p.port) }))
      .sort((a, b) => a.name.localeCompare(b.name));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kplane-endpoints-'));
    pki = await ensurePki(dir);
  });
  after(async () => {
    for (const s of servers) await s.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });

  let a: { server: ApiServer; port: number };
  let b: { server: ApiServer; port: number };

  it('lists every live server: one subset per port, one EndpointSlice per port', async () => {
    a = await start(shared);
    b = await start(createVirtualClock(shared.now()));
    await shared.advance(10_000); // a's next reconcile sees b's record
    const ports = [a.port, b.port].sort((x, y) => x - y);
    const ep = await endpoints(a.server);
    assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.deepEqual(ep.subsets, ports.map((port) => ({ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] })));
    assert.deepEqual(await slices(a.server), [
      { name: 'kubernetes', addresses: ['127.0.0.1'], ports: [ports[0]] },
      { name: `kubernetes-${ports[1]}`, addresses: ['127.0.0.1'], ports: [ports[1]] },
    ]);
    // Each record lives 15 s in storage, under kube-apiserver's prefix.
    const keys = (await backend.list(MASTER_LEASES_PREFIX)).items.map((kv) => kv.key).sort();
    assert.deepEqual(keys, [`${MASTER_LEASES_PREFIX}127.0.0.1:${a.port}`, `${MASTER_LEASES_PREFIX}127.0.0.1:${b.port}`].sort());
  });

  it('the Service keeps the target port of a live server: servers on distinct ports do not rewrite it in turn', async () => {
    const svc = await get(a.server, '/api/v1/namespaces/default/services/kubernetes');
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: a.port }]);
    const before = svc.metadata.resourceVersion;
    await shared.advance(10_000);
    assert.equal((await get(b.server, '/api/v1/namespaces/default/services/kubernetes')).metadata.resourceVersion, before);
  });

  it('a server that dies drops out once its record expires; the Service then targets a live one', async () => {
    // As if b had written the Service last: its target port is b's.
    const svc = await get(a.server, '/api/v1/namespaces/default/services/kubernetes');
    svc.spec.ports[0].targetPort = b.port;
    const put = await a.server.handle({ method: 'PUT', path: '/api/v1/namespaces/default/services/kubernetes', query: {}, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(svc)) });
    assert.equal(put.status, 200);
    // b's clock stands still from now on: no more renewals. Its record was last written at most 10 s ago.
    await shared.advance(20_000);
    assert.equal((await get(a.server, '/api/v1/namespaces/default/services/kubernetes')).spec.ports[0].targetPort, a.port);
    assert.deepEqual((await endpoints(a.server)).subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: a.port, protocol: 'TCP' }] }]);
    assert.deepEqual(await slices(a.server), [{ name: 'kubernetes', addresses: ['127.0.0.1'], ports: [a.port] }]);
    assert.deepEqual((await backend.list(MASTER_LEASES_PREFIX)).items.map((kv) => kv.key), [`${MASTER_LEASES_PREFIX}127.0.0.1:${a.port}`]);
  });

  it('each server keeps an identity Lease; a dead server\'s is collected once expired', async () => {
    const list = async () =>
      ((await get(a.server, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' })).items as Obj[]).map((l) => l.metadata.name).sort();
    assert.deepEqual(await list(), [a.server.identity!.name, b.server.identity!.name].sort());
    assert.match(a.server.identity!.name, /^apiserver-[a-z2-7]{26}$/);
    const lease = await get(a.server, `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${a.server.identity!.name}`);
    assert.equal(lease.spec.holderIdentity, a.server.identity!.holderIdentity);
    assert.match(lease.spec.holderIdentity, new RegExp(`^${a.server.identity!.name}_[0-9a-f-]{36}$`));
    assert.equal(lease.spec.leaseDurationSeconds, 3600);
    assert.equal(lease.spec.renewTime, new Date(shared.now()).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'), 'renewed every 10 s');
    // b renews no more: its Lease expires an hour after its last renewal (at the start) and goes at the hourly collection.
    await shared.advance(3600_000);
    assert.deepEqual(await list(), [a.server.identity!.name]);
  });

  it('a server that stops cleanly leaves at once; the last one is never erased', async () => {
    const c = await start(shared);
    assert.equal((await endpoints(a.server)).subsets.length, 2, 'c published itself when it started listening');
    await c.server.close();
    assert.equal((await endpoints(a.server)).subsets.length, 1, 'c removed itself when it stopped');
    // The Service followed whichever live server reconciled last; a's next round keeps it on a.
    await shared.advance(10_000);
    assert.equal((await get(a.server, '/api/v1/namespaces/default/services/kubernetes')).spec.ports[0].targetPort, a.port);
    await a.server.close();
    assert.deepEqual((await endpoints(b.server)).subsets[0].ports[0].port, a.port, 'kube refuses to erase every endpoint');
  });
});

describe('endpointSubsets', () => {
  it('groups addresses by port, sorted as kube repacks them', () => {
    assert.deepEqual(
      endpointSubsets([
        { address: '10.0.0.2', port: 6443 },
        { address: '10.0.0.1', port: 6443 },
        { address: '10.0.0.1', port: 6444 },
      ]),
      [
        { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
        { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 6444, protocol: 'TCP' }] },
      ],
    );
  });
});

describe('the lease endpoint reconciler: API servers starting together', () => {
  it('all start, and the Endpoints list each of them, though they publish the same objects at once', async () => {
    const clock = createVirtualClock();
    const backend = createMemoryBackend({ now: () => clock.now() });
    const dir = await mkdtemp(join(tmpdir(), 'kplane-endpoints-'));
    const servers: ApiServer[] = [];
    try {
      const pki = await ensurePki(dir);
      const ports = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const server = createApiServer({ backend, clock, now: () => new Date(clock.now()), authorizationMode: 'AlwaysAllow', compactionIntervalMs: 0 });
          servers.push(server);
          await server.start();
          return server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert });
        }),
      );
      await clock.advance(10_000);
      const r = await servers[0]!.handle({ method: 'GET', path: '/api/v1/namespaces/default/endpoints/kubernetes', query: {}, headers: {} });
      const ep = JSON.parse(Buffer.from(r.body!).toString('utf8')) as Obj;
      assert.deepEqual(ep.subsets.map((s: Obj) => s.ports[0].port).sort(), [...ports].sort());
    } finally {
      for (const s of servers) await s.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
