/**
 * Polling for tests that watch a real process or a real server converge: `eventually` retries
 * a check until it yields a truthy value, and fails with what it waited for and the last value
 * or error seen. Tests of in-process components should rather run on virtual time and settle;
 * polling is for what runs on its own clock (child processes, sockets, real timers).
 */
import { inspect } from 'node:util';

/** The time source polling reads and waits on; the runtime's `Clock` (real or fake) fits. */
export interface PollClock {
  /** Current time in milliseconds (any origin). */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** How long and how often `eventually` polls. A bare number is `timeoutMs`. */
export interface PollOptions {
  /** Give up after this many milliseconds (default 10 000). */
  timeoutMs?: number;
  /**
   * Wait this many milliseconds between tries (default 10). 0 yields one turn of the event
   * loop instead (in-process servers and handlers make progress; no timer is involved).
   */
  intervalMs?: number;
  /** The clock to measure the timeout and wait on (default: the process' monotonic clock). */
  clock?: PollClock;
}

/** A value that passes an `if`. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

/** The process' monotonic clock and real timers. */
export const realClock: PollClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Resolves after one turn of the event loop (pending I/O callbacks and immediates run first). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const DEFAULTS = { timeoutMs: 10_000, intervalMs: 10 };

function resolveOptions(opts: number | PollOptions | undefined, base: PollOptions): Required<PollOptions> {
  const o = typeof opts === 'number' ? { timeoutMs: opts } : opts ?? {};
  return {
    timeoutMs: o.timeoutMs ?? base.timeoutMs ?? DEFAULTS.timeoutMs,
    intervalMs: o.intervalMs ?? base.intervalMs ?? DEFAULTS.intervalMs,
    clock: o.clock ?? base.clock ?? realClock,
  };
}

function describe(value: unknown): string {
  return inspect(value, { depth: 4, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 2000 });
}

/** Thrown by `eventually` when the check never passed in time; `cause` is the last error thrown. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Calls `check` until it returns (or resolves to) a truthy value and returns that value. A
 * check that throws counts as not yet; after `timeoutMs` fails with `what`, the number of tries
 * and the last value returned or error thrown (kept as `cause`). To see why a check failed,
 * assert inside it (`assert.equal(...); return true`): the last assertion's message is reported.
 */
export async function eventually<T>(what: string, check: () => T | Promise<T>, opts?: number | PollOptions): Promise<Truthy<Awaited<T>>> {
  return poll(what, check, resolveOptions(opts, {}));
}

async function poll<T>(what: string, check: () => T | Promise<T>, o: Required<PollOptions>): Promise<Truthy<Awaited<T>>> {
  const start = o.clock.now();
  let tries = 0;
  let last: { value: unknown } | { error: unknown } | undefined;
  for (;;) {
    tries++;
    try {
      const value = await check();
      if (value) return value as Truthy<Awaited<T>>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    const elapsed = o.clock.now() - start;
    if (elapsed >= o.timeoutMs) {
      const detail =
        last && 'error' in last
          ? `last error: ${last.error instanceof Error ? last.error.message : describe(last.error)}`
          : `last value: ${describe(last?.value)}`;
      const err = new TimeoutError(`timed out after ${Math.round(elapsed)} ms (${tries} tries) waiting for ${what}; ${detail}`);
      if (last && 'error' in last) Object.defineProperty(err, 'cause', { value: last.error, enumerable: false, writable: true, configurable: true });
      throw err;
    }
    if (o.intervalMs > 0) await o.clock.sleep(Math.min(o.intervalMs, o.timeoutMs - elapsed));
    else await nextTurn();
  }
}

/** Like `eventually` for a yes/no check, resolving to nothing: reads well as `await until('x is ready', () => ...)`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, opts?: number | PollOptions): Promise<void> {
  await eventually(what, check, opts);
}

/**
 * An `eventually` whose options default to `defaults` (per-call options still win), for a
 * suite that polls something slow, e.g. `eventuallyWith({ timeoutMs: 20_000, intervalMs: 150 })`.
 */
export function eventuallyWith(defaults: PollOptions): typeof eventually {
  return (what, check, opts) => poll(what, check, resolveOptions(opts, defaults));
}
