import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock, flushMicrotasks } from '../clock.js';
import { createWorkqueue } from '../workqueue/index.js';
import { createController, type Source } from './controller.js';

/** A controller fed by a hand-driven source, on a fake clock; reconciles are recorded with their time. */
function harness(windowMs: number | undefined, reconcile: (key: string) => Promise<void> | void = () => {}) {
  const clock = createFakeClock(0);
  let push: ((key: string, windowMs?: number) => void) | undefined;
  const source: Source = (enqueue) => {
    push = enqueue;
    return { remove: () => (push = undefined) };
  };
  const runs: Array<{ key: string; at: number }> = [];
  const ctl = createController({
    name: 'batch',
    clock,
    informers: [],
    sources: [source],
    queue: createWorkqueue({ clock }),
    onError: () => {},
    reconcile: async (req) => {
      runs.push({ key: req.key, at: clock.now() });
      await reconcile(req.key);
    },
  });
  const abort = new AbortController();
  const done = ctl.start(abort.signal);
  const change = (key: string): void => push!(key, windowMs);
  const stop = async (): Promise<void> => {
    abort.abort();
    await done;
  };
  return { clock, runs, change, stop };
}

describe('batch windows of watch sources', () => {
  it('a lone change wakes the controller at once', async () => {
    const h = harness(25);
    await flushMicrotasks();
    h.change('ns/a');
    await flushMicrotasks();
    assert.deepEqual(h.runs, [{ key: 'ns/a', at: 0 }]);
    await h.stop();
  });

  it('a burst of changes costs one reconcile per window and key, and none is lost', async () => {
    const h = harness(25);
    await flushMicrotasks();
    h.change('ns/a');
    await flushMicrotasks();
    for (let t = 1; t <= 60; t++) {
      await h.clock.advanceAsync(1);
      h.change('ns/a');
      if (t === 30) h.change('ns/b'); // another key is not held back by a's window
      await flushMicrotasks();
    }
    await h.clock.advanceAsync(100);
    const a = h.runs.filter((r) => r.key === 'ns/a').map((r) => r.at);
    // At 0, then at the end of each 25 ms window after the last start, then once more for the
    // changes of the last window.
    assert.deepEqual(a, [0, 25, 50, 75]);
    assert.deepEqual(h.runs.filter((r) => r.key === 'ns/b').map((r) => r.at), [30]);
    await h.stop();
  });

  it('without a window every change between reconciles wakes one', async () => {
    const h = harness(undefined);
    await flushMicrotasks();
    for (let t = 0; t < 5; t++) {
      h.change('ns/a');
      await flushMicrotasks();
      await h.clock.advanceAsync(1);
    }
    assert.equal(h.runs.length, 5);
    await h.stop();
  });

  it('a failed reconcile with changes held back during it is retried at once', async () => {
    let fail = true;
    let release: (() => void) | undefined;
    const h = harness(25, async () => {
      if (!fail) return;
      fail = false;
      await new Promise<void>((r) => (release = r));
      throw new Error('boom');
    });
    await flushMicrotasks();
    h.change('ns/a');
    await flushMicrotasks();
    await h.clock.advanceAsync(2);
    h.change('ns/a'); // held for the window, while the first reconcile runs
    await flushMicrotasks();
    release!();
    await flushMicrotasks();
    await flushMicrotasks();
    assert.deepEqual(h.runs.map((r) => r.at), [0, 2], 'retried at once, not after the window or the backoff');
    await h.stop();
  });
});
