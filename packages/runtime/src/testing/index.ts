/**
 * `@kplane/runtime/testing`: a real in-process kplane API server on memory storage, with a
 * client on it and one whose requests can be intercepted — for testing controllers without a
 * cluster. (`startControlPlane()` from `kplane` also starts controllers and nodes.)
 */
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { createApiServer, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';
import { flushMicrotasks, type FakeClock } from '../clock.js';

export { watchProcessFailures, type ProcessFailure, type ProcessFailureWatch } from './process-failures.js';

/** An in-process API server for tests. */
export interface TestKplane {
  server: ApiServer;
  /** A client straight on the server's handler. */
  client: Client;
  /** A client whose requests pass through `intercept` (which may throw, or call `next`). */
  clientWith(intercept: (req: RawRequest, next: Transport) => Promise<RawResponse>): Client;
  close(): Promise<void>;
}

/** Starts a kplane API server on a fresh memory backend. */
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

/** Lets in-flight in-process requests finish (several macrotask turns). */
export async function settle(turns = 8): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/** Advances the fake clock by `ms` in `stepMs` steps, settling after each and calling `check`. */
export async function tick(clock: FakeClock, ms: number, stepMs = 100, check?: () => void): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    await clock.advanceAsync(Math.min(stepMs, ms - done));
    await settle();
    check?.();
  }
}
