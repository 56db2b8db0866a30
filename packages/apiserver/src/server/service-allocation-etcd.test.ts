/**
 * Two API servers, each with its own etcd client and watch caches, over one etcd: Services
 * created on both at once never share a ClusterIP or a NodePort (the bitmaps are stored in etcd
 * and written with compare-and-swap).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createEtcdBackend } from '@kplane/storage';
import { ETCD_MISSING, findEtcd, startEtcd } from '@kplane/storage/testing';
import { createApiServer, type ApiServer } from './server.js';
import { SERVICE_IPS_KEY } from './ip-allocator.js';

const SVC = '/api/v1/namespaces/default/services';

async function create(server: ApiServer, name: string): Promise<{ status: number; body: any }> {
  const body = { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80 }], selector: { app: name } } };
  const r = await server.handle({ method: 'POST', path: SVC, query: {}, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
  return { status: r.status, body: JSON.parse(Buffer.from(r.body ?? '').toString('utf8')) };
}

if (!findEtcd()) {
  test('two API servers over one etcd allocate ClusterIPs and NodePorts without a duplicate', { skip: ETCD_MISSING }, () => {});
} else {
  const etcd = await startEtcd();
  after(() => etcd.stop());

  test('two API servers over one etcd allocate ClusterIPs and NodePorts without a duplicate', async () => {
    // Small ranges: 62 addresses (one the kubernetes Service's) and 50 ports for 48 Services,
    // so that two allocators that did not share their bitmaps would collide.
    const options = { authorizationMode: 'AlwaysAllow', compactionIntervalMs: 0, serviceCIDR: '10.0.0.0/26', serviceNodePortRange: '30000-30049' } as const;
    const servers: ApiServer[] = [];
    for (let i = 0; i < 2; i++) servers.push(createApiServer({ ...options, backend: await createEtcdBackend({ endpoints: [etcd.endpoint] }) }));
    try {
      for (const s of servers) await s.start();
      const results = await Promise.all(Array.from({ length: 48 }, (_, i) => create(servers[i % 2]!, `s${i}`)));
      for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
      const ips = results.map((r) => r.body.spec.clusterIP as string);
      const ports = results.map((r) => r.body.spec.ports[0].nodePort as number);
      assert.equal(new Set(ips).size, 48, `duplicate ClusterIPs: ${ips.join(' ')}`);
      assert.ok(!ips.includes('10.0.0.1'), "the kubernetes Service's address is taken");
      assert.equal(new Set(ports).size, 48, `duplicate NodePorts: ${ports.join(' ')}`);
      // The range is etcd's: both see 2 of 50 ports left, and one more each fills it.
      assert.equal((await create(servers[0]!, 'last-a')).status, 201);
      assert.equal((await create(servers[1]!, 'last-b')).status, 201);
      const full = await create(servers[0]!, 'one-too-many');
      assert.equal(full.status, 422);
      assert.match(full.body.message, /failed to allocate a nodePort: range is full/);
      const backend = await createEtcdBackend({ endpoints: [etcd.endpoint] });
      try {
        assert.equal(JSON.parse((await backend.get(SERVICE_IPS_KEY))!.value).range, '10.0.0.0/26');
      } finally {
        await backend.close();
      }
    } finally {
      for (const s of servers) await s.close();
    }
  });
}
