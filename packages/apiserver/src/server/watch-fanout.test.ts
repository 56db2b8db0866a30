import { withTlsServer } from './tls.fixture.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawResponse } from '@kplane/api';
import { connect, type ClientHttp2Session } from 'node:http2';
import { eventually } from '@kplane/api/testing';
import { startTestServer, type TestServer } from '../testing.js';

const CM = '/api/v1/namespaces/default/configmaps';
const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer({});
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/** The next chunk a watch stream yields. */
async function nextChunk(r: RawResponse): Promise<Uint8Array> {
  // The stream is an async generator: its iterator is itself, so reads go on where they stopped.
  const n = await r.stream![Symbol.asyncIterator]().next();
  assert.equal(n.done, false);
  return n.value as Uint8Array;
}

function lines(chunk: Uint8Array): { type: string; object: { kind: string; metadata: { name: string } } }[] {
  return Buffer.from(chunk).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('watch fan-out', () => {
  it('encodes each event once per representation and writes the same bytes to every watcher, never changed', async () => {
    await withServer(async (t) => {
      const rv = String(await t.backend.currentRevision());
      const abort = new AbortController();
      const open = (accept?: string) => t.raw('GET', CM, { watch: 'true', resourceVersion: rv }, accept ? { accept } : {}, abort.signal);
      const [a, b, c, ma, mb] = await Promise.all([open(), open(), open(), open(METADATA), open(METADATA)]);
      try {
        await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { k: 'v' } });
        const first = await nextChunk(a!);
        assert.equal(await nextChunk(b!), first, 'one encoding of the event for every plain watcher');
        const copy = Buffer.from(first);
        const meta = await nextChunk(ma!);
        assert.equal(await nextChunk(mb!), meta, 'one encoding of the event for every metadata watcher');
        assert.deepEqual(lines(meta).map((e) => [e.type, e.object.kind, e.object.metadata.name]), [['ADDED', 'PartialObjectMetadata', 'one']]);
        // A third watcher, behind, reads the event with the next ones in one chunk: a copy.
        await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } });
        await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'three' } });
        let got: string[] = [];
        while (got.length < 3) got = [...got, ...lines(await nextChunk(c!)).map((e) => e.object.metadata.name)];
        assert.deepEqual(got, ['one', 'two', 'three']);
        assert.deepEqual(Buffer.from(first), copy, 'the shared bytes are unchanged');
        assert.deepEqual(lines(first).map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'one']]);
      } finally {
        abort.abort();
      }
    });
  });

  it('a watcher that fell behind gets its queued events in fewer, larger chunks, in order', async () => {
    await withServer(async (t) => {
      const rv = String(await t.backend.currentRevision());
      const abort = new AbortController();
      const w = await t.raw('GET', CM, { watch: 'true', resourceVersion: rv }, {}, abort.signal);
      try {
        for (let i = 0; i < 20; i++) await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${String(i).padStart(2, '0')}` } });
        const names: string[] = [];
        let chunks = 0;
        while (names.length < 20) {
          names.push(...lines(await nextChunk(w)).map((e) => e.object.metadata.name));
          chunks++;
        }
        assert.deepEqual(names, Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`));
        assert.ok(chunks < 20, `${chunks} chunks for 20 events`);
      } finally {
        abort.abort();
      }
    });
  });
});

describe('watch fan-out over HTTP/2', () => {
  /** Reads a watch stream's events as they come, and how many DATA chunks brought them. */
  function follow(session: ClientHttp2Session, token: string, path: string, accept = 'application/json') {
    const stream = session.request({ ':path': path, authorization: `Bearer ${token}`, accept });
    const events: { type: string; object: { kind: string; metadata: { name: string; labels?: Record<string, string> } } }[] = [];
    let text = '';
    let chunks = 0;
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => {
      chunks++;
      text += c;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        events.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    });
    stream.on('error', () => {});
    const opened = new Promise<void>((resolve) => stream.once('response', () => resolve()));
    return { stream, events, opened, chunks: () => chunks };
  }

  it('gives watchers with and without selectors, plain and metadata, every change in order; a burst reaches each in few chunks', async () => {
    await withTlsServer(async ({ port, pki, backend, server }) => {
      const session = connect(`https://127.0.0.1:${port}`, { ca: pki.ca.cert });
      try {
        const rv = await backend.currentRevision();
        const watch = `${CM}?watch=1&resourceVersion=${rv}`;
        const plain = Array.from({ length: 30 }, () => follow(session, pki.adminToken, watch));
        const metadata = Array.from({ length: 5 }, () => follow(session, pki.adminToken, watch, METADATA));
        const odd = follow(session, pki.adminToken, `${watch}&labelSelector=odd%3Dtrue`);
        const elsewhere = follow(session, pki.adminToken, `/api/v1/namespaces/other/configmaps?watch=1&resourceVersion=${rv}`);
        const all = [...plain, ...metadata, odd, elsewhere];
        await Promise.all(all.map((w) => w.opened));
        const names = Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(2, '0')}`);
        await Promise.all(
          names.map((name, i) =>
            server.handle({
              method: 'POST',
              path: CM,
              query: {},
              headers: { 'content-type': 'application/json' },
              body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { odd: String(i % 2 === 1) } } })),
            }),
          ),
        );
        const created = (await t(server.handle({ method: 'GET', path: CM, query: {}, headers: {} }))).items.map((o) => o.metadata.name);
        assert.equal(created.length, 40);
        await eventually('every watcher has its events', () => [...plain, ...metadata].every((w) => w.events.length === 40) && odd.events.length === 20, { timeoutMs: 20_000 });
        // Every watcher sees the creates in the order storage took them.
        const order = plain[0]!.events.map((e) => e.object.metadata.name);
        assert.deepEqual([...order].sort(), names);
        for (const w of plain) assert.deepEqual(w.events.map((e) => [e.type, e.object.kind, e.object.metadata.name]), order.map((n) => ['ADDED', 'ConfigMap', n]));
        for (const w of metadata) assert.deepEqual(w.events.map((e) => [e.object.kind, e.object.metadata.name]), order.map((n) => ['PartialObjectMetadata', n]));
        assert.deepEqual(odd.events.map((e) => e.object.metadata.name), order.filter((n) => Number(n.slice(1)) % 2 === 1));
        assert.equal(elsewhere.events.length, 0);
        assert.ok(plain.every((w) => w.chunks() < 40), `chunks per watcher: ${plain.map((w) => w.chunks()).join(',')}`);
        for (const w of all) w.stream.close();
      } finally {
        session.close();
      }
    });
  });
});

/** The JSON body of an answer. */
async function t(r: Promise<RawResponse>): Promise<{ items: { metadata: { name: string } }[] }> {
  const res = await r;
  return JSON.parse(Buffer.from(res.body ?? []).toString('utf8'));
}
