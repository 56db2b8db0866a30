/**
 * Test support (not exported from the package): a real in-process kplane API server on memory
 * storage and a client on it, and a manager running the controllers under test on a fake clock.
 */
import { createFakeClock, createManager, type FakeClock, type Manager } from '@kplane/runtime';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';

export { startTestKplane, type TestKplane };

/** An in-process kplane and a started manager on a fake clock. */
export interface ControllerBed {
  kp: TestKplane;
  clock: FakeClock;
  /** Stops the manager (waiting for it), then kplane. */
  stop(): Promise<void>;
}

/**
 * Starts an in-process kplane and a manager on a fake clock at `now`, lets `register` add the
 * controllers under test (and prepare the cluster), then starts the manager.
 */
export async function startControllerBed(
  register: (mgr: Manager, kp: TestKplane, clock: FakeClock) => void | Promise<void>,
  now = Date.parse('2026-03-01T10:00:00Z'),
): Promise<ControllerBed> {
  const kp = await startTestKplane();
  const clock = createFakeClock(now);
  const mgr = createManager({ client: kp.client, clock });
  await register(mgr, kp, clock);
  const abort = new AbortController();
  const done = mgr.start(abort.signal);
  return {
    kp,
    clock,
    async stop() {
      abort.abort();
      await done;
      await kp.close();
    },
  };
}
