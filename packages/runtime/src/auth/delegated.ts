/**
 * Delegated authentication and authorization, as a Kubernetes component (kube-controller-manager,
 * a controller-runtime manager) guards its own HTTPS endpoints: a bearer token is checked with a
 * TokenReview against the API server, a client certificate signed by the client CA names the
 * user (CN) and groups (O), and the request is authorised with a SubjectAccessReview. Results
 * are cached for a short time on the injected clock, as the webhook authenticator and
 * authorizer cache them.
 */
import { createHash, type X509Certificate } from 'node:crypto';
import type { UserInfo } from '@kplane/api';
import type { Client } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';

/** Options of createDelegatedAuth. Durations in milliseconds. */
export interface DelegatedAuthOptions {
  /** A client of the API server, allowed to create tokenreviews and subjectaccessreviews. */
  client: Client;
  clock?: Clock;
  /** How long a TokenReview answer is reused (default 10 000, --authentication-token-webhook-cache-ttl). */
  authenticationCacheTtlMs?: number;
  /** How long an allowed SubjectAccessReview answer is reused (default 10 000). */
  authorizedCacheTtlMs?: number;
  /** How long a denied SubjectAccessReview answer is reused (default 10 000). */
  unauthorizedCacheTtlMs?: number;
  /** Audiences the token must be for (default: the API server's). */
  audiences?: string[];
  /** Paths served to anyone, unauthenticated (default /healthz, /readyz, /livez and below). */
  alwaysAllowPaths?: string[];
  /** Groups allowed everything without a SubjectAccessReview (default ["system:masters"]). */
  alwaysAllowGroups?: string[];
  /** Treat a request with no credentials as system:anonymous (default true, as kube); false: 401. */
  anonymous?: boolean;
}

/** What the server knows of a request: its headers and, if any, its verified client certificate. */
export interface DelegatedRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client certificate, when the TLS handshake verified it against the client CA. */
  verifiedCertificate?: X509Certificate;
}

/** The outcome of a check: allowed (with the user, if any) or a Status to answer with. */
export type DelegatedDecision =
  | { allowed: true; user?: UserInfo }
  | { allowed: false; status: 401 | 403 | 500; body: Record<string, unknown> };

/** Delegated authentication and authorization. */
export interface DelegatedAuth {
  /** Who makes the request: undefined when it carries no credentials; throws Unauthorized when they are refused. */
  authenticate(req: DelegatedRequest): Promise<UserInfo | undefined>;
  /** May `user` do `verb` on the non-resource `path`? */
  authorize(user: UserInfo, verb: string, path: string): Promise<{ allowed: boolean; reason: string }>;
  /** Authenticates and authorises a request, as kube's filter chain does. */
  check(req: DelegatedRequest): Promise<DelegatedDecision>;
}

const status = (code: number, reason: string, message: string, details?: Record<string, unknown>) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  ...(details ? { details } : {}),
  code,
});

/** Thrown by authenticate when the credentials are refused. */
export class UnauthorizedError extends Error {
  constructor() {
    super('Unauthorized');
  }
}

/** The user of a client certificate: CN is the name, each O a group (kube's x509 authenticator). */
export function certificateUser(cert: X509Certificate): UserInfo | undefined {
  const fields = cert.subject.split('\n');
  const cn = fields.find((f) => f.startsWith('CN='))?.slice(3);
  if (!cn) return undefined;
  const groups = fields.filter((f) => f.startsWith('O=')).map((f) => f.slice(2));
  return { username: cn, groups: [...groups, 'system:authenticated'] };
}

/** A small cache with per-entry expiry on the clock, bounded in size (oldest evicted first). */
function ttlCache<V>(clock: Clock, max = 4096) {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    get(key: string): V | undefined {
      const e = entries.get(key);
      if (!e) return undefined;
      if (clock.now() >= e.until) {
        entries.delete(key);
        return undefined;
      }
      return e.value;
    },
    set(key: string, value: V, ttlMs: number): void {
      if (ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, until: clock.now() + ttlMs });
      if (entries.size > max) entries.delete(entries.keys().next().value!);
    },
  };
}

const DEFAULT_ALWAYS_ALLOW = ['/healthz', '/readyz', '/livez'];

/** Does a path match a list entry ("/healthz" matches itself and below; "/x/*" a prefix)? */
function pathListed(list: readonly string[], path: string): boolean {
  return list.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p || path.startsWith(`${p}/`)));
}

/** Creates the delegated authenticator and authorizer of a component's HTTPS endpoints. */
export function createDelegatedAuth(options: DelegatedAuthOptions): DelegatedAuth {
  const clock = options.clock ?? realClock;
  const authnTtl = options.authenticationCacheTtlMs ?? 10_000;
  const allowTtl = options.authorizedCacheTtlMs ?? 10_000;
  const denyTtl = options.unauthorizedCacheTtlMs ?? 10_000;
  const alwaysAllowPaths = options.alwaysAllowPaths ?? DEFAULT_ALWAYS_ALLOW;
  const alwaysAllowGroups = options.alwaysAllowGroups ?? ['system:masters'];
  const anonymous = options.anonymous ?? true;
  const tokens = ttlCache<UserInfo | null>(clock);
  const decisions = ttlCache<{ allowed: boolean; reason: string }>(clock);

  async function reviewToken(token: string): Promise<UserInfo | undefined> {
    const key = createHash('sha256').update(token).digest('hex');
    const cached = tokens.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const review = await options.client.request<{ status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(options.audiences ? { audiences: options.audiences } : {}) } },
    });
    const u = review.status?.authenticated ? review.status.user : undefined;
    const user: UserInfo | null = u?.username ? { username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups ?? [], ...(u.extra ? { extra: u.extra } : {}) } : null;
    tokens.set(key, user, authnTtl);
    return user ?? undefined;
  }

  const auth: DelegatedAuth = {
    async authenticate(req) {
      const header = req.headers.authorization;
      const value = Array.isArray(header) ? header[0] : header;
      if (value && /^bearer\s+/i.test(value)) {
        const token = value.replace(/^bearer\s+/i, '').trim();
        if (!token) throw new UnauthorizedError();
        let user: UserInfo | undefined;
        try {
          user = await reviewToken(token);
        } catch {
          throw new UnauthorizedError(); // the API server could not say: refuse, as kube does
        }
        if (!user) throw new UnauthorizedError();
        return user;
      }
      if (req.verifiedCertificate) return certificateUser(req.verifiedCertificate);
      return undefined;
    },
    async authorize(user, verb, path) {
      if (user.groups.some((g) => alwaysAllowGroups.includes(g))) return { allowed: true, reason: '' };
      const key = JSON.stringify([user.username, user.uid ?? '', [...user.groups].sort(), user.extra ?? {}, verb, path]);
      const cached = decisions.get(key);
      if (cached) return cached;
      const review = await options.client.request<{ status?: { allowed?: boolean; denied?: boolean; reason?: string } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: [...user.groups], ...(user.extra ? { extra: user.extra } : {}), nonResourceAttributes: { path, verb } },
        },
      });
      const decision = { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
      decisions.set(key, decision, decision.allowed ? allowTtl : denyTtl);
      return decision;
    },
    async check(req) {
      if (pathListed(alwaysAllowPaths, req.path)) return { allowed: true };
      let user: UserInfo | undefined;
      try {
        user = await auth.authenticate(req);
      } catch (err) {
        if (err instanceof UnauthorizedError) return { allowed: false, status: 401, body: status(401, 'Unauthorized', 'Unauthorized') };
        throw err;
      }
      if (!user) {
        if (!anonymous) return { allowed: false, status: 401, body: status(401, 'Unauthorized', 'Unauthorized') };
        user = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
      }
      const verb = nonResourceVerb(req.method);
      let decision: { allowed: boolean; reason: string };
      try {
        decision = await auth.authorize(user, verb, req.path);
      } catch (err) {
        return { allowed: false, status: 500, body: status(500, 'InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`, { causes: [{ message: err instanceof Error ? err.message : String(err) }] }) };
      }
      if (decision.allowed) return { allowed: true, user };
      const msg = `User "${user.username}" cannot ${verb} path "${req.path}"`;
      return { allowed: false, status: 403, body: status(403, 'Forbidden', `forbidden: ${decision.reason ? `${msg}: ${decision.reason}` : msg}`, {}) };
    },
  };
  return auth;
}

/** The verb of a non-resource request (kube's RequestInfo: the lower-cased method, GET → get). */
export function nonResourceVerb(method: string): string {
  return method.toLowerCase();
}
