/**
 * `@kplane/runtime/testing`: helpers for tests on the fake clock — let in-flight work finish
 * (`settle`), advance the clock step by step (`tick`), and watch for process-level failures.
 * A real in-process API server to test against is `startTestKplane()` of
 * `@kplane/apiserver/testing`; a whole control plane is `startControlPlane()` of `@kplane/testing`.
 */
import { flushMicrotasks, type FakeClock } from '../clock.js';

export { flushMicrotasks } from '../clock.js';
export { watchProcessFailures, type ProcessFailure, type ProcessFailureWatch } from './process-failures.js';

/** Lets in-flight in-process requests finish (several macrotask turns). */
export async function settle(turns = 8): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/** Advances the fake clock by `ms` in `stepMs` steps, settling after each and calling `check`. */
export async function tick(clock: FakeClock, ms: number, stepMs = 100, check?: () => void): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    await clock.advanceAsync(Math.min(stepMs, ms - done));
    await settle();
    check?.();
  }
}
