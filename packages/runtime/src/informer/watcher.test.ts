import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeList, type KubeObject, type WatchEvent } from '@kplane/api';
import type { ListOptions, WatchOptions } from '@kplane/client';
import { createFakeClock, flushMicrotasks, type FakeClock } from '../clock.js';
import { watcher, type WatcherEvent } from './watcher.js';

const obj = (name: string, rv: string): KubeObject => ({ metadata: { namespace: 'default', name, resourceVersion: rv, uid: `u-${name}` } });

type Script = WatchEvent[] | 'hang' | Error | { afterMs: number; error: Error };

/**
 * A fake ResourceClient: lists come from `lists` (an Error is thrown), each watch plays the next
 * script (events then a clean end; 'hang' stays open until aborted; an Error is thrown at once).
 */
function fakeApi(clock: FakeClock, lists: (KubeList | Error)[], watches: Script[]) {
  const calls: { what: 'list' | 'watch'; at: number; options: ListOptions & WatchOptions }[] = [];
  const api = {
    async list(options: ListOptions = {}): Promise<KubeList> {
      calls.push({ what: 'list', at: clock.now(), options });
      const next = lists.shift() ?? new Error('no more lists');
      if (next instanceof Error) throw next;
      return next;
    },
    watch(options: WatchOptions = {}): AsyncIterable<WatchEvent> {
      calls.push({ what: 'watch', at: clock.now(), options });
      const script = watches.shift() ?? 'hang';
      return (async function* () {
        if (script instanceof Error) throw script;
        if (typeof script === 'object' && 'afterMs' in script) {
          await clock.sleep(script.afterMs);
          throw script.error;
        }
        if (script === 'hang') {
          await new Promise((resolve) => options.signal?.addEventListener('abort', resolve, { once: true }));
          return;
        }
        yield* script;
      })();
    },
  };
  return { api, calls };
}

const list = (rv: string, items: KubeObject[], cont?: string): KubeList => ({
  apiVersion: 'v1',
  kind: 'List',
  metadata: { resourceVersion: rv, continue: cont },
  items,
});

/** Runs a watcher in the background, collecting its events. */
function collect(api: Parameters<typeof watcher>[0], clock: FakeClock, extra: { jitter?: number; initialList?: 'streaming' | 'paged' } = {}) {
  const ctl = new AbortController();
  const events: WatcherEvent[] = [];
  const errors: unknown[] = [];
  const done = (async () => {
    for await (const ev of watcher(api, { clock, signal: ctl.signal, initialList: extra.initialList ?? 'paged', backoff: { jitter: extra.jitter ?? 0 }, onError: (e) => errors.push(e) })) events.push(ev);
  })();
  return { ctl, events, errors, done };
}

const brief = (events: WatcherEvent[]): string[] =>
  events.map((e) => ('object' in e ? `${e.type}:${e.object.metadata!.name}@${e.object.metadata!.resourceVersion}` : e.type));

describe('watcher', () => {
  it('lists page by page (limit 500), then watches from the list resourceVersion with bookmarks', async () => {
    const clock = createFakeClock();
    const { api, calls } = fakeApi(clock, [list('10', [obj('a', '3')], 'tok'), list('10', [obj('b', '4')])], [
      [{ type: 'ADDED', object: obj('c', '11') }, { type: 'MODIFIED', object: obj('a', '12') }, { type: 'DELETED', object: obj('b', '13') }],
    ]);
    const w = collect(api, clock);
    await clock.advanceAsync(0);
    assert.deepEqual(brief(w.events), ['init', 'initApply:a@3', 'initApply:b@4', 'initDone', 'apply:c@11', 'apply:a@12', 'delete:b@13']);
    assert.equal(calls[0]!.options.limit, 500);
    assert.equal(calls[0]!.options.namespace, '', 'all namespaces by default');
    assert.equal(calls[1]!.options.continue, 'tok');
    assert.equal(calls[2]!.what, 'watch');
    assert.equal(calls[2]!.options.resourceVersion, '10');
    assert.equal(calls[2]!.options.allowWatchBookmarks, true);
    // The watch ended cleanly after events: it is reopened at once from the last resourceVersion, no relist.
    assert.equal(calls[3]!.what, 'watch');
    assert.equal(calls[3]!.options.resourceVersion, '13');
    assert.equal(calls[3]!.at, 0);
    assert.deepEqual(w.errors, []);
    w.ctl.abort();
    await w.done;
  });

  it('bookmarks move the resourceVersion and yield nothing', async () => {
    const clock = createFakeClock();
    const bookmark = { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '42' } } };
    const { api, calls } = fakeApi(clock, [list('5', [])], [[bookmark]]);
    const w = collect(api, clock);
    await clock.advanceAsync(0);
    assert.deepEqual(brief(w.events), ['init', 'initDone']);
    assert.deepEqual(calls.map((c) => `${c.what}:${c.options.resourceVersion ?? ''}`), ['list:', 'watch:5', 'watch:42']);
    w.ctl.abort();
    await w.done;
  });

  for (const [label, script] of [
    ['a 410 ERROR event', [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (9)' } }]],
    ['a thrown 410', new ApiError(410, 'Expired', 'too old resource version: 5 (9)')],
    ['a 403 ERROR event', [{ type: 'ERROR', object: { kind: 'Status', code: 403, reason: 'Forbidden', message: 'forbidden' } }]],
  ] as [string, Script][]) {
    it(`relists after ${label}, waiting 800 ms first, and the relist replaces everything`, async () => {
      const clock = createFakeClock();
      const { api, calls } = fakeApi(clock, [list('5', [obj('a', '1')]), list('9', [obj('b', '8')])], [script]);
      const w = collect(api, clock);
      await clock.advanceAsync(0);
      assert.equal(calls.filter((c) => c.what === 'list').length, 1);
      assert.equal(w.errors.length, 1);
      await clock.advanceAsync(799);
      assert.equal(calls.filter((c) => c.what === 'list').length, 1, 'still backing off');
      await clock.advanceAsync(1);
      const relist = calls.filter((c) => c.what === 'list')[1]!;
      assert.equal(relist.at, 800);
      assert.equal(relist.options.continue, undefined);
      assert.deepEqual(brief(w.events), ['init', 'initApply:a@1', 'initDone', 'init', 'initApply:b@8', 'initDone']);
      assert.equal(calls.at(-1)!.options.resourceVersion, '9');
      if (script instanceof ApiError) assert.equal((w.errors[0] as ApiError).code, 410);
      w.ctl.abort();
      await w.done;
    });
  }

  for (const [label, script] of [
    ['a broken stream', { afterMs: 0, error: new Error('read ECONNRESET') }],
    ['a watch that cannot connect', new Error('connect ECONNREFUSED 127.0.0.1:6443')],
    ['a 500 ERROR event', [{ type: 'MODIFIED', object: obj('a', '7') }, { type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd unavailable' } }]],
    ['a thrown 429', new ApiError(429, 'TooManyRequests', 'slow down')],
  ] as [string, Script][]) {
    it(`resumes the watch from its last resourceVersion after ${label}, waiting 800 ms first, without a relist`, async () => {
      const clock = createFakeClock();
      const { api, calls } = fakeApi(clock, [list('5', [obj('a', '1')])], [script]);
      const w = collect(api, clock);
      await clock.advanceAsync(0);
      assert.equal(w.errors.length, 1);
      assert.equal(calls.filter((c) => c.what === 'watch').length, 1);
      await clock.advanceAsync(799);
      assert.equal(calls.filter((c) => c.what === 'watch').length, 1, 'still backing off');
      await clock.advanceAsync(1);
      assert.deepEqual(calls.map((c) => c.what), ['list', 'watch', 'watch'], 'no relist');
      const rv = Array.isArray(script) ? '7' : '5';
      assert.equal(calls[2]!.options.resourceVersion, rv);
      assert.equal(calls[2]!.at, 800);
      assert.deepEqual(brief(w.events), ['init', 'initApply:a@1', 'initDone', ...(Array.isArray(script) ? ['apply:a@7'] : [])]);
      w.ctl.abort();
      await w.done;
    });
  }

  it('a failed page restarts the list from its first page', async () => {
    const clock = createFakeClock();
    const expired = new ApiError(410, 'Expired', 'The provided continue parameter is too old');
    const { api, calls } = fakeApi(clock, [list('5', [obj('a', '1')], 'tok'), expired, list('6', [obj('a', '1')])], []);
    const w = collect(api, clock);
    await clock.advanceAsync(800);
    assert.deepEqual(brief(w.events), ['init', 'initApply:a@1', 'init', 'initApply:a@1', 'initDone']);
    assert.equal(calls[2]!.options.continue, undefined);
    w.ctl.abort();
    await w.done;
  });

  it('backs off 800 ms doubling to a 30 s cap', async () => {
    const clock = createFakeClock();
    const failures = Array.from({ length: 8 }, () => new Error('connect ECONNREFUSED'));
    const { api, calls } = fakeApi(clock, [...failures, list('1', [])], ['hang']);
    const w = collect(api, clock);
    await clock.advanceAsync(200_000);
    const at = calls.filter((c) => c.what === 'list').map((c) => c.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    assert.deepEqual(gaps, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    assert.equal(w.errors.length, 8);
    assert.equal(calls.at(-1)!.what, 'watch');
    w.ctl.abort();
    await w.done;
  });

  it('keeps growing the backoff across short healthy spells, and resets it after two healthy minutes', async () => {
    const clock = createFakeClock();
    const down = () => new Error('connect ECONNREFUSED');
    const { api, calls } = fakeApi(clock, [down(), down(), down(), list('1', []), list('2', []), list('3', [])], [
      { afterMs: 1000, error: new Error('read ECONNRESET') },
      { afterMs: 180_000, error: new Error('read ECONNRESET') },
      'hang',
    ]);
    const w = collect(api, clock);
    await clock.advanceAsync(400_000);
    const at = (what: string) => calls.filter((c) => c.what === what).map((c) => c.at);
    // 3 failed lists (800, 1600, 3200); a watch failing after 1 s waits 6400 and resumes; one
    // failing after 3 healthy minutes waits 800 again.
    assert.deepEqual(at('list'), [0, 800, 2400, 5600]);
    assert.deepEqual(at('watch'), [5600, 6600 + 6400, 13_000 + 180_000 + 800]);
    w.ctl.abort();
    await w.done;
  });

  it('a watch closing at once with no event is a "very short watch" failure, retried from the same resourceVersion', async () => {
    const clock = createFakeClock();
    const { api, calls } = fakeApi(clock, [list('7', [])], [[], 'hang']);
    const w = collect(api, clock);
    await clock.advanceAsync(0);
    assert.match(String(w.errors[0]), /very short watch: Unexpected watch close - watch lasted less than a second and no items received/);
    assert.equal(calls.length, 2);
    await clock.advanceAsync(800);
    assert.deepEqual(calls.map((c) => `${c.what}:${c.options.resourceVersion ?? ''}@${c.at}`), ['list:@0', 'watch:7@0', 'watch:7@800']);
    w.ctl.abort();
    await w.done;
  });

  it('stops quietly when aborted while backing off, cancelling its timer', async () => {
    const clock = createFakeClock();
    const { api } = fakeApi(clock, [new Error('down')], []);
    const w = collect(api, clock);
    await clock.advanceAsync(0);
    assert.equal(clock.pendingTimers(), 1);
    w.ctl.abort();
    await w.done;
    await flushMicrotasks();
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('watcher with streaming lists', () => {
  const end = (rv: string): WatchEvent => ({ type: 'BOOKMARK', object: { metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  const added = (o: KubeObject): WatchEvent => ({ type: 'ADDED', object: o });

  it('streams the initial list with sendInitialEvents, completes it at the initial-events-end bookmark, and goes on watching on the same stream', async () => {
    const clock = createFakeClock();
    const plainBookmark: WatchEvent = { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } };
    const { api, calls } = fakeApi(clock, [], [[added(obj('a', '3')), plainBookmark, added(obj('b', '4')), end('10'), { type: 'MODIFIED', object: obj('a', '12') }], 'hang']);
    const w = collect(api, clock, { initialList: 'streaming' });
    await clock.advanceAsync(0);
    assert.deepEqual(brief(w.events), ['init', 'initApply:a@3', 'initApply:b@4', 'initDone', 'apply:a@12']);
    const first = calls[0]!;
    assert.equal(first.what, 'watch');
    assert.equal(first.options.sendInitialEvents, true);
    assert.equal(first.options.resourceVersionMatch, 'NotOlderThan');
    assert.equal(first.options.resourceVersion, '');
    assert.equal(first.options.allowWatchBookmarks, true);
    // The stream ended cleanly after the change: reopened at once from the last resourceVersion.
    assert.deepEqual(calls.slice(1).map((c) => `${c.what}:${c.options.resourceVersion}:${c.options.sendInitialEvents ?? false}`), ['watch:12:false']);
    assert.equal(calls.some((c) => c.what === 'list'), false, 'no list request');
    assert.deepEqual(w.errors, []);
    w.ctl.abort();
    await w.done;
  });

  it('a stream that breaks or ends before the initial events are complete starts over, after the backoff', async () => {
    const clock = createFakeClock();
    const { api, calls } = fakeApi(clock, [], [[added(obj('a', '3'))], [added(obj('b', '5')), end('6')], 'hang']);
    const w = collect(api, clock, { initialList: 'streaming' });
    await clock.advanceAsync(0);
    assert.deepEqual(brief(w.events), ['init', 'initApply:a@3']);
    assert.match(String(w.errors[0]), /ended before the initial events were complete/);
    await clock.advanceAsync(800);
    // The new stream's 'init' tells the store to drop what the broken one delivered.
    assert.deepEqual(brief(w.events), ['init', 'initApply:a@3', 'init', 'initApply:b@5', 'initDone']);
    assert.deepEqual(calls.map((c) => `${c.what}@${c.at}`), ['watch@0', 'watch@800', 'watch@800']);
    w.ctl.abort();
    await w.done;
  });

  for (const code of [400, 422]) {
    it(`falls back to paged lists for good when the server refuses streaming with ${code}`, async () => {
      const clock = createFakeClock();
      const refused = new ApiError(code, code === 422 ? 'Invalid' : 'BadRequest', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
      const { api, calls } = fakeApi(clock, [list('5', [obj('a', '1')]), list('9', [obj('b', '8')])], [refused, new ApiError(410, 'Expired', 'too old resource version: 5 (9)'), 'hang']);
      const w = collect(api, clock, { initialList: 'streaming' });
      await clock.advanceAsync(0);
      assert.deepEqual(brief(w.events), ['init', 'init', 'initApply:a@1', 'initDone']);
      assert.deepEqual(calls.map((c) => `${c.what}@${c.at}`), ['watch@0', 'list@0', 'watch@0'], 'no backoff before the fallback');
      // A later relist (after a 410) lists again, it does not try streaming.
      await clock.advanceAsync(800);
      assert.deepEqual(calls.map((c) => c.what), ['watch', 'list', 'watch', 'list', 'watch']);
      assert.equal(calls[4]!.options.sendInitialEvents, undefined);
      w.ctl.abort();
      await w.done;
    });
  }
});
