/**
 * ResourceQuota, LimitRanger and Priority read their objects from the server's watch-kept
 * copies, not from storage, on every create; a quota's usage stays exact when the copy is
 * stale (the conditional status write conflicts and the quotas are read again from storage).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { createApiServer, type ApiServer } from '../server/server.js';

/** A backend that counts the lists made under each resource prefix while `counting` is on. */
function countingBackend(): { backend: Backend; lists: Map<string, number>; counting: { on: boolean } } {
  const inner = createMemoryBackend();
  const lists = new Map<string, number>();
  const counting = { on: false };
  const backend = new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== 'list' || typeof value !== 'function') return value;
      return (prefix: string, ...rest: unknown[]) => {
        if (counting.on) {
          const resource = prefix.split('/')[2] ?? prefix;
          lists.set(resource, (lists.get(resource) ?? 0) + 1);
        }
        return (value as (...a: unknown[]) => unknown).call(target, prefix, ...rest);
      };
    },
  });
  return { backend, lists, counting };
}

async function call(server: ApiServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await server.handle({ method, path, query: {}, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
  const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

const NS = '/api/v1/namespaces/default';
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

test('pod creates read quotas, limit ranges and priority classes from memory, and charge the quota exactly', async () => {
  const { backend, lists, counting } = countingBackend();
  const server = createApiServer({ backend, authorizationMode: 'AlwaysAllow', compactionIntervalMs: 0 });
  await server.start();
  try {
    assert.equal((await call(server, 'POST', `${NS}/limitranges`, { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', defaultRequest: { cpu: '100m' } }] } })).status, 201);
    assert.equal((await call(server, 'POST', `${NS}/resourcequotas`, { metadata: { name: 'q' }, spec: { hard: { pods: '100' } } })).status, 201);
    const status = await call(server, 'PUT', `${NS}/resourcequotas/q/status`, { metadata: { name: 'q' }, spec: { hard: { pods: '100' } }, status: { hard: { pods: '100' }, used: { pods: '0' } } });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.equal((await call(server, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'high' }, value: 1000 })).status, 201);

    counting.on = true;
    const first = await call(server, 'POST', `${NS}/pods`, { ...pod('first'), spec: { ...pod('first').spec, priorityClassName: 'high' } });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.spec.priority, 1000, 'Priority found the class');
    assert.equal(first.body.spec.containers[0].resources.requests.cpu, '100m', 'LimitRanger found the range');
    for (let i = 0; i < 20; i++) assert.equal((await call(server, 'POST', `${NS}/pods`, pod(`p${i}`))).status, 201);
    // The quota's status written behind the server's back (as another API server's charge would
    // be): the next create charges on top of it, whether its copy saw the write yet or not.
    const key = '/registry/resourcequotas/default/q';
    const kv = (await backend.get(key))!;
    const stored = JSON.parse(kv.value);
    assert.equal(stored.status.used.pods, '21');
    await backend.update(key, JSON.stringify({ ...stored, status: { ...stored.status, used: { pods: '50' } } }), kv.modRevision);
    assert.equal((await call(server, 'POST', `${NS}/pods`, pod('after'))).status, 201);
    counting.on = false;
    assert.equal((await call(server, 'GET', `${NS}/resourcequotas/q`)).body.status.used.pods, '51');
    assert.equal(lists.get('limitranges') ?? 0, 0, 'no storage list of limitranges');
    assert.equal(lists.get('priorityclasses') ?? 0, 0, 'no storage list of priorityclasses');
    assert.ok((lists.get('resourcequotas') ?? 0) <= 2, `resourcequotas listed from storage only after a conflict (${lists.get('resourcequotas')} of 22 creates)`);
  } finally {
    await server.close();
  }
});
