/**
 * Test support (not exported from the package): an in-process kplane API server on memory
 * storage, and polling helpers for real and fake time.
 */
import { createApiServer, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';
import { flushMicrotasks, type FakeClock } from '@kplane/runtime';

/** An in-process API server for tests. */
export interface TestKplane {
  server: ApiServer;
  client: Client;
  close(): Promise<void>;
}

/** Starts a kplane API server on a fresh memory backend. */
export async function startKplane(): Promise<TestKplane> {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  return {
    server,
    client: createClient({ transport: (req) => server.handle(req) }),
    async close() {
      await server.close();
      await backend.close();
    },
  };
}

/** Polls `check` on real time until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets in-flight in-process requests and handlers run (several macrotask turns). */
export async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/**
 * Advances a fake clock in `stepMs` steps, letting requests settle after each, until `check`
 * returns a value; fails when `maxMs` of virtual time pass first.
 */
export async function tickUntil<T>(clock: FakeClock, check: () => Promise<T | undefined | false>, stepMs = 50, maxMs = 60_000): Promise<T> {
  for (let elapsed = 0; ; elapsed += stepMs) {
    await settle();
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (elapsed >= maxMs) throw new Error(`still waiting after ${maxMs} ms of fake time`);
    await clock.advanceAsync(stepMs);
  }
}
