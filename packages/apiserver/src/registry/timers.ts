/**
 * The clock and timers the watch machinery schedules with (freshness waits, watch timeouts,
 * bookmarks). The server uses real ones; tests inject VirtualTimers and move time by hand.
 */
export interface Timers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /**
   * Calls fn once after ms; the handle goes to clearTimeout. Real timers do not keep the
   * process alive unless `keepAlive` says so (a request waiting on one, as on a socket).
   */
  setTimeout(fn: () => void, ms: number, options?: { keepAlive?: boolean }): unknown;
  clearTimeout(handle: unknown): void;
  /** Calls fn every ms; the handle goes to clearInterval. */
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Node's timers; they never keep the process alive on their own. */
export const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout(fn, ms, options) {
    const t = setTimeout(fn, ms);
    if (!options?.keepAlive) t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval(fn, ms) {
    const t = setInterval(fn, ms);
    t.unref?.();
    return t;
  },
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};

interface VirtualTimer {
  at: number;
  fn: () => void;
  every?: number;
  seq: number;
}

/** Lets pending promise callbacks and I/O callbacks of the real event loop run. */
function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * Timers on a virtual clock that moves only when `advance` is called: tests of timeouts run
 * in no real time. Due timers fire in time order; between two of them the event loop turns
 * so that the code they wake can run.
 */
export class VirtualTimers implements Timers {
  private time = 0;
  private seq = 0;
  private readonly timers = new Map<number, VirtualTimer>();

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn, seq: id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  setInterval(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    const every = Math.max(1, ms);
    this.timers.set(id, { at: this.time + every, fn, every, seq: id });
    return id;
  }

  clearInterval(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Delays (ms from now) of the timers still pending, in the order they were set. */
  delays(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.time);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves the clock forward by ms, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      let next: [number, VirtualTimer] | undefined;
      for (const entry of this.timers) {
        const t = entry[1];
        if (t.at <= end && (!next || t.at < next[1].at || (t.at === next[1].at && t.seq < next[1].seq))) next = entry;
      }
      if (!next) break;
      const [id, t] = next;
      this.time = t.at;
      if (t.every) t.at += t.every;
      else this.timers.delete(id);
      t.fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}
