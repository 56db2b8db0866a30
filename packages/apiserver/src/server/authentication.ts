/**
 * The authentication.k8s.io API and ServiceAccount token issuing: TokenReview and
 * SelfSubjectReview (review resources), TokenRequest (POST serviceaccounts/NAME/token), and the
 * OIDC discovery documents of the ServiceAccount issuer.
 */
import type { KubeObject, RawResponse, UserInfo } from '@kplane/api';
import { ApiError, badRequest, conflict, fieldInvalid, invalid, notFound, rfc3339 } from '@kplane/api';
import type { RequestAuthenticator } from '../auth/authenticator.js';
import { jwks, type ServiceAccountKeys } from '../auth/keys.js';
import { signBoundToken, type BoundRef, type ObjectLookup } from '../auth/serviceaccount.js';
import type { ReviewDefinition } from './reviews.js';

const GROUP = 'authentication.k8s.io';

/** How ServiceAccount tokens are issued and checked. */
export interface ServiceAccountIssuing {
  /** The keys (a function: they are read where tokens are signed). */
  keys(): ServiceAccountKeys;
  /** The issuer tokens are signed with (the first `--service-account-issuer`). */
  issuer: string;
  /** The API server's audiences (`--api-audiences`), the default audiences of a token. */
  apiAudiences: readonly string[];
  /** Longest expirationSeconds granted (`--service-account-max-token-expiration`); 0: no limit. */
  maxExpirationSeconds: number;
  lookup: ObjectLookup;
  now(): Date;
}

/** A UserInfo as authentication.k8s.io/v1 writes it (empty fields left out). */
export function userInfoObject(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}

/** TokenReview: is spec.token valid for spec.audiences (none: the API server's), and whose is it? */
export function tokenReview(authenticator: () => RequestAuthenticator): ReviewDefinition {
  return {
    group: GROUP,
    version: 'v1',
    resource: 'tokenreviews',
    kind: 'TokenReview',
    schemaName: 'io.k8s.api.authentication.v1.TokenReview',
    async review(obj) {
      if (obj.metadata?.namespace) throw badRequest('namespace is not allowed on this type');
      const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
      if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
      const r = await authenticator().reviewToken(spec.token, spec.audiences ?? []);
      const status: Record<string, unknown> = r.authenticated
        ? { authenticated: true, user: userInfoObject(r.user), ...(r.audiences.length ? { audiences: [...r.audiences] } : {}) }
        : { user: {}, error: r.error };
      return { ...obj, status };
    },
  };
}

/** SelfSubjectReview (`kubectl auth whoami`): the requester's own identity. */
export function selfSubjectReview(now: () => Date): ReviewDefinition {
  return {
    group: GROUP,
    version: 'v1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    schemaName: 'io.k8s.api.authentication.v1.SelfSubjectReview',
    review(obj, ctx) {
      return { ...obj, metadata: { ...obj.metadata, creationTimestamp: rfc3339(now()) }, status: { userInfo: userInfoObject(ctx.user) } };
    },
  };
}

/** Shortest and longest expirationSeconds of a TokenRequest (validation). */
const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;
/** expirationSeconds when the request gives none. */
export const DEFAULT_EXPIRATION = 3600;

/**
 * POST serviceaccounts/NAME/token: issues a bound token for the ServiceAccount, as
 * kube-apiserver's TokenREST: name and namespace of the body must match the path's,
 * expirationSeconds defaults to 3600 and must be at least 600 (422), is shortened to the
 * server's maximum (with a warning); audiences default to the API server's; a bound Pod, Secret
 * or Node must exist (a Pod must run as this ServiceAccount) and match the uid given (409).
 */
export async function issueTokenRequest(issuing: ServiceAccountIssuing, namespace: string, name: string, body: KubeObject, warnings: string[]): Promise<KubeObject> {
  const req = structuredClone(body);
  req.metadata ??= {};
  if (req.metadata.name && req.metadata.name !== name) {
    throw invalid(GROUP, 'TokenRequest', name, [fieldInvalid('metadata.name', req.metadata.name, 'must match the service account name if specified')]);
  }
  if (req.metadata.namespace && req.metadata.namespace !== namespace) {
    throw invalid(GROUP, 'TokenRequest', name, [fieldInvalid('metadata.namespace', req.metadata.namespace, 'must match the service account namespace if specified')]);
  }
  const account = await issuing.lookup('serviceaccounts', namespace, name);
  if (!account) throw notFound('', 'serviceaccounts', name);
  const spec = (req.spec ?? {}) as { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string } };
  req.spec = spec;
  if (spec.boundObjectRef === null) delete spec.boundObjectRef;
  if (!spec.audiences?.length) spec.audiences = [...issuing.apiAudiences];
  spec.expirationSeconds ??= DEFAULT_EXPIRATION;
  req.metadata.name = name;
  req.metadata.namespace = namespace;
  const now = issuing.now();
  req.metadata.creationTimestamp = rfc3339(now);
  delete req.status;
  const exp = spec.expirationSeconds;
  if (exp < MIN_EXPIRATION) throw invalid(GROUP, 'TokenRequest', '', [fieldInvalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes')]);
  if (exp > MAX_EXPIRATION) throw invalid(GROUP, 'TokenRequest', '', [fieldInvalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds')]);

  let pod: BoundRef | undefined;
  let secret: BoundRef | undefined;
  let node: BoundRef | undefined;
  const ref = spec.boundObjectRef;
  if (ref) {
    const apiVersion = ref.apiVersion ?? '';
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1]! : apiVersion;
    const refName = ref.name ?? '';
    let uid: string | undefined;
    if (group === '' && ref.kind === 'Pod') {
      const p = await issuing.lookup('pods', namespace, refName);
      if (!p) throw notFound('', 'pods', refName);
      const podSpec = (p.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
      if (podSpec.serviceAccountName !== name) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      uid = p.metadata?.uid;
      pod = { name: refName, uid };
      if (podSpec.nodeName) {
        const n = await issuing.lookup('nodes', undefined, podSpec.nodeName);
        node = { name: podSpec.nodeName, uid: n?.metadata?.uid };
      }
    } else if (group === '' && ref.kind === 'Node') {
      const n = await issuing.lookup('nodes', undefined, refName);
      if (!n) throw notFound('', 'nodes', refName);
      uid = n.metadata?.uid;
      node = { name: refName, uid };
    } else if (group === '' && ref.kind === 'Secret') {
      const s = await issuing.lookup('secrets', namespace, refName);
      if (!s) throw notFound('', 'secrets', refName);
      uid = s.metadata?.uid;
      secret = { name: refName, uid };
    } else {
      throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
    }
    if (ref.uid && ref.uid !== uid) {
      throw conflict(group, ref.kind!, refName, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }
  if (issuing.maxExpirationSeconds > 0 && spec.expirationSeconds > issuing.maxExpirationSeconds) {
    warnings.push(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${issuing.maxExpirationSeconds} seconds`);
    spec.expirationSeconds = issuing.maxExpirationSeconds;
  }
  const { token } = await signBoundToken(
    issuing.keys(),
    issuing.issuer,
    {
      namespace,
      serviceAccount: { name, uid: String(account.metadata?.uid ?? '') },
      audiences: spec.audiences,
      expirationSeconds: spec.expirationSeconds,
      pod,
      secret,
      node,
    },
    now,
  );
  req.status = { token, expirationTimestamp: rfc3339(new Date(now.getTime() + spec.expirationSeconds * 1000)) };
  return req;
}

/**
 * The OIDC discovery documents of the ServiceAccount issuer: /.well-known/openid-configuration
 * and /openid/v1/jwks (GET only), as kube-apiserver serves them; the JWKS URI is the API
 * server's own (kube-apiserver's default without --service-account-jwks-uri).
 */
export function oidcDiscovery(issuing: Pick<ServiceAccountIssuing, 'keys' | 'issuer'>, serverUrl: () => string): Record<string, (method: string) => RawResponse> {
  const json = (body: unknown, contentType: string): RawResponse => ({
    status: 200,
    headers: { 'content-type': contentType, 'cache-control': 'public, max-age=3600' },
    body: Buffer.from(JSON.stringify(body)),
  });
  const onlyGet = (method: string) => {
    if (method !== 'GET' && method !== 'HEAD') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  };
  return {
    '/.well-known/openid-configuration': (method) => {
      onlyGet(method);
      const keys = issuing.keys();
      return json(
        {
          issuer: issuing.issuer,
          jwks_uri: `${serverUrl()}/openid/v1/jwks`,
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [...new Set(keys.publicKeys.map((k) => k.alg))],
        },
        'application/json',
      );
    },
    '/openid/v1/jwks': (method) => {
      onlyGet(method);
      return json(jwks(issuing.keys()), 'application/jwk-set+json');
    },
  };
}
