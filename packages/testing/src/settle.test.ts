import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkqueue } from '@kplane/runtime';
import { createTestClock } from './clock.js';
import { settle, SettleTimeoutError, type SettleProbe } from './settle.js';

/** A probe over a test clock's tracked sources, with a progress counter the test moves. */
function probeOf(clock = createTestClock(0)): SettleProbe & { clock: ReturnType<typeof createTestClock>; tick(): void } {
  let progress = 0;
  return {
    clock,
    busy: () => clock.activitySources().filter((s) => s.busy()).map((s) => s.name),
    progress: () => progress,
    tick: () => void progress++,
  };
}

describe('settle', () => {
  it('returns once a workqueue on the clock is drained, and fires the timers already due', async () => {
    const probe = probeOf();
    const queue = createWorkqueue({ name: 'things', clock: probe.clock });
    const done: string[] = [];
    void (async () => {
      for (;;) {
        const { key, shutdown } = await queue.get();
        if (shutdown) return;
        // Longer than settle's quiet turns: only the queue's report keeps settle waiting.
        for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
        done.push(key);
        queue.done(key);
      }
    })();
    queue.add('a');
    queue.addAfter('b', 0);
    queue.addAfter('later', 5_000);
    assert.equal(await settle(probe), 0);
    assert.deepEqual(done, ['a', 'b']);
    assert.equal(probe.clock.now(), 0, 'time did not move');
    queue.shutDown();
  });

  it('with advance, moves to each timer up to the bound, or stops when until holds', async () => {
    const probe = probeOf();
    const fired: number[] = [];
    for (const at of [1_000, 2_000, 9_000]) probe.clock.setTimeout(() => fired.push(probe.clock.now()), at);
    assert.equal(await settle(probe, { advance: true, maxVirtualMs: 5_000 }), 5_000);
    assert.deepEqual(fired, [1_000, 2_000]);
    probe.clock.setTimeout(() => fired.push(probe.clock.now()), 1_000);
    assert.equal(await settle(probe, { advance: true, until: () => fired.length === 3 }), 1_000);
  });

  it('advances while work waits on a timer (a backoff) and not otherwise', async () => {
    const probe = probeOf();
    let holding = true;
    probe.clock.trackActivity({ name: 'retrying thing', busy: () => holding });
    probe.clock.setTimeout(() => (holding = false), 3_000);
    assert.equal(await settle(probe, { advance: true, maxVirtualMs: 3_000 }), 3_000);
    assert.equal(holding, false);
  });

  it('fails after timeoutMs, naming what is still busy', async () => {
    const probe = probeOf();
    probe.clock.trackActivity({ name: 'workqueue stuck', busy: () => true });
    await assert.rejects(settle(probe, { timeoutMs: 30 }), (err: unknown) => {
      assert.ok(err instanceof SettleTimeoutError);
      assert.match(err.message, /still busy after 30 ms: workqueue stuck/);
      return true;
    });
  });
});
