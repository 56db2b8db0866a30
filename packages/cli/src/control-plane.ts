import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { request } from 'node:https';
import { stringify } from 'yaml';
import type { RawRequest, RawResponse } from '@kplane/api';
import { createBackend, type Backend } from '@kplane/storage';
import { createApiServer, ensurePki, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';

/** Options of startControlPlane. */
export interface ControlPlaneOptions {
  /** Folder for the database, PKI and kubeconfig (default ./.kplane). Unused with storage memory and listen false. */
  dataDir?: string;
  /** `sqlite` (default, durable) or `memory`. */
  storage?: 'sqlite' | 'memory';
  /** Serve HTTPS (default true). With false, only the in-process handler serves requests. */
  listen?: boolean;
  /** HTTPS port; 0 picks a free one (default 6443). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
}

/** A running control plane. */
export interface ControlPlane {
  readonly apiServer: ApiServer;
  readonly backend: Backend;
  /** The in-process transport: call the API with no socket. */
  readonly transport: (req: RawRequest) => Promise<RawResponse>;
  /** A client over the in-process transport (namespace "default"). */
  readonly client: Client;
  /** https://127.0.0.1:PORT when listening. */
  readonly url?: string;
  readonly port?: number;
  /** Path of the admin kubeconfig when listening. */
  readonly kubeconfigPath?: string;
  /** Stops serving and closes storage. */
  stop(): Promise<void>;
}

/** Builds the admin kubeconfig for a server URL. */
export function kubeconfigYaml(server: string, caPem: string, certPem: string, keyPem: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kplane', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [{ name: 'kplane-admin', user: { 'client-certificate-data': b64(certPem), 'client-key-data': b64(keyPem) } }],
    contexts: [{ name: 'kplane', context: { cluster: 'kplane', user: 'kplane-admin' } }],
    'current-context': 'kplane',
    preferences: {},
  });
}

/** Waits until GET /readyz answers 200 "ok". */
async function waitReady(url: string, ca: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((done) => {
      const req = request(`${url}/readyz`, { ca }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => done(res.statusCode === 200 && body.trim() === 'ok'));
      });
      req.on('error', () => done(false));
      req.end();
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`kplane did not become ready at ${url}`);
}

/**
 * Starts storage and the API server in this process. With `listen: false` and
 * `storage: 'memory'` it touches no disk and no network: the fastest way to test a controller.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const storage = options.storage ?? 'sqlite';
  const listen = options.listen ?? true;
  const dataDir = resolve(options.dataDir ?? '.kplane');
  if (storage === 'sqlite' || listen) await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const backend = await createBackend(storage === 'memory' ? 'memory://' : `sqlite://${join(dataDir, 'state.db')}`);
  const apiServer = createApiServer({ backend });
  try {
    await apiServer.start();
  } catch (err) {
    await backend.close();
    throw err;
  }
  const stop = async () => {
    await apiServer.close();
    await backend.close();
  };
  const client = createClient({ transport: apiServer.handle, defaultNamespace: 'default' });
  if (!listen) return { apiServer, backend, transport: apiServer.handle, client, stop };
  const pki = await ensurePki(join(dataDir, 'pki'));
  const host = options.host ?? '127.0.0.1';
  const port = await apiServer.listen({
    host,
    port: options.port ?? 6443,
    cert: pki.serving.cert,
    key: pki.serving.key,
    clientCa: pki.ca.cert,
    tokens: new Map([[pki.adminToken, 'kplane-admin']]),
  });
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, pki.ca.cert, pki.admin.cert, pki.admin.key), { mode: 0o600 });
  await waitReady(url, pki.ca.cert);
  return { apiServer, backend, transport: apiServer.handle, client, url, port, kubeconfigPath, stop };
}
