/**
 * Who a request is, once authentication ran: the identity of requests from trusted in-process
 * code, and the anonymous identity.
 */
import type { RawRequest, UserInfo } from '@kplane/api';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, MASTERS_GROUP, UNAUTHENTICATED_GROUP } from './types.js';

/**
 * The identity of a request that reaches the handler in-process without `user`: the control
 * plane's own code (as kube-apiserver's loopback client, `system:apiserver` in `system:masters`).
 * The HTTPS server always sets `user`, so no client can be taken for it.
 */
export const IN_PROCESS_ADMIN: UserInfo = Object.freeze({
  username: 'system:apiserver',
  uid: 'kplane-in-process',
  groups: Object.freeze([MASTERS_GROUP, AUTHENTICATED_GROUP]),
});

/** The identity of a request without credentials. */
export const ANONYMOUS: UserInfo = Object.freeze({ username: ANONYMOUS_USER, groups: Object.freeze([UNAUTHENTICATED_GROUP]) });

/** Who sends a request: its `user`, or the in-process admin when it has none (trusted in-process code). */
export function requestUser(req: RawRequest): UserInfo {
  return req.user ?? IN_PROCESS_ADMIN;
}

/** Is this the anonymous identity? */
export function isAnonymous(user: UserInfo): boolean {
  return user.username === ANONYMOUS_USER;
}

export { serviceAccountUser } from '@kplane/api';
