/**
 * The conformance tests of the end of a key's life and of its size: deleteWithFinalValue (the
 * last finalizer's removal and the delete in one write), TTLs (etcd leases) and the value size
 * limit.
 */
import assert from 'node:assert/strict';
import { KeyNotFoundError, MAX_VALUE_BYTES, RevisionMismatchError, ValueTooLargeError, type StorageEvent } from '../backend.js';
import { takeEvents } from './conformance-watch.js';
import type { BackendTest } from './conformance.js';

const brief = (e: StorageEvent): [string, string, string, number] => [e.type, e.kv.key, e.kv.value, e.revision];

/** Declares the deleteWithFinalValue tests. */
export function defineFinalDeleteTests(it: BackendTest): void {
  it('deletes at the expected revision and records the final value', async (b) => {
    const v1 = await b.create('/f/k', 'with-finalizer');
    await b.create('/f/other', 'o');
    const ac = new AbortController();
    const live = b.watch('/f/k', 2, ac.signal)[Symbol.asyncIterator]();
    const deleted = await b.deleteWithFinalValue('/f/k', 'final', v1.modRevision);
    assert.deepEqual(deleted, { key: '/f/k', value: 'final', createRevision: 1, modRevision: 3 });
    assert.equal(await b.get('/f/k'), null);
    assert.equal((await b.get('/f/k', 2))?.value, 'with-finalizer');
    assert.equal(await b.currentRevision(), 3);
    assert.equal(await b.count('/f/'), 1);
    const [event] = await takeEvents(live, 1);
    assert.deepEqual(brief(event!), ['delete', '/f/k', 'final', 3]);
    assert.deepEqual(event!.kv, deleted);
    assert.deepEqual(event!.prevKv, v1);
    ac.abort();
    // The replay from the log tells the same story.
    const replay = new AbortController();
    const events = await takeEvents(b.watch('/f/k', 0, replay.signal)[Symbol.asyncIterator](), 2);
    assert.deepEqual(events.map(brief), [['create', '/f/k', 'with-finalizer', 1], ['delete', '/f/k', 'final', 3]]);
    assert.deepEqual(events[1]!.prevKv, v1);
    replay.abort();
  });

  it('refuses a stale revision or a missing key and writes nothing', async (b) => {
    const v1 = await b.create('/f/k', 'v1');
    const v2 = await b.update('/f/k', 'v2', v1.modRevision);
    await assert.rejects(b.deleteWithFinalValue('/f/k', 'final', v1.modRevision), (err: unknown) => {
      assert.ok(err instanceof RevisionMismatchError);
      assert.deepEqual(err.actual, v2);
      return true;
    });
    await assert.rejects(b.deleteWithFinalValue('/f/missing', 'final', 1), KeyNotFoundError);
    assert.equal(await b.currentRevision(), 2);
    assert.deepEqual(await b.get('/f/k'), v2);
    await b.deleteWithFinalValue('/f/k', 'final', v2.modRevision);
    await assert.rejects(b.deleteWithFinalValue('/f/k', 'again', 3), KeyNotFoundError);
    const again = await b.create('/f/k', 'new');
    assert.equal(again.createRevision, 4);
  });

  it('races an update from the same revision: exactly one wins', async (b) => {
    const v1 = await b.create('/f/k', 'v1');
    const results = await Promise.allSettled([
      b.update('/f/k', 'v2', v1.modRevision),
      b.deleteWithFinalValue('/f/k', 'final', v1.modRevision),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(failed.reason instanceof RevisionMismatchError);
    assert.equal(await b.currentRevision(), 2);
  });
}

/** Declares the TTL tests; `clock.advance` moves the backend's time. */
export function defineTtlTests(it: BackendTest): void {
  it('a key is deleted once its TTL passes, as a normal delete', async (b, clock) => {
    const v1 = await b.create('/t/k', 'v1', { ttlSeconds: 10 });
    await b.create('/t/forever', 'x');
    const ac = new AbortController();
    const live = b.watch('/t/', 2, ac.signal)[Symbol.asyncIterator]();
    clock.advance(9999);
    assert.equal(await b.expireKeys(), 0);
    assert.deepEqual(await b.get('/t/k'), v1);
    clock.advance(1);
    assert.equal(await b.expireKeys(), 1);
    assert.equal(await b.get('/t/k'), null);
    assert.equal(await b.currentRevision(), 3);
    const [event] = await takeEvents(live, 1);
    assert.deepEqual(brief(event!), ['delete', '/t/k', 'v1', 3]);
    assert.deepEqual(event!.prevKv, v1);
    ac.abort();
    assert.equal(await b.expireKeys(), 0);
    assert.equal((await b.get('/t/forever'))?.value, 'x');
  });

  it('a write refreshes the TTL, a write without one removes it, and so does a delete', async (b, clock) => {
    const k1 = await b.create('/t/k', '1', { ttlSeconds: 10 });
    clock.advance(8000);
    await b.update('/t/k', '2', k1.modRevision, { ttlSeconds: 10 });
    clock.advance(8000);
    assert.equal(await b.expireKeys(), 0, 'the update restarted the TTL');
    const kept = await b.create('/t/kept', '1', { ttlSeconds: 1 });
    await b.update('/t/kept', '2', kept.modRevision);
    await b.create('/t/gone', '1', { ttlSeconds: 1 });
    await b.delete('/t/gone');
    await b.create('/t/gone', 'again');
    clock.advance(2000);
    assert.equal(await b.expireKeys(), 1);
    assert.equal(await b.get('/t/k'), null);
    assert.equal((await b.get('/t/kept'))?.value, '2');
    assert.equal((await b.get('/t/gone'))?.value, 'again');
    clock.advance(3_600_000);
    assert.equal(await b.expireKeys(), 0);
  });

  it('expired keys are deleted in the order they expired', async (b, clock) => {
    await b.create('/t/c', 'c', { ttlSeconds: 30 });
    await b.create('/t/a', 'a', { ttlSeconds: 10 });
    await b.create('/t/b', 'b', { ttlSeconds: 20 });
    await b.create('/t/d', 'd', { ttlSeconds: 60 });
    const ac = new AbortController();
    const live = b.watch('/t/', 4, ac.signal)[Symbol.asyncIterator]();
    clock.advance(45_000);
    assert.equal(await b.expireKeys(), 3);
    const events = await takeEvents(live, 3);
    assert.deepEqual(events.map((e) => [e.type, e.kv.key, e.revision]), [['delete', '/t/a', 5], ['delete', '/t/b', 6], ['delete', '/t/c', 7]]);
    assert.deepEqual((await b.list('/t/')).items.map((kv) => kv.key), ['/t/d']);
    ac.abort();
  });
}

/** Declares the value size limit tests (the default limit, MAX_VALUE_BYTES). */
export function defineSizeLimitTests(it: BackendTest): void {
  it('a value up to the limit is stored, one byte more is refused and nothing is written', async (b) => {
    const atLimit = 'x'.repeat(MAX_VALUE_BYTES);
    const v1 = await b.create('/s/k', atLimit);
    assert.equal((await b.get('/s/k'))?.value.length, MAX_VALUE_BYTES);
    await assert.rejects(b.create('/s/big', atLimit + 'x'), (err: unknown) => {
      assert.ok(err instanceof ValueTooLargeError);
      assert.equal(err.key, '/s/big');
      assert.equal(err.size, MAX_VALUE_BYTES + 1);
      assert.equal(err.limit, MAX_VALUE_BYTES);
      return true;
    });
    await assert.rejects(b.update('/s/k', atLimit + 'x', v1.modRevision), ValueTooLargeError);
    await assert.rejects(b.deleteWithFinalValue('/s/k', atLimit + 'x', v1.modRevision), ValueTooLargeError);
    assert.equal(await b.currentRevision(), 1);
    assert.equal(await b.get('/s/big'), null);
    assert.deepEqual(await b.get('/s/k'), v1);
  });

  it('the limit counts UTF-8 bytes', async (b) => {
    const half = 'é'.repeat(MAX_VALUE_BYTES / 2);
    await b.create('/s/two-byte', half);
    await assert.rejects(b.create('/s/over', half + 'é'), (err: unknown) => {
      assert.ok(err instanceof ValueTooLargeError);
      assert.equal(err.size, MAX_VALUE_BYTES + 2);
      return true;
    });
    assert.equal(await b.count('/s/'), 1);
  });
}
