/**
 * The storage layer's scheduled work, run by the owner of a backend (the API server):
 * compaction, as kube-apiserver's compactor does it, and the expiry of keys written with a TTL.
 *
 * Guarantees:
 * - The compactor wakes every interval (default 5 minutes) and compacts to the revision it
 *   saw at its previous run, so history younger than one interval is always kept: a watch or
 *   paged list that falls further behind gets 410 Expired, as with kube-apiserver on etcd.
 * - The expiry sweeper deletes keys whose TTL has passed every second (etcd checks its
 *   leases every 500 ms), so a key outlives its TTL by at most about that.
 * - Runs never overlap; a failed run is reported to onError (default: a line on stderr) and
 *   the schedule goes on. Once the backend is closed the schedule ends quietly.
 */
import { BackendClosedError, type Backend } from './backend.js';
import { runPeriodically, systemClock, type Clock, type Periodic } from './clock.js';

/** kube-apiserver's default --etcd-compaction-interval. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;
/** How often expired keys are looked for. */
export const DEFAULT_EXPIRY_INTERVAL_MS = 1000;

/** Options of startCompactor and startExpirySweeper. */
export interface MaintenanceOptions {
  backend: Backend;
  /** Clock for the schedule (tests use a virtual one). */
  clock?: Clock;
  /** Time between runs. */
  intervalMs?: number;
  /** Called with the error of a failed run. */
  onError?(err: unknown): void;
}

const report = (what: string) => (err: unknown): void => {
  process.stderr.write(`kplane storage: ${what} failed: ${err instanceof Error ? err.message : String(err)}\n`);
};

/** Runs `task`; a closed backend ends the schedule (false) instead of failing every run. */
const untilClosed = (task: () => Promise<unknown>) => async (): Promise<unknown> => {
  try {
    return await task();
  } catch (err) {
    if (err instanceof BackendClosedError) return false;
    throw err;
  }
};

/** Starts compacting `backend` on a schedule, each run to the revision the previous run saw. */
export function startCompactor(options: MaintenanceOptions): Periodic {
  const { backend } = options;
  let seen = 0;
  return runPeriodically(
    options.clock ?? systemClock,
    options.intervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS,
    untilClosed(async () => {
      const current = await backend.currentRevision();
      if (seen > 0) await backend.compact(seen);
      seen = current;
    }),
    options.onError ?? report('compaction'),
  );
}

/** Starts deleting the keys of `backend` whose TTL has passed, on a schedule. */
export function startExpirySweeper(options: MaintenanceOptions): Periodic {
  return runPeriodically(
    options.clock ?? systemClock,
    options.intervalMs ?? DEFAULT_EXPIRY_INTERVAL_MS,
    untilClosed(() => options.backend.expireKeys()),
    options.onError ?? report('TTL expiry'),
  );
}
