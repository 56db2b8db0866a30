/**
 * Test support (not exported from the package): an in-process kplane API server on memory
 * storage, and helpers to run fake time.
 */
import { type FakeClock } from '@kplane/runtime';
import { settle } from '@kplane/runtime/testing';

export { startTestKplane as startKplane, type TestKplane } from '@kplane/apiserver/testing';
export { settle };

/**
 * Advances a fake clock in `stepMs` steps, letting requests settle after each, until `check`
 * returns a value; fails when `maxMs` of virtual time pass first.
 */
export async function tickUntil<T>(clock: FakeClock, check: () => Promise<T | undefined | false>, stepMs = 50, maxMs = 60_000): Promise<T> {
  for (let elapsed = 0; ; elapsed += stepMs) {
    await settle();
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (elapsed >= maxMs) throw new Error(`still waiting after ${maxMs} ms of fake time`);
    await clock.advanceAsync(stepMs);
  }
}
