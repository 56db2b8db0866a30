import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { readEvents, startTestServer, VirtualTimers, type TestServer } from '../testing.js';

const CM = '/api/v1/namespaces/default/configmaps';

function cm(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

async function withServer(options: Parameters<typeof startTestServer>[0], fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer(options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/** A watch as an in-process client that takes objects asks it. */
function watchObjects(t: TestServer, path: string, query: Record<string, string>, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<RawResponse> {
  return t.server.handle({ method: 'GET', path, query: { watch: 'true', ...query }, headers, signal, objects: true });
}

/** Reads `n` events of an objects watch (fewer when the time is up or the watch ends). */
async function readObjectEvents(r: RawResponse, n: number, timeoutMs = 2000): Promise<WatchEvent[]> {
  assert.ok(r.events, 'the watch is answered as events');
  assert.equal(r.stream, undefined);
  const out: WatchEvent[] = [];
  const it = r.events[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (out.length < n && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([it.next(), new Promise<null>((res) => (timer = setTimeout(() => res(null), Math.max(1, deadline - Date.now()))))]);
    clearTimeout(timer);
    if (next === null || next.done) break;
    assert.ok(next.value.length > 0, 'no empty batch');
    out.push(...next.value);
  }
  await it.return?.();
  return out;
}

/** Is `v` frozen, and everything in it? */
function deeplyFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen);
}

describe('watches answered as objects (in-process clients)', () => {
  it('changes carry the watch cache’s deep-frozen objects, equal to what the bytes decode to, the same object for every watcher', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, cm('a', { app: 'x' }, { v: '1' }));
      await t.call('POST', CM, cm('b'));
      const rv = String(await t.backend.currentRevision());
      const bytes = await t.raw('GET', CM, { watch: 'true', resourceVersion: rv });
      const first = await watchObjects(t, CM, { resourceVersion: rv });
      const second = await watchObjects(t, CM, { resourceVersion: rv });
      await t.call('PUT', `${CM}/a`, cm('a', { app: 'x' }, { v: '2' }));
      await t.call('DELETE', `${CM}/b`);
      await t.call('POST', CM, cm('c'));
      const expected = await readEvents(bytes, 3);
      const got = await readObjectEvents(first, 3);
      const again = await readObjectEvents(second, 3);
      assert.deepEqual(expected.map((e) => e.type), ['MODIFIED', 'DELETED', 'ADDED']);
      assert.deepEqual(got, expected);
      for (let i = 0; i < got.length; i++) {
        assert.ok(deeplyFrozen(got[i]!.object), `event ${i}'s object is deep-frozen`);
        assert.equal(got[i]!.object, again[i]!.object, 'both watchers share the object');
      }
      const obj = got[0]!.object as KubeObject & { data: Record<string, string> };
      assert.throws(() => {
        obj.data.v = 'changed';
      }, TypeError);
      assert.throws(() => {
        obj.metadata!.labels!.app = 'y';
      }, TypeError);
      assert.throws(() => {
        (obj.metadata as Record<string, unknown>).resourceVersion = '1';
      }, TypeError);
      // Reads of the object afterwards are unchanged.
      const get = await t.call('GET', `${CM}/a`);
      assert.equal(get.body.data.v, '2');
    });
  });

  it('initial events, the initial-events-end bookmark and selectors give what the bytes decode to', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, cm('a', { app: 'x' }));
      await t.call('POST', CM, cm('b', { app: 'y' }));
      const query = { sendInitialEvents: 'true', allowWatchBookmarks: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: '' };
      const all = await watchObjects(t, CM, query);
      const bytesAll = await t.raw('GET', CM, { watch: 'true', ...query });
      const selected = await watchObjects(t, CM, { ...query, labelSelector: 'app=x' });
      const bytesSelected = await t.raw('GET', CM, { watch: 'true', ...query, labelSelector: 'app=x' });
      const named = await watchObjects(t, CM, { ...query, fieldSelector: 'metadata.name=b' });
      const bytesNamed = await t.raw('GET', CM, { watch: 'true', ...query, fieldSelector: 'metadata.name=b' });
      // a leaves the selection app=x (a DELETED there), b enters it (an ADDED).
      await t.call('PUT', `${CM}/a`, cm('a', { app: 'z' }));
      await t.call('PUT', `${CM}/b`, cm('b', { app: 'x' }));
      const expectedAll = await readEvents(bytesAll, 5);
      assert.deepEqual(expectedAll.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK', 'MODIFIED', 'MODIFIED']);
      assert.deepEqual(await readObjectEvents(all, 5), expectedAll);
      const expectedSelected = await readEvents(bytesSelected, 4);
      assert.deepEqual(expectedSelected.map((e) => e.type), ['ADDED', 'BOOKMARK', 'DELETED', 'ADDED']);
      assert.deepEqual(await readObjectEvents(selected, 4), expectedSelected);
      const expectedNamed = await readEvents(bytesNamed, 3);
      assert.deepEqual(expectedNamed.map((e) => e.type), ['ADDED', 'BOOKMARK', 'MODIFIED']);
      assert.deepEqual(await readObjectEvents(named, 3), expectedNamed);
    });
  });

  it('an ERROR event is the Status its bytes decode to', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers }, async (t) => {
      const ahead = String((await t.backend.currentRevision()) + 5);
      const query = { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: ahead };
      const objects = watchObjects(t, CM, query);
      const bytes = t.raw('GET', CM, { watch: 'true', ...query });
      await timers.advance(3100);
      const expected = await readEvents(await bytes, 1);
      assert.equal(expected[0]?.type, 'ERROR');
      assert.deepEqual(await readObjectEvents(await objects, 1), expected);
    });
  });

  it('tables and metadata are answered as bytes all the same', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, cm('a'));
      const table = await watchObjects(t, CM, {}, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
      assert.equal(table.events, undefined);
      assert.equal((await readEvents(table, 1))[0]?.object.kind, 'Table');
      const metadata = await watchObjects(t, CM, {}, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
      assert.equal(metadata.events, undefined);
      assert.equal((await readEvents(metadata, 1))[0]?.object.kind, 'PartialObjectMetadata');
    });
  });

  it('a reader that stops ends the watch', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, cm('a'));
      const r = await watchObjects(t, CM, {});
      assert.equal((await readObjectEvents(r, 1)).length, 1);
      // readObjectEvents returned the iterator: the cache's watcher is gone.
      const cache = t.server.registry.get('', 'v1', 'configmaps')!.cache;
      for (let i = 0; i < 50 && cache.usage.watchers > 0; i++) await new Promise((res) => setTimeout(res, 10));
      assert.equal(cache.usage.watchers, 0);
    });
  });
});
