import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { createVirtualClock } from '@kplane/storage/testing';
import { eventually } from '@kplane/api/testing';
import { createServiceAllocator, LEAK_REPAIRS, parsePortRange } from './ip-allocator.js';
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

describe('the allocators', () => {
  it('hand out the dynamic block first, honour requests once, and release', () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    assert.equal(a.kubernetesIP, '10.0.0.1');
    // 254 usable addresses, static block of 16 (10.0.0.1-10.0.0.16): the first dynamic one is 10.0.0.17.
    assert.equal(a.allocateIP('u1'), '10.0.0.17');
    assert.equal(a.allocateIP('u2', '10.0.0.5'), '10.0.0.5');
    assert.equal(a.allocateIP('u2', '10.0.0.5'), '10.0.0.5', 'the same owner may ask again (a retried write)');
    assert.throws(() => a.allocateIP('u3', '10.0.0.5'), /^Error: provided IP is already allocated$/);
    assert.throws(() => a.allocateIP('u3', '10.0.0.0'), /the provided IP \(10\.0\.0\.0\) is not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/24/);
    assert.throws(() => a.allocateIP('u3', '10.0.0.255'), /not in the valid range/, 'the broadcast address is not handed out');
    assert.equal(a.allocateNodePort('u1'), 30016, 'static port block of 16');
    assert.throws(() => a.allocateNodePort('u2', 30016), /^Error: provided port is already allocated$/);
    assert.throws(() => a.allocateNodePort('u2', 31000), /provided port is not in the valid range\. The range of valid ports is 30000-30099/);
    a.retain('u1', ['10.0.0.17'], []);
    assert.deepEqual(a.usage(), { ips: 2, ports: 0 });
    a.releaseAll('u2');
    assert.deepEqual(a.usage(), { ips: 1, ports: 0 });
    assert.deepEqual(parsePortRange('30000-32767'), [30000, 2768]);
  });

  it('fall back to the static block when the dynamic one is full, then refuse', () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/27', portRange: '30000-30001' });
    const got = new Set<string>();
    for (let i = 0; i < 30; i++) got.add(a.allocateIP(`u${i}`));
    assert.equal(got.size, 30);
    assert.throws(() => a.allocateIP('x'), /range is full/);
  });

  it('repair keeps the older of two holders and reports the rest', () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24' });
    const problems = a.repair([
      { owner: 'a', name: 'default/a', clusterIPs: ['10.0.0.9'], nodePorts: [30001] },
      { owner: 'b', name: 'default/b', clusterIPs: ['10.0.0.9'], nodePorts: [30001] },
      { owner: 'c', name: 'default/c', clusterIPs: ['192.168.0.1'], nodePorts: [80] },
    ]);
    assert.deepEqual(problems.map((p) => `${p.service} ${p.reason}`), [
      'default/b ClusterIPAlreadyAllocated',
      'default/c ClusterIPOutOfRange',
      'default/b PortAlreadyAllocated',
      'default/c PortOutOfRange',
    ]);
    assert.throws(() => a.allocateIP('z', '10.0.0.9'), /already allocated/);
  });
});

describe('the allocators\' leak cleanup', () => {
  it('releases a value no Service holds at the third repair in a row that finds it so', () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    const ip = a.allocateIP('gone');
    const port = a.allocateNodePort('gone');
    const kept = { owner: 'kept', name: 'default/kept', clusterIPs: [a.allocateIP('kept')], nodePorts: [] };
    for (let i = 1; i < LEAK_REPAIRS; i++) {
      assert.deepEqual(a.repair([kept]), []);
      assert.throws(() => a.allocateIP('other', ip), /already allocated/, `still held after repair ${i}`);
      assert.throws(() => a.allocateNodePort('other', port), /already allocated/);
    }
    a.repair([kept]);
    assert.equal(a.leaksReleased, 2);
    assert.equal(a.allocateIP('other', ip), ip);
    assert.equal(a.allocateNodePort('other', port), port);
    assert.deepEqual(a.usage(), { ips: 2, ports: 1 });
  });

  it('forgets a suspected leak once a Service holds the value', () => {
    const a = createServiceAllocator({ cidr: '10.0.0.0/24', portRange: '30000-30099', random: () => 0 });
    const ip = a.allocateIP('late');
    a.repair([]);
    a.repair([{ owner: 'late', name: 'default/late', clusterIPs: [ip], nodePorts: [] }]);
    for (let i = 0; i < LEAK_REPAIRS - 1; i++) a.repair([]);
    assert.equal(a.leaksReleased, 0, 'the count started again');
    a.repair([]);
    assert.equal(a.leaksReleased, 1);
  });
});

describe('the periodic repair', () => {
  it('runs every 3 minutes of virtual time: a leaked address is freed, a duplicate gets its event', async () => {
    const clock = createVirtualClock();
    const backend = createMemoryBackend({ now: clock.now });
    const server = await start(backend, { clock, now: () => new Date(clock.now()) });
    const created = await call(server, 'POST', SVC, svc('leaky'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ip = String(created.body.spec.clusterIP);
    // Its address dropped by a write straight to storage (as another API server's update would
    // be): this server never released it, so it leaks here. (A delete would release it: the
    // server follows the Services it did not write.)
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
    // The second API server followed the allocations the first made since: it refuses taken values.
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
  it('each takes what the other allocates, and frees what the other deletes', async () => {
    const backend = createMemoryBackend();
    const a = await start(backend);
    const b = await start(backend);
    assert.equal((await call(a, 'POST', SVC, svc('one', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }))).status, 201);
    const refused = await call(b, 'POST', SVC, svc('two', { clusterIP: '10.96.0.20' }));
    assert.equal(refused.status, 422, 'b saw a take the address');
    const port = await call(b, 'POST', SVC, svc('two', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }));
    assert.equal(port.status, 422, 'and the NodePort');
    assert.equal((await call(a, 'DELETE', `${SVC}/one`)).status, 200);
    // The delete reaches b through its watch cache.
    await eventually('b to free them when a deleted the Service', async () => (await call(b, 'POST', SVC, svc('two', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] }))).status === 201);
  });
});
