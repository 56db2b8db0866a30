import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, eventuallyWith, nextTurn, TimeoutError, until, type PollClock } from './index.js';

/** A clock that only moves when polling sleeps on it, recording each wait. */
function steppingClock(): PollClock & { waits: number[] } {
  let t = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => t,
    async sleep(ms) {
      waits.push(ms);
      t += ms;
    },
  };
}

describe('eventually', () => {
  it('returns the first truthy value, polling at the interval', async () => {
    const clock = steppingClock();
    let n = 0;
    const got = await eventually('the third try', () => (++n === 3 ? { n } : undefined), { clock, intervalMs: 25 });
    assert.deepEqual(got, { n: 3 });
    assert.deepEqual(clock.waits, [25, 25]);
  });

  it('awaits async checks and counts a throw as not yet', async () => {
    const clock = steppingClock();
    let n = 0;
    const got = await eventually(
      'a stable answer',
      async () => {
        if (++n < 3) throw new Error('not found');
        return 'ready';
      },
      { clock },
    );
    assert.equal(got, 'ready');
    assert.equal(n, 3);
  });

  it('fails after the timeout with what it waited for and the last value', async () => {
    const clock = steppingClock();
    let n = 0;
    await assert.rejects(
      eventually('the count to reach 5', () => (++n, { count: n, done: false }).done, { clock, timeoutMs: 100, intervalMs: 30 }),
      (err: Error) => {
        assert.ok(err instanceof TimeoutError);
        assert.match(err.message, /^timed out after 100 ms \(5 tries\) waiting for the count to reach 5; last value: false$/);
        return true;
      },
    );
    // 30+30+30 then the remaining 10: the last try lands on the deadline, never past it.
    assert.deepEqual(clock.waits, [30, 30, 30, 10]);
  });

  it('reports the last error, kept as the cause', async () => {
    const clock = steppingClock();
    const boom = new Error('connection refused');
    await assert.rejects(
      eventually('the server to answer', () => {
        throw boom;
      }, { clock, timeoutMs: 50 }),
      (err: Error) => {
        assert.match(err.message, /waiting for the server to answer; last error: connection refused$/);
        assert.equal(err.cause, boom);
        return true;
      },
    );
  });

  it('shows the last falsy value as it was', async () => {
    const clock = steppingClock();
    await assert.rejects(eventually('ready pods', () => 0, { clock, timeoutMs: 20 }), /last value: 0$/);
    await assert.rejects(eventually('a phase', () => '', { clock, timeoutMs: 20 }), /last value: ''$/);
    await assert.rejects(eventually('a pod', () => undefined, { clock, timeoutMs: 20 }), /last value: undefined$/);
  });

  it('carries an assertion failed inside the check into the message', async () => {
    const clock = steppingClock();
    await assert.rejects(
      eventually('3 replicas', () => {
        assert.equal(2, 3);
        return true;
      }, { clock, timeoutMs: 20 }),
      /waiting for 3 replicas; last error: Expected values to be strictly equal:\n\n2 !== 3/,
    );
  });

  it('takes a bare number as the timeout', async () => {
    const started = performance.now();
    await assert.rejects(eventually('never', () => false, 0), /timed out after \d+ ms \(1 tries\) waiting for never/);
    assert.ok(performance.now() - started < 1000);
  });

  it('with intervalMs 0 yields event-loop turns, so in-process work progresses', async () => {
    let fired = false;
    setImmediate(() => setImmediate(() => (fired = true)));
    const clock = steppingClock();
    assert.equal(await eventually('the immediate to fire', () => fired, { clock, intervalMs: 0 }), true);
    assert.deepEqual(clock.waits, []);
  });

  it('until resolves to nothing once the check holds', async () => {
    const clock = steppingClock();
    let n = 0;
    assert.equal(await until('two tries', () => ++n >= 2, { clock }), undefined);
    await assert.rejects(until('never', () => false, { clock, timeoutMs: 10 }), TimeoutError);
  });

  it('eventuallyWith supplies defaults that per-call options override', async () => {
    const clock = steppingClock();
    const slow = eventuallyWith({ clock, intervalMs: 150, timeoutMs: 300 });
    await assert.rejects(slow('never', () => false), /after 300 ms \(3 tries\)/);
    assert.deepEqual(clock.waits, [150, 150]);
    await assert.rejects(slow('never', () => false, 100), /after 100 ms \(2 tries\)/);
    await assert.rejects(slow('never', () => false, { intervalMs: 50 }), /after 300 ms \(7 tries\)/);
  });

  it('nextTurn lets immediates queued before it run', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('immediate'));
    await nextTurn();
    order.push('after');
    assert.deepEqual(order, ['immediate', 'after']);
  });
});
