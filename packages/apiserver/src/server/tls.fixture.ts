import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki, type Pki } from '../auth/pki.js';
import { createApiServer, type ApiServer } from './server.js';

/** What {@link withTlsServer} hands its test: a started API server listening on HTTPS with a fresh PKI. */
export interface TlsServer {
  port: number;
  /** The CA's certificate (PEM), to trust the serving certificate. */
  ca: string;
  /** A bearer token of a `system:masters` user. */
  token: string;
  pki: Pki;
  /** The directory holding the PKI. */
  dir: string;
  backend: ReturnType<typeof createMemoryBackend>;
  server: ApiServer;
}

/** Runs `fn` against an API server on memory storage listening on a random loopback port over HTTPS, then stops it and removes its PKI. */
export async function withTlsServer(fn: (ctx: TlsServer) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-tls-'));
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    await fn({ port, ca: pki.ca.cert, token: pki.adminToken, pki, dir, backend, server });
  } finally {
    await server.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}
