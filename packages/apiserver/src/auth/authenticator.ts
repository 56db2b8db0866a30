/**
 * The request authenticator: a union of client certificates and bearer tokens, as
 * kube-apiserver's (x509 first, then the token authenticators in order). Every identity it
 * returns is in `system:authenticated`.
 */
import type { X509Certificate } from 'node:crypto';
import { unauthorized, type UserInfo } from '@kplane/api';
import { AUTHENTICATED_GROUP, type AuthenticationRequest, type Authenticator } from './types.js';
import type { TokenAuthenticator } from './token.js';
import { x509 } from './peculiar.js';

/** The identity of a client certificate: CN is the user name, each O a group. */
export function certificateUser(cert: X509Certificate): UserInfo {
  const parsed = new x509.X509Certificate(cert.raw);
  const cn = parsed.subjectName.getField('CN')[0] ?? '';
  if (cn === '') throw new Error('common name of the provided certificate is empty');
  return { username: cn, groups: parsed.subjectName.getField('O') };
}

/** The outcome of checking a token (TokenReview). */
export type TokenReviewResult = { authenticated: true; user: UserInfo; audiences: readonly string[] } | { authenticated: false; error: string };

/** The request authenticator, which also reviews bare tokens (TokenReview). */
export interface RequestAuthenticator extends Authenticator {
  /** Checks a token for audiences (none: the API server's), as TokenReview does. */
  reviewToken(token: string, audiences: readonly string[]): Promise<TokenReviewResult>;
}

/** Options of createRequestAuthenticator. */
export interface RequestAuthenticatorOptions {
  /** Token authenticators, tried in order (static token file, then ServiceAccount tokens). */
  tokens: readonly TokenAuthenticator[];
}

/** Adds system:authenticated to an identity's groups (once). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/** The bearer token of an Authorization header, if any (`Bearer <token>`, any case). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

/**
 * Creates the request authenticator: a verified client certificate (CN, O) wins; otherwise the
 * bearer token is tried with each token authenticator. No credentials: undefined (anonymous).
 * Credentials that none accepts (an unknown or revoked token, a certificate another CA signed):
 * a 401 ApiError, as kube-apiserver answers even on public paths.
 */
export function createRequestAuthenticator(options: RequestAuthenticatorOptions): RequestAuthenticator {
  const certUsers = new WeakMap<X509Certificate, UserInfo | Error>();

  async function reviewToken(token: string, audiences: readonly string[]): Promise<TokenReviewResult> {
    const errors: string[] = [];
    for (const a of options.tokens) {
      try {
        const r = await a.authenticateToken(token, audiences);
        if (r) return { authenticated: true, user: withAuthenticatedGroup(r.user), audiences: r.audiences };
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    return { authenticated: false, error: errors.length ? `[invalid bearer token, ${errors.join(', ')}]` : 'invalid bearer token' };
  }

  return {
    reviewToken,
    async authenticate(req: AuthenticationRequest) {
      let failed = false;
      const leaf = req.verifiedChain?.[0];
      if (leaf) {
        let u = certUsers.get(leaf);
        if (!u) {
          try {
            // Kept with system:authenticated added: the same identity object for every request
            // of the certificate (the authorizer remembers decisions under it).
            u = withAuthenticatedGroup(certificateUser(leaf));
          } catch (err) {
            u = err as Error;
          }
          certUsers.set(leaf, u);
        }
        if (!(u instanceof Error)) return u;
        failed = true;
      }
      if (req.certificateError) failed = true;
      const token = bearerToken(req.headers.authorization);
      if (token !== undefined) {
        const r = await reviewToken(token, []);
        if (r.authenticated) return r.user;
        failed = true;
      }
      if (failed) throw unauthorized();
      return undefined;
    },
  };
}
