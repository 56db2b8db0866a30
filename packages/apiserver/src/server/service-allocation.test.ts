import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createMemoryBackend, createSqliteBackend, type Backend } from '@kplane/storage';
import { createVirtualClock } from '@kplane/storage/testing';
import { createServiceAllocator, LEAK_REPAIRS, parsePortRange, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY, type AllocatedService } from './ip-allocator.js';
import { createApiServer, DEFAULT_SERVICE_REPAIR_INTERVAL_MS, type ApiServer, type ApiServerOptions } from './server.js';

const SVC = '/api/v1/namespaces/default/services';

async function call(server: ApiServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const r = await server.handle({
    method,
    path,
    query: {},
    headers: { 'content-type': contentType },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

function svc(name: string, spec: Record<string, unknown> = {}): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } };
}

const servers: ApiServer[] = [];
async function start(backend: Backend, options: Partial<ApiServerOptions> = {}): Promise<ApiServer> {
  const server = createApiServer({ backend, authorizationMode: 'AlwaysAllow', compactionIntervalMs: 0, ...options });
  await server.start();
  servers.push(server);
  return server;
}
after(async () => {
  for (const s of servers) await s.close();
});

const services = (...s: AllocatedService[]) => async () => s;

describe('the allocators', () => {
  it('hand out the dynamic block first, honour requests once, and release', async () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    assert.equal(a.kubernetesIP, '10.0.0.1');
    // 254 usable addresses, static block of 16 (10.0.0.1-10.0.0.16): the first dynamic one is 10.0.0.17.
    assert.equal(await a.allocateIP(), '10.0.0.17');
    assert.equal(await a.allocateIP('10.0.0.5'), '10.0.0.5');
    await assert.rejects(a.allocateIP('10.0.0.5'), /^Error: provided IP is already allocated$/);
    await assert.rejects(a.allocateIP('10.0.0.0'), /the provided IP \(10\.0\.0\.0\) is not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/24/);
    await assert.rejects(a.allocateIP('10.0.0.255'), /not in the valid range/, 'the broadcast address is not handed out');
    assert.equal(await a.allocateNodePort(), 30016, 'static port block of 16');
    await assert.rejects(a.allocateNodePort(30016), /^Error: provided port is already allocated$/);
    await assert.rejects(a.allocateNodePort(31000), /provided port is not in the valid range\. The range of valid ports is 30000-30099/);
    assert.deepEqual(a.usage(), { ips: 2, ports: 1 });
    await a.release(['10.0.0.5'], [30016]);
    assert.deepEqual(a.usage(), { ips: 1, ports: 0 });
    assert.deepEqual(parsePortRange('30000-32767'), [30000, 2768]);
  });

  it('fall back to the static block when the dynamic one is full, then refuse', async () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/27', portRange: '30000-30001' });
    const got = new Set<string>();
    for (let i = 0; i < 30; i++) got.add(await a.allocateIP());
    assert.equal(got.size, 30);
    await assert.rejects(a.allocateIP(), /range is full/);
  });

  it('repair keeps the older of two holders and reports the rest', async () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24' });
    const problems = await a.repair(services(
      { owner: 'a', name: 'default/a', clusterIPs: ['10.0.0.9'], nodePorts: [30001] },
      { owner: 'b', name: 'default/b', clusterIPs: ['10.0.0.9'], nodePorts: [30001] },
      { owner: 'c', name: 'default/c', clusterIPs: ['192.168.0.1'], nodePorts: [80] },
    ));
    assert.deepEqual(problems.map((p) => `${p.service} ${p.reason}`), [
      'default/b ClusterIPAlreadyAllocated',
      'default/c ClusterIPOutOfRange',
      'default/b PortAlreadyAllocated',
      'default/c PortOutOfRange',
    ]);
    await assert.rejects(a.allocateIP('10.0.0.9'), /already allocated/);
  });
});

describe('the allocators\' leak cleanup', () => {
  it('releases a value no Service holds at the third repair in a row that finds it so', async () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    const ip = await a.allocateIP();
    const port = await a.allocateNodePort();
    const kept = { owner: 'kept', name: 'default/kept', clusterIPs: [await a.allocateIP()], nodePorts: [] };
    for (let i = 1; i < LEAK_REPAIRS; i++) {
      assert.deepEqual(await a.repair(services(kept)), []);
      await assert.rejects(a.allocateIP(ip), /already allocated/, `still held after repair ${i}`);
      await assert.rejects(a.allocateNodePort(port), /already allocated/);
    }
    await a.repair(services(kept));
    assert.equal(a.leaksReleased, 2);
    assert.equal(await a.allocateIP(ip), ip);
    assert.equal(await a.allocateNodePort(port), port);
    assert.deepEqual(a.usage(), { ips: 2, ports: 1 });
  });

  it('forgets a suspected leak once a Service holds the value', async () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    const ip = await a.allocateIP();
    await a.repair(services());
    await a.repair(services({ owner: 'late', name: 'default/late', clusterIPs: [ip], nodePorts: [] }));
    for (let i = 0; i < LEAK_REPAIRS - 1; i++) await a.repair(services());
    assert.equal(a.leaksReleased, 0, 'the count started again');
    await a.repair(services());
    assert.equal(a.leaksReleased, 1);
  });
});

/** The backends the stored bitmaps are tested on. */
const backends: [string, () => Backend][] = [
  ['memory', () => createMemoryBackend()],
  ['SQLite', () => createSqliteBackend({ path: ':memory:' })],
];

for (const [kind, make] of backends) {
  describe(`the bitmaps in storage (${kind})`, () => {
    it('are kube\'s RangeAllocations, shared by two allocators that allocate concurrently without a duplicate', async () => {
      const backend = make();
      try {
        const a = createServiceAllocator({ cidr: '10.0.0.0/26', portRange: '30000-30039', backend });
        const b = createServiceAllocator({ cidr: '10.0.0.0/26', portRange: '30000-30039', backend });
        // 62 addresses and 40 ports, all taken at once from both: each once, then the range is full.
        const ips = await Promise.all(Array.from({ length: 62 }, (_, i) => (i % 2 ? a : b).allocateIP()));
        assert.equal(new Set(ips).size, 62);
        const ports = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).allocateNodePort()));
        assert.equal(new Set(ports).size, 40);
        await assert.rejects(a.allocateIP(), /range is full/);
        await assert.rejects(b.allocateNodePort(), /range is full/);
        const stored = JSON.parse((await backend.get(SERVICE_IPS_KEY))!.value);
        assert.deepEqual({ kind: stored.kind, apiVersion: stored.apiVersion, range: stored.range }, { kind: 'RangeAllocation', apiVersion: 'v1', range: '10.0.0.0/26' });
        // Go's big.Int bytes of a map with bits 0..61 set: 0x3fffffffffffffff.
        assert.equal(Buffer.from(stored.data, 'base64').toString('hex'), '3fffffffffffffff');
        assert.equal(JSON.parse((await backend.get(SERVICE_NODE_PORTS_KEY))!.value).range, '30000-30039');
        // What one releases, the other may take.
        await a.release([ips[0]!], [ports[0]!]);
        assert.equal(await b.allocateIP(ips[0]), ips[0]);
        assert.equal(await b.allocateNodePort(ports[0]), ports[0]);
        await assert.rejects(a.allocateIP(ips[1]), /already allocated/, 'a read what b wrote');
      } finally {
        await backend.close();
      }
    });

    it('repair rebuilds the stored bitmap, reports what it lacked, and fails on a concurrent allocation', async () => {
      const backend = make();
      try {
        const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', backend, random: () => 0 });
        const b = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', backend, random: () => 0 });
        assert.equal(await a.allocateIP(), '10.0.0.17');
        assert.equal(await a.allocateNodePort(), 30016);
        // A Service holding an address the bitmap lacks (written by something that skipped it).
        const problems = await b.repair(services(
          { owner: 'x', name: 'default/x', clusterIPs: ['10.0.0.17'], nodePorts: [30016] },
          { owner: 'y', name: 'default/y', clusterIPs: ['10.0.0.30'], nodePorts: [30050] },
        ));
        assert.deepEqual(problems.map((p) => `${p.service} ${p.reason}: ${p.message}`), [
          'default/y ClusterIPNotAllocated: Cluster IP [IPv4]:10.0.0.30 is not allocated; repairing',
          'default/y PortNotAllocated: Port 30050 is not allocated; repairing',
        ]);
        await assert.rejects(a.allocateIP('10.0.0.30'), /already allocated/, 'the repaired bitmap is stored');
        // An allocation between the repair's read and its write makes it fail, not undo it.
        await assert.rejects(b.repair(async () => {
          await a.allocateIP('10.0.0.40');
          return [];
        }), /changed during the repair/);
        await assert.rejects(b.allocateIP('10.0.0.40'), /already allocated/);
      } finally {
        await backend.close();
      }
    });
  });
}

describe('the periodic repair', () => {
  it('runs every 3 minutes of virtual time: a leaked address is freed, a duplicate gets its event', async () => {
    const clock = createVirtualClock();
    const backend = createMemoryBackend({ now: clock.now });
    const server = await start(backend, { clock, now: () => new Date(clock.now()) });
    const created = await call(server, 'POST', SVC, svc('leaky'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ip = String(created.body.spec.clusterIP);
    // Its address dropped by a write straight to storage, which releases nothing: a leak.
    const key = '/registry/services/specs/default/leaky';
    const kv = (await backend.get(key))!;
    await backend.update(key, JSON.stringify({ ...JSON.parse(kv.value), spec: { type: 'ExternalName', externalName: 'example.com' } }), kv.modRevision);
    const refused = await call(server, 'POST', SVC, svc('again', { clusterIP: ip }));
    assert.equal(refused.status, 422, 'held while leaked');
    for (let i = 1; i < LEAK_REPAIRS; i++) await clock.advance(DEFAULT_SERVICE_REPAIR_INTERVAL_MS);
    assert.equal((await call(server, 'POST', SVC, svc('again', { clusterIP: ip }))).status, 422, 'not yet released');
    await clock.advance(DEFAULT_SERVICE_REPAIR_INTERVAL_MS);
    const again = await call(server, 'POST', SVC, svc('again', { clusterIP: ip }));
    assert.equal(again.status, 201, JSON.stringify(again.body));
    // A younger second holder written straight to storage: the next repair reports it.
    await clock.advance(1000);
    const twin = { ...svc('twin', { clusterIP: ip, clusterIPs: [ip], type: 'ClusterIP' }), metadata: { name: 'twin', namespace: 'default', uid: 'twin-uid', creationTimestamp: new Date(clock.now()).toISOString() } };
    await backend.create('/registry/services/specs/default/twin', JSON.stringify(twin));
    await clock.advance(DEFAULT_SERVICE_REPAIR_INTERVAL_MS);
    const events = await call(server, 'GET', '/api/v1/namespaces/default/events');
    const reasons = events.body.items.filter((e: any) => e.involvedObject.name === 'twin').map((e: any) => `${e.type} ${e.reason} ${e.source.component}`);
    assert.deepEqual(reasons, ['Warning ClusterIPAlreadyAllocated ipallocator-repair-controller']);
  });
});

describe('Services through the API', () => {
  const backend = createMemoryBackend();
  let server: ApiServer;
  let second: ApiServer;

  it('the kubernetes Service holds the first address, port 443 to the API server', async () => {
    server = await start(backend);
    // A second API server over the same storage, repaired now: later it allocates on its own.
    second = await start(backend);
    const k = await call(server, 'GET', `${SVC}/kubernetes`);
    assert.equal(k.status, 200);
    assert.deepEqual(k.body.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.equal(k.body.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(k.body.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
    assert.equal(k.body.spec.selector, undefined);
  });

  it('allocates from the dynamic block; a requested ClusterIP is honoured once', async () => {
    const a = await call(server, 'POST', SVC, svc('a'));
    assert.equal(a.status, 201);
    const ip = a.body.spec.clusterIP as string;
    const [, , third] = ip.split('.').map(Number);
    assert.match(ip, /^10\.(9[6-9]|10[0-9]|11[01])\./);
    assert.ok(!(ip.startsWith('10.96.0.')), `dynamic block, not ${ip}`);
    assert.ok(third !== undefined);
    assert.deepEqual(a.body.spec.clusterIPs, [ip]);
    const b = await call(server, 'POST', SVC, svc('b', { clusterIP: '10.96.0.10' }));
    assert.equal(b.status, 201);
    assert.equal(b.body.spec.clusterIP, '10.96.0.10');
    const dup = await call(server, 'POST', SVC, svc('c', { clusterIP: '10.96.0.10' }));
    assert.equal(dup.status, 422);
    assert.equal(dup.body.message, 'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated');
    assert.deepEqual(dup.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated' }]);
    const out = await call(server, 'POST', SVC, svc('c', { clusterIP: '192.168.1.1' }));
    assert.equal(out.status, 422);
    assert.equal(out.body.message, 'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12');
    const taken = await call(server, 'POST', SVC, svc('c', { clusterIP: '10.96.0.1' }));
    assert.match(taken.body.message, /failed to allocate IP 10\.96\.0\.1: provided IP is already allocated/, 'the kubernetes Service holds the first address');
    // Deleting b frees its address.
    assert.equal((await call(server, 'DELETE', `${SVC}/b`)).status, 200);
    assert.equal((await call(server, 'POST', SVC, svc('c', { clusterIP: '10.96.0.10' }))).status, 201);
  });

  it('headless and ExternalName Services get no address', async () => {
    const h = await call(server, 'POST', SVC, svc('headless', { clusterIP: 'None' }));
    assert.equal(h.status, 201);
    assert.deepEqual(h.body.spec.clusterIPs, ['None']);
    const e = await call(server, 'POST', SVC, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    assert.equal(e.status, 201);
    assert.equal(e.body.spec.clusterIP, undefined);
  });

  it('NodePorts: allocated, requested, refused when taken or out of range, released on delete and on type change', async () => {
    const n = await call(server, 'POST', SVC, svc('np', { type: 'NodePort', ports: [{ port: 80, name: 'a', nodePort: 30080 }, { port: 81, name: 'b' }] }));
    assert.equal(n.status, 201);
    assert.equal(n.body.spec.ports[0].nodePort, 30080);
    const other = n.body.spec.ports[1].nodePort as number;
    assert.ok(other >= 30086 && other <= 32767, `dynamic port block: ${other}`);
    const dup = await call(server, 'POST', SVC, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.equal(dup.status, 422);
    assert.equal(dup.body.message, 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    const out = await call(server, 'POST', SVC, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 40000 }] }));
    assert.equal(out.status, 422);
    assert.equal(out.body.message, 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767');
    assert.equal((await call(server, 'GET', `${SVC}/np2`)).status, 404);
    // Type change to ClusterIP drops and releases the NodePorts.
    const patched = await call(server, 'PATCH', `${SVC}/np`, { spec: { type: 'ClusterIP' } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.spec.ports[0].nodePort, undefined);
    assert.equal(patched.body.spec.externalTrafficPolicy, undefined);
    const again = await call(server, 'POST', SVC, svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.equal(again.status, 201, 'released on type change');
    assert.equal((await call(server, 'DELETE', `${SVC}/np3`)).status, 200);
    assert.equal((await call(server, 'POST', SVC, svc('np4', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }))).status, 201, 'released on delete');
    // An update keeps the allocated NodePort when the body leaves it out.
    const kept = await call(server, 'PATCH', `${SVC}/np4`, { spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] } }, 'application/strategic-merge-patch+json');
    assert.equal(kept.body.spec.ports[0].nodePort, 30080);
  });

  it('repair at start rebuilds the allocations and reports duplicates and addresses out of range', async () => {
    // The second API server shares the stored bitmaps: it refuses values the first took.
    const taken = await call(second, 'POST', SVC, svc('twin', { clusterIP: '10.96.0.10', type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.equal(taken.status, 422, JSON.stringify(taken.body));
    assert.match(taken.body.message, /failed to allocate IP 10\.96\.0\.10: provided IP is already allocated/);
    // Two servers allocating in the same instant can still collide: such a twin, written straight to storage.
    const twin = { ...svc('twin', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], type: 'NodePort', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] }), metadata: { name: 'twin', namespace: 'default', uid: 'twin-uid', creationTimestamp: new Date(Date.now() + 1000).toISOString() } };
    await backend.create('/registry/services/specs/default/twin', JSON.stringify(twin));
    await second.close();
    servers.splice(servers.indexOf(second), 1);
    const third = await start(backend);
    // The repaired allocator knows c's address.
    const refused = await call(third, 'POST', SVC, svc('d', { clusterIP: String((await call(third, 'GET', `${SVC}/a`)).body.spec.clusterIP) }));
    assert.equal(refused.status, 422);
    const events = await call(third, 'GET', '/api/v1/namespaces/default/events');
    const reasons = events.body.items.filter((e: any) => e.involvedObject.name === 'twin').map((e: any) => `${e.type} ${e.reason}: ${e.message}`).sort();
    assert.deepEqual(reasons, [
      'Warning ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.96.0.10 was assigned to multiple services; please recreate service',
      'Warning PortAlreadyAllocated: Port 30080 was assigned to multiple services; please recreate service',
    ]);
    // Another range: every stored address is out of it.
    const moved = await start(backend, { serviceCIDR: '10.0.0.0/24' });
    const out = await call(moved, 'GET', '/api/v1/namespaces/default/events');
    assert.ok(out.body.items.some((e: any) => e.reason === 'ClusterIPOutOfRange' && e.involvedObject.name === 'a'));
  });
});

describe('two API servers over one storage', () => {
  it('share the stored bitmaps: each refuses what the other took, and reuses what the other freed', async () => {
    const backend = createMemoryBackend();
    const a = await start(backend);
    const b = await start(backend);
    assert.equal((await call(a, 'POST', SVC, svc('one', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }))).status, 201);
    const refused = await call(b, 'POST', SVC, svc('two', { clusterIP: '10.96.0.20' }));
    assert.equal(refused.status, 422, 'b saw a take the address');
    const port = await call(b, 'POST', SVC, svc('two', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }));
    assert.equal(port.status, 422, 'and the NodePort');
    assert.equal((await call(a, 'DELETE', `${SVC}/one`)).status, 200);
    // a's delete released them in the stored bitmaps.
    const again = await call(b, 'POST', SVC, svc('two', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }));
    assert.equal(again.status, 201, JSON.stringify(again.body));
  });
});

describe('dry runs', () => {
  it('answer with the values a create or an update would allocate, and write no bitmap', async () => {
    const backend = createMemoryBackend();
    const server = await start(backend);
    const dry = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
      const r = await server.handle({ method, path, query: { dryRun: 'All' }, headers: { 'content-type': contentType }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
      return { status: r.status, body: JSON.parse(Buffer.from(r.body!).toString('utf8')) };
    };
    const revisions = async () => [(await backend.get(SERVICE_IPS_KEY))?.modRevision, (await backend.get(SERVICE_NODE_PORTS_KEY))?.modRevision];
    assert.equal((await call(server, 'POST', SVC, svc('real', { clusterIP: '10.96.0.50', type: 'NodePort', ports: [{ port: 80, nodePort: 30050 }] }))).status, 201);
    const before = await revisions();
    const created = await dry('POST', SVC, svc('trial', { type: 'NodePort' }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.spec.clusterIP, /^10\./);
    assert.ok(created.body.spec.ports[0].nodePort >= 30000);
    const taken = await dry('POST', SVC, svc('trial', { clusterIP: '10.96.0.50' }));
    assert.equal(taken.status, 422, 'a dry run checks against the stored bitmap');
    const patched = await dry('PATCH', `${SVC}/real`, { spec: { ports: [{ port: 80, nodePort: 30051, protocol: 'TCP' }] } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.spec.ports[0].nodePort, 30051);
    assert.deepEqual(await revisions(), before, 'no bitmap written');
    assert.equal((await dry('DELETE', `${SVC}/real`)).status, 200);
    assert.deepEqual(await revisions(), before);
    // Nothing was kept: a real create may take what the dry runs showed.
    assert.equal((await call(server, 'POST', SVC, svc('next', { type: 'NodePort', ports: [{ port: 80, nodePort: 30051 }] }))).status, 201);
  });
});
