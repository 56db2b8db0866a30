/**
 * Bearer-token authentication, as kube-apiserver's token authenticators: each one recognises
 * its own tokens (undefined for others) and says which audiences a token is good for.
 */
import type { UserInfo } from '@kplane/api';

/** What a token authenticator answers for a token it recognises. */
export interface TokenResult {
  readonly user: UserInfo;
  /** The audiences (of those asked) the token is valid for. */
  readonly audiences: readonly string[];
}

/**
 * Checks bearer tokens. Resolves undefined for a token it does not recognise; rejects with an
 * Error (its message is TokenReview's status.error) for one it recognises as invalid (expired,
 * revoked, signed by an unknown key, for other audiences).
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences: readonly string[]): Promise<TokenResult | undefined>;
}

/** An error for a token that is not valid; its message is shown in TokenReview's status.error. */
export class InvalidTokenError extends Error {}

/** The audiences both lists hold, in the order of `wanted`. */
export function intersectAudiences(wanted: readonly string[], have: readonly string[]): string[] {
  return wanted.filter((a) => have.includes(a));
}

/**
 * Makes an audience-unaware authenticator (static tokens) audience-aware as kube-apiserver does:
 * its tokens are good for the API server's own audiences only (asked for others, it does not
 * know them).
 */
export function withImplicitAudiences(apiAudiences: readonly string[], lookup: (token: string) => UserInfo | undefined): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences) {
      const user = lookup(token);
      if (!user) return undefined;
      const wanted = audiences.length ? audiences : apiAudiences;
      const ok = apiAudiences.length === 0 ? [...wanted] : intersectAudiences(wanted, apiAudiences);
      // A token for none of the API server's audiences is not this authenticator's.
      if (wanted.length && apiAudiences.length && ok.length === 0) return undefined;
      return { user, audiences: ok };
    },
  };
}
