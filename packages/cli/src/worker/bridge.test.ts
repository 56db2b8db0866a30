import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort, type Transferable } from 'node:worker_threads';
import type { RawRequest, Transport } from '@kplane/api';
import { clientOverPort, serveOverPort } from './bridge.js';

/** A served stream that yields `chunks`, then stays open until the request is aborted. */
function openStream(chunks: string[], signal: AbortSignal | undefined, ended: () => void): AsyncIterable<Uint8Array> {
  return (async function* () {
    try {
      for (const c of chunks) yield Buffer.from(c);
      await new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve())));
    } finally {
      ended();
    }
  })();
}

test('a bridged transport carries requests, whole and streamed responses, aborts, failures and calls', async () => {
  const { port1, port2 } = new MessageChannel();
  const seen: RawRequest[] = [];
  let streamEnded = false;
  const serve: Transport = async (req) => {
    seen.push(req);
    if (req.path === '/fail') throw new Error('handler failed');
    if (req.query?.watch === 'true') return { status: 200, headers: { 'content-type': 'application/json' }, stream: openStream(['{"a":1}\n', '{"a":2}\n'], req.signal, () => (streamEnded = true)) };
    // A view onto part of a bigger buffer: only its bytes cross.
    const pooled = Buffer.from(`xx${Buffer.from(req.body ?? []).toString()}!yy`);
    return { status: 201, headers: { 'x-echo': req.headers?.['x-echo'] ?? '' } as Record<string, string>, body: pooled.subarray(2, pooled.length - 2) };
  };
  const unserve = serveOverPort(port1, serve, { add: async (a: number, b: number) => a + b });
  const client = clientOverPort(port2);
  try {
    const res = await client.transport({ method: 'POST', path: '/api/v1/things', headers: { 'x-echo': 'hi' }, body: Buffer.from('body'), user: { username: 'alice', groups: ['g'] } });
    assert.equal(res.status, 201);
    assert.equal(res.headers['x-echo'], 'hi');
    assert.equal(Buffer.from(res.body!).toString(), 'body!');
    assert.ok(Buffer.isBuffer(res.body));
    assert.deepEqual(seen[0]!.user, { username: 'alice', groups: ['g'] }, 'the identity crosses');
    assert.ok(seen[0]!.signal, 'the served request has a signal of its own');

    await assert.rejects(client.transport({ method: 'GET', path: '/fail' }), /handler failed/);
    assert.equal(await client.call<number>('add', 2, 3), 5);
    await assert.rejects(client.call('missing'), /no function missing/);

    const abort = new AbortController();
    const watch = await client.transport({ method: 'GET', path: '/api/v1/things', query: { watch: 'true' }, signal: abort.signal });
    const got: string[] = [];
    for await (const chunk of watch.stream!) {
      got.push(Buffer.from(chunk).toString());
      if (got.length === 2) abort.abort();
    }
    assert.deepEqual(got, ['{"a":1}\n', '{"a":2}\n']);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.ok(streamEnded, 'aborting on the client side ends the served stream');
  } finally {
    client.close();
    unserve();
    port1.close();
  }
});

test('the requests of one event-loop turn cross as one message, and so do their answers', async () => {
  const { port1, port2 } = new MessageChannel();
  const posted = { toServer: 0, toClient: 0 };
  const count = (port: MessagePort, side: keyof typeof posted) => {
    const post = port.postMessage.bind(port);
    port.postMessage = (m: unknown, transfer?: readonly Transferable[]) => {
      posted[side]++;
      post(m, transfer as Transferable[]);
    };
  };
  count(port1, 'toClient');
  count(port2, 'toServer');
  const unserve = serveOverPort(port1, async (req) => ({ status: 200, headers: {}, body: Buffer.from(`ok ${req.path}`) }));
  const client = clientOverPort(port2);
  try {
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => client.transport({ method: 'GET', path: `/p${i}` })));
    assert.deepEqual(answers.map((r) => Buffer.from(r.body!).toString()), ['ok /p1', 'ok /p2', 'ok /p3', 'ok /p4', 'ok /p5']);
    assert.equal(posted.toServer, 1, 'five requests, one message');
    assert.equal(posted.toClient, 1, 'five answers, one message');
  } finally {
    client.close();
    unserve();
    port1.close();
  }
});

test('a watch that asks for objects crosses the bridge without that flag: it is answered in bytes', async () => {
  const { port1, port2 } = new MessageChannel();
  const seen: RawRequest[] = [];
  const serve: Transport = async (req) => {
    seen.push(req);
    return { status: 200, headers: { 'content-type': 'application/json' }, stream: openStream(['{"type":"ADDED","object":{}}\n'], req.signal, () => undefined) };
  };
  const unserve = serveOverPort(port1, serve);
  const client = clientOverPort(port2);
  try {
    const abort = new AbortController();
    const watch = await client.transport({ method: 'GET', path: '/api/v1/things', query: { watch: 'true' }, signal: abort.signal, objects: true });
    assert.equal(watch.events, undefined);
    for await (const chunk of watch.stream!) {
      assert.equal(Buffer.from(chunk).toString(), '{"type":"ADDED","object":{}}\n');
      break;
    }
    assert.equal('objects' in seen[0]!, false);
  } finally {
    client.close();
    unserve();
    port1.close();
    port2.close();
  }
});
