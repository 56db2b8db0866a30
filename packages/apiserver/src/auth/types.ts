/**
 * The contracts of authentication and authorization in the API server, as Kubernetes'
 * authenticator.Request and authorizer.Attributes: an Authenticator turns a request's
 * credentials into a UserInfo; an Authorizer decides on the attributes of a request.
 */
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '@kplane/api';

export type { UserInfo } from '@kplane/api';

/** Kubernetes' well-known users and groups (defined once, in @kplane/api). */
export { ANONYMOUS_USER, AUTHENTICATED_GROUP, MASTERS_GROUP, NODES_GROUP, SERVICE_ACCOUNTS_GROUP, UNAUTHENTICATED_GROUP } from '@kplane/api';

/** What an authenticator sees of a request. */
export interface AuthenticationRequest {
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The client certificate chain the TLS handshake verified against the client CA (leaf first), if any. */
  readonly verifiedChain?: readonly X509Certificate[];
  /** Set when the client sent a certificate that did not verify against the client CA (why). */
  readonly certificateError?: string;
}

/**
 * Turns credentials into an identity. Resolves undefined when the request carries none of the
 * credentials this authenticator reads; rejects with a 401 ApiError when it carries them and
 * they are invalid (an expired or revoked token).
 */
export interface Authenticator {
  authenticate(req: AuthenticationRequest): Promise<UserInfo | undefined>;
}

/** The attributes of a request that authorization decides on (authorizer.Attributes). */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  /**
   * get, list, watch, create, update, patch, delete, deletecollection for resources (the exact
   * routed verb); get, post, put, patch, delete, head for non-resource paths; and the special
   * verbs impersonate, escalate, bind, approve, sign, use.
   */
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** The request path, for non-resource requests (`/metrics`, `/healthz`). */
  readonly path?: string;
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The field selector of a list or watch, as sent (kube's AuthorizeWithSelectors). */
  readonly fieldSelector?: string;
}

/** An authorization decision; `reason` is shown to the user when refused (and in audit). */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** Decides whether a user may do what the attributes describe. */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
  /**
   * A key that stands for the user's decisions: the same object for as long as no decision on
   * the same attributes can change for this user (a new one afterwards), so a caller may
   * remember decisions under it (held weakly). `null`: this authorizer never has an opinion on
   * the user's requests; undefined (or no method): do not remember.
   */
  identity?(user: UserInfo): object | null | undefined;
}
