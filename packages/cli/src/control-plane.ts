import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { request } from 'node:https';
import { stringify } from 'yaml';
import type { RawRequest, RawResponse } from '@kplane/api';
import { createBackend, type Backend } from '@kplane/storage';
import { createApiServer, ensurePki, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { startSimulation, type KubeletConfig, type Simulation } from '@kplane/kubelet';
import { DEFAULT_SECURE_PORT, startControllerManager, type ControllerManager, type SecureServingOptions } from '@kplane/controllers';

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
  /**
   * Run the controller manager (namespace, serviceaccount, ... controllers) in this process, on
   * the in-process transport, with leader election on the Lease kube-system/kube-controller-manager
   * (default false; `kplane up` turns it on unless --no-controllers).
   */
  controllers?: boolean;
  /**
   * HTTPS port of the controller manager's /metrics and /healthz when listening (default 10257,
   * 0 picks a free one). When the port is taken, the controllers run without it (a warning on stderr).
   */
  controllerManagerPort?: number;
  /**
   * Simulated nodes (kwok-style) with a scheduler and kubelet in this process (default 0: none,
   * pods stay Pending; `kplane up` asks for 3 unless --nodes says otherwise).
   */
  nodes?: number;
  /** Pod behaviour of the simulated kubelet (delays, failures), as `kplane kubelet --config`. */
  kubeletConfig?: KubeletConfig;
  /** How long an Event lives after its last write, in seconds (default 3600, as kube-apiserver's --event-ttl). */
  eventTTLSeconds?: number;
  /** Time between storage compactions in ms (default 5 minutes, as kube-apiserver); 0: never. */
  compactionIntervalMs?: number;
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
  /** The in-process controller manager, with `controllers: true`. */
  readonly controllerManager?: ControllerManager;
  /** The scheduler and simulated kubelet, with `nodes` > 0. */
  readonly simulation?: Simulation;
  /** Stops the controllers, stops serving and closes storage. */
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
  if (storage === 'sqlite' || listen) {
    // Owner-only, also when it already existed: it holds the database, the keys and the kubeconfig.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
  }
  // The sqlite driver keeps the database and its WAL files owner-only (0600).
  const backend = await createBackend(storage === 'memory' ? 'memory://' : `sqlite://${join(dataDir, 'state.db')}`);
  const apiServer = createApiServer({ backend, eventTTLSeconds: options.eventTTLSeconds, compactionIntervalMs: options.compactionIntervalMs });
  try {
    await apiServer.start();
  } catch (err) {
    await backend.close();
    throw err;
  }
  let controllerManager: ControllerManager | undefined;
  let simulation: Simulation | undefined;
  const stop = async () => {
    try {
      await simulation?.stop();
      await controllerManager?.stop();
    } finally {
      await apiServer.close();
      await backend.close();
    }
  };
  const client = createClient({ transport: apiServer.handle, defaultNamespace: 'default' });
  if (!listen) {
    if (options.controllers) {
      try {
        controllerManager = await startControllers(createClient({ transport: apiServer.handle }));
      } catch (err) {
        await stop();
        throw err;
      }
    }
    simulation = await startNodes(apiServer, options, stop);
    return { apiServer, backend, transport: apiServer.handle, client, controllerManager, simulation, stop };
  }
  const pki = await ensurePki(join(dataDir, 'pki'));
  await ownerOnly(join(dataDir, 'pki'));
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
  await chmod(kubeconfigPath, 0o600);
  await waitReady(url, pki.ca.cert);
  if (options.controllers) {
    const serving = {
      host: '127.0.0.1',
      port: options.controllerManagerPort ?? DEFAULT_SECURE_PORT,
      cert: pki.serving.cert,
      key: pki.serving.key,
      clientCa: pki.ca.cert,
      tokens: [pki.adminToken],
    };
    try {
      controllerManager = await startControllers(createClient({ transport: apiServer.handle }), serving, pki.ca.cert);
    } catch (err) {
      await stop();
      throw err;
    }
  }
  simulation = await startNodes(apiServer, options, stop);
  return { apiServer, backend, transport: apiServer.handle, client, url, port, kubeconfigPath, controllerManager, simulation, stop };
}

/** Makes the PKI folder owner-only and its private keys and token 0600 (files made by older versions included). */
async function ownerOnly(pkiDir: string): Promise<void> {
  await chmod(pkiDir, 0o700);
  for (const secret of ['ca.key', 'serving.key', 'admin.key', 'admin.token']) await chmod(join(pkiDir, secret), 0o600);
}

/** Starts the scheduler and simulated kubelet for `options.nodes` nodes on the in-process transport (none for 0). */
async function startNodes(apiServer: ApiServer, options: ControlPlaneOptions, stop: () => Promise<void>): Promise<Simulation | undefined> {
  if (!options.nodes) return undefined;
  try {
    return await startSimulation({ client: createClient({ transport: apiServer.handle }), nodes: options.nodes, config: options.kubeletConfig });
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts the controller manager; when its HTTPS port is taken, warns and runs without it. */
async function startControllers(client: Client, serving?: SecureServingOptions, rootCA?: string): Promise<ControllerManager> {
  try {
    return await startControllerManager({ client, serving, rootCA });
  } catch (err) {
    if (!serving || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    process.stderr.write(`kplane controller-manager: port ${serving.port} is in use; running without /metrics and /healthz\n`);
    return startControllerManager({ client, rootCA });
  }
}
