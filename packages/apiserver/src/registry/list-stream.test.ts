import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawResponse } from '@kplane/api';
import { createMemoryBackend, createSqliteBackend, type Backend } from '@kplane/storage';
import { createApiServer, type ApiServer } from '../server/server.js';
import { LIST_STREAM_PAGE, type ListOptions, type Store } from './store.js';

const NS = 'stream';
const COUNT = LIST_STREAM_PAGE * 2 + 37;
const CM = `/api/v1/namespaces/${NS}/configmaps`;

/** Reads a streamed or whole body into one string. */
async function text(r: { body?: Uint8Array; stream?: AsyncIterable<Uint8Array> }): Promise<string> {
  if (r.body) return Buffer.from(r.body).toString('utf8');
  const parts: Buffer[] = [];
  for await (const chunk of r.stream!) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

describe('streamed LIST', () => {
  let server: ApiServer;
  let backend: Backend;
  let store: Store;
  /** Reads of storage's list, counted through a wrapper around the backend. */
  let listCalls = 0;

  before(async () => {
    backend = createMemoryBackend();
    const counted: Backend = { ...backend, list: (prefix, options) => (prefix.startsWith('/registry/configmaps/') && listCalls++, backend.list(prefix, options)) };
    server = createApiServer({ backend: counted });
    await server.start();
    store = server.registry.get('', 'v1', 'configmaps')!;
    await server.handle({ method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })) });
    for (let i = 0; i < COUNT; i++) {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace: NS, labels: { parity: i % 2 ? 'odd' : 'even' } }, data: { i: String(i), text: 'é ✓ "quoted"' } };
      await store.create(NS, cm);
    }
  });
  after(async () => {
    await server.close();
    await backend.close();
  });

  it('equals the list built whole: items, order, resourceVersion (any page size)', async () => {
    const built = Buffer.from((await store.listJson(NS, {}))!).toString('utf8');
    for (const pageSize of [1, 7, LIST_STREAM_PAGE, COUNT + 1]) {
      const streamed = await store.listJsonStream(NS, {}, pageSize);
      assert.ok(streamed);
      assert.equal('stream' in streamed, pageSize <= COUNT, `page size ${pageSize}`);
      assert.equal(await text(streamed), built, `page size ${pageSize}`);
    }
    const parsed = JSON.parse(built) as { metadata: { resourceVersion: string; continue?: string }; items: { metadata: { name: string } }[] };
    assert.equal(parsed.items.length, COUNT);
    assert.equal(parsed.metadata.continue, undefined);
    assert.equal(parsed.metadata.resourceVersion, String(await backend.currentRevision()));
  });

  it('equals the list built whole after a continue token, and with a selector', async () => {
    const first = await store.list(NS, { limit: 10 });
    const token = first.metadata.continue!;
    const built = Buffer.from((await store.listJson(NS, { continue: token }))!).toString('utf8');
    assert.equal(await text((await store.listJsonStream(NS, { continue: token }, 13))!), built);

    const selected = await store.list(NS, { labelSelector: 'parity=odd' });
    const streamed = JSON.parse(await text((await store.listJsonStream(NS, { labelSelector: 'parity=odd' }, 9))!)) as typeof selected;
    assert.equal(streamed.items.length, Math.floor(COUNT / 2));
    assert.deepEqual(streamed, JSON.parse(JSON.stringify(selected)));
    // No item matches: still a valid, empty list.
    const none = JSON.parse(await text((await store.listJsonStream(NS, { labelSelector: 'parity=none' }, 9))!)) as typeof selected;
    assert.deepEqual(none.items, []);
  });

  it('keeps a client limit and its continue token as the built list does', async () => {
    const r = await store.listJsonStream(NS, { limit: 25 });
    assert.ok(r && 'body' in r);
    assert.equal(Buffer.from(r.body).toString('utf8'), Buffer.from((await store.listJson(NS, { limit: 25 }))!).toString('utf8'));
  });

  it('streams a client limit above the page size: items, resourceVersion and continue token as the built list', async () => {
    const cases: Array<[ListOptions, number]> = [[{ limit: LIST_STREAM_PAGE + 10 }, LIST_STREAM_PAGE], [{ limit: 300, labelSelector: 'parity=odd' }, 7], [{ limit: COUNT + 5 }, 100]];
    for (const [opts, pageSize] of cases) {
      const r = await store.listJsonStream(NS, opts, pageSize);
      assert.ok('stream' in r, JSON.stringify(opts));
      const streamed = JSON.parse(await text(r)) as { items: unknown[]; metadata: { continue?: string } };
      const built = await store.list(NS, opts);
      assert.deepEqual(streamed, JSON.parse(JSON.stringify(built)), JSON.stringify(opts));
      assert.equal(streamed.items.length, Math.min(opts.limit!, opts.labelSelector ? Math.floor(COUNT / 2) : COUNT));
      assert.equal(streamed.metadata.continue === undefined, opts.limit! > COUNT);
    }
    // Following the token gives the rest, as after a built page.
    const first = JSON.parse(await text(await store.listJsonStream(NS, { limit: 600 }, 50))) as { metadata: { continue: string } };
    const rest = JSON.parse(await text(await store.listJsonStream(NS, { continue: first.metadata.continue }, 50))) as { items: unknown[] };
    assert.equal(rest.items.length, COUNT - 600);
  });

  it('writes a PartialObjectMetadataList, streamed or whole, of the objects\' metadata', async () => {
    const cases: Array<[ListOptions, number]> = [[{}, 7], [{}, COUNT + 1], [{ limit: 20 }, LIST_STREAM_PAGE], [{ limit: 30, labelSelector: 'parity=even' }, 7]];
    for (const [opts, pageSize] of cases) {
      const r = await store.listJsonStream(NS, opts, pageSize, 'metadata');
      const list = await store.list(NS, opts);
      const expected = { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: list.metadata, items: list.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata })) };
      assert.deepEqual(JSON.parse(await text(r)), JSON.parse(JSON.stringify(expected)), `${JSON.stringify(opts)} ${pageSize}`);
    }
    const r = await server.handle({ method: 'GET', path: CM, headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' } });
    assert.ok(r.stream && !r.body);
    const got = JSON.parse(await text(r)) as { kind: string; items: { kind: string; metadata: { name: string }; data?: unknown }[] };
    assert.equal(got.kind, 'PartialObjectMetadataList');
    assert.equal(got.items.length, COUNT);
    assert.equal(got.items[0]!.data, undefined);
  });

  it('is served by GET as a stream with the built list\'s content', async () => {
    const r = await server.handle({ method: 'GET', path: CM, headers: { accept: 'application/json' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.ok(r.stream && !r.body);
    const built = await server.handle({ method: 'GET', path: CM, query: { limit: String(COUNT + 1) }, headers: { accept: 'application/json' } });
    assert.deepEqual(JSON.parse(await text(r)), JSON.parse(await text(built)));
  });

  it('reads storage only as fast as the client reads the response', async () => {
    const r: RawResponse = await server.handle({ method: 'GET', path: CM, headers: { accept: 'application/json' } });
    const it = r.stream![Symbol.asyncIterator]();
    const start = listCalls;
    await it.next();
    // However long the client waits, nothing more is read or encoded until it asks.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(listCalls, start);
    let chunks = 1;
    while (!(await it.next()).done) chunks++;
    assert.equal(listCalls - start, Math.ceil(COUNT / LIST_STREAM_PAGE) - 1);
    assert.ok(chunks > 1);

    // A client that goes away ends the reads.
    const gone = await server.handle({ method: 'GET', path: CM, headers: { accept: 'application/json' } });
    const git = gone.stream![Symbol.asyncIterator]();
    await git.next();
    const before = listCalls;
    await git.return?.(undefined);
    assert.equal((await git.next()).done, true);
    assert.equal(listCalls, before);
  });
});

describe('streamed Table LIST', () => {
  let server: ApiServer;
  let backend: Backend;
  const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

  before(async () => {
    backend = createMemoryBackend();
    // One instant for every request: the AGE column does not move between the compared lists.
    const at = new Date('2026-01-01T00:00:00Z');
    server = createApiServer({ backend, now: () => at });
    await server.start();
    const store = server.registry.get('', 'v1', 'configmaps')!;
    await server.registry.get('', 'v1', 'namespaces')!.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < LIST_STREAM_PAGE + 20; i++) await store.create(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `t-${String(i).padStart(4, '0')}`, namespace: NS, labels: { odd: String(i % 2) } }, data: { a: 'b' } });
  });
  after(async () => {
    await server.close();
    await backend.close();
  });

  it('streams the rows of a Table LIST and equals the Table built for the same list', async () => {
    const queries: Record<string, string>[] = [{}, { labelSelector: 'odd=1' }, { includeObject: 'Object' }];
    for (const query of queries) {
      const r = await server.handle({ method: 'GET', path: CM, query, headers: { accept: TABLE } });
      assert.equal(r.status, 200);
      assert.ok(r.stream, JSON.stringify(query));
      const streamed = JSON.parse(await text(r)) as { rows: { cells: unknown[] }[]; metadata: { resourceVersion: string } };
      // A client limit above the list's size: the same Table (streamed, its metadata after the
      // rows, unless it fits in one page).
      const limited = await server.handle({ method: 'GET', path: CM, query: { ...query, limit: '100000' }, headers: { accept: TABLE } });
      assert.deepEqual(streamed, JSON.parse(await text(limited)));
      assert.equal(streamed.rows.length, 'labelSelector' in query ? (LIST_STREAM_PAGE + 20) / 2 : LIST_STREAM_PAGE + 20);
    }
  });

  it('streams a Table with a client limit above the page size, with the built list\'s rows and continue token', async () => {
    const limit = LIST_STREAM_PAGE + 7;
    const r = await server.handle({ method: 'GET', path: CM, query: { limit: String(limit) }, headers: { accept: TABLE } });
    assert.ok(r.stream);
    const table = JSON.parse(await text(r)) as { rows: { object: { metadata: { name: string } } }[]; metadata: { resourceVersion: string; continue?: string } };
    const list = await server.registry.get('', 'v1', 'configmaps')!.list(NS, { limit });
    assert.deepEqual(table.rows.map((row) => row.object.metadata.name), list.items.map((o) => o.metadata!.name));
    assert.deepEqual(table.metadata, JSON.parse(JSON.stringify(list.metadata)));
    assert.ok(table.metadata.continue);
    const rest = JSON.parse(await text(await server.handle({ method: 'GET', path: CM, query: { limit: String(limit), continue: table.metadata.continue! }, headers: { accept: TABLE } }))) as { rows: unknown[]; metadata: { continue?: string } };
    assert.equal(rest.rows.length, 20 - 7);
    assert.equal(rest.metadata.continue, undefined);
  });

  it('answers a Table of one page whole', async () => {
    await server.registry.get('', 'v1', 'configmaps')!.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default' } });
    const r = await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: { fieldSelector: 'metadata.name=one' }, headers: { accept: TABLE } });
    assert.ok(r.body && !r.stream);
    assert.equal((JSON.parse(await text(r)) as { rows: unknown[] }).rows.length, 1);
  });
});

describe('streamed LIST from stored bytes (sqlite)', () => {
  let server: ApiServer;
  let sqlite: Backend;
  let store: Store;
  let rawReads = 0;

  before(async () => {
    sqlite = createSqliteBackend({ path: ':memory:' });
    const counted: Backend = { ...sqlite, list: sqlite.list.bind(sqlite), listRaw: (prefix, options) => (rawReads++, sqlite.listRaw!(prefix, options)) };
    server = createApiServer({ backend: counted });
    await server.start();
    store = server.registry.get('', 'v1', 'configmaps')!;
    await server.registry.get('', 'v1', 'namespaces')!.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < 40; i++) await store.create(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${String(i).padStart(3, '0')}`, namespace: NS, labels: { parity: i % 2 ? 'odd' : 'even' } }, data: { text: 'é ✓ "quoted" \u{1F600}' } });
  });
  after(async () => {
    await server.close();
    await sqlite.close();
  });

  it('copies the stored bytes: the same bytes as the list built from text', async () => {
    const built = Buffer.from((await store.listJson(NS, {}))!).toString('utf8');
    const before = rawReads;
    assert.equal(await text(await store.listJsonStream(NS, {}, 7)), built);
    assert.ok(rawReads > before, 'the stream read bytes');
    const list = await store.list(NS, { labelSelector: 'parity=odd' });
    assert.deepEqual(JSON.parse(await text(await store.listJsonStream(NS, { labelSelector: 'parity=odd' }, 3))), JSON.parse(JSON.stringify(list)));
    const meta = JSON.parse(await text(await store.listJsonStream(NS, {}, 7, 'metadata'))) as { items: { metadata: { name: string; resourceVersion: string } }[] };
    assert.deepEqual(meta.items.map((o) => o.metadata), (await store.list(NS, {})).items.map((o) => JSON.parse(JSON.stringify(o.metadata)) as unknown));
  });
});
