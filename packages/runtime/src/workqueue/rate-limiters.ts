import { realClock, type Clock } from '../clock.js';

/**
 * Decides how long a key waits before it is re-queued (client-go's `RateLimiter`).
 * Durations are in milliseconds.
 */
export interface RateLimiter {
  /** Returns how long `key` should wait now, and records the attempt. */
  when(key: string): number;
  /** Stops tracking `key` (after success, or after giving up on it). */
  forget(key: string): void;
  /** How many times `key` has been rate limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/**
 * Per-key exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`
 * (client-go's ItemExponentialFailureRateLimiter). Defaults: 5 ms, 1000 s.
 *
 * Guarantees: the n-th `when(key)` since the last `forget(key)` returns
 * `min(base * 2^(n-1), max)`; keys are independent.
 */
export function itemExponentialFailureRateLimiter(baseDelayMs = 5, maxDelayMs = 1_000_000): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const exp = failures.get(key) ?? 0;
      failures.set(key, exp + 1);
      const backoff = baseDelayMs * Math.pow(2, exp);
      return backoff > maxDelayMs || !Number.isFinite(backoff) ? maxDelayMs : backoff;
    },
    forget(key) {
      failures.delete(key);
    },
    numRequeues: (key) => failures.get(key) ?? 0,
  };
}

/**
 * A fixed fast delay for the first `maxFastAttempts` attempts of a key, then a slow delay
 * (client-go's ItemFastSlowRateLimiter).
 */
export function itemFastSlowRateLimiter(fastDelayMs: number, slowDelayMs: number, maxFastAttempts: number): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      return n <= maxFastAttempts ? fastDelayMs : slowDelayMs;
    },
    forget(key) {
      failures.delete(key);
    },
    numRequeues: (key) => failures.get(key) ?? 0,
  };
}

/**
 * An overall token bucket shared by all keys (client-go's BucketRateLimiter over
 * `rate.NewLimiter(qps, burst)`): the bucket starts full with `burst` tokens and refills
 * at `qps` tokens per second on `clock`. Each `when` reserves one token; when none is
 * left the reservation is taken on credit and the delay is the time until it is paid off.
 * Defaults: 10 qps, burst 100.
 *
 * Guarantees: with no time passing, the first `burst` calls return 0, the next ones
 * 1000/qps ms apart (100 ms, 200 ms, ...). Never tracks keys: `numRequeues` is always 0.
 */
export function bucketRateLimiter(qps = 10, burst = 100, clock: Clock = realClock): RateLimiter {
  if (!(qps > 0)) throw new RangeError(`bucketRateLimiter: qps must be > 0, got ${qps}`);
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      if (now > last) {
        tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
        last = now;
      }
      tokens -= 1;
      if (tokens >= 0) return 0;
      return (-tokens * 1000) / qps;
    },
    forget() {},
    numRequeues: () => 0,
  };
}

/**
 * Combines limiters: `when` asks every limiter (so each records the attempt) and returns
 * the longest delay; `numRequeues` is the maximum; `forget` forgets in all of them.
 *
 * Caveats (as client-go): combined with a token bucket, the burst can appear exceeded
 * when individual keys were delayed longer by another limiter.
 */
export function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  return {
    when(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.when(key));
      return max;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    numRequeues(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.numRequeues(key));
      return max;
    },
  };
}

/**
 * client-go's DefaultControllerRateLimiter: the maximum of per-key exponential backoff
 * (5 ms → 1000 s) and an overall 10 qps / 100 burst token bucket on `clock`.
 */
export function defaultControllerRateLimiter(clock: Clock = realClock): RateLimiter {
  return maxOfRateLimiter(itemExponentialFailureRateLimiter(5, 1_000_000), bucketRateLimiter(10, 100, clock));
}
