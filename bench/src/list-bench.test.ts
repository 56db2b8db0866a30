import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RawRequest, RawResponse } from '@kplane/api';
import { benchList, expectStatus } from './list-bench.js';

const json = (status: number, body: unknown): RawResponse => ({ status, headers: {}, body: Buffer.from(JSON.stringify(body)) });

/** A tiny fake API: namespaces, ConfigMap create, and LIST with limit/continue (or a buggy one). */
function fakeApi(options: { dropLastPage?: boolean } = {}) {
  const names: string[] = [];
  const requests: RawRequest[] = [];
  const transport = async (req: RawRequest): Promise<RawResponse> => {
    requests.push(req);
    if (req.method === 'POST' && req.path === '/api/v1/namespaces') return json(201, {});
    if (req.method === 'POST') {
      names.push(JSON.parse(Buffer.from(req.body!).toString()).metadata.name);
      return json(201, {});
    }
    const limit = Number(req.query?.['limit'] ?? names.length);
    const from = Number(req.query?.['continue'] ?? 0);
    const next = from + limit;
    const more = next < names.length && !(options.dropLastPage && next + limit >= names.length);
    return json(200, { items: names.slice(from, next).map((name) => ({ metadata: { name } })), metadata: more ? { continue: String(next) } : {} });
  };
  return { transport, names, requests };
}

test('benchList fills the namespace, lists it whole and by pages, and reports three timings', async () => {
  const api = fakeApi();
  const rows = await benchList(api.transport, { namespace: 'ns1', count: 45, concurrency: 4, limit: 10, configMap: (name, namespace) => ({ metadata: { name, namespace } }) });
  assert.equal(api.names.length, 45);
  assert.equal(new Set(api.names).size, 45);
  assert.deepEqual(rows.map((r) => r.name), ['create 45 ConfigMaps', 'LIST 45, one request', 'LIST 45, limit=10']);
  assert.match(rows[2]!.note!, /5 pages$/);
  assert.equal(api.requests.filter((r) => r.method === 'GET' && r.query?.['limit'] === '10').length, 15);
  assert.ok(api.requests.every((r) => r.path.startsWith('/api/v1/namespaces')));
});

test('benchList fails when a LIST misses items', async () => {
  const api = fakeApi({ dropLastPage: true });
  await assert.rejects(benchList(api.transport, { namespace: 'ns1', count: 45, concurrency: 4, limit: 10, configMap: (name) => ({ metadata: { name } }) }), /paged LIST returned 40 items, want 45/);
});

test('expectStatus passes allowed statuses and throws with the body otherwise', async () => {
  assert.equal((await expectStatus(Promise.resolve(json(409, {})), 201, 409)).status, 409);
  await assert.rejects(expectStatus(Promise.resolve(json(500, { message: 'boom' })), 200), /unexpected HTTP 500: \{"message":"boom"\}/);
});
