/**
 * The HTTPS endpoint of a manager's metrics and health: /metrics behind delegated
 * authentication and authorization, /healthz, /livez and /readyz for anyone.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Manager } from '../manager/manager.js';
import { createDelegatedAuth, type DelegatedAuth, type DelegatedAuthOptions } from './delegated.js';

/** Options of serveMetrics. */
export interface MetricsServerOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** CA whose client certificates name a user (CN) and groups (O) (PEM). */
  clientCa?: string;
  /** The Prometheus text of /metrics. */
  metrics: { metricsText(): Promise<string>; readonly contentType: string };
  /** Liveness for /healthz and /livez (default: always). */
  healthy?: () => boolean;
  /** Readiness for /readyz (default: `healthy`). */
  ready?: () => boolean;
  /** Who may read /metrics. `false` serves it to anyone (only for a loopback-only test setup). */
  auth: DelegatedAuth | false;
  /** Told about socket-level errors once serving (default console.error). */
  onError?: (err: unknown) => void;
}

/** A running metrics server. */
export interface MetricsServer {
  readonly server: Server;
  readonly port: number;
  /** https://host:port */
  readonly url: string;
  /** Stops serving and closes every connection. */
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'x-content-type-options': 'nosniff' });
  res.end(body);
}

/**
 * Serves /metrics, /healthz, /livez and /readyz over HTTPS, as kube-controller-manager serves its
 * secure port: health paths need no credentials; /metrics needs a user (bearer token checked by
 * TokenReview, or a client certificate) allowed `get` on the path by a SubjectAccessReview —
 * 401 for refused credentials, 403 (Status `forbidden: User "…" cannot get path "/metrics"`)
 * when not allowed. Resolves once listening.
 */
export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  const healthy = options.healthy ?? (() => true);
  const ready = options.ready ?? healthy;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const method = req.method ?? 'GET';
    const health = /^\/(healthz|livez)(\/.*)?$/.test(path) ? healthy : /^\/readyz(\/.*)?$/.test(path) ? ready : undefined;
    if (options.auth) {
      const socket = req.socket as TLSSocket;
      const decision = await options.auth.check({
        method,
        path,
        headers: req.headers,
        verifiedCertificate: socket.authorized ? (socket.getPeerX509Certificate?.() ?? undefined) : undefined,
      });
      if (!decision.allowed) return json(res, decision.status, decision.body);
    }
    if (method !== 'GET' && method !== 'HEAD') return text(res, 405, 'Method Not Allowed\n');
    if (health) return health() ? text(res, 200, 'ok') : text(res, 500, '[-]manager failed: not running\nhealthz check failed\n');
    if (path !== '/metrics') return text(res, 404, '404 page not found\n');
    text(res, 200, await options.metrics.metricsText(), options.metrics.contentType);
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
    server.listen(options.port, host, () => {
      server.off('error', reject);
      // Once serving, a socket-level error is reported: it must not end the process.
      server.on('error', options.onError ?? ((err) => console.error('metrics server:', err)));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Options of serveManagerMetrics: where and how to serve, and the delegation's tuning. */
export type ManagerMetricsOptions = Omit<MetricsServerOptions, 'metrics' | 'healthy' | 'ready' | 'auth'> & {
  /** Tuning of the delegated authentication and authorization (their client is the manager's). */
  delegation?: Omit<DelegatedAuthOptions, 'client' | 'clock'>;
};

/**
 * Serves a manager's metrics (/metrics) and health (/healthz, /livez; /readyz once its caches
 * synced) with delegated authentication and authorization through the manager's own client, as
 * controller-runtime's `WithAuthenticationAndAuthorization` filter: the manager's identity needs
 * `create` on tokenreviews and subjectaccessreviews (the ClusterRole system:auth-delegator), and
 * readers need `get` on the non-resource URL /metrics.
 */
export function serveManagerMetrics(manager: Manager, options: ManagerMetricsOptions): Promise<MetricsServer> {
  const { delegation, ...serving } = options;
  return serveMetrics({
    ...serving,
    metrics: manager.metrics,
    healthy: () => manager.healthy(),
    ready: () => manager.ready(),
    auth: createDelegatedAuth({ ...delegation, client: manager.client, clock: manager.clock }),
  });
}
