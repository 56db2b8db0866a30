import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Transport, WatchEvent } from '@kplane/api';
import { Traffic } from './traffic.js';

test('counts the chunks of a watch answered in bytes and the batches of one answered as events, passing them on unchanged', async () => {
  const batches: WatchEvent[][] = [[{ type: 'ADDED', object: {} }], [{ type: 'MODIFIED', object: {} }, { type: 'DELETED', object: {} }]];
  const inner: Transport = async (req) =>
    req.objects
      ? { status: 200, headers: {}, events: (async function* () { yield* batches; })() }
      : { status: 200, headers: {}, stream: (async function* () { yield Buffer.from('{"type":"ADDED","object":{}}\n'); })() };
  const traffic = new Traffic();
  const transport = traffic.wrap(inner, 'test');
  const objects = await transport({ method: 'GET', path: '/api/v1/configmaps', query: { watch: 'true' }, objects: true });
  const got: WatchEvent[][] = [];
  for await (const batch of objects.events!) got.push(batch);
  assert.deepEqual(got, batches);
  assert.equal(traffic.eventsRead, 2);
  const bytes = await transport({ method: 'GET', path: '/api/v1/configmaps', query: { watch: 'true' } });
  for await (const _chunk of bytes.stream!) { /* read */ }
  assert.equal(traffic.eventsRead, 3);
  assert.equal(traffic.started, 2);
  assert.equal(traffic.inFlight.size, 0);
});
