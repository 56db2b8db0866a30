/**
 * Test support (not exported from the package): a real in-process kplane API server on memory
 * storage, a client on it, and polling with a deadline.
 */
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { createApiServer, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';

/** An in-process API server for tests. */
export interface TestKplane {
  server: ApiServer;
  client: Client;
  /** A client whose requests go through `intercept` first. */
  clientWith(intercept: (req: RawRequest, next: Transport) => Promise<RawResponse>): Client;
  close(): Promise<void>;
}

/** Starts an API server on a fresh memory backend. */
export async function startTestKplane(): Promise<TestKplane> {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  const next: Transport = (req) => server.handle(req);
  return {
    server,
    client: createClient({ transport: next }),
    clientWith: (intercept) => createClient({ transport: (req) => intercept(req, next) }),
    async close() {
      await server.close();
      await backend.close();
    },
  };
}

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
