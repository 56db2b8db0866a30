/**
 * A clock for tests: time stands still until `advance` moves it, running every timer that
 * falls due on the way, in order, each at its own due time, awaiting what the timer returns
 * (a scheduled task's run). Tests of schedules need no sleeps.
 */
import type { Clock } from '../clock.js';

/** A Clock whose time only moves when told. */
export interface VirtualClock extends Clock {
  /** Moves time forward by ms, running (and awaiting) every timer due by then. */
  advance(ms: number): Promise<void>;
  /** How many timers are waiting. */
  pendingTimers(): number;
}

interface Timer {
  due: number;
  callback: () => unknown;
}

/** Creates a virtual clock starting at `start` (ms since the epoch). */
export function createVirtualClock(start = Date.UTC(2026, 0, 1)): VirtualClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, Timer>();
  const dueFirst = (limit: number): [number, Timer] | undefined => {
    let best: [number, Timer] | undefined;
    // Map iteration follows insertion (id) order, so equal due times run in the order set.
    for (const entry of timers) {
      if (entry[1].due <= limit && (!best || entry[1].due < best[1].due)) best = entry;
    }
    return best;
  };
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = ++nextId;
      timers.set(id, { due: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    async advance(ms) {
      const target = now + ms;
      for (let next = dueFirst(target); next; next = dueFirst(target)) {
        timers.delete(next[0]);
        now = Math.max(now, next[1].due);
        await next[1].callback();
      }
      now = target;
    },
    pendingTimers: () => timers.size,
  };
}
