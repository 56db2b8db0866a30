/**
 * Kubernetes' well-known identities, shared by the API server, the controllers, the simulated
 * nodes and the SDK: the user names and groups of ServiceAccounts and nodes, and a transport
 * that acts as a given user in-process.
 */
import type { Transport, UserInfo } from './transport.js';

/** The user of requests without credentials. */
export const ANONYMOUS_USER = 'system:anonymous';
/** The group of requests without credentials. */
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
/** The group of every authenticated user. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** The group allowed everything (kube-apiserver's privileged group). */
export const MASTERS_GROUP = 'system:masters';
/** The group of every ServiceAccount. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
/** The group of every node (kubelet) identity. */
export const NODES_GROUP = 'system:nodes';

const SA_PREFIX = 'system:serviceaccount:';
const NODE_PREFIX = 'system:node:';

/** The user name of a ServiceAccount: `system:serviceaccount:NS:NAME`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/** Splits `system:serviceaccount:NS:NAME`; undefined for any other user name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** The groups a ServiceAccount's token names (system:authenticated is added by authentication). */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/**
 * The identity a ServiceAccount authenticates as: `system:serviceaccount:NS:NAME` in
 * system:serviceaccounts, system:serviceaccounts:NS and system:authenticated.
 */
export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
  return {
    username: serviceAccountUsername(namespace, name),
    ...(uid ? { uid } : {}),
    groups: [...serviceAccountGroups(namespace), AUTHENTICATED_GROUP],
  };
}

/** The user name of a node's kubelet: `system:node:NAME`. */
export function nodeUsername(nodeName: string): string {
  return `${NODE_PREFIX}${nodeName}`;
}

/** The identity a node's kubelet authenticates as: `system:node:NAME` in system:nodes and system:authenticated. */
export function nodeUser(nodeName: string): UserInfo {
  return { username: nodeUsername(nodeName), groups: [NODES_GROUP, AUTHENTICATED_GROUP] };
}

/**
 * kube's node identifier: a user is a node when it is in `system:nodes` and its name starts
 * with `system:node:`; the name after the prefix is the node's ('' when missing). Undefined for
 * any other user.
 */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_PREFIX.length);
}

/**
 * A transport that sends every request as `user`: in-process, the API server trusts
 * `RawRequest.user` (over HTTPS the server sets it from the credentials and ignores the field).
 */
export function transportAs(transport: Transport, user: UserInfo): Transport {
  return (req) => transport({ ...req, user });
}
