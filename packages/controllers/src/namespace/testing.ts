/**
 * Test support (not exported from the package): a real in-process kplane API server on memory
 * storage, a client on it, and polling with a deadline.
 */

export { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';

/** Polls `check` every 20 ms until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
