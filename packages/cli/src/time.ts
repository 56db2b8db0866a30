/**
 * One clock for the whole control plane: the runtime's `Clock` (what the controllers, the
 * scheduler and the simulated kubelet take) seen as the API server's three time sources — its
 * `now()` (timestamps, token expiry, graceful deletion), its storage clock (compaction, TTL
 * expiry, APIService availability) and its timers (request timeouts, watch timeouts and
 * bookmarks, watch-cache freshness waits, the `kubernetes` Service's repair).
 */
import type { Clock } from '@kplane/runtime';
import type { Clock as StorageClock } from '@kplane/storage';
import type { Timers } from '@kplane/apiserver';

/** The API server's time sources, all on `clock`. */
export interface ApiServerTime {
  now: () => Date;
  clock: StorageClock;
  timers: Timers;
}

/** A timer that fires every `ms`, kept as a chain of one-shot timers. */
interface Interval {
  current: unknown;
  cancelled: boolean;
}

/**
 * The API server's time sources on one runtime clock. A scheduled storage task that returns a
 * promise is reported to `clock.trackActivity` (when the clock offers it) until it settles, so a
 * test that waits for idleness also waits for compaction and expiry runs in progress.
 */
export function apiServerTime(clock: Clock): ApiServerTime {
  let running = 0;
  clock.trackActivity?.({ name: 'storage maintenance', busy: () => running > 0 });
  const storage: StorageClock = {
    now: () => clock.now(),
    setTimeout(callback, ms) {
      return clock.setTimeout(() => {
        const out = callback();
        if (out instanceof Promise) {
          running++;
          out.then(
            () => running--,
            () => running--,
          );
        }
      }, ms);
    },
    clearTimeout: (handle) => clock.clearTimeout(handle as object),
  };
  const timers: Timers = {
    now: () => clock.now(),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (handle) => clock.clearTimeout(handle as object),
    setInterval(fn, ms) {
      const every = Math.max(1, ms);
      const interval: Interval = { current: undefined, cancelled: false };
      const arm = (): void => {
        interval.current = clock.setTimeout(() => {
          if (interval.cancelled) return;
          arm();
          fn();
        }, every);
      };
      arm();
      return interval;
    },
    clearInterval(handle) {
      const interval = handle as Interval | undefined;
      if (!interval) return;
      interval.cancelled = true;
      clock.clearTimeout(interval.current as object);
    },
  };
  return { now: () => new Date(clock.now()), clock: storage, timers };
}
