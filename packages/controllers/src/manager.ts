/**
 * The controller manager: kplane's kube-controller-manager. It runs the built-in controllers
 * in one runtime manager (shared informers, one Lease for leader election) and serves their
 * metrics and health over HTTPS.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Client } from '@kplane/client';
import { createManager, type Clock, type Manager } from '@kplane/runtime';
import { createGarbageCollector, type GarbageCollectorOptions } from './garbagecollector/index.js';
import { createNamespaceController, type NamespaceControllerOptions } from './namespace/index.js';
import { createServiceAccountController, createTokensController, type TokensControllerOptions } from './serviceaccount/index.js';
import { createReplicaSetController } from './replicaset/index.js';
import { createDeploymentController } from './deployment/index.js';
import { createRootCACertPublisher } from './rootcacertpublisher/index.js';

/** Canonical controller names, as kube-controller-manager names them. */
export const CONTROLLER_NAMES = {
  garbageCollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  serviceAccount: 'serviceaccount-controller',
  serviceAccountToken: 'serviceaccount-token-controller',
  replicaSet: 'replicaset-controller',
  deployment: 'deployment-controller',
  rootCACertPublisher: 'root-ca-certificate-publisher-controller',
} as const;

/** Every controller this manager knows, by canonical name. */
export const KNOWN_CONTROLLERS: readonly string[] = [
  CONTROLLER_NAMES.deployment,
  CONTROLLER_NAMES.garbageCollector,
  CONTROLLER_NAMES.namespace,
  CONTROLLER_NAMES.replicaSet,
  CONTROLLER_NAMES.rootCACertPublisher,
  CONTROLLER_NAMES.serviceAccount,
  CONTROLLER_NAMES.serviceAccountToken,
];

/** The older names --controllers also accepts, mapped to canonical names. */
export const CONTROLLER_ALIASES: Readonly<Record<string, string>> = {
  garbagecollector: CONTROLLER_NAMES.garbageCollector,
  namespace: CONTROLLER_NAMES.namespace,
  serviceaccount: CONTROLLER_NAMES.serviceAccount,
  'serviceaccount-token': CONTROLLER_NAMES.serviceAccountToken,
  replicaset: CONTROLLER_NAMES.replicaSet,
  deployment: CONTROLLER_NAMES.deployment,
  'root-ca-cert-publisher': CONTROLLER_NAMES.rootCACertPublisher,
};

/** The Lease kube-controller-manager elects its leader with. */
export const CONTROLLER_MANAGER_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager' } as const;

/** The default HTTPS port of the controller manager (kube-controller-manager's --secure-port). */
export const DEFAULT_SECURE_PORT = 10257;

/**
 * Checks --controllers selectors ("*", "name", "-name", canonical names or aliases) and returns
 * one message per unknown name, worded as kube-controller-manager's validation.
 */
export function validateControllerSelectors(selectors: readonly string[]): string[] {
  const errors: string[] = [];
  for (const selector of selectors) {
    if (selector === '*') continue;
    const name = selector.startsWith('-') ? selector.slice(1) : selector;
    if (!KNOWN_CONTROLLERS.includes(CONTROLLER_ALIASES[name] ?? name)) errors.push(`"${name}" is not in the list of known controllers`);
  }
  return errors;
}

/**
 * Is a controller (canonical name) enabled by the selectors? The first selector naming it
 * decides ("name" on, "-name" off); otherwise "*" enables every controller that is not
 * disabled by default. Aliases count as their canonical names.
 */
export function isControllerEnabled(name: string, selectors: readonly string[], disabledByDefault: readonly string[] = []): boolean {
  let star = false;
  for (const selector of selectors) {
    const off = selector.startsWith('-');
    const raw = off ? selector.slice(1) : selector;
    if (raw === '*' && !off) {
      star = true;
      continue;
    }
    if ((CONTROLLER_ALIASES[raw] ?? raw) === name) return !off;
  }
  return star && !disabledByDefault.includes(name);
}

/** HTTPS serving of /metrics and the health endpoints. */
export interface SecureServingOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 10257); 0 picks a free one. */
  port?: number;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** CA whose client certificates are accepted for /metrics (PEM). */
  clientCa?: string;
  /** Bearer tokens accepted for /metrics. */
  tokens?: Iterable<string>;
}

/** Options of startControllerManager. */
export interface ControllerManagerOptions {
  client: Client;
  /** --controllers selectors (default ["*"]). */
  controllers?: readonly string[];
  /** Elect a leader on the Lease kube-system/kube-controller-manager (default true). */
  leaderElect?: boolean;
  /** Leader election identity and timing (client-go defaults: 15 s lease, 10 s renew deadline, 2 s retry). */
  leaderElection?: { identity?: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Serve /metrics, /healthz, /livez and /readyz over HTTPS; absent: no server. */
  serving?: SecureServingOptions;
  /** Time source (default the real clock). */
  clock?: Clock;
  /** Tuning of the namespace controller. */
  namespaceController?: Omit<NamespaceControllerOptions, 'manager'>;
  /** Tuning of the garbage collector. */
  garbageCollector?: Omit<GarbageCollectorOptions, 'manager' | 'client' | 'clock' | 'metrics'>;
  /**
   * The cluster CA certificate (PEM) the root CA certificate publisher puts in each namespace's
   * kube-root-ca.crt; absent: that controller does not run.
   */
  rootCA?: string;
  /** Log lines (default: stderr). */
  log?: (message: string) => void;
  /**
   * The token controller's signer and CA bundle (kube-controller-manager's
   * --service-account-private-key-file and --root-ca-file); absent: that controller does not run.
   */
  serviceAccountTokens?: Omit<TokensControllerOptions, 'manager'>;
}

/** A running controller manager. */
export interface ControllerManager {
  readonly manager: Manager;
  /** Canonical names of the controllers started. */
  readonly controllers: readonly string[];
  /** The leader election identity. */
  readonly identity: string;
  /** The HTTPS port and base URL, when serving. */
  readonly port?: number;
  readonly url?: string;
  /** Resolves once every controller has stopped. */
  readonly done: Promise<void>;
  /** Stops the controllers (releasing the Lease) and the HTTPS server. */
  stop(): Promise<void>;
}

function bearerMatches(header: string | undefined, tokens: Buffer[]): boolean {
  if (!header || !/^bearer /i.test(header)) return false;
  const given = Buffer.from(header.slice(7).trim());
  return tokens.some((t) => t.length === given.length && timingSafeEqual(t, given));
}

function unauthorizedStatus(res: ServerResponse): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  res.writeHead(401, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.end(body);
}

function text(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'x-content-type-options': 'nosniff' });
  res.end(body);
}

/** Serves /metrics (authenticated) and /healthz, /livez, /readyz (public). */
async function serve(options: SecureServingOptions, manager: Manager): Promise<{ server: Server; port: number; url: string }> {
  const tokens = [...(options.tokens ?? [])].filter(Boolean).map((t) => Buffer.from(t));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'Method Not Allowed\n');
    if (/^\/(healthz|livez|readyz)(\/.*)?$/.test(path)) {
      return manager.healthy() ? text(res, 200, 'ok') : text(res, 500, '[-]manager failed: not running\nhealthz check failed\n');
    }
    if (path !== '/metrics') return text(res, 404, '404 page not found\n');
    const certOk = (req.socket as TLSSocket).authorized === true;
    if (!certOk && !bearerMatches(req.headers.authorization, tokens)) return unauthorizedStatus(res);
    text(res, 200, await manager.metrics.metricsText(), manager.metrics.contentType);
  };
  const server = createServer(
    { cert: options.cert, key: options.key, ...(options.clientCa ? { ca: options.clientCa, requestCert: true } : {}), rejectUnauthorized: false },
    (req, res) => {
      handle(req, res).catch((err) => {
        if (!res.headersSent) text(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
        else res.destroy();
      });
    },
  );
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_SECURE_PORT, host, () => {
      server.off('error', reject);
      // Once serving, a socket-level error is logged: it must not end the process.
      server.on('error', (err) => console.error('kplane: controller manager metrics server:', err));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return { server, port, url: `https://${host.includes(':') ? `[${host}]` : host}:${port}` };
}

/**
 * Starts the controller manager: validates the selectors, registers the enabled controllers,
 * starts the HTTPS server (if asked) and runs the runtime manager in the background. Resolves
 * once serving; the controllers start when the caches have synced and, with leader election,
 * once this process holds the Lease.
 *
 * Errors: throws on unknown controller names (nothing is started) and when the HTTPS port
 * cannot be bound.
 */
export async function startControllerManager(options: ControllerManagerOptions): Promise<ControllerManager> {
  const selectors = options.controllers ?? ['*'];
  const errors = validateControllerSelectors(selectors);
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  const log = options.log ?? ((m: string) => process.stderr.write(`kplane controller-manager: ${m}\n`));
  const leaderElect = options.leaderElect ?? true;
  const identity = options.leaderElection?.identity ?? `${hostname()}_${randomUUID()}`;
  const lease = `${CONTROLLER_MANAGER_LEASE.namespace}/${CONTROLLER_MANAGER_LEASE.name}`;
  const manager = createManager({
    client: options.client,
    clock: options.clock,
    leaderElection: leaderElect ? { ...CONTROLLER_MANAGER_LEASE, ...options.leaderElection, identity } : undefined,
    onCacheError: (resource, err) => log(`watch of ${resource} failed (retrying): ${err instanceof Error ? err.message : String(err)}`),
  });

  const enabled: string[] = [];
  const starters: Record<string, () => void> = {
    [CONTROLLER_NAMES.namespace]: () => createNamespaceController({ ...options.namespaceController, manager }),
    [CONTROLLER_NAMES.serviceAccount]: () => createServiceAccountController({ manager }),
    ...(options.serviceAccountTokens ? { [CONTROLLER_NAMES.serviceAccountToken]: () => createTokensController({ ...options.serviceAccountTokens!, manager }) } : {}),
    [CONTROLLER_NAMES.garbageCollector]: () => manager.add(createGarbageCollector({ ...options.garbageCollector, manager })),
    [CONTROLLER_NAMES.replicaSet]: () => createReplicaSetController(manager),
    [CONTROLLER_NAMES.deployment]: () => createDeploymentController(manager),
    ...(options.rootCA !== undefined ? { [CONTROLLER_NAMES.rootCACertPublisher]: () => createRootCACertPublisher({ manager, rootCA: options.rootCA! }) } : {}),
  };
  for (const name of KNOWN_CONTROLLERS) {
    const start = starters[name];
    if (!start || !isControllerEnabled(name, selectors)) continue;
    start();
    enabled.push(name);
  }
  if (leaderElect) {
    manager.add({
      needLeaderElection: true,
      async start(signal) {
        log(`successfully acquired lease ${lease} as ${identity}; started ${enabled.join(', ') || 'no controllers'}`);
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      },
    });
  }

  const served = options.serving ? await serve(options.serving, manager) : undefined;
  if (served) log(`serving securely on ${served.url}`);
  if (leaderElect) log(`attempting to acquire leader lease ${lease}...`);
  else log(`leader election disabled; starting ${enabled.join(', ') || 'no controllers'}`);
  const abort = new AbortController();
  const done = manager.start(abort.signal).then(() => {
    if (!abort.signal.aborted) log('leaderelection lost');
  });
  let stopping: Promise<void> | undefined;
  return {
    manager,
    controllers: enabled,
    identity,
    port: served?.port,
    url: served?.url,
    done,
    stop() {
      stopping ??= (async () => {
        abort.abort();
        try {
          await done;
        } finally {
          if (served) {
            const closed = new Promise<void>((resolve) => served.server.close(() => resolve()));
            served.server.closeAllConnections();
            await closed;
          }
        }
      })();
      return stopping;
    },
  };
}
