import type { RawResponse } from '@kplane/api';

/** Options of runLoad. */
export interface LoadOptions {
  /** Sends request number `i` (0, 1, 2, ... unique across the run, warm-up included). */
  send: (i: number) => Promise<RawResponse>;
  /** Requests kept in flight at all times. */
  concurrency: number;
  /** Length of the measured window, after the warm-up. */
  durationMs: number;
  /** Requests finished during this first window are sent but not counted (default 0). */
  warmupMs?: number;
  /** Status a successful response has (e.g. 200 for GET, 201 for POST). */
  expectStatus: number;
  /** Clock in milliseconds (default performance.now). */
  now?: () => number;
}

/** What one load run measured (over the measured window only). */
export interface LoadResult {
  /** Successful responses finished in the window. */
  requests: number;
  /** Every request sent and finished, warm-up and drain included (to divide CPU time by). */
  sent: number;
  /** Responses with another status, or rejected sends, finished in the window. */
  errors: number;
  /** Length of the window actually measured, in seconds. */
  seconds: number;
  /** Successful requests per second. */
  rps: number;
  /** Median and 99th percentile latency of the successful requests, in ms. */
  p50Ms: number;
  p99Ms: number;
  /** Latencies of the successful requests in ms, ascending. */
  latenciesMs: number[];
  /** Description of the first failure, if any (counted or not). */
  firstError?: string;
}

/** The value at quantile `q` (0..1) of `sorted` (ascending), nearest-rank; 0 when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

function describe(res: RawResponse): string {
  const text = res.body ? Buffer.from(res.body).toString('utf8').slice(0, 200) : '';
  return `HTTP ${res.status} ${text}`.trim();
}

/**
 * Drives `send` with a fixed number of requests in flight (a closed loop: each of
 * `concurrency` workers sends its next request as soon as the previous one finished) until
 * warm-up plus duration have passed, then waits for the requests still in flight.
 *
 * Guarantees: never more than `concurrency` sends are pending at once; every request index
 * is used once; only requests that finish inside the measured window are counted, so the
 * rate is not inflated by the warm-up or by the drain at the end.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const now = options.now ?? (() => performance.now());
  const start = now();
  const windowStart = start + (options.warmupMs ?? 0);
  const windowEnd = windowStart + options.durationMs;
  let next = 0;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const latencies: number[] = [];

  const worker = async (): Promise<void> => {
    while (now() < windowEnd) {
      const i = next++;
      const startedAt = now();
      let failure: string | undefined;
      try {
        const res = await options.send(i);
        if (res.status !== options.expectStatus) failure = describe(res);
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
      const done = now();
      if (failure !== undefined) firstError ??= failure;
      if (done < windowStart || done > windowEnd) continue;
      if (failure !== undefined) {
        errors++;
      } else {
        requests++;
        latencies.push(done - startedAt);
      }
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  latencies.sort((a, b) => a - b);
  const seconds = options.durationMs / 1000;
  const result: LoadResult = {
    requests,
    sent: next,
    errors,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
  };
  if (firstError !== undefined) result.firstError = firstError;
  return result;
}

/** Adds up several runs of the same case (e.g. rounds interleaved with other cases) into one result. */
export function mergeResults(results: readonly LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const sum = (f: (r: LoadResult) => number): number => results.reduce((acc, r) => acc + f(r), 0);
  const seconds = sum((r) => r.seconds);
  const requests = sum((r) => r.requests);
  const merged: LoadResult = {
    requests,
    sent: sum((r) => r.sent),
    errors: sum((r) => r.errors),
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
  };
  const firstError = results.find((r) => r.firstError !== undefined)?.firstError;
  if (firstError !== undefined) merged.firstError = firstError;
  return merged;
}

/** Runs `fn` `times` times one after another and returns each duration in ms plus the median. */
export async function timeRepeated(times: number, fn: () => Promise<void>, now: () => number = () => performance.now()): Promise<{ runs: number[]; medianMs: number }> {
  const runs: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = now();
    await fn();
    runs.push(now() - t0);
  }
  return { runs, medianMs: median(runs) };
}

/** The median of `values` (the mean of the middle two for an even count; 0 when empty). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Calls `fn(0)` .. `fn(count - 1)` with at most `concurrency` calls pending at once and
 * resolves when all have finished; the first rejection rejects the whole run (after the
 * calls already started have settled).
 */
export async function runPool(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < count) {
      const i = next++;
      try {
        await fn(i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  if (failed !== undefined) throw failed;
}
