/**
 * The watch part of the conformance suite: replay then live, in revision order, without gaps
 * or duplicates; CompactedError below the compacted revision; clean end on abort and close.
 */
import assert from 'node:assert/strict';
import { CompactedError, type StorageEvent } from '../backend.js';
import type { BackendTest } from './conformance.js';

/** Takes the next n events from an iterator, failing if they do not arrive within timeoutMs. */
export async function takeEvents(
  iterator: AsyncIterator<StorageEvent>,
  n: number,
  timeoutMs = 5000,
): Promise<StorageEvent[]> {
  const out: StorageEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${out.length} of ${n} events`)), timeoutMs);
  });
  try {
    while (out.length < n) {
      const r = await Promise.race([iterator.next(), timeout]);
      if (r.done) throw new Error(`watch ended after ${out.length} of ${n} events`);
      out.push(r.value);
    }
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves the iterator's next result, or 'pending' if none comes within ms. */
async function nextOrPending(
  iterator: AsyncIterator<StorageEvent>,
  ms: number,
): Promise<IteratorResult<StorageEvent> | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([iterator.next(), pending]);
  } finally {
    clearTimeout(timer);
  }
}

const brief = (e: StorageEvent): [string, string, string, number] => [e.type, e.kv.key, e.kv.value, e.revision];

/** Declares the watch tests. */
export function defineWatchConformance(it: BackendTest): void {
  it('replays history after the revision, then continues live', async (b) => {
    const a1 = await b.create('/w/a', 'a1');
    const a2 = await b.update('/w/a', 'a2', a1.modRevision);
    const ac = new AbortController();
    const it1 = b.watch('/w/', 0, ac.signal)[Symbol.asyncIterator]();
    const replay = await takeEvents(it1, 2);
    assert.deepEqual(replay.map(brief), [['create', '/w/a', 'a1', 1], ['update', '/w/a', 'a2', 2]]);
    assert.deepEqual(replay[0].kv, a1);
    assert.equal(replay[0].prevKv, undefined);
    assert.deepEqual(replay[1].kv, a2);
    assert.deepEqual(replay[1].prevKv, a1);
    const deleted = await b.delete('/w/a');
    await b.create('/w/b', 'b1');
    const live = await takeEvents(it1, 2);
    assert.deepEqual(live.map(brief), [['delete', '/w/a', 'a2', 3], ['create', '/w/b', 'b1', 4]]);
    assert.deepEqual(live[0].kv, deleted);
    assert.deepEqual(live[0].prevKv, a2);
    ac.abort();
  });

  it('replays deletes with their previous value', async (b) => {
    const v1 = await b.create('/w/k', 'v1');
    const v2 = await b.update('/w/k', 'v2', v1.modRevision);
    await b.delete('/w/k');
    const ac = new AbortController();
    const events = await takeEvents(b.watch('/w/', 2, ac.signal)[Symbol.asyncIterator](), 1);
    assert.equal(events[0].type, 'delete');
    assert.deepEqual(events[0].kv, { key: '/w/k', value: 'v2', createRevision: 1, modRevision: 3 });
    assert.deepEqual(events[0].prevKv, v2);
    ac.abort();
  });

  it('starts strictly after the given revision and filters by prefix', async (b) => {
    await b.create('/w/a', '1');
    await b.create('/x/a', '2');
    await b.create('/w/b', '3');
    await b.create('/wx', '4');
    await b.create('/w/c', '5');
    const ac = new AbortController();
    const iterator = b.watch('/w/', 1, ac.signal)[Symbol.asyncIterator]();
    const replay = await takeEvents(iterator, 2);
    assert.deepEqual(replay.map((e) => e.revision), [3, 5]);
    await b.create('/x/b', '6');
    await b.create('/w/d', '7');
    assert.deepEqual((await takeEvents(iterator, 1)).map((e) => [e.kv.key, e.revision]), [['/w/d', 7]]);
    ac.abort();
  });

  it('a watch from a future revision waits for it', async (b) => {
    await b.create('/w/a', '1');
    const ac = new AbortController();
    const iterator = b.watch('/w/', 2, ac.signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    await b.create('/w/b', '2');
    await b.create('/w/c', '3');
    assert.equal((await first).value?.revision, 3);
    ac.abort();
  });

  it('has no gap and no duplicate while writes race the replay', async (b) => {
    for (let i = 0; i < 50; i++) await b.create(`/r/${i}`, 'x');
    const ac = new AbortController();
    const iterator = b.watch('/r/', 0, ac.signal)[Symbol.asyncIterator]();
    const writer = (async () => {
      for (let i = 50; i < 150; i++) {
        await b.create(`/r/${i}`, 'x');
        if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const events = await takeEvents(iterator, 150);
    await writer;
    assert.deepEqual(events.map((e) => e.revision), Array.from({ length: 150 }, (_, i) => i + 1));
    assert.equal(await nextOrPending(iterator, 50), 'pending');
    ac.abort();
  });

  it('a slow consumer does not block writers', async (b) => {
    const ac = new AbortController();
    const iterator = b.watch('/s/', 0, ac.signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    for (let i = 0; i < 500; i++) await b.create(`/s/${String(i).padStart(4, '0')}`, String(i));
    assert.equal(await b.currentRevision(), 500);
    assert.equal((await first).value?.revision, 1);
    const rest = await takeEvents(iterator, 499);
    assert.deepEqual(rest.map((e) => e.revision), Array.from({ length: 499 }, (_, i) => i + 2));
    ac.abort();
  });

  it('throws CompactedError when the revision is below the compacted one', async (b) => {
    const v1 = await b.create('/w/a', '1');
    await b.update('/w/a', '2', v1.modRevision);
    await b.create('/w/b', '3');
    await b.compact(2);
    await assert.rejects(b.watch('/w/', 1)[Symbol.asyncIterator]().next(), (err: unknown) => {
      assert.ok(err instanceof CompactedError);
      assert.equal(err.requested, 1);
      assert.equal(err.compacted, 2);
      return true;
    });
    await assert.rejects(b.watch('/w/', 0)[Symbol.asyncIterator]().next(), CompactedError);
    const ac = new AbortController();
    const events = await takeEvents(b.watch('/w/', 2, ac.signal)[Symbol.asyncIterator](), 1);
    assert.deepEqual(events.map(brief), [['create', '/w/b', '3', 3]]);
    ac.abort();
  });

  it('ends cleanly when the signal aborts', async (b) => {
    await b.create('/w/a', '1');
    const ac = new AbortController();
    const seen: number[] = [];
    const loop = (async () => {
      for await (const event of b.watch('/w/', 0, ac.signal)) {
        seen.push(event.revision);
        if (seen.length === 2) ac.abort();
      }
    })();
    await b.create('/w/b', '2');
    await loop;
    assert.deepEqual(seen, [1, 2]);

    const waiting = new AbortController();
    const iterator = b.watch('/w/', 2, waiting.signal)[Symbol.asyncIterator]();
    const pending = iterator.next();
    assert.equal(await nextOrPending({ next: () => pending }, 20), 'pending');
    waiting.abort();
    assert.deepEqual(await pending, { value: undefined, done: true });

    const already = AbortSignal.abort();
    const none: StorageEvent[] = [];
    for await (const event of b.watch('/w/', 0, already)) none.push(event);
    assert.deepEqual(none, []);
  });

  it('ends when the consumer stops iterating and when the backend closes', async (b) => {
    await b.create('/w/a', '1');
    await b.create('/w/b', '2');
    for await (const event of b.watch('/w/', 0)) {
      assert.equal(event.revision, 1);
      break;
    }
    const iterator = b.watch('/w/', 2)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    await b.close();
    assert.deepEqual(await pending, { value: undefined, done: true });
  });
}
