/**
 * Slow start (pkg/controller/replicaset: slowStartBatch): calls `fn` `count` times in batches
 * of 1, 2, 4, 8 … (from `initialBatchSize`), the calls of one batch in parallel, and stops
 * after the first batch in which a call failed. A create that fails for a systematic reason
 * (quota, admission) thus fails once instead of hundreds of times.
 */

/** The result of slowStartBatch. */
export interface SlowStartResult {
  /** Calls that succeeded. */
  successes: number;
  /** The first error of the failing batch, if any. */
  error?: unknown;
}

/** Kubernetes' SlowStartInitialBatchSize. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * Runs `fn` up to `count` times in doubling batches.
 *
 * Guarantees: never more than `count` calls; every call of a batch has settled before the next
 * batch starts; no batch starts after one with a failure; `successes` counts resolved calls.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<SlowStartResult> {
  let remaining = count;
  let successes = 0;
  let batch = Math.min(remaining, Math.max(1, initialBatchSize));
  while (batch > 0) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    let error: unknown;
    let failed = false;
    for (const r of results) {
      if (r.status === 'fulfilled') successes++;
      else if (!failed) {
        failed = true;
        error = r.reason;
      }
    }
    if (failed) return { successes, error };
    remaining -= batch;
    batch = Math.min(2 * batch, remaining);
  }
  return { successes };
}
