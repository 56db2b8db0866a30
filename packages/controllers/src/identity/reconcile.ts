/**
 * Creating and reconciling the controllers' ServiceAccounts, ClusterRoles and
 * ClusterRoleBindings at start, and the clients that act as those accounts.
 */
import { ApiError, type KubeObject, type Transport, type UserInfo } from '@kplane/api';
import { createClient, type Client, type ClientOptions } from '@kplane/client';
import { ClusterRoleBindings, ClusterRoles, ServiceAccounts } from '@kplane/runtime';
import {
  AUTOUPDATE_ANNOTATION,
  CONTROLLER_ACCOUNT_NAMESPACE,
  controllerClusterRole,
  controllerClusterRoleBinding,
  serviceAccountGroups,
  serviceAccountUsername,
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

async function createOrGet<T extends KubeObject>(create: () => Promise<T>, get: () => Promise<T>): Promise<{ obj: T; created: boolean }> {
  try {
    return { obj: await create(), created: true };
  } catch (err) {
    if (!is(err, 409)) throw err;
    return { obj: await get(), created: false };
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Ensures a controller's ServiceAccount, ClusterRole and ClusterRoleBinding exist, as
 * kube-apiserver's bootstrap policy and the controller manager's account builder do: missing
 * objects are created; a role or binding whose autoupdate annotation is not "false" gets its
 * rules (or roleRef subjects) put back when they differ. Returns the account (with its uid).
 */
export async function ensureControllerIdentity(client: Client, id: ControllerIdentity): Promise<ServiceAccountRef> {
  const ns = CONTROLLER_ACCOUNT_NAMESPACE;
  const sas = client.resource(ServiceAccounts);
  const { obj: sa } = await createOrGet(
    () => sas.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: id.account, namespace: ns } }, { namespace: ns }),
    () => sas.get(id.account, { namespace: ns }),
  );
  const roles = client.resource(ClusterRoles);
  const wantRole = controllerClusterRole(id) as unknown as KubeObject & { rules: unknown };
  const role = await createOrGet(() => roles.create(wantRole as never), () => roles.get(wantRole.metadata!.name!));
  if (!role.created && role.obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] !== 'false' && !sameJson(role.obj.rules, wantRole.rules)) {
    await roles.update({ ...role.obj, rules: wantRole.rules } as never);
  }
  const bindings = client.resource(ClusterRoleBindings);
  const wantBinding = controllerClusterRoleBinding(id) as unknown as KubeObject & { subjects: unknown; roleRef: unknown };
  const binding = await createOrGet(() => bindings.create(wantBinding as never), () => bindings.get(wantBinding.metadata!.name!));
  const b = binding.obj as unknown as { subjects?: unknown; roleRef?: unknown };
  if (!binding.created && binding.obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] !== 'false' && !sameJson(b.subjects, wantBinding.subjects)) {
    if (sameJson(b.roleRef, wantBinding.roleRef)) await bindings.update({ ...binding.obj, subjects: wantBinding.subjects } as never);
  }
  return { namespace: ns, name: id.account, uid: sa.metadata?.uid };
}

/** A transport that sends every request as `user` (in-process: the API server trusts RawRequest.user). */
export function transportAs(transport: Transport, user: UserInfo): Transport {
  return (req) => transport({ ...req, user });
}

/** The identity a ServiceAccount authenticates as. */
export function serviceAccountUser(account: ServiceAccountRef): UserInfo {
  return {
    username: serviceAccountUsername(account.namespace, account.name),
    ...(account.uid ? { uid: account.uid } : {}),
    groups: serviceAccountGroups(account.namespace),
  };
}

/**
 * The client factory of an in-process controller manager: each account's client calls
 * `transport` (the API server's handler) as that account.
 */
export function inProcessServiceAccountClients(transport: Transport, options: Omit<ClientOptions, 'transport'> = {}): ServiceAccountClientFactory {
  return (account) => createClient({ ...options, transport: transportAs(transport, serviceAccountUser(account)) });
}
