/**
 * A real in-process kplane API server on memory storage with clients on it, for testing
 * controllers without a cluster: real conflicts, finalizers, generation and watch, no socket.
 */
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';
import { createApiServer, type ApiServer } from '../server/server.js';

/** An in-process API server for tests. */
export interface TestKplane {
  server: ApiServer;
  /** A client straight on the server's handler. */
  client: Client;
  /** A client whose requests pass through `intercept` (which may throw, or call `next`). */
  clientWith(intercept: (req: RawRequest, next: Transport) => Promise<RawResponse>): Client;
  close(): Promise<void>;
}

/** Starts a kplane API server on a fresh memory backend, with a client on its handler. */
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
