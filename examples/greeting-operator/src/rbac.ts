/**
 * The operator's identity and the least it may do, as manifests: a ServiceAccount, a
 * ClusterRole and the ClusterRoleBinding between them, and a Role on its Lease in its own
 * namespace for leader election. Every rule is one the operator uses.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, ServiceAccount } from '@kplane/runtime';
import { Greetings } from './kind.js';

/** Where the operator's ServiceAccount lives by default. */
export const DEFAULT_NAMESPACE = 'greeting-system';
/** The name of the ServiceAccount, the ClusterRole and the binding. */
export const OPERATOR_NAME = 'greeting-operator';

/**
 * The ClusterRole's rules:
 * - greetings: read and watch them (the cache), patch them (the finalizer, added and removed by
 *   JSON patch); greetings/status: patch (the status, by server-side apply); greetings/finalizers:
 *   update (needed to set `blockOwnerDeletion` on the children's owner references);
 * - deployments, services, ingresses: read and watch them (the caches), create and patch them
 *   (server-side apply creates a child that is missing). No delete: the garbage collector
 *   removes them through their owner references;
 * - events: create them, and patch them (the recorder counts a repeated Event on the one it wrote).
 */
export function operatorClusterRole(name = OPERATOR_NAME): ClusterRole {
  const write = ['get', 'list', 'watch', 'create', 'patch'];
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [
      { apiGroups: [Greetings.group], resources: [Greetings.resource], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [Greetings.group], resources: [`${Greetings.resource}/status`], verbs: ['patch'] },
      { apiGroups: [Greetings.group], resources: [`${Greetings.resource}/finalizers`], verbs: ['update'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: write },
      { apiGroups: [''], resources: ['services'], verbs: write },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: write },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ],
  };
}

/**
 * The Role for leader election (`--leader-elect`), in the operator's own namespace only: the
 * Lease named after the operator, read, created and renewed (create cannot be limited by name).
 */
export function leaderElectionRole(namespace = DEFAULT_NAMESPACE, name = OPERATOR_NAME): Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${name}-leader-election`, namespace },
    rules: [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [name], verbs: ['get', 'update'] },
    ],
  };
}

/** The ServiceAccount, the ClusterRole and its binding, the leader-election Role and its binding, in that order. */
export function rbacManifests(namespace = DEFAULT_NAMESPACE, name = OPERATOR_NAME): [ServiceAccount, ClusterRole, ClusterRoleBinding, Role, RoleBinding] {
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    operatorClusterRole(name),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects,
    },
    leaderElectionRole(namespace, name),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-leader-election`, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-leader-election` },
      subjects,
    },
  ];
}

/** The manifests of `what` ('crd', 'rbac' or 'all': the namespace, the CRD and the RBAC) as one object or a v1 List. */
export function manifests(what: string, namespace = DEFAULT_NAMESPACE): object {
  const list = (items: object[]) => ({ apiVersion: 'v1', kind: 'List', items });
  switch (what) {
    case 'crd':
      return Greetings.crd();
    case 'rbac':
      return list(rbacManifests(namespace));
    case 'all':
      return list([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, Greetings.crd(), ...rbacManifests(namespace)]);
    default:
      throw new Error(`unknown manifest "${what}": crd, rbac or all`);
  }
}
