/**
 * Service account credentials over HTTPS: a controller manager in its own process gets each
 * controller's token from the TokenRequest API (serviceaccounts/<name>/token) and sends it as a
 * bearer token, renewing it before it expires — kube-controller-manager's
 * --use-service-account-credentials.
 */
import { createClient, createHttpsTransport, type Client, type HttpsTransport, type HttpsTransportOptions } from '@kplane/client';
import { realClock, type Clock } from '@kplane/runtime';
import type { ServiceAccountClientFactory, ServiceAccountRef } from './reconcile.js';

/** Options of serviceAccountTokenSource. */
export interface TokenSourceOptions {
  /** Lifetime asked for (default 3600 s, as kube-controller-manager). */
  expirationSeconds?: number;
  clock?: Clock;
}

/** A bearer token of a ServiceAccount, fetched again once 80 % of its lifetime has passed. */
export interface TokenSource {
  token(): Promise<string>;
}

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/**
 * Fetches tokens for `account` through `root` (which may create serviceaccounts/token), one
 * request at a time, reusing a token until 80 % of its lifetime (on the clock) has passed.
 */
export function serviceAccountTokenSource(root: Client, account: ServiceAccountRef, options: TokenSourceOptions = {}): TokenSource {
  const clock = options.clock ?? realClock;
  const expirationSeconds = options.expirationSeconds ?? 3600;
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const asked = clock.now();
    const answer = await root.request<TokenRequestStatus>({
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(account.namespace)}/serviceaccounts/${encodeURIComponent(account.name)}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
    });
    const token = answer.status?.token;
    if (!token) throw new Error(`no token in the TokenRequest answer for ${account.namespace}/${account.name}`);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '');
    // The lifetime asked for, unless the server granted clearly less (its expirationTimestamp is
    // wall-clock time with second precision, so only a real shortening counts).
    const askedMs = expirationSeconds * 1000;
    const granted = Number.isFinite(expires) ? expires - Date.now() : askedMs;
    const lifetimeMs = granted < 0.9 * askedMs ? Math.max(0, granted) : askedMs;
    current = { token, renewAt: asked + lifetimeMs * 0.8 };
    return token;
  };
  return {
    token() {
      if (current && clock.now() < current.renewAt) return Promise.resolve(current.token);
      pending ??= fetchToken().finally(() => (pending = undefined));
      return pending;
    },
  };
}

/**
 * The client factory of a controller manager reaching the API server over HTTPS: each account's
 * client talks to the same server, trusting the same CA, but presents only its own bearer token
 * (never the controller manager's client certificate or token).
 */
export function tokenRequestServiceAccountClients(
  root: Client,
  server: HttpsTransportOptions,
  options: TokenSourceOptions & { userAgent?: string } = {},
): ServiceAccountClientFactory & { close(): void } {
  const transports: HttpsTransport[] = [];
  const factory = (account: ServiceAccountRef): Client => {
    const { cert: _c, key: _k, token: _t, tokenFile: _f, username: _u, password: _p, ...connection } = server;
    const https = createHttpsTransport({ ...connection, userAgent: options.userAgent ? `${options.userAgent}/${account.name}` : undefined });
    transports.push(https);
    const source = serviceAccountTokenSource(root, account, options);
    return createClient({
      transport: async (req) => https({ ...req, headers: { ...req.headers, authorization: `Bearer ${await source.token()}` } }),
    });
  };
  return Object.assign(factory, { close: () => transports.forEach((t) => t.close()) });
}
