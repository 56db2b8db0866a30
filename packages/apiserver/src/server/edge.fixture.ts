/** Test fixtures for the request edge: a storage backend that can be held, and virtual timers. */
import type { Backend } from '@kplane/storage';
import type { Timers } from './limits.js';

/** A backend whose reads of keys ending in `/<name>` wait until `release()`. */
export interface HeldBackend {
  backend: Backend;
  /** Lets every held read (and every later one) go on. */
  release(): void;
  /** Reads waiting right now. */
  waiting(): number;
}

/** Wraps `inner` so that get() of any key ending in `/<name>` waits for release(). */
export function holdReadsOf(inner: Backend, name: string): HeldBackend {
  let open = false;
  let waiting = 0;
  let releaseAll!: () => void;
  const gate = new Promise<void>((resolve) => (releaseAll = resolve));
  const backend = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'get') {
        return async (key: string, revision?: number) => {
          if (!open && key.endsWith(`/${name}`)) {
            waiting++;
            await gate;
            waiting--;
          }
          return target.get(key, revision);
        };
      }
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    backend,
    release() {
      open = true;
      releaseAll();
    },
    waiting: () => waiting,
  };
}

/** Timers on a virtual clock: nothing fires until advance(). */
export class VirtualTimers implements Timers {
  private nextId = 1;
  private now = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Delays (ms from now) of the timers still pending. */
  delays(): number[] {
    return [...this.pending.values()].map((p) => p.at - this.now);
  }

  /** Moves the clock on by `ms`, firing every timer that falls due. */
  advance(ms: number): void {
    this.now += ms;
    for (const [id, p] of [...this.pending]) {
      if (p.at <= this.now) {
        this.pending.delete(id);
        p.fn();
      }
    }
  }
}

/** Waits until `cond()` holds, yielding to the event loop between checks (no sleeping). */
export async function until(cond: () => boolean, tries = 10_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition never held');
}
