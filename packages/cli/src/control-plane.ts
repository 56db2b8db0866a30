import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { request } from 'node:https';
import { transportAs, type KubeObject, type RawRequest, type RawResponse, type Transport, type UserInfo } from '@kplane/api';
import { createBackend, type Backend } from '@kplane/storage';
import {
  createApiServer,
  createAuditLog,
  type AuditLog,
  ensurePki,
  ensureServiceAccountKeyFiles,
  KUBELET_CLIENT_USER,
  type KubeletClientConfig,
  loadServiceAccountKeys,
  loadTokenFile,
  MASTERS_GROUP,
  signLegacyToken,
  type ApiServer,
  type LocalStreams,
  type AuthenticationOptions,
  type ServiceAccountKeys,
  type ListenOptions,
  type ApiServerOptions,
} from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import type { Clock } from '@kplane/runtime';
import type { KubeletConfig, Simulation } from '@kplane/kubelet';
import type { ControllerManager, ControllerManagerOptions, SecureServingOptions } from '@kplane/controllers';
import { apiServerTime } from './time.js';
import { cachedClientCertificate } from './client-certs.js';

import { controllersModule, startControllers, startNodes } from './components.js';
import type { ComponentsWorker } from './worker/host.js';
import type { WorkerComponentOptions, WorkerData } from './worker/options.js';

/** The port of the controller manager's /metrics and /healthz by default, as kube-controller-manager's (DEFAULT_SECURE_PORT). */
const CONTROLLER_MANAGER_PORT = 10257;

/** Resolves in the event loop's check phase, after the pending I/O (sockets) and timers had their turn. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Options of startControlPlane. */
export interface ControlPlaneOptions {
  /** Folder for the database, PKI and kubeconfig (default ./.kplane). Unused with storage memory and listen false. */
  dataDir?: string;
  /** `sqlite` (default, durable), `memory`, or a storage URL (`etcd://host:port`, `sqlite://path`...). */
  storage?: 'sqlite' | 'memory' | `${string}://${string}`;
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
  /** How often the horizontal-pod-autoscaler controller syncs each HPA (default 15 s, --horizontal-pod-autoscaler-sync-period). */
  hpaSyncPeriodMs?: number;
  /** Terminated pods kept before the pod garbage collector deletes the oldest (default 12 500, --terminated-pod-gc-threshold). */
  terminatedPodGcThreshold?: number;
  /** Period of the pod garbage collector and quarantine of missing nodes (default 20 s and 40 s). */
  podGcPeriodMs?: number;
  podGcQuarantineMs?: number;
  /**
   * Each controller acts as its own ServiceAccount `kube-system/<name>-controller` bound to its
   * least-privilege ClusterRole (kube-controller-manager's --use-service-account-credentials;
   * default true). The scheduler always acts as system:kube-scheduler and each simulated node
   * as system:node:NAME.
   */
  useServiceAccountCredentials?: boolean;
  /**
   * Simulated nodes (kwok-style) with a scheduler and kubelet in this process (default 0: none,
   * pods stay Pending; `kplane up` asks for 3 unless --nodes says otherwise).
   */
  nodes?: number;
  /** Pod behaviour of the simulated kubelet (delays, failures), as `kplane kubelet --config`. */
  kubeletConfig?: KubeletConfig;
  /** How long an Event lives after its last write, in seconds (default 3600, as kube-apiserver's --event-ttl). */
  eventTTLSeconds?: number;
  /** Services' ClusterIP range (default 10.96.0.0/12, as kube-apiserver's --service-cluster-ip-range). */
  serviceCIDR?: string;
  /** Services' NodePort range (default 30000-32767, as kube-apiserver's --service-node-port-range). */
  serviceNodePortRange?: string;
  /** Time between storage compactions in ms (default 5 minutes, as kube-apiserver); 0: never. */
  compactionIntervalMs?: number;
  /**
   * Longest validity of a certificate the CSR signer issues, in ms (kube-controller-manager's
   * --cluster-signing-duration, default one year). The signer signs with the data dir's CA and
   * runs only when listening (the in-memory control plane has no CA).
   */
  clusterSigningDurationMs?: number;
  /** What pods/exec and pods/portforward do for simulated containers (`--exec-local`, `--port-forward`; default: a clear error). */
  localStreams?: LocalStreams;
  /**
   * Append one audit.k8s.io/v1 Event (level Metadata) per request to this file, as JSON lines
   * (kube-apiserver's --audit-log-path); created 0600. In-process requests are audited too.
   */
  auditLogPath?: string;
  /** Authentication flags, as kube-apiserver's. */
  authentication?: ControlPlaneAuthentication;
  /** kube-apiserver's --authorization-mode (default `Node,RBAC`). */
  authorizationMode?: string;
  /** kube-apiserver's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (300 each). */
  defaultTolerationSeconds?: { notReadySeconds?: number; unreachableSeconds?: number };
  /** kube-controller-manager's --node-monitor-grace-period, in ms (default 40 s). */
  nodeMonitorGracePeriodMs?: number;
  /**
   * Serve this storage instead of opening the one `storage` names (a test's memory backend on
   * its clock); `stop()` closes it too.
   */
  backend?: Backend;
  /**
   * The backend already holds what a start with these same settings writes (a copy of one
   * such a control plane bootstrapped): the API server skips its bootstrap writes (see
   * ApiServerOptions.bootstrapped).
   */
  bootstrapped?: boolean;
  /**
   * The one clock of the API server (timestamps, TTLs, grace periods, watch and request
   * timeouts, compaction), the controllers, the scheduler and the simulated kubelet; default
   * the real clock. A test passes a fake clock and moves time by hand.
   */
  clock?: Clock;
  /**
   * Wraps each in-process transport the control plane makes, named by who uses it: `admin`
   * (`client`), `kube-controller-manager` (the controllers' shared caches and leader
   * election), `<name>-controller` (a controller's own ServiceAccount), `kube-scheduler`,
   * `kubelet` and `kubelet/<node>`. Where tests inject faults or record calls.
   */
  wrapTransport?: (transport: Transport, who: string) => Transport;
  /**
   * Run the controller manager and the simulated nodes in a worker thread (a second core): their
   * clients reach this thread's API server over a MessagePort bridge of the in-process transport
   * (default false; `kplane up --controllers-in-worker`). Not with `clock`, `wrapTransport` or
   * `controllerManagerLog`; the control plane's `controllerManager` and `simulation` are then
   * undefined, and the API server does not serve the simulated containers' logs or metrics.
   */
  controllersInWorker?: boolean;
  /** Leader election timing of the controller manager (client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry). */
  leaderElection?: ControllerManagerOptions['leaderElection'];
  /** Where the controller manager's log lines go (default stderr). */
  controllerManagerLog?: (message: string) => void;
  /** More API server settings (`kplane apiserver`: the endpoint reconciler, the advertised address, the scheduler's and nodes' roles). */
  apiServer?: Pick<ApiServerOptions, 'endpointReconcilerType' | 'advertiseAddress' | 'bootstrapPolicy'>;
  /** The serving certificate and key, and the CA of client certificates (default: the data dir's `pki/serving.*` and `pki/ca.crt`). */
  tls?: { cert: string; key: string; clientCa?: string };
}

/** kube-apiserver's authentication flags. */
export interface ControlPlaneAuthentication {
  /** `--token-auth-file`: static tokens (CSV token,user,uid,"groups"). */
  tokenAuthFile?: string;
  /** `--service-account-signing-key-file` (default: `pki/sa.key`, made at first start). */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-key-file`: more public keys that verify tokens. */
  serviceAccountKeyFiles?: string[];
  /** `--service-account-issuer`: the first signs, all are accepted. */
  serviceAccountIssuers?: string[];
  /** `--api-audiences` (default: the first issuer). */
  apiAudiences?: string[];
  /** `--service-account-max-token-expiration` in seconds (0: no limit). */
  serviceAccountMaxTokenExpirationSeconds?: number;
}

/** A running control plane. */
export interface ControlPlane {
  /** The API server serving now (another one after `restartApiServer()`). */
  readonly apiServer: ApiServer;
  readonly backend: Backend;
  /**
   * The in-process transport: call the API with no socket, as the control plane's own admin
   * (requests without `user` are trusted in-process code).
   */
  readonly transport: (req: RawRequest) => Promise<RawResponse>;
  /** An in-process transport that acts as `user` (a controller's ServiceAccount, a node), authorised as that user. */
  transportFor(user: UserInfo): (req: RawRequest) => Promise<RawResponse>;
  /** A client over the in-process transport (namespace "default"). */
  readonly client: Client;
  /** https://127.0.0.1:PORT when listening. */
  readonly url?: string;
  readonly port?: number;
  /** Path of the admin kubeconfig when listening. */
  readonly kubeconfigPath?: string;
  /** The in-process controller manager, with `controllers: true` (another one after a restart). */
  readonly controllerManager?: ControllerManager;
  /** The scheduler and simulated kubelet, with `nodes` > 0. */
  readonly simulation?: Simulation;
  /**
   * Replaces the API server with a new one on the same storage (and port, when listening):
   * every object is kept, every watch ends, and clients watch again from where they were.
   */
  restartApiServer(): Promise<void>;
  /**
   * Stops the controller manager (releasing its Lease) and starts a new one, which lists and
   * watches everything again. No-op without `controllers`.
   */
  restartControllerManager(): Promise<void>;
  /**
   * Starts another controller manager beside the current one, as a standby of a real cluster
   * does: it takes over once it acquires the Lease. Resolves once it runs; `controllerManager`
   * names it from then on.
   */
  startStandbyControllerManager(): Promise<ControllerManager | undefined>;
  /** Stops the controllers, stops serving and closes storage. */
  stop(): Promise<void>;
}

/**
 * The API server's client certificate towards kubelets in other processes (CN
 * kube-apiserver-kubelet-client, made in memory at each start), with the CA their serving
 * certificates are checked against.
 */
export async function kubeletClientCredentials(caCert: string, caKey: string): Promise<KubeletClientConfig> {
  const { issueClientCertificate, loadSigningCa } = await controllersModule();
  const { cert, key } = await issueClientCertificate(await loadSigningCa(caCert, caKey), { commonName: KUBELET_CLIENT_USER, organizations: [], durationMs: 365 * 24 * 3600 * 1000, now: new Date() });
  return { cert, key, ca: caCert };
}

/** The client certificate presented to APIService backends (CN front-proxy-client, made in memory at each start). */
export async function frontProxyClient(caCert: string, caKey: string): Promise<{ cert: string; key: string }> {
  const { issueClientCertificate, loadSigningCa } = await controllersModule();
  return issueClientCertificate(await loadSigningCa(caCert, caKey), { commonName: 'front-proxy-client', organizations: [], durationMs: 365 * 24 * 3600 * 1000, now: new Date() });
}

/**
 * Builds the admin kubeconfig for a server URL. The YAML is written directly (every scalar a
 * double-quoted string, which YAML reads as JSON does): a start loads no YAML library for it.
 */
export function kubeconfigYaml(server: string, caPem: string, certPem: string, keyPem: string): string {
  const b64 = (s: string) => JSON.stringify(Buffer.from(s).toString('base64'));
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: kplane',
    '    cluster:',
    `      server: ${JSON.stringify(server)}`,
    `      certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '  - name: kplane-admin',
    '    user:',
    `      client-certificate-data: ${b64(certPem)}`,
    `      client-key-data: ${b64(keyPem)}`,
    'contexts:',
    '  - name: kplane',
    '    context:',
    '      cluster: kplane',
    '      user: kplane-admin',
    'current-context: kplane',
    'preferences: {}',
    '',
  ].join('\n');
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
  if (options.controllersInWorker && (options.clock || options.wrapTransport || options.controllerManagerLog)) {
    throw new Error('controllersInWorker: the controllers and nodes of a worker thread take no clock, wrapTransport or controllerManagerLog');
  }
  const listen = options.listen ?? true;
  const dataDir = resolve(options.dataDir ?? '.kplane');
  const onDisk = (storage === 'sqlite' && !options.backend) || listen;
  if (onDisk) {
    // Owner-only, also when it already existed: it holds the database, the keys and the kubeconfig.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
  }
  // A first start makes its keys and certificates while storage opens and the API server starts.
  const authenticating = authenticationOptions(options.authentication ?? {}, onDisk ? join(dataDir, 'pki') : undefined);
  authenticating.catch(() => undefined);
  const pkiMade = listen ? ensurePki(join(dataDir, 'pki')) : undefined;
  pkiMade?.catch(() => undefined);
  const authentication = await authenticating;
  // The sqlite driver keeps the database and its WAL files owner-only (0600).
  const storageUrl = storage.includes('://') ? storage : storage === 'memory' ? 'memory://' : `sqlite://${join(dataDir, 'state.db')}`;
  const backend = options.backend ?? (await createBackend(storageUrl));
  let audit: AuditLog | undefined;
  try {
    audit = options.auditLogPath ? await createAuditLog({ path: resolve(options.auditLogPath) }) : undefined;
  } catch (err) {
    await backend.close();
    throw err;
  }
  const time = options.clock ? apiServerTime(options.clock) : undefined;
  const wrap = options.wrapTransport ?? ((t: Transport) => t);
  const createServer = (keys?: ServiceAccountKeys): ApiServer =>
    createApiServer({ ...options.apiServer, backend, ...time, serviceCIDR: options.serviceCIDR, serviceNodePortRange: options.serviceNodePortRange, authorizationMode: options.authorizationMode, eventTTLSeconds: options.eventTTLSeconds, compactionIntervalMs: options.compactionIntervalMs, authentication: keys ? { ...authentication, serviceAccountKeys: keys } : authentication, audit, localStreams: options.localStreams, admission: options.defaultTolerationSeconds, bootstrapped: options.bootstrapped });
  let apiServer = createServer();
  // Every in-process client calls the API server serving now, so a restart needs no new clients.
  // Listening, each in-process request first waits for the event loop's next turn: the in-process
  // controllers, scheduler and kubelets otherwise chain request to request through promises alone,
  // and while they are busy the sockets (clients' requests and watches over HTTPS) and timers wait.
  const serve: Transport = listen ? (req) => nextTurn().then(() => apiServer.handle(req)) : (req) => apiServer.handle(req);
  const tokenSigner = (rootCA: string) => ({ rootCA, generateToken: (c: Parameters<typeof signLegacyToken>[1]) => signLegacyToken(apiServer.serviceAccountKeys, c) });
  const transportFor = (user: UserInfo) => transportAs(serve, user);
  try {
    await apiServer.start();
  } catch (err) {
    await backend.close();
    await audit?.close();
    throw err;
  }
  let controllerManager: ControllerManager | undefined;
  let simulation: Simulation | undefined;
  const stop = async () => {
    try {
      await componentsWorker?.stop();
      await simulation?.stop();
      await controllerManager?.stop();
    } finally {
      await apiServer.close();
      await backend.close();
      await audit?.close();
    }
  };
  const client = createClient({ transport: wrap(serve, 'admin'), defaultNamespace: 'default' });
  let listenOptions: ListenOptions | undefined;
  let startManager: (() => Promise<ControllerManager>) | undefined;
  const registerNodes = (server: ApiServer) => {
    if (!simulation) return;
    const sim = simulation;
    server.nodes.register(sim.kubelet.nodeNames, sim.kubelet.logs);
    server.metrics.register({ metrics: () => sim.kubelet.metrics() as unknown as { nodes: KubeObject[]; pods: KubeObject[] } });
  };
  let restarting: Promise<void> | undefined;
  const controlPlane = (extra: { url?: string; port?: number; kubeconfigPath?: string }): ControlPlane => ({
    get apiServer() {
      return apiServer;
    },
    backend,
    transport: serve,
    transportFor,
    client,
    ...extra,
    get controllerManager() {
      return controllerManager;
    },
    get simulation() {
      return simulation;
    },
    async restartApiServer() {
      await restarting;
      restarting = (async () => {
        const old = apiServer;
        const next = createServer(old.serviceAccountKeys);
        await next.start();
        registerNodes(next);
        apiServer = next;
        // Closing the old one ends its watches; their clients watch again, on the new one.
        await old.close();
        if (listenOptions) await next.listen(listenOptions);
      })();
      try {
        await restarting;
      } finally {
        restarting = undefined;
      }
    },
    async restartControllerManager() {
      if (!startManager || !controllerManager) return;
      await controllerManager.stop();
      controllerManager = await startManager();
    },
    async startStandbyControllerManager() {
      if (!startManager) return undefined;
      controllerManager = await startManager();
      return controllerManager;
    },
    stop,
  });
  let componentsWorker: ComponentsWorker | undefined;
  /** The controllers and nodes in a worker thread, on a bridge to this thread's API server. */
  const startWorker = async (serving?: SecureServingOptions, signing?: WorkerData['signing'], rootCA?: string) => {
    if (!options.controllers && !options.nodes) return;
    try {
      const { startComponentsWorker } = await import('./worker/host.js');
      componentsWorker = await startComponentsWorker(serve, { options: workerOptions(options), serving, signing, rootCA }, {
        generateToken: (claims: Parameters<typeof signLegacyToken>[1]) => signLegacyToken(apiServer.serviceAccountKeys, claims),
      });
    } catch (err) {
      await stop();
      throw err;
    }
  };
  const startAll = async (serving?: SecureServingOptions, clusterSigning?: ControllerManagerOptions['clusterSigning'], rootCA?: string) => {
    if (options.controllersInWorker) return startWorker(serving, undefined, rootCA);
    if (options.controllers) {
      startManager = () => startControllers(serve, options, serving, tokenSigner(rootCA ?? ''), clusterSigning, rootCA);
      try {
        controllerManager = await startManager();
      } catch (err) {
        await stop();
        throw err;
      }
    }
    simulation = await startNodes(serve, options, stop);
    registerNodes(apiServer);
  };
  if (!listen) {
    await startAll();
    return controlPlane({});
  }
  const pki = await pkiMade!;
  await ownerOnly(join(dataDir, 'pki'));
  const host = options.host ?? '127.0.0.1';
  listenOptions = {
    host,
    port: options.port ?? 6443,
    cert: options.tls?.cert ?? pki.serving.cert,
    key: options.tls?.key ?? pki.serving.key,
    clientCa: options.tls?.clientCa ?? pki.ca.cert,
    // Kept in the PKI folder: a restart reuses them without loading the X.509 library.
    kubeletClient: { ...(await cachedClientCertificate(join(dataDir, 'pki'), 'apiserver-kubelet-client', KUBELET_CLIENT_USER, pki.ca.cert, pki.ca.key)), ca: pki.ca.cert },
    proxyClient: await cachedClientCertificate(join(dataDir, 'pki'), 'front-proxy-client', 'front-proxy-client', pki.ca.cert, pki.ca.key),
    tokens: new Map([[pki.adminToken, { username: 'kplane-admin', groups: [MASTERS_GROUP] }]]),
  };
  const port = await apiServer.listen(listenOptions);
  // A restarted API server binds the same port.
  listenOptions = { ...listenOptions, port };
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, pki.ca.cert, pki.admin.cert, pki.admin.key), { mode: 0o600 });
  await chmod(kubeconfigPath, 0o600);
  // (A serving certificate of another CA is not checked here: start() has made it ready.)
  if (!options.tls) await waitReady(url, pki.ca.cert);
  if (options.controllers) {
    const serving = {
      host: '127.0.0.1',
      port: options.controllerManagerPort ?? CONTROLLER_MANAGER_PORT,
      cert: pki.serving.cert,
      key: pki.serving.key,
      clientCa: pki.ca.cert,
    };
    if (options.controllersInWorker) {
      await startWorker(serving, { cert: pki.ca.cert, key: pki.ca.key, durationMs: options.clusterSigningDurationMs }, pki.ca.cert);
      return controlPlane({ url, port, kubeconfigPath });
    }
    let clusterSigning: ControllerManagerOptions['clusterSigning'];
    try {
      const { loadSigningCa } = await controllersModule();
      clusterSigning = { ca: await loadSigningCa(pki.ca.cert, pki.ca.key), durationMs: options.clusterSigningDurationMs };
    } catch (err) {
      await stop();
      throw err;
    }
    await startAll(serving, clusterSigning, pki.ca.cert);
  } else {
    await startAll();
  }
  return controlPlane({ url, port, kubeconfigPath });
}

/**
 * The API server's authentication options from the flags: static tokens from the token file;
 * the ServiceAccount keys from the given files, else the key pair kept in `pkiDir` (made at
 * first start), else (no data dir) a key made in memory.
 */
async function authenticationOptions(flags: ControlPlaneAuthentication, pkiDir: string | undefined): Promise<AuthenticationOptions> {
  let keys: ServiceAccountKeys | undefined;
  if (flags.serviceAccountSigningKeyFile) {
    keys = await loadServiceAccountKeys(flags.serviceAccountSigningKeyFile, flags.serviceAccountKeyFiles);
  } else if (flags.serviceAccountKeyFiles?.length) {
    throw new Error('--service-account-signing-key-file is required with --service-account-key-file');
  } else if (pkiDir) {
    const files = await ensureServiceAccountKeyFiles(pkiDir);
    keys = await loadServiceAccountKeys(files.keyFile, [files.publicKeyFile]);
  }
  return {
    tokens: flags.tokenAuthFile ? await loadTokenFile(flags.tokenAuthFile, (w) => process.stderr.write(`kplane: ${w}\n`)) : undefined,
    serviceAccountKeys: keys,
    serviceAccountIssuers: flags.serviceAccountIssuers,
    apiAudiences: flags.apiAudiences,
    serviceAccountMaxTokenExpirationSeconds: flags.serviceAccountMaxTokenExpirationSeconds,
  };
}

/** Makes the PKI folder owner-only and its private keys and token 0600 (files made by older versions included). */
async function ownerOnly(pkiDir: string): Promise<void> {
  await chmod(pkiDir, 0o700);
  for (const secret of ['ca.key', 'serving.key', 'admin.key', 'admin.token', 'sa.key']) await chmod(join(pkiDir, secret), 0o600);
}


/** The options a components worker takes (the structured-clonable ones). */
function workerOptions(o: ControlPlaneOptions): WorkerComponentOptions {
  return {
    controllers: o.controllers,
    nodes: o.nodes,
    kubeletConfig: o.kubeletConfig,
    hpaSyncPeriodMs: o.hpaSyncPeriodMs,
    terminatedPodGcThreshold: o.terminatedPodGcThreshold,
    podGcPeriodMs: o.podGcPeriodMs,
    podGcQuarantineMs: o.podGcQuarantineMs,
    nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs,
    useServiceAccountCredentials: o.useServiceAccountCredentials,
    bootstrapped: o.bootstrapped,
  };
}
