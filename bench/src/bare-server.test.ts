import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpsTransport } from '@kplane/client';
import { startBareServer } from './bare-server.js';

test('the bare server answers GET with the fixed body and POST with the echo plus a uid', async () => {
  const getBody = Buffer.from('{"kind":"ConfigMap","metadata":{"name":"x"}}');
  const server = await startBareServer({ getBody });
  const t = createHttpsTransport({ server: server.url });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const g = await t({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/x' });
    assert.equal(g.status, 200);
    assert.equal(g.headers['content-type'], 'application/json');
    assert.deepEqual(Buffer.from(g.body!), getBody);

    const sent = { kind: 'ConfigMap', metadata: { name: 'y', labels: { a: 'b' } }, data: { k: 'v' } };
    const p = await t({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: Buffer.from(JSON.stringify(sent)) });
    assert.equal(p.status, 201);
    const echoed = JSON.parse(Buffer.from(p.body!).toString('utf8'));
    assert.deepEqual(echoed.data, sent.data);
    assert.equal(echoed.metadata.name, 'y');
    assert.deepEqual(echoed.metadata.labels, { a: 'b' });
    assert.match(echoed.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(echoed.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const p2 = await t({ method: 'POST', path: '/x', body: Buffer.from(JSON.stringify(sent)) });
    assert.notEqual(JSON.parse(Buffer.from(p2.body!).toString('utf8')).metadata.uid, echoed.metadata.uid);

    const bad = await t({ method: 'POST', path: '/x', body: Buffer.from('{not json') });
    assert.equal(bad.status, 400);
    const del = await t({ method: 'DELETE', path: '/x' });
    assert.equal(del.status, 404);
  } finally {
    t.close();
    await server.close();
  }
});
