import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { readEvents, startTestServer, VirtualTimers, type TestServer } from '../testing.js';
import { WATCH_BUFFER_CHUNKS } from './watch.js';

const CM = '/api/v1/namespaces/default/configmaps';

function cm(name: string, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

type Event = { type: string; object: KubeObject & Record<string, any> };

/** Reads a watch stream to its end (it must end by itself). */
async function readToEnd(r: RawResponse): Promise<Event[]> {
  let text = '';
  for await (const chunk of r.stream!) text += Buffer.from(chunk).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
}

async function withServer(options: Parameters<typeof startTestServer>[0], fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer(options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function revision(t: TestServer): Promise<number> {
  return t.backend.currentRevision();
}

/** Kube-apiserver's Status for a read at a resourceVersion storage did not reach in 3 s. */
function tooLarge(requested: number, current: number) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    reason: 'Timeout',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    code: 504,
  };
}

describe('resourceVersion semantics of reads', () => {
  it('GET at a version ahead of storage waits for it and answers as soon as storage reaches it', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers }, async (t) => {
      await t.call('POST', CM, cm('a', { v: '1' }));
      const ahead = (await revision(t)) + 1;
      let answered = false;
      const get = t.call('GET', `${CM}/a?resourceVersion=${ahead}`).finally(() => (answered = true));
      await timers.advance(1000);
      assert.equal(answered, false);
      await t.call('PATCH', `${CM}/a`, { data: { v: '2' } }, { 'content-type': 'application/merge-patch+json' });
      await timers.advance(0);
      const r = await get;
      assert.equal(r.status, 200);
      assert.equal(r.body.data.v, '2');
      assert.equal(r.body.metadata.resourceVersion, String(ahead));
    });
  });

  it('GET and LIST at a version storage does not reach in 3 s answer 504 with the ResourceVersionTooLarge cause', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers }, async (t) => {
      await t.call('POST', CM, cm('a'));
      const now = await revision(t);
      const calls = [
        t.call('GET', `${CM}/a?resourceVersion=${now + 10}`),
        t.call('GET', `${CM}?resourceVersion=${now + 10}`),
        t.call('GET', `${CM}?resourceVersion=${now + 10}&resourceVersionMatch=NotOlderThan&labelSelector=x%3Dy`),
        t.call('GET', `${CM}?resourceVersion=${now + 10}&resourceVersionMatch=Exact`),
        t.call('GET', `${CM}/a?resourceVersion=${now + 10}`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }),
      ];
      let settled = 0;
      for (const c of calls) void c.finally(() => settled++);
      await timers.advance(2999);
      assert.equal(settled, 0);
      await timers.advance(1);
      for (const r of await Promise.all(calls)) {
        assert.equal(r.status, 504);
        assert.deepEqual(r.body, tooLarge(now + 10, now));
        assert.equal(r.headers['retry-after'], '1');
      }
      assert.equal(timers.pending, 0);
    });
  });

  it('GET and LIST at "0", "" or a version storage holds answer at once; a version that is no number is a 400', async () => {
    await withServer({}, async (t) => {
      const c = await t.call('POST', CM, cm('a'));
      const rv = c.body.metadata.resourceVersion;
      for (const q of ['', '?resourceVersion=', '?resourceVersion=0', `?resourceVersion=${rv}`]) {
        assert.equal((await t.call('GET', `${CM}/a${q}`)).status, 200, q);
        assert.equal((await t.call('GET', `${CM}${q}`)).status, 200, q);
      }
      for (const bad of ['abc', '-1', '1.5', '1e3']) {
        const r = await t.call('GET', `${CM}/a?resourceVersion=${bad}`);
        assert.equal(r.status, 400, bad);
        assert.equal(r.body.message, `invalid resource version: ${bad}`);
        assert.equal((await t.call('GET', `${CM}?resourceVersion=${bad}`)).status, 400, bad);
      }
    });
  });

  it('refuses resourceVersionMatch without a resourceVersion, with continue, unknown, or Exact at "0", as kube-apiserver does', async () => {
    await withServer({}, async (t) => {
      const cases: [string, string][] = [
        ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
        ['resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
        ['resourceVersion=1&resourceVersionMatch=Sometimes', 'resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""'],
        ['resourceVersionMatch=Sometimes&continue=x', '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""]'],
      ];
      for (const [query, detail] of cases) {
        const r = await t.call('GET', `${CM}?${query}`);
        assert.equal(r.status, 422, query);
        assert.equal(r.body.reason, 'Invalid');
        assert.equal(r.body.message, `ListOptions.meta.k8s.io "" is invalid: ${detail}`);
        assert.deepEqual([r.body.details.group, r.body.details.kind, r.body.details.name], ['meta.k8s.io', 'ListOptions', undefined]);
      }
    });
  });

  it('LIST with Exact at a version storage reaches within 3 s lists at that very version', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers }, async (t) => {
      const ahead = (await revision(t)) + 1;
      const list = t.call('GET', `${CM}?resourceVersion=${ahead}&resourceVersionMatch=Exact`);
      await t.call('POST', CM, cm('exact'));
      await t.call('POST', CM, cm('later'));
      await timers.advance(100);
      const r = await list;
      assert.equal(r.status, 200);
      assert.equal(r.body.metadata.resourceVersion, String(ahead));
      assert.deepEqual(r.body.items.map((o: KubeObject) => o.metadata?.name), ['exact']);
    });
  });
});

describe('resourceVersion semantics of watches', () => {
  it('a watch from version N sends only changes after N, even when N is the newest write', async () => {
    await withServer({}, async (t) => {
      const a = await t.call('POST', CM, cm('a'));
      const abort = new AbortController();
      const w = await t.raw('GET', CM, { watch: 'true', resourceVersion: a.body.metadata.resourceVersion }, {}, abort.signal);
      await t.call('POST', CM, cm('b'));
      const events = await readEvents(w, 1);
      abort.abort();
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata?.name]), [['ADDED', 'b']]);
    });
  });

  it("a metadata watch's initial events, built from stored JSON, are the objects' metadata as decoding gives it", async () => {
    await withServer({}, async (t) => {
      const tricky = { app: 'x', 'a.b/c': 'v' };
      await t.call('POST', CM, { ...cm('a', { j: '{"k":"}"}' }), metadata: { name: 'a', labels: tricky, annotations: { note: 'a "}" and a \\ and {[' } } });
      await t.call('POST', CM, { ...cm('b'), metadata: { name: 'b', labels: { app: 'y' }, finalizers: ['x/y'] } });
      const accept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
      const read = async (query: Record<string, string>) => {
        const abort = new AbortController();
        const events = await readEvents(await t.raw('GET', CM, { watch: 'true', ...query }, { accept }, abort.signal), 2);
        abort.abort();
        return events.map((e) => e.object);
      };
      // Without a selector: from stored JSON. With one that selects everything: from decoded objects.
      const fast = await read({});
      const decoded = await read({ labelSelector: 'app' });
      assert.deepEqual(fast, decoded);
      assert.equal(fast[0]!.kind, 'PartialObjectMetadata');
      assert.deepEqual(fast[0]!.metadata?.annotations, { note: 'a "}" and a \\ and {[' });
      assert.equal((fast[0] as Record<string, unknown>).data, undefined);
      assert.ok(fast.every((o) => /^\d+$/.test(o.metadata?.resourceVersion ?? '')));
    });
  });

  it('a watch from a version ahead of storage sends only changes after it', async () => {
    await withServer({}, async (t) => {
      const ahead = (await revision(t)) + 2;
      const abort = new AbortController();
      const w = await t.raw('GET', CM, { watch: 'true', resourceVersion: String(ahead) }, {}, abort.signal);
      for (const n of ['a', 'b', 'c', 'd']) await t.call('POST', CM, cm(n));
      const events = await readEvents(w, 2);
      abort.abort();
      assert.deepEqual(events.map((e) => e.object.metadata?.name), ['c', 'd']);
      assert.equal(events[0]!.object.metadata?.resourceVersion, String(ahead + 1));
    });
  });

  it('a streaming list at a version storage does not reach in 3 s ends with a 504 ERROR event', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers }, async (t) => {
      const now = await revision(t);
      const w = await t.raw('GET', CM, { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: String(now + 5) });
      const reading = readToEnd(w);
      await timers.advance(3000);
      const events = await reading;
      assert.deepEqual(events, [{ type: 'ERROR', object: tooLarge(now + 5, now) }]);
    });
  });

  it('checks sendInitialEvents and resourceVersionMatch as kube-apiserver does', async () => {
    await withServer({}, async (t) => {
      const cases: [string, string][] = [
        ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
        ['sendInitialEvents=true', 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
        ['sendInitialEvents=true&resourceVersionMatch=Exact', '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'],
      ];
      for (const [query, detail] of cases) {
        const r = await t.call('GET', `${CM}?watch=true&${query}`);
        assert.equal(r.status, 422, query);
        assert.equal(r.body.message, `ListOptions.meta.k8s.io "" is invalid: ${detail}`);
      }
    });
  });

  it('with sendInitialEvents=false and no resourceVersion, sends only changes from now on', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, cm('before'));
      const abort = new AbortController();
      const w = await t.raw('GET', CM, { watch: 'true', sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' }, {}, abort.signal);
      await new Promise((r) => setImmediate(r));
      await t.call('POST', CM, cm('after'));
      const events = await readEvents(w, 1);
      abort.abort();
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata?.name]), [['ADDED', 'after']]);
    });
  });

  it('sends bookmarks and ends the watch at timeoutSeconds, in virtual time', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers, bookmarkIntervalMs: 1000 }, async (t) => {
      const now = await revision(t);
      const w = await t.raw('GET', CM, { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: String(now), timeoutSeconds: '5' });
      const reading = readToEnd(w);
      await t.call('POST', CM, cm('a'));
      await timers.advance(5000);
      const events = await reading;
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'BOOKMARK', 'BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
      assert.equal(events[1]!.object.metadata?.resourceVersion, String(now + 1));
      assert.equal(timers.pending, 0);
    });
  });
});

describe('bounded watchers', () => {
  it('ends the stream of a watcher that stopped reading; what it got is a gapless prefix, and watching again goes on', async () => {
    await withServer({ watchCache: { watcherMaxEvents: 5 } }, async (t) => {
      const start = await revision(t);
      const slow = await t.raw('GET', CM, { watch: 'true', resourceVersion: String(start) });
      const total = WATCH_BUFFER_CHUNKS + 20;
      for (let i = 0; i < total; i++) await t.call('POST', CM, cm(`c${String(i).padStart(3, '0')}`));
      // The client reads only now: its buffer, then the end of the stream (no ERROR event).
      const got = await readToEnd(slow);
      assert.ok(got.length >= WATCH_BUFFER_CHUNKS && got.length < total, `got ${got.length} events`);
      assert.ok(got.every((e) => e.type === 'ADDED'));
      assert.deepEqual(
        got.map((e) => Number(e.object.metadata?.resourceVersion)),
        got.map((_, i) => start + 1 + i),
      );
      const abort = new AbortController();
      const again = await t.raw('GET', CM, { watch: 'true', resourceVersion: got[got.length - 1]!.object.metadata!.resourceVersion! }, {}, abort.signal);
      const rest = await readEvents(again, total - got.length);
      abort.abort();
      assert.equal(rest.length, total - got.length);
      assert.equal(rest[rest.length - 1]!.object.metadata?.name, `c${String(total - 1).padStart(3, '0')}`);
    });
  });

  it('keeps the memory of big objects bounded: the window drops old revisions, a reading watcher gets them all', async () => {
    await withServer({ watchCache: { maxBytes: 2 * 1024 * 1024 } }, async (t) => {
      const big = 'x'.repeat(200 * 1024);
      await t.call('POST', CM, cm('big', { v: big }));
      const abort = new AbortController();
      const w = await t.raw('GET', CM, { watch: 'true', resourceVersion: String(await revision(t)) }, {}, abort.signal);
      const reading = readEvents(w, 30, 20_000);
      for (let i = 0; i < 30; i++) {
        await t.call('PATCH', `${CM}/big`, { data: { v: big + i } }, { 'content-type': 'application/merge-patch+json' });
      }
      const events = await reading;
      abort.abort();
      assert.equal(events.length, 30);
      assert.equal((events[29]!.object as { data: { v: string } }).data.v, big + 29);
      const usage = t.server.registry.get('', 'v1', 'configmaps')!.cache.usage;
      assert.ok(usage.bytes <= 2 * 1024 * 1024, `the window holds ${usage.bytes} bytes`);
      assert.ok(usage.events < 10, `the window holds ${usage.events} events`);
    });
  });

  it('never sends a bookmark ahead of changes the watcher has not sent yet', async () => {
    const timers = new VirtualTimers();
    await withServer({ timers, bookmarkIntervalMs: 1000 }, async (t) => {
      const start = await revision(t);
      const w = await t.raw('GET', CM, { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: String(start), timeoutSeconds: '3' });
      // More changes than the watcher's buffer holds: it is behind when the bookmark is due.
      for (let i = 0; i < WATCH_BUFFER_CHUNKS + 30; i++) await t.call('POST', CM, cm(`c${i}`));
      await timers.advance(1000);
      const reading = readToEnd(w);
      await timers.advance(2000);
      const events = await reading;
      let highest = 0;
      for (const e of events) {
        const rv = Number(e.object.metadata?.resourceVersion);
        if (e.type === 'BOOKMARK') highest = Math.max(highest, rv);
        else assert.ok(rv > highest, `a ${e.type} at ${rv} after a bookmark at ${highest}`);
      }
      assert.equal(events.filter((e) => e.type === 'ADDED').length, WATCH_BUFFER_CHUNKS + 30);
      assert.ok(highest > 0, 'a bookmark was sent');
    });
  });
});

/** A ConfigMap with labels. */
function labeled(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

/** A watch as an in-process client that takes objects asks it. */
function watchObjects(t: TestServer, path: string, query: Record<string, string>, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<RawResponse> {
  return t.server.handle({ method: 'GET', path, query: { watch: 'true', ...query }, headers, signal, objects: true });
}

/** Reads `n` events of a watch answered as objects (fewer when the time is up or the watch ends). */
async function readObjectEvents(r: RawResponse, n: number): Promise<WatchEvent[]> {
  assert.ok(r.events, 'the watch is answered as events');
  assert.equal(r.stream, undefined);
  return (await readEvents(r, n)) as WatchEvent[];
}

/** Is `v` frozen, and everything in it? */
function deeplyFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen);
}

describe('watches answered as objects (in-process clients)', () => {
  it('changes carry the watch cache’s deep-frozen objects, equal to what the bytes decode to, the same object for every watcher', async () => {
    await withServer({}, async (t) => {
      await t.call('POST', CM, labeled('a', { app: 'x' }, { v: '1' }));
      await t.call('POST', CM, labeled('b'));
      const rv = String(await t.backend.currentRevision());
      const bytes = await t.raw('GET', CM, { watch: 'true', resourceVersion: rv });
      const first = await watchObjects(t, CM, { resourceVersion: rv });
      const second = await watchObjects(t, CM, { resourceVersion: rv });
      await t.call('PUT', `${CM}/a`, labeled('a', { app: 'x' }, { v: '2' }));
      await t.call('DELETE', `${CM}/b`);
      await t.call('POST', CM, labeled('c'));
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
      await t.call('POST', CM, labeled('a', { app: 'x' }));
      await t.call('POST', CM, labeled('b', { app: 'y' }));
      const query = { sendInitialEvents: 'true', allowWatchBookmarks: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: '' };
      const all = await watchObjects(t, CM, query);
      const bytesAll = await t.raw('GET', CM, { watch: 'true', ...query });
      const selected = await watchObjects(t, CM, { ...query, labelSelector: 'app=x' });
      const bytesSelected = await t.raw('GET', CM, { watch: 'true', ...query, labelSelector: 'app=x' });
      const named = await watchObjects(t, CM, { ...query, fieldSelector: 'metadata.name=b' });
      const bytesNamed = await t.raw('GET', CM, { watch: 'true', ...query, fieldSelector: 'metadata.name=b' });
      // a leaves the selection app=x (a DELETED there), b enters it (an ADDED).
      await t.call('PUT', `${CM}/a`, labeled('a', { app: 'z' }));
      await t.call('PUT', `${CM}/b`, labeled('b', { app: 'x' }));
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
      await t.call('POST', CM, labeled('a'));
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
      await t.call('POST', CM, labeled('a'));
      const r = await watchObjects(t, CM, {});
      assert.equal((await readObjectEvents(r, 1)).length, 1);
      // readObjectEvents returned the iterator: the cache's watcher is gone.
      const cache = t.server.registry.get('', 'v1', 'configmaps')!.cache;
      for (let i = 0; i < 50 && cache.usage.watchers > 0; i++) await new Promise((res) => setTimeout(res, 10));
      assert.equal(cache.usage.watchers, 0);
    });
  });
});
