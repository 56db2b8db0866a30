/** Test fixtures for the request edge: a storage backend that can be held, and virtual timers. */
import type { Backend } from '@kplane/storage';

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
