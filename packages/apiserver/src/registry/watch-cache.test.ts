import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import type { KubeObject } from '@kplane/api';
import { ApiError } from '@kplane/api';
import { createMemoryBackend, type Backend, type StorageEvent } from '@kplane/storage';
import { CachedEvent, WatchCache, WatchClosedError, type WatchCacheOptions } from './watch-cache.js';
import { VirtualTimers } from './timers.js';

const PREFIX = '/registry/configmaps/';

function decode(value: string, revision: number): KubeObject {
  const o = JSON.parse(value) as KubeObject;
  o.metadata = { ...o.metadata, resourceVersion: String(revision) };
  return o;
}

function value(name: string, data = ''): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { d: data } });
}

async function setup(options: Partial<WatchCacheOptions> = {}, backend: Backend = createMemoryBackend()) {
  const cache = new WatchCache({ backend, prefix: PREFIX, decode, namespaced: true, ...options });
  await cache.start();
  return { backend, cache };
}

/** Lets the cache's storage watch deliver what was written. */
function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** A watcher as the server's watch requests start it (bounded in unread changes), as a generator. */
const bounded = (cache: WatchCache, fromRevision: number, signal: AbortSignal): AsyncGenerator<CachedEvent> => cache.watch(fromRevision, signal, { lagBounded: true });

/** Reads n events from a generator. */
async function take(it: AsyncGenerator<CachedEvent>, n: number): Promise<CachedEvent[]> {
  const out: CachedEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('WatchCache', () => {
  it('keeps a window bounded in estimated bytes, always keeping the newest event', async () => {
    const { backend, cache } = await setup({ maxBytes: 1024 * 1024 });
    const big = 'x'.repeat(100 * 1024);
    await backend.create(`${PREFIX}ns/a`, value('a', big));
    for (let i = 0; i < 30; i++) {
      const kv = await backend.get(`${PREFIX}ns/a`);
      await backend.update(`${PREFIX}ns/a`, value('a', big + i), kv!.modRevision);
    }
    await settle();
    const { events, bytes } = cache.usage;
    assert.ok(bytes <= 1024 * 1024, `window holds ${bytes} bytes`);
    // Each 100 KiB revision is counted as 4× its JSON plus the previous version: about 500 KiB.
    assert.equal(events, 2);
    const huge = 'y'.repeat(1400 * 1024);
    const kv = await backend.get(`${PREFIX}ns/a`);
    await backend.update(`${PREFIX}ns/a`, value('a', huge), kv!.modRevision);
    await settle();
    assert.equal(cache.usage.events, 1, 'an event larger than the window is still kept');
    cache.stop();
  });

  it('keeps a window bounded in events', async () => {
    const { backend, cache } = await setup({ capacity: 5 });
    for (let i = 0; i < 12; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    assert.equal(cache.usage.events, 5);
    cache.stop();
  });

  it('replays a watch older than the window from storage, then follows the window, each event once', async () => {
    const { backend, cache } = await setup({ capacity: 3 });
    const start = await backend.currentRevision();
    for (let i = 0; i < 8; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    const abort = new AbortController();
    const it = cache.watch(start, abort.signal);
    const first = await take(it, 8);
    await backend.create(`${PREFIX}ns/late`, value('late'));
    const [late] = await take(it, 1);
    abort.abort();
    assert.deepEqual(first.map((e) => e.object.metadata?.name), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    assert.deepEqual(first.map((e) => e.revision), Array.from({ length: 8 }, (_, i) => start + 1 + i));
    assert.equal(late?.object.metadata?.name, 'late');
    assert.equal((await it.next()).done, true);
    cache.stop();
  });

  it('replays a watch from before the cache started from storage (a restart), then follows the window', async () => {
    const backend = createMemoryBackend();
    const start = await backend.currentRevision();
    for (let i = 0; i < 3; i++) await backend.create(`${PREFIX}ns/old${i}`, value(`old${i}`));
    await backend.create('/registry/secrets/ns/s', value('s'));
    const { cache } = await setup({}, backend);
    const abort = new AbortController();
    const it = cache.watch(start, abort.signal);
    const old = await take(it, 3);
    assert.deepEqual(old.map((e) => e.object.metadata?.name), ['old0', 'old1', 'old2']);
    // No event of this resource at the cache's start revision: the next one ends the replay, once.
    const next = it.next();
    await backend.create(`${PREFIX}ns/new0`, value('new0'));
    await backend.create(`${PREFIX}ns/new1`, value('new1'));
    assert.equal((await next).value?.object.metadata?.name, 'new0');
    assert.equal((await take(it, 1))[0]?.object.metadata?.name, 'new1');
    abort.abort();
    cache.stop();
  });

  it('answers 410 Expired for a watch older than the window once storage compacted that history', async () => {
    const { backend, cache } = await setup({ capacity: 2 });
    const start = await backend.currentRevision();
    for (let i = 0; i < 5; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    await backend.compact(start + 3);
    await assert.rejects(take(cache.watch(start, new AbortController().signal), 1), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 410);
      assert.equal(err.reason, 'Expired');
      assert.match(err.message, /^too old resource version: \d+ \(\d+\)$/);
      return true;
    });
    cache.stop();
  });

  it('delivers only events newer than the version asked, even before the cache has seen that version', async () => {
    const { backend, cache } = await setup();
    const a = await backend.create(`${PREFIX}ns/a`, value('a'));
    // The cache has not processed revision a yet: it must still not deliver it.
    assert.ok(cache.revision < a.modRevision);
    const abort = new AbortController();
    const it = cache.watch(a.modRevision, abort.signal);
    await backend.create(`${PREFIX}ns/b`, value('b'));
    const [e] = await take(it, 1);
    abort.abort();
    assert.equal(e?.object.metadata?.name, 'b');
    cache.stop();
  });

  it('delivers nothing at or before a version ahead of storage', async () => {
    const { backend, cache } = await setup();
    const ahead = (await backend.currentRevision()) + 3;
    const abort = new AbortController();
    const it = cache.watch(ahead, abort.signal);
    for (let i = 0; i < 5; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    const events = await take(it, 2);
    abort.abort();
    assert.deepEqual(events.map((e) => e.revision), [ahead + 1, ahead + 2]);
    cache.stop();
  });

  it('closes a watcher that leaves too many events unread, and only it', async () => {
    const { backend, cache } = await setup({ watcherMaxEvents: 5 });
    const abort = new AbortController();
    const start = await backend.currentRevision();
    const slow = bounded(cache, start, abort.signal);
    const fast = await cache.subscribe(start, abort.signal);
    const got: string[] = [];
    const reading = (async () => {
      for (;;) {
        const e = await fast.read();
        if (!e) return;
        got.push(e.object.metadata!.name!);
      }
    })();
    // The slow watcher reads one event, then stops reading.
    await backend.create(`${PREFIX}ns/c0`, value('c0'));
    assert.equal((await take(slow, 1))[0]?.object.metadata?.name, 'c0');
    for (let i = 1; i <= 6; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    await assert.rejects(slow.next(), (err: unknown) => err instanceof WatchClosedError && err.why === 'lagging');
    assert.deepEqual(got, ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    assert.equal(cache.usage.watchers, 1);
    abort.abort();
    await reading;
    cache.stop();
  });

  it('closes a watcher that leaves too many bytes unread', async () => {
    const { backend, cache } = await setup({ watcherMaxBytes: 64 * 1024 });
    const abort = new AbortController();
    const slow = bounded(cache, await backend.currentRevision(), abort.signal);
    const pending = slow.next();
    await backend.create(`${PREFIX}ns/a`, value('a', 'x'.repeat(40 * 1024)));
    await pending;
    await backend.create(`${PREFIX}ns/b`, value('b', 'x'.repeat(40 * 1024)));
    await settle();
    assert.equal(cache.usage.watchers, 1, 'one unread event is under the limit');
    await backend.create(`${PREFIX}ns/c`, value('c', 'x'.repeat(40 * 1024)));
    await settle();
    assert.equal(cache.usage.watchers, 0);
    // What was unread when it was closed is not delivered: the client watches again from "a".
    await assert.rejects(slow.next(), WatchClosedError);
    abort.abort();
    cache.stop();
  });

  it('closes a watcher whose unread changes left the window, and goes on serving the others', async () => {
    const { backend, cache } = await setup({ capacity: 3 });
    const abort = new AbortController();
    const start = await backend.currentRevision();
    const slow = cache.watch(start, abort.signal);
    const pending = slow.next();
    await backend.create(`${PREFIX}ns/c0`, value('c0'));
    await pending;
    for (let i = 1; i <= 5; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    await assert.rejects(slow.next(), (err: unknown) => err instanceof WatchClosedError && err.why === 'lagging');
    // The cache itself went on: a watcher from the last revision the slow one got is replayed.
    const again = cache.watch(start + 1, abort.signal);
    const rest = await take(again, 5);
    assert.deepEqual(rest.map((e) => e.object.metadata?.name), ['c1', 'c2', 'c3', 'c4', 'c5']);
    await backend.create(`${PREFIX}ns/c6`, value('c6'));
    assert.equal((await take(again, 1))[0]?.object.metadata?.name, 'c6');
    abort.abort();
    cache.stop();
  });

  it('does not count a replay from the window against the watcher', async () => {
    const { backend, cache } = await setup({ watcherMaxEvents: 2 });
    const start = await backend.currentRevision();
    for (let i = 0; i < 10; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    const abort = new AbortController();
    const events = await take(bounded(cache, start, abort.signal), 10);
    abort.abort();
    assert.equal(events.length, 10);
    cache.stop();
  });

  it('does not close the server\'s own followers for unread changes, only when they leave the window', async () => {
    const { backend, cache } = await setup({ watcherMaxEvents: 2, capacity: 20 });
    const abort = new AbortController();
    const follower = cache.watch(await backend.currentRevision(), abort.signal);
    for (let i = 0; i < 10; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    assert.equal((await take(follower, 10)).length, 10);
    for (let i = 10; i < 40; i++) await backend.create(`${PREFIX}ns/c${i}`, value(`c${i}`));
    await settle();
    await assert.rejects(follower.next(), (err: unknown) => err instanceof WatchClosedError && err.why === 'lagging');
    abort.abort();
    cache.stop();
  });

  it('closes every watcher when it restarts after storage lost its history', async () => {
    const memory = createMemoryBackend();
    let fail: ((err: Error) => void) | undefined;
    // A backend whose first watch (the cache's) can be made to fail, as a compacted watch does.
    const backend: Backend = Object.create(memory, {
      watch: {
        value: (prefix: string, after: number, signal?: AbortSignal): AsyncIterable<StorageEvent> => {
          const inner = memory.watch(prefix, after, signal);
          if (fail) return inner;
          const failure = new Promise<never>((_, reject) => (fail = reject));
          failure.catch(() => {});
          return {
            async *[Symbol.asyncIterator]() {
              const it = inner[Symbol.asyncIterator]();
              for (;;) {
                const r = await Promise.race([it.next(), failure]);
                if (r.done) return;
                yield r.value;
              }
            },
          };
        },
      },
    });
    const { cache } = await setup({}, backend);
    const abort = new AbortController();
    const w = cache.watch(await memory.currentRevision(), abort.signal);
    const pending = w.next();
    fail!(new Error('compacted'));
    await assert.rejects(pending, (err: unknown) => err instanceof WatchClosedError && err.why === 'reset');
    // The cache follows storage again: a new watcher sees new events.
    const again = cache.watch(await memory.currentRevision(), abort.signal);
    await memory.create(`${PREFIX}ns/x`, value('x'));
    assert.equal((await take(again, 1))[0]?.object.metadata?.name, 'x');
    abort.abort();
    cache.stop();
  });

  it('leaves no listener on a long-lived signal once a watcher is closed', async () => {
    const { backend, cache } = await setup();
    const abort = new AbortController();
    for (let i = 0; i < 3; i++) (await cache.subscribe(await backend.currentRevision(), abort.signal)).close();
    assert.equal(getEventListeners(abort.signal, 'abort').length, 0);
    assert.equal(cache.usage.watchers, 0);
    cache.stop();
  });

  it('decodes objects only when read, and the namespace comes from the key', async () => {
    let decoded = 0;
    const { backend, cache } = await setup({ decode: (v, r) => (decoded++, decode(v, r)) });
    const abort = new AbortController();
    const it = cache.watch(await backend.currentRevision(), abort.signal);
    await backend.create(`${PREFIX}ns/a`, value('a'));
    const [e] = await take(it, 1);
    assert.equal(e?.namespace, 'ns');
    assert.equal(decoded, 0);
    assert.equal(e?.object.metadata?.name, 'a');
    assert.equal(e?.object, e?.object);
    assert.equal(decoded, 1);
    abort.abort();
    cache.stop();
  });

  describe('waitForRevision', () => {
    it('answers at once when storage has the version, and as soon as it reaches it', async () => {
      const timers = new VirtualTimers();
      const { backend, cache } = await setup({ timers });
      const now = await backend.currentRevision();
      assert.equal(await cache.waitForRevision(now), now);
      let answered: number | undefined;
      const waiting = cache.waitForRevision(now + 2).then((r) => (answered = r));
      await backend.create(`${PREFIX}ns/a`, value('a'));
      await timers.advance(100);
      assert.equal(answered, undefined);
      // A write elsewhere in storage moves the revision too: seen at the next look.
      await backend.create('/registry/secrets/ns/s', value('s'));
      await timers.advance(100);
      await waiting;
      assert.equal(answered, now + 2);
      cache.stop();
    });

    it('times out after 3 s with kube-apiserver\'s Status', async () => {
      const timers = new VirtualTimers();
      const { backend, cache } = await setup({ timers });
      const now = await backend.currentRevision();
      const box: { failure?: unknown } = {};
      const waiting = cache.waitForRevision(now + 5).catch((err) => (box.failure = err));
      await timers.advance(2900);
      assert.ok(box.failure === undefined);
      await timers.advance(100);
      await waiting;
      const failure = box.failure as unknown;
      assert.ok(failure instanceof ApiError);
      assert.deepEqual(failure.toStatus(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Timeout: Too large resource version: ${now + 5}, current: ${now}`,
        reason: 'Timeout',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
        code: 504,
      });
      assert.equal(timers.pending, 0, 'no timer is left behind');
      cache.stop();
    });
  });
});
