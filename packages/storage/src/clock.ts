/**
 * Time for the storage layer's scheduled work (compaction, TTL expiry) and TTLs: one small
 * interface so tests run schedules on virtual time (see `createVirtualClock` in the testing
 * entry point) instead of sleeping.
 */

/** A clock with timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now. A virtual clock awaits what the callback returns, so
   * a scheduled task has finished when the virtual time it ran at has been reached.
   */
  setTimeout(callback: () => unknown, ms: number): unknown;
  /** Cancels a timer setTimeout returned. */
  clearTimeout(handle: unknown): void;
}

/** The real clock; its timers do not keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** A task running on a schedule. */
export interface Periodic {
  /** Cancels the next run and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` (measured from the end of the previous run, so runs never
 * overlap). A failing run is reported to `onError` and the schedule goes on; a run that
 * resolves to `false` ends the schedule.
 */
export function runPeriodically(clock: Clock, intervalMs: number, task: () => Promise<unknown>, onError: (err: unknown) => void): Periodic {
  let stopped = false;
  let timer: unknown;
  let running: Promise<void> | undefined;
  const schedule = (): void => {
    timer = clock.setTimeout(() => {
      timer = undefined;
      running = (async () => {
        try {
          if ((await task()) === false) stopped = true;
        } catch (err) {
          if (!stopped) onError(err);
        }
      })().finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
      return running;
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
