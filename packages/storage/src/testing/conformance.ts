/**
 * The shared conformance suite every storage driver runs: it proves the guarantees written in
 * backend.ts. Call it from a driver's test file:
 *
 * ```ts
 * runBackendConformance('memory', async () => createMemoryBackend());
 * ```
 *
 * `open` must return a fresh, empty backend each time, whose TTLs follow `options.now`; the
 * suite closes it after each test. "Empty" means no keys: a store on a shared server may start
 * at any revision, and the suite counts revisions from the one it had when the test began.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Backend,
} from '../backend.js';
import { defineWatchConformance } from './conformance-watch.js';
import { offsetRevisions } from './revision-offset.js';
import { defineFinalDeleteTests, defineSizeLimitTests, defineTtlTests } from './conformance-lifecycle.js';

export { takeEvents } from './conformance-watch.js';
export { createVirtualClock, type VirtualClock } from './virtual-clock.js';
export { offsetRevisions } from './revision-offset.js';
export { startEtcd, startEtcdCluster, findEtcd, freePort, ETCD_MISSING, type TestEtcd, type TestEtcdCluster, type EtcdTlsFiles, type StartEtcdOptions } from './etcd-server.js';

/** What the suite hands to `open`. */
export interface ConformanceOptions {
  /** The clock the backend must read for TTLs (ms since the epoch); tests move it. */
  now(): number;
}

/** A test's clock: `advance` moves the time the backend reads for TTLs. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** Declares one test that gets a fresh backend (and its clock) and closes it afterwards. */
export type BackendTest = (title: string, body: (b: Backend, clock: TestClock) => Promise<void>) => void;

/** Defines node:test tests that check a Backend implementation against the storage contract. */
export function runBackendConformance(name: string, open: (options: ConformanceOptions) => Promise<Backend>): void {
  const it: BackendTest = (title, body) => {
    test(title, async () => {
      let time = Date.UTC(2026, 0, 1);
      const clock: TestClock = { now: () => time, advance: (ms) => void (time += ms) };
      const opened = await open({ now: clock.now });
      // Revisions in this suite count from the store's revision when the test began.
      const b = offsetRevisions(opened, await opened.currentRevision());
      try {
        await body(b, clock);
      } finally {
        await b.close();
      }
    });
  };

  describe(`storage conformance: ${name}`, () => {
    describe('writes and revisions', () => defineWriteTests(it));
    describe('reads at revisions and list', () => defineReadTests(it));
    describe('compaction', () => defineCompactionTests(it));
    describe('watch', () => defineWatchConformance(it));
    describe('delete with a final value', () => defineFinalDeleteTests(it));
    describe('TTL', () => defineTtlTests(it));
    describe('value size limit', () => defineSizeLimitTests(it));
  });
}

function defineWriteTests(it: BackendTest): void {
  it('an empty store is at revision 0', async (b) => {
    assert.equal(await b.currentRevision(), 0);
    assert.equal(await b.compactedRevision(), 0);
    assert.equal(await b.get('/a'), null);
    assert.deepEqual(await b.list('/'), { items: [], revision: 0, more: false, remaining: 0 });
    assert.equal(await b.count(''), 0);
  });

  it('every write gets the next revision of one global counter', async (b) => {
    const a = await b.create('/a', 'A1');
    assert.deepEqual(a, { key: '/a', value: 'A1', createRevision: 1, modRevision: 1 });
    const c = await b.create('/c', 'C1');
    assert.equal(c.modRevision, 2);
    const a2 = await b.update('/a', 'A2', a.modRevision);
    assert.deepEqual(a2, { key: '/a', value: 'A2', createRevision: 1, modRevision: 3 });
    const d = await b.delete('/c');
    assert.equal(d.modRevision, 4);
    assert.equal(await b.currentRevision(), 4);
    assert.deepEqual(await b.get('/a'), a2);
  });

  it('create of an existing key throws KeyExistsError and writes nothing', async (b) => {
    await b.create('/a', 'x');
    await assert.rejects(b.create('/a', 'y'), (err: unknown) => {
      assert.ok(err instanceof KeyExistsError);
      assert.equal(err.key, '/a');
      return true;
    });
    assert.equal(await b.currentRevision(), 1);
    assert.equal((await b.get('/a'))?.value, 'x');
  });

  it('update checks the expected revision and carries the actual value on mismatch', async (b) => {
    const v1 = await b.create('/k', 'v1');
    const v2 = await b.update('/k', 'v2', v1.modRevision);
    await assert.rejects(b.update('/k', 'v3', v1.modRevision), (err: unknown) => {
      assert.ok(err instanceof RevisionMismatchError);
      assert.equal(err.key, '/k');
      assert.deepEqual(err.actual, v2);
      return true;
    });
    assert.equal(await b.currentRevision(), 2);
    await assert.rejects(b.update('/missing', 'x', 1), KeyNotFoundError);
  });

  it('delete returns the last value with the delete revision', async (b) => {
    const v1 = await b.create('/k', 'v1');
    await b.create('/other', 'o');
    const deleted = await b.delete('/k');
    assert.deepEqual(deleted, { key: '/k', value: 'v1', createRevision: v1.createRevision, modRevision: 3 });
    assert.equal(await b.get('/k'), null);
    assert.equal(await b.count('/'), 1);
    await assert.rejects(b.delete('/k'), KeyNotFoundError);
    await assert.rejects(b.update('/k', 'x', 3), KeyNotFoundError);
  });

  it('delete with an expected revision succeeds only at that revision', async (b) => {
    const v1 = await b.create('/k', 'v1');
    const v2 = await b.update('/k', 'v2', v1.modRevision);
    await assert.rejects(b.delete('/k', v1.modRevision), (err: unknown) => {
      assert.ok(err instanceof RevisionMismatchError);
      assert.deepEqual(err.actual, v2);
      return true;
    });
    assert.deepEqual(await b.get('/k'), v2);
    const deleted = await b.delete('/k', v2.modRevision);
    assert.equal(deleted.value, 'v2');
    assert.equal(deleted.modRevision, 3);
  });

  it('a key created again after delete is a new incarnation', async (b) => {
    await b.create('/k', 'first');
    await b.delete('/k');
    const again = await b.create('/k', 'second');
    assert.deepEqual(again, { key: '/k', value: 'second', createRevision: 3, modRevision: 3 });
    await assert.rejects(b.create('/k', 'third'), KeyExistsError);
  });

  it('concurrent updates from the same revision: exactly one wins', async (b) => {
    const v1 = await b.create('/k', '0');
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => b.update('/k', String(i + 1), v1.modRevision)),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) {
      if (r.status === 'rejected') assert.ok(r.reason instanceof RevisionMismatchError);
    }
    assert.equal(await b.currentRevision(), 2);
  });

  it('values are stored as given, including unicode and empty strings', async (b) => {
    await b.create('/u', '{"name":"ünïcødé ✓ 🚀"}');
    await b.create('/e', '');
    assert.equal((await b.get('/u'))?.value, '{"name":"ünïcødé ✓ 🚀"}');
    assert.equal((await b.get('/e'))?.value, '');
  });
}

function defineReadTests(it: BackendTest): void {
  it('get at a revision returns the value as of that revision', async (b) => {
    const r1 = await b.create('/k', 'v1');
    const r2 = await b.update('/k', 'v2', r1.modRevision);
    const r3 = await b.delete('/k');
    const r4 = await b.create('/k', 'v3');
    assert.equal((await b.get('/k', r1.modRevision))?.value, 'v1');
    assert.deepEqual(await b.get('/k', r2.modRevision), r2);
    assert.equal(await b.get('/k', r3.modRevision), null);
    assert.deepEqual(await b.get('/k', r4.modRevision), r4);
    assert.deepEqual(await b.get('/k', 0), r4);
    await assert.rejects(b.get('/k', 99), FutureRevisionError);
    await assert.rejects(b.list('/', { revision: 99 }), FutureRevisionError);
  });

  it('list at a revision is a consistent snapshot', async (b) => {
    await b.create('/p/a', 'a1');
    const b1 = await b.create('/p/b', 'b1');
    const snapshot = await b.currentRevision();
    await b.update('/p/b', 'b2', b1.modRevision);
    await b.delete('/p/a');
    await b.create('/p/c', 'c1');
    const old = await b.list('/p/', { revision: snapshot });
    assert.equal(old.revision, snapshot);
    assert.deepEqual(old.items.map((kv) => [kv.key, kv.value]), [['/p/a', 'a1'], ['/p/b', 'b1']]);
    const now = await b.list('/p/');
    assert.equal(now.revision, 5);
    assert.deepEqual(now.items.map((kv) => [kv.key, kv.value]), [['/p/b', 'b2'], ['/p/c', 'c1']]);
  });

  it('list returns keys in order and isolates prefixes', async (b) => {
    const keys = ['/registry/pods/b', '/registry/pods/ab/x', '/registry/pods/a', '/registry/podsx', '/registry/pods/a/x'];
    for (const key of keys) await b.create(key, key);
    const names = async (prefix: string): Promise<string[]> => (await b.list(prefix)).items.map((kv) => kv.key);
    assert.deepEqual(await names('/registry/pods/a/'), ['/registry/pods/a/x']);
    assert.deepEqual(await names('/registry/pods/ab/'), ['/registry/pods/ab/x']);
    assert.deepEqual(await names('/registry/pods/'), [
      '/registry/pods/a',
      '/registry/pods/a/x',
      '/registry/pods/ab/x',
      '/registry/pods/b',
    ]);
    assert.deepEqual(await names('/registry/pods/a'), ['/registry/pods/a', '/registry/pods/a/x', '/registry/pods/ab/x']);
    assert.deepEqual(await names(''), [...keys].sort());
    assert.deepEqual(await names('/nothing/'), []);
    assert.equal(await b.count('/registry/pods/a/'), 1);
    assert.equal(await b.count('/registry/pods/'), 4);
    assert.equal(await b.count('/registry/'), 5);
  });

  it('list pages with limit and startAfter, reporting more and remaining', async (b) => {
    const all: string[] = [];
    for (let i = 0; i < 25; i++) {
      const key = `/items/${String(i).padStart(3, '0')}`;
      all.push(key);
      await b.create(key, String(i));
    }
    await b.create('/itemsx', 'outside');
    const seen: string[] = [];
    let startAfter: string | undefined;
    const pages: Array<[number, boolean, number | undefined]> = [];
    for (;;) {
      const page = await b.list('/items/', { limit: 10, startAfter, countRemaining: true });
      seen.push(...page.items.map((kv) => kv.key));
      pages.push([page.items.length, page.more, page.remaining]);
      if (!page.more) break;
      startAfter = page.items[page.items.length - 1].key;
    }
    assert.deepEqual(seen, all);
    assert.deepEqual(pages, [[10, true, 15], [10, true, 5], [5, false, 0]]);
    // Without countRemaining a page still tells whether more follow, without counting them.
    const cheap = await b.list('/items/', { limit: 10 });
    assert.equal(cheap.more, true);
    assert.equal(cheap.items.length, 10);
    const exact = await b.list('/items/', { limit: 25 });
    assert.equal(exact.items.length, 25);
    assert.equal(exact.more, false);
  });

  it('pages read at one revision ignore later writes', async (b) => {
    for (let i = 0; i < 6; i++) await b.create(`/s/${i}`, String(i));
    const first = await b.list('/s/', { limit: 3 });
    await b.delete('/s/4');
    await b.create('/s/9', 'late');
    const second = await b.list('/s/', { limit: 3, startAfter: '/s/2', revision: first.revision });
    assert.deepEqual(second.items.map((kv) => kv.key), ['/s/3', '/s/4', '/s/5']);
    assert.equal(second.more, false);
    assert.equal(second.revision, first.revision);
  });

  it('startAfter outside the prefix does not leak other keys', async (b) => {
    for (const key of ['/a/1', '/b/1', '/b/2', '/c/1']) await b.create(key, key);
    assert.deepEqual((await b.list('/b/', { startAfter: '/a/zzz' })).items.map((kv) => kv.key), ['/b/1', '/b/2']);
    assert.deepEqual((await b.list('/b/', { startAfter: '/b/1' })).items.map((kv) => kv.key), ['/b/2']);
    assert.deepEqual((await b.list('/b/', { startAfter: '/b/2' })).items, []);
    assert.deepEqual((await b.list('/b/', { startAfter: '/c/' })).items, []);
  });

  it('listRaw, where the driver has it, is list with the values as their UTF-8 bytes', async (b) => {
    if (!b.listRaw) return;
    const k1 = await b.create('/r/1', 'one é ✓');
    await b.create('/r/2', '{"two":2}');
    await b.create('/r/3', 'three');
    await b.update('/r/1', 'one again ✓', k1.modRevision);
    const snapshot = await b.currentRevision();
    await b.delete('/r/3');
    await b.create('/r/4', '');
    const asText = (r: { items: Array<{ key: string; value: string | Uint8Array; createRevision: number; modRevision: number }>; revision: number; more: boolean; remaining?: number }) => ({
      ...r,
      items: r.items.map((kv) => ({ ...kv, value: typeof kv.value === 'string' ? kv.value : Buffer.from(kv.value).toString('utf8') })),
    });
    for (const options of [{}, { revision: snapshot }, { limit: 1 }, { limit: 1, startAfter: '/r/1', countRemaining: true }, { startAfter: '/r/3' }]) {
      const raw = await b.listRaw('/r/', options);
      for (const kv of raw.items) assert.ok(kv.value instanceof Uint8Array, 'a value is bytes');
      assert.deepEqual(asText(raw), asText(await b.list('/r/', options)), JSON.stringify(options));
    }
    await assert.rejects(b.listRaw('/r/', { revision: 999 }), FutureRevisionError);
  });

  it('count sees only live keys at the current revision', async (b) => {
    await b.create('/n/a', '1');
    await b.create('/n/b', '1');
    await b.create('/n/c', '1');
    await b.delete('/n/b');
    assert.equal(await b.count('/n/'), 2);
    assert.equal(await b.count('/n/a'), 1);
    assert.equal(await b.count('/m/'), 0);
  });
}

function defineCompactionTests(it: BackendTest): void {
  it('compaction keeps current values and rejects reads below the compacted revision', async (b) => {
    const a1 = await b.create('/a', 'a1');
    const a2 = await b.update('/a', 'a2', a1.modRevision);
    await b.create('/b', 'b1');
    await b.delete('/b');
    const c = await b.create('/c', 'c1');
    await b.compact(4);
    assert.equal(await b.compactedRevision(), 4);
    assert.deepEqual(await b.get('/a'), a2);
    assert.equal(await b.get('/b'), null);
    assert.deepEqual(await b.get('/c'), c);
    assert.deepEqual((await b.list('/', { revision: 4 })).items.map((kv) => kv.key), ['/a']);
    assert.equal(await b.get('/b', 4), null);
    await assert.rejects(b.get('/a', 3), (err: unknown) => {
      assert.ok(err instanceof CompactedError);
      assert.equal(err.requested, 3);
      assert.equal(err.compacted, 4);
      return true;
    });
    await assert.rejects(b.list('/', { revision: 1 }), CompactedError);
    assert.equal(await b.count('/'), 2);
  });

  it('compaction is idempotent and cannot pass the current revision', async (b) => {
    await b.create('/a', '1');
    await b.create('/b', '1');
    await b.compact(2);
    await b.compact(1);
    assert.equal(await b.compactedRevision(), 2);
    await assert.rejects(b.get('/a', 1), CompactedError);
    await b.compact(2);
    assert.equal(await b.compactedRevision(), 2);
    await assert.rejects(b.compact(3), FutureRevisionError);
    assert.equal(await b.compactedRevision(), 2);
  });

  it('revisions keep increasing after the newest write is compacted away', async (b) => {
    await b.create('/a', '1');
    await b.delete('/a');
    await b.compact(2);
    assert.equal(await b.currentRevision(), 2);
    const again = await b.create('/a', '2');
    assert.equal(again.modRevision, 3);
    assert.equal(again.createRevision, 3);
    const updated = await b.update('/a', '3', 3);
    assert.equal(updated.modRevision, 4);
  });

  it('writes after compaction keep optimistic concurrency', async (b) => {
    const v1 = await b.create('/k', '1');
    const v2 = await b.update('/k', '2', v1.modRevision);
    await b.compact(v2.modRevision);
    await assert.rejects(b.update('/k', 'x', v1.modRevision), RevisionMismatchError);
    const v3 = await b.update('/k', '3', v2.modRevision);
    assert.equal(v3.createRevision, 1);
    assert.deepEqual(await b.get('/k', v2.modRevision), v2);
  });
}
