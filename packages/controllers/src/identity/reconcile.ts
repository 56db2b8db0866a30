/**
 * Creating and reconciling the controllers' ServiceAccounts, ClusterRoles and
 * ClusterRoleBindings at start, and the clients that act as those accounts.
 */
import { ApiError, serviceAccountUser, transportAs, type KubeObject, type Transport } from '@kplane/api';
import { createClient, type Client, type ClientOptions } from '@kplane/client';
import { ClusterRoleBindings, ClusterRoles, ServiceAccounts } from '@kplane/runtime';
import {
  AUTOUPDATE_ANNOTATION,
  CONTROLLER_ACCOUNT_NAMESPACE,
  controllerClusterRole,
  controllerClusterRoleBinding,
  type ControllerIdentity,
} from './policy.js';

/** A ServiceAccount a controller acts as, with the uid it has now. */
export interface ServiceAccountRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
}

/** Builds the client a controller uses to act as its ServiceAccount. */
export type ServiceAccountClientFactory = (account: ServiceAccountRef) => Client | Promise<Client>;

const is = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

/** Reads the object, or creates it when missing (read first: at a restart they all exist, and a read costs less than a refused create). */
async function createOrGet<T extends KubeObject>(create: () => Promise<T>, get: () => Promise<T>): Promise<{ obj: T; created: boolean }> {
  try {
    return { obj: await get(), created: false };
  } catch (err) {
    if (!is(err, 404)) throw err;
  }
  try {
    return { obj: await create(), created: true };
  } catch (err) {
    if (!is(err, 409)) throw err;
    return { obj: await get(), created: false };
  }
}

/** Runs a read-modify-write again when another writer (a second controller manager) got there first. */
async function retryConflicts(fn: () => Promise<void>, attempts = 5): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !(is(err, 409) || is(err, 404))) throw err;
    }
  }
}

const json = (x: unknown): string => JSON.stringify(x ?? null);

type RbacObject = KubeObject & { rules?: unknown[]; subjects?: unknown[]; roleRef?: unknown };

/**
 * Creates a ClusterRole, or reconciles an existing one as kube-apiserver reconciles its
 * bootstrap roles: unless its autoupdate annotation is "false", rules it lacks are added (rules
 * an administrator added are kept).
 */
export async function ensureClusterRole(client: Client, role: KubeObject): Promise<void> {
  await retryConflicts(() => reconcileClusterRole(client, role));
}

async function reconcileClusterRole(client: Client, role: KubeObject): Promise<void> {
  const api = client.resource<RbacObject>(ClusterRoles);
  const want = role as RbacObject;
  const { obj, created } = await createOrGet(() => api.create(structuredClone(want)), () => api.get(want.metadata!.name!));
  if (created || obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
  const have = (obj.rules ?? []).map(json);
  const missing = (want.rules ?? []).filter((r) => !have.includes(json(r)));
  if (missing.length) await api.update({ ...obj, rules: [...(obj.rules ?? []), ...missing] });
}

/**
 * Creates a ClusterRoleBinding, or reconciles an existing one: unless its autoupdate annotation
 * is "false", subjects it lacks are added; a binding to another role is replaced.
 */
export async function ensureClusterRoleBinding(client: Client, binding: KubeObject): Promise<void> {
  await retryConflicts(() => reconcileClusterRoleBinding(client, binding));
}

async function reconcileClusterRoleBinding(client: Client, binding: KubeObject): Promise<void> {
  const api = client.resource<RbacObject>(ClusterRoleBindings);
  const want = binding as RbacObject;
  const name = want.metadata!.name!;
  const { obj, created } = await createOrGet(() => api.create(structuredClone(want)), () => api.get(name));
  if (created || obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
  if (json(obj.roleRef) !== json(want.roleRef)) {
    await api.delete(name, { preconditions: { uid: obj.metadata!.uid! } });
    await api.create(structuredClone(want));
    return;
  }
  const key = (s: unknown) => {
    const x = s as { kind?: string; name?: string; namespace?: string };
    return `${x.kind}/${x.namespace ?? ''}/${x.name}`;
  };
  const have = (obj.subjects ?? []).map(key);
  const missing = (want.subjects ?? []).filter((x) => !have.includes(key(x)));
  if (missing.length) await api.update({ ...obj, subjects: [...(obj.subjects ?? []), ...missing] });
}

/**
 * Ensures a controller's ServiceAccount, ClusterRole and ClusterRoleBinding exist, as
 * kube-apiserver's bootstrap policy and the controller manager's account builder do (missing
 * objects created, roles and bindings reconciled). A client refused the roles (403: the
 * controller manager's own identity) leaves them to the API server. Returns the account (with
 * its uid).
 */
export async function ensureControllerIdentity(client: Client, id: ControllerIdentity): Promise<ServiceAccountRef> {
  const ns = CONTROLLER_ACCOUNT_NAMESPACE;
  const sas = client.resource(ServiceAccounts);
  const { obj: sa } = await createOrGet(
    () => sas.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: id.account, namespace: ns } }, { namespace: ns }),
    () => sas.get(id.account, { namespace: ns }),
  );
  try {
    await ensureClusterRole(client, controllerClusterRole(id) as KubeObject);
    await ensureClusterRoleBinding(client, controllerClusterRoleBinding(id) as KubeObject);
  } catch (err) {
    // A controller manager acting as system:kube-controller-manager may not read or write
    // roles: as in Kubernetes, the API server's bootstrap policy holds them.
    if (!is(err, 403)) throw err;
  }
  return { namespace: ns, name: id.account, uid: sa.metadata?.uid };
}

/**
 * The controllers' ServiceAccounts that exist now (name → uid), read with one list; undefined
 * when the list fails (each account is then ensured on its own).
 */
export async function existingAccounts(client: Client): Promise<Map<string, string> | undefined> {
  try {
    const list = await client.resource(ServiceAccounts).list({ namespace: CONTROLLER_ACCOUNT_NAMESPACE });
    return new Map(list.items.flatMap((sa) => (sa.metadata?.name && sa.metadata.uid ? [[sa.metadata.name, sa.metadata.uid] as const] : [])));
  } catch {
    return undefined;
  }
}

/**
 * The client factory of an in-process controller manager: each account's client calls
 * `transport` (the API server's handler) as that account.
 */
export function inProcessServiceAccountClients(transport: Transport, options: Omit<ClientOptions, 'transport'> = {}): ServiceAccountClientFactory {
  return (account) => createClient({ ...options, transport: transportAs(transport, serviceAccountUser(account.namespace, account.name, account.uid)) });
}
