import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawResponse } from '@kplane/api';
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
