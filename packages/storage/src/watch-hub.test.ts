import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, type StorageEvent } from './backend.js';
import { createWatchHub, runWatch, type WatchSource } from './watch-hub.js';

const event = (revision: number, key = '/k'): StorageEvent => ({
  type: 'create',
  kv: { key, value: String(revision), createRevision: revision, modRevision: revision },
  revision,
});

test('runWatch drops live events already delivered by the replay', async () => {
  const hub = createWatchHub();
  let reads = 0;
  const source: WatchSource = {
    hub,
    compactedRevision: () => 0,
    readEvents: async (_prefix, after) => {
      reads++;
      // A write lands while the history read is in flight: it is both logged and published.
      hub.publish(event(3));
      return [event(1), event(2), event(3)].filter((e) => e.revision > after);
    },
    assertOpen: () => {},
  };
  const ac = new AbortController();
  const iterator = runWatch(source, '/', 0, ac.signal);
  const revisions: number[] = [];
  for (let i = 0; i < 3; i++) revisions.push((await iterator.next()).value!.revision);
  hub.publish(event(4, '/other-prefix-is-fine'));
  revisions.push((await iterator.next()).value!.revision);
  assert.deepEqual(revisions, [1, 2, 3, 4]);
  assert.equal(reads, 1);
  ac.abort();
  assert.equal((await iterator.next()).done, true);
  assert.equal(hub.size(), 0);
});

test('runWatch fails when compaction overtakes a long replay', async () => {
  const hub = createWatchHub();
  let compacted = 0;
  const source: WatchSource = {
    hub,
    compactedRevision: () => compacted,
    readEvents: (_prefix, after, limit) => {
      const batch = Array.from({ length: limit }, (_, i) => event(after + i + 1));
      compacted = after + limit + 10;
      return batch;
    },
    assertOpen: () => {},
  };
  const iterator = runWatch(source, '/', 0);
  let seen = 0;
  await assert.rejects(async () => {
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      seen++;
    }
  }, CompactedError);
  assert.equal(seen, 1000);
  assert.equal(hub.size(), 0);
});

test('the hub only delivers events under the subscription prefix', () => {
  const hub = createWatchHub();
  const sub = hub.subscribe('/a/');
  hub.publish(event(1, '/a/x'));
  hub.publish(event(2, '/ab'));
  hub.publish(event(3, '/a/'));
  assert.deepEqual([sub.shift()?.revision, sub.shift()?.revision, sub.shift()], [1, 3, undefined]);
  sub.close();
  hub.publish(event(4, '/a/y'));
  assert.equal(sub.shift(), undefined);
  assert.equal(hub.size(), 0);
});
