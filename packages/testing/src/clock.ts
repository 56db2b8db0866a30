/**
 * The test control plane's clock: the runtime's fake clock (virtual time that moves only when a
 * test says so) or the real one, both able to list the components that report work to it
 * (workqueues, storage maintenance), which is what `settle()` asks.
 */
import { createFakeClock, realClock, type ActivitySource, type Clock, type FakeClock } from '@kplane/runtime';

/** A clock whose components report their work (see `Clock.trackActivity`). */
export interface TrackingClock extends Clock {
  trackActivity(source: ActivitySource): () => void;
  /** The components that reported themselves and have not stopped reporting. */
  activitySources(): readonly ActivitySource[];
}

/** The virtual clock of a test control plane: a fake clock that also tracks activity. */
export type TestClock = FakeClock & TrackingClock;

function tracking<C extends Clock>(clock: C): C & TrackingClock {
  const sources = new Set<ActivitySource>();
  return Object.assign(clock, {
    trackActivity(source: ActivitySource) {
      sources.add(source);
      return () => void sources.delete(source);
    },
    activitySources: () => [...sources],
  });
}

/**
 * A virtual clock starting at `start` (ms since the epoch; default now, rounded down to the
 * second as Kubernetes timestamps are). Timers fire only when the test advances it.
 */
export function createTestClock(start = Math.floor(Date.now() / 1000) * 1000): TestClock {
  return tracking(createFakeClock(start));
}

/** The real clock, tracking activity (a control plane on real time). */
export function createRealTrackingClock(): TrackingClock {
  const { now, setTimeout, clearTimeout, sleep } = realClock;
  return tracking({ now, setTimeout, clearTimeout, sleep });
}

/** Marks a clock on real time that offers a fake clock's methods only to refuse them. */
export const REAL_TIME: unique symbol = Symbol('kplane.realTime');

/** Is this clock virtual (a fake clock)? */
export function isVirtual(clock: Clock): clock is FakeClock {
  return !(REAL_TIME in clock) && typeof (clock as Partial<FakeClock>).advance === 'function' && typeof (clock as Partial<FakeClock>).nextTimerAt === 'function';
}
