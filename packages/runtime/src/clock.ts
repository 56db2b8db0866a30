/**
 * An injectable clock. Everything in the runtime that waits or measures time goes through a
 * `Clock`, so tests can run on virtual time (`createFakeClock`) and never sleep.
 */

/** Opaque handle returned by `Clock.setTimeout`. */
import { sleepOn } from '@kplane/client/faults';
export type TimerHandle = object;

/** The time source and timer facility used by queues, rate limiters, leases and metrics. */
export interface Clock {
  /** Current time in milliseconds (epoch-based for the real clock, arbitrary origin for fakes). */
  now(): number;
  /** Calls `fn` once, after at least `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; cancelling a fired or unknown timer is a no-op. */
  clearTimeout(handle: TimerHandle): void;
  /** Resolves after `ms` milliseconds; rejects with `signal.reason` when the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: a component holding work of its own (a workqueue) reports it here, so that a test
   * sharing this clock can wait until every component is idle (`settle()` of @kplane/testing).
   * Returns the function that stops the reporting. The runtime's clocks do not implement it.
   */
  trackActivity?(source: ActivitySource): () => void;
}

/** What a component reports to `Clock.trackActivity`: its name and whether it holds work now. */
export interface ActivitySource {
  /** Who it is, for the message naming what is still busy (e.g. `workqueue deployment`). */
  readonly name: string;
  /** True while it holds work: keys waiting to be handed out or being processed. */
  busy(): boolean;
}

/** A clock whose time only moves when told to. */
export interface FakeClock extends Clock {
  /**
   * Moves time forward by `ms`, firing every timer that falls due, in due-time order (ties in
   * scheduling order). During a callback `now()` equals that timer's due time, and timers a
   * callback schedules inside the window fire in the same call. Promise continuations run
   * only after `advance` returns; use `advanceAsync` when callbacks chain through `await`.
   */
  advance(ms: number): void;
  /**
   * Like `advance`, but lets pending promise continuations run after each fired timer, so
   * async code that awaits `sleep` in a loop makes progress within one call.
   */
  advanceAsync(ms: number): Promise<void>;
  /** Moves time to the next pending timer and fires it (and any due at the same instant). */
  runNext(): boolean;
  /** Number of timers scheduled and not yet fired or cancelled. */
  pendingTimers(): number;
  /** Due time of the earliest pending timer, or undefined. */
  nextTimerAt(): number | undefined;
}

/** Node clamps delays above this to 1 ms, so longer waits are chained. */
const MAX_NODE_DELAY = 2_147_483_647;

/** Handle for a real timer longer than Node allows in one step. */
class LongTimer {
  current: ReturnType<typeof globalThis.setTimeout> | undefined;
  constructor(fn: () => void, due: number) {
    const step = (): void => {
      const left = due - Date.now();
      if (left <= 0) {
        this.current = undefined;
        fn();
      } else {
        this.current = globalThis.setTimeout(step, Math.min(left, MAX_NODE_DELAY));
      }
    };
    step();
  }
}

/**
 * The wall clock: `Date.now()` and Node's timers (delays beyond Node's 24.8-day limit are
 * chained rather than clamped). Pending timers keep the process alive.
 */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) =>
    ms > MAX_NODE_DELAY ? new LongTimer(fn, Date.now() + ms) : globalThis.setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => {
    if (handle instanceof LongTimer) {
      if (handle.current !== undefined) globalThis.clearTimeout(handle.current);
      handle.current = undefined;
    } else {
      globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>);
    }
  },
  sleep: (ms, signal) => sleepOn(realClock, ms, signal),
};

interface FakeTimer {
  due: number;
  seq: number;
  fn: (() => void) | undefined; // undefined once cancelled or fired
}

function earlier(a: FakeTimer, b: FakeTimer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/**
 * Creates a virtual clock starting at `start` ms (default 0). Timers fire only from
 * `advance`, `advanceAsync` or `runNext`.
 *
 * Guarantees: timers fire in (due time, scheduling order); a timer scheduled with a delay
 * of 0 or less is due immediately and fires on the next advance (even `advance(0)`).
 */
export function createFakeClock(start = 0): FakeClock {
  let now = start;
  let seq = 0;
  let live = 0;
  const heap: FakeTimer[] = [];

  const push = (t: FakeTimer): void => {
    heap.push(t);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!earlier(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const pop = (): FakeTimer | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && earlier(heap[l], heap[m])) m = l;
        if (r < heap.length && earlier(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  };
  const peekLive = (): FakeTimer | undefined => {
    while (heap.length > 0 && heap[0].fn === undefined) pop();
    return heap[0];
  };
  /** Fires the earliest timer if it is due at or before `limit`. */
  const fireOne = (limit: number): boolean => {
    const t = peekLive();
    if (t === undefined || t.due > limit) return false;
    pop();
    const fn = t.fn!;
    t.fn = undefined;
    live--;
    if (t.due > now) now = t.due;
    fn();
    return true;
  };

  const clock: FakeClock = {
    now: () => now,
    setTimeout(fn, ms) {
      const t: FakeTimer = { due: now + Math.max(0, ms), seq: seq++, fn };
      live++;
      push(t);
      return t;
    },
    clearTimeout(handle) {
      const t = handle as FakeTimer;
      if (t.fn !== undefined) {
        t.fn = undefined;
        live--;
      }
    },
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`advance: ms must be >= 0, got ${ms}`);
      const target = now + ms;
      while (fireOne(target));
      now = target;
    },
    async advanceAsync(ms) {
      if (!(ms >= 0)) throw new RangeError(`advanceAsync: ms must be >= 0, got ${ms}`);
      const target = now + ms;
      await flushMicrotasks();
      while (fireOne(target)) await flushMicrotasks();
      now = target;
      await flushMicrotasks();
    },
    runNext() {
      const t = peekLive();
      if (t === undefined) return false;
      const due = t.due;
      while (fireOne(due));
      return true;
    },
    pendingTimers: () => live,
    nextTimerAt: () => peekLive()?.due,
  };
  return clock;
}

/** Resolves once every promise continuation queued so far (and those they queue) has run. */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
