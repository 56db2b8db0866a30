/**
 * Run until idle: waits until every workqueue is empty and not processing, no request is in
 * flight, no watch event waits for delivery and no timer is due; on virtual time it can also
 * move the clock to each next timer, up to a bound.
 */
import type { Clock, FakeClock } from '@kplane/runtime';
import { isVirtual } from './clock.js';

/** Options of `settle()`. */
export interface SettleOptions {
  /**
   * On virtual time, move the clock to the next timer whenever the control plane is idle, or
   * is only waiting for a timer, and settle again, until `maxVirtualMs` has passed or `until`
   * holds (default false: time does not move; only timers already due fire).
   */
  advance?: boolean;
  /** How far `advance` may move the clock, in virtual ms from the call (default 60 000). */
  maxVirtualMs?: number;
  /** With `advance`: stop as soon as this holds, checked whenever the control plane is idle. */
  until?: () => boolean | Promise<boolean>;
  /** Real time to wait for idleness before failing with an error naming what is busy (default 10 000 ms). */
  timeoutMs?: number;
}

/** What a settle loop reads from the control plane. */
export interface SettleProbe {
  clock: Clock;
  /** Descriptions of what is busy now (empty: idle). */
  busy(): string[];
  /** A number that changes whenever something happens (requests, watch events read). */
  progress(): number;
}

/** Turns of the event loop with nothing busy and nothing happening before idleness is believed. */
const QUIET_TURNS = 3;
/** Turns of the event loop with work pending and nothing happening before it is taken to wait on a timer. */
const STALLED_TURNS = 8;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Error thrown when the control plane stays busy past `timeoutMs`. */
export class SettleTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly busy: readonly string[],
  ) {
    super(`settle: still busy after ${timeoutMs} ms: ${busy.join('; ') || 'waiting for a timer'}`);
    this.name = 'SettleTimeoutError';
  }
}

/** Fires the timers of a virtual clock that are due now. */
function fireDue(clock: Clock): void {
  if (isVirtual(clock)) clock.advance(0);
}

/** Is a timer due (at or before now) on a virtual clock? */
function timerDue(clock: Clock): boolean {
  if (!isVirtual(clock)) return false;
  const next = clock.nextTimerAt();
  return next !== undefined && next <= clock.now();
}

/**
 * Runs until the control plane is idle (see `SettleOptions`). Resolves with the virtual time it
 * moved, in ms (0 without `advance`). Throws SettleTimeoutError when it stays busy longer than
 * `timeoutMs` of real time.
 */
export async function settle(probe: SettleProbe, options: SettleOptions = {}): Promise<number> {
  const { clock } = probe;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const virtual = isVirtual(clock) ? (clock as FakeClock) : undefined;
  const advance = options.advance === true && virtual !== undefined;
  const startedAt = clock.now();
  const bound = startedAt + (options.maxVirtualMs ?? 60_000);
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let stalled = 0;
  let last = probe.progress();
  for (;;) {
    fireDue(clock);
    await turn();
    const busy = probe.busy();
    const now = probe.progress();
    const moved = now !== last;
    last = now;
    if (busy.length === 0 && !moved && !timerDue(clock)) {
      quiet++;
      stalled = 0;
    } else {
      quiet = 0;
      stalled = busy.length > 0 && !moved ? stalled + 1 : 0;
    }
    const idle = quiet >= QUIET_TURNS;
    if (idle && !advance) return 0;
    if (idle && options.until && (await options.until())) return clock.now() - startedAt;
    if (advance && (idle || stalled >= STALLED_TURNS)) {
      const next = virtual!.nextTimerAt();
      if (next === undefined || next > bound) {
        if (idle) {
          // Idle and nothing due before the bound: time goes to the bound, as advance() would.
          virtual!.advance(Math.max(0, bound - clock.now()));
          return clock.now() - startedAt;
        }
      } else {
        virtual!.advance(Math.max(0, next - clock.now()));
        quiet = 0;
        stalled = 0;
        continue;
      }
    }
    if (Date.now() > deadline) throw new SettleTimeoutError(timeoutMs, busy);
  }
}
