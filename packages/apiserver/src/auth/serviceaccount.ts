/**
 * ServiceAccount tokens: JWTs signed with jose, as kube-apiserver issues and checks them.
 *
 * Bound tokens (TokenRequest) carry iss, sub, aud, exp, iat, nbf, jti and the `kubernetes.io`
 * claim (namespace, serviceaccount name/uid, and the pod, secret or node they are bound to);
 * they are valid while unexpired and while the ServiceAccount (and the bound object) exists
 * with the uid in the token. Legacy tokens (the token controller's Secrets) have the issuer
 * `kubernetes/serviceaccount`, no expiry, and are valid while their Secret holds them and the
 * ServiceAccount exists with the uid in the token.
 */
import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { serviceAccountGroups, serviceAccountUsername, type KubeObject, type UserInfo } from '@kplane/api';
import type { ServiceAccountKeys } from './keys.js';
import { InvalidTokenError, intersectAudiences, type TokenAuthenticator } from './token.js';

let joseLib: Promise<typeof import('jose')> | undefined;
/** jose, imported on first use: a control plane that signs and reads no token does not load it. */
const jose = (): Promise<typeof import('jose')> => (joseLib ??= import('jose'));

/** The issuer of legacy (Secret-based) tokens. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

export { serviceAccountGroups, serviceAccountUsername } from '@kplane/api';

/** Reads an object the token is bound to; undefined when it does not exist. */
export type ObjectLookup = (resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes', namespace: string | undefined, name: string) => Promise<KubeObject | undefined>;

/** A reference to an object in a token's claims. */
export interface BoundRef {
  readonly name: string;
  readonly uid?: string;
}

/** What a bound token is made of. */
export interface BoundTokenClaims {
  readonly namespace: string;
  readonly serviceAccount: Required<BoundRef>;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly pod?: BoundRef;
  readonly secret?: BoundRef;
  readonly node?: BoundRef;
}

/** Signs a bound token issued at `now`; returns it with its expiry. */
export async function signBoundToken(keys: ServiceAccountKeys, issuer: string, claims: BoundTokenClaims, now: Date): Promise<{ token: string; expiration: Date; jti: string }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + claims.expirationSeconds;
  const jti = randomUUID();
  const ref = (r: BoundRef | undefined) => (r ? { name: r.name, uid: r.uid ?? '' } : undefined);
  const k8s: Record<string, unknown> = { namespace: claims.namespace };
  if (claims.node) k8s.node = ref(claims.node);
  if (claims.pod) k8s.pod = ref(claims.pod);
  if (claims.secret) k8s.secret = ref(claims.secret);
  k8s.serviceaccount = { name: claims.serviceAccount.name, uid: claims.serviceAccount.uid };
  const { SignJWT } = await jose();
  const token = await new SignJWT({ 'kubernetes.io': k8s })
    .setProtectedHeader({ alg: keys.signingAlg, kid: keys.signingKid })
    .setIssuer(issuer)
    .setSubject(serviceAccountUsername(claims.namespace, claims.serviceAccount.name))
    .setAudience([...claims.audiences])
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(keys.signingKey);
  return { token, expiration: new Date(exp * 1000), jti };
}

/** Signs a legacy token for a `kubernetes.io/service-account-token` Secret (no expiry). */
export async function signLegacyToken(keys: ServiceAccountKeys, claims: { namespace: string; secretName: string; serviceAccount: Required<BoundRef> }): Promise<string> {
  const { SignJWT } = await jose();
  return new SignJWT({
    'kubernetes.io/serviceaccount/namespace': claims.namespace,
    'kubernetes.io/serviceaccount/secret.name': claims.secretName,
    'kubernetes.io/serviceaccount/service-account.name': claims.serviceAccount.name,
    'kubernetes.io/serviceaccount/service-account.uid': claims.serviceAccount.uid,
  })
    .setProtectedHeader({ alg: keys.signingAlg, kid: keys.signingKid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(claims.namespace, claims.serviceAccount.name))
    .sign(keys.signingKey);
}

/** Options of serviceAccountTokenAuthenticator. */
export interface ServiceAccountAuthenticatorOptions {
  /** The keys (a function, so that keys can be replaced while serving). */
  keys(): ServiceAccountKeys;
  /** Issuers accepted for bound tokens (`--service-account-issuer`, all of them). */
  issuers: readonly string[];
  /** The API server's audiences (`--api-audiences`): the audiences asked when none are. */
  apiAudiences: readonly string[];
  lookup: ObjectLookup;
  now(): Date;
  /** Accept legacy Secret-based tokens (default true). */
  legacy?: boolean;
}

/** Go's %q of a string list: ["a" "b"]. */
function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

const invalidated = () => new InvalidTokenError('service account token has been invalidated');

/** A deleted object stays valid for tokens for 60 s after its deletionTimestamp, as in Kubernetes. */
function gone(obj: KubeObject | undefined, now: Date): boolean {
  const ts = obj?.metadata?.deletionTimestamp;
  return !obj || (typeof ts === 'string' && Date.parse(ts) < now.getTime() - 60_000);
}

type Claims = JWTPayload & Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Authenticates ServiceAccount tokens: tokens of other issuers (or that are not JWTs) are not
 * recognised; tokens of ours that are expired, badly signed, for other audiences or whose
 * ServiceAccount, bound object or Secret is gone or recreated are refused.
 */
export function serviceAccountTokenAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const legacy = options.legacy ?? true;
  return {
    async authenticateToken(token, audiences) {
      const { decodeJwt, decodeProtectedHeader } = await jose();
      let unverified: Claims;
      try {
        unverified = decodeJwt(token) as Claims;
        decodeProtectedHeader(token);
      } catch {
        return undefined;
      }
      const iss = unverified.iss;
      const isLegacy = iss === LEGACY_ISSUER;
      if (typeof iss !== 'string' || (!options.issuers.includes(iss) && !(legacy && isLegacy))) return undefined;
      const now = options.now();
      const claims = await verify(token, iss, now);
      const tokenAudiences = isLegacy || claims.aud === undefined ? [...options.apiAudiences] : typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
      const requested = audiences.length ? audiences : options.apiAudiences;
      const ok = intersectAudiences(requested, tokenAudiences);
      if (ok.length === 0 && options.apiAudiences.length !== 0) {
        throw new InvalidTokenError(`token audiences ${goQuotedList(tokenAudiences)} is invalid for the target audiences ${goQuotedList(requested)}`);
      }
      const user = isLegacy ? await validateLegacy(token, claims, now) : await validateBound(claims, now);
      return { user, audiences: ok };
    },
  };

  async function verify(token: string, iss: string, now: Date): Promise<Claims> {
    const { decodeProtectedHeader, errors: joseErrors, jwtVerify } = await jose();
    const header = decodeProtectedHeader(token);
    const keys = options.keys().publicKeys;
    const candidates = header.kid ? keys.filter((k) => k.kid === header.kid) : keys;
    for (const k of candidates) {
      try {
        const { payload } = await jwtVerify(token, k.key, { issuer: iss, currentDate: now, algorithms: [k.alg] });
        return payload as Claims;
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw new InvalidTokenError('service account token has expired');
        if (err instanceof joseErrors.JWTClaimValidationFailed) throw new InvalidTokenError(`service account token is not valid yet or malformed: ${err.message}`);
        // Another key may have signed it: try the next.
      }
    }
    throw new InvalidTokenError('square/go-jose: error in cryptographic primitive');
  }

  async function validateBound(claims: Claims, now: Date): Promise<UserInfo> {
    const k8s = (claims['kubernetes.io'] ?? {}) as Record<string, { name?: string; uid?: string } | string | undefined>;
    const namespace = str(k8s.namespace);
    const sa = k8s.serviceaccount as { name?: string; uid?: string } | undefined;
    if (!namespace || !sa?.name || typeof claims.exp !== 'number') throw new InvalidTokenError('service account token claims are missing or malformed');
    const account = await options.lookup('serviceaccounts', namespace, sa.name);
    if (gone(account, now)) throw invalidated();
    if (account!.metadata?.uid !== sa.uid) throw new InvalidTokenError(`service account UID (${account!.metadata?.uid}) does not match claim (${sa.uid})`);
    const extra: Record<string, string[]> = {};
    const pod = k8s.pod as { name?: string; uid?: string } | undefined;
    const secret = k8s.secret as { name?: string; uid?: string } | undefined;
    const node = k8s.node as { name?: string; uid?: string } | undefined;
    if (pod?.name) {
      const p = await options.lookup('pods', namespace, pod.name);
      if (gone(p, now)) throw invalidated();
      if (p!.metadata?.uid !== pod.uid) throw new InvalidTokenError(`pod UID (${p!.metadata?.uid}) does not match claim (${pod.uid})`);
      extra['authentication.kubernetes.io/pod-name'] = [pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [pod.uid ?? ''];
    } else if (secret?.name) {
      const s = await options.lookup('secrets', namespace, secret.name);
      if (gone(s, now)) throw invalidated();
      if (s!.metadata?.uid !== secret.uid) throw new InvalidTokenError(`secret UID (${s!.metadata?.uid}) does not match claim (${secret.uid})`);
    }
    if (node?.name) {
      if (!pod?.name) {
        // Bound to the node itself: it must still exist with that uid.
        const n = await options.lookup('nodes', undefined, node.name);
        if (gone(n, now)) throw invalidated();
        if (n!.metadata?.uid !== node.uid) throw new InvalidTokenError(`node UID (${n!.metadata?.uid}) does not match claim (${node.uid})`);
      }
      extra['authentication.kubernetes.io/node-name'] = [node.name];
      if (node.uid) extra['authentication.kubernetes.io/node-uid'] = [node.uid];
    }
    if (typeof claims.jti === 'string' && claims.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    return {
      username: serviceAccountUsername(namespace, sa.name),
      uid: sa.uid,
      groups: serviceAccountGroups(namespace),
      ...(Object.keys(extra).length ? { extra } : {}),
    };
  }

  async function validateLegacy(token: string, claims: Claims, now: Date): Promise<UserInfo> {
    const namespace = str(claims['kubernetes.io/serviceaccount/namespace']);
    const secretName = str(claims['kubernetes.io/serviceaccount/secret.name']);
    const name = str(claims['kubernetes.io/serviceaccount/service-account.name']);
    const uid = str(claims['kubernetes.io/serviceaccount/service-account.uid']);
    if (!namespace || !secretName || !name || !uid) throw new InvalidTokenError('service account token claims are missing or malformed');
    const secret = await options.lookup('secrets', namespace, secretName);
    if (gone(secret, now)) throw invalidated();
    const data = (secret!.data ?? {}) as Record<string, string>;
    if (Buffer.from(data.token ?? '', 'base64').toString('utf8') !== token) throw new InvalidTokenError("token does not match server's copy");
    const account = await options.lookup('serviceaccounts', namespace, name);
    if (gone(account, now)) throw invalidated();
    if (account!.metadata?.uid !== uid) throw new InvalidTokenError(`service account UID (${account!.metadata?.uid}) does not match claim (${uid})`);
    return { username: serviceAccountUsername(namespace, name), uid, groups: serviceAccountGroups(namespace) };
  }
}
