/**
 * The roles of the scheduler's and the nodes' identities: Kubernetes 1.32's bootstrap
 * ClusterRoles `system:kube-scheduler` (bound to its user) and `system:node`, which, as in
 * Kubernetes since 1.8, is bound to no one: the API server's Node authorizer grants nodes
 * these rules, narrowed to each node's own objects.
 */
import type { KubeObject } from '@kplane/api';

/** A PolicyRule of rbac.authorization.k8s.io/v1. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const events = rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']);

/** The rules of system:kube-scheduler. */
export const SCHEDULER_RULES: readonly PolicyRule[] = [
  events,
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
  rule(['create'], [''], ['endpoints']),
  rule(['get', 'update'], [''], ['endpoints'], ['kube-scheduler']),
  rule(['get', 'list', 'watch'], [''], ['nodes']),
  rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
  rule(['create'], [''], ['bindings', 'pods/binding']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['get', 'list', 'watch'], [''], ['replicationcontrollers', 'services']),
  rule(['get', 'list', 'watch'], ['apps', 'extensions'], ['replicasets']),
  rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
  rule(['get', 'list', 'watch'], ['policy'], ['poddisruptionbudgets']),
  rule(['get', 'list', 'watch'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csinodes']),
  rule(['get', 'list', 'watch'], [''], ['namespaces']),
  rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csidrivers', 'csistoragecapacities']),
];

/** The rules of system:node. */
export const NODE_RULES: readonly PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(['get', 'list', 'watch'], [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule(['delete', 'patch', 'update'], [''], ['nodes']),
  events,
  rule(['get', 'list', 'watch'], [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(['get', 'list', 'watch'], [''], ['configmaps', 'secrets']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
  rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csidrivers']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
];

const RBAC = 'rbac.authorization.k8s.io';
const meta = (name: string) => ({ name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } });

/** The ClusterRoles and ClusterRoleBindings of the scheduler and the nodes. */
export function simulationPolicy(): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] } {
  const role = (name: string, rules: readonly PolicyRule[]): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: meta(name), rules: rules.map((r) => ({ ...r })) }) as KubeObject;
  const binding = (name: string, subject: { kind: string; name: string }): KubeObject =>
    ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name }, subjects: [{ apiGroup: RBAC, ...subject }] }) as KubeObject;
  return {
    clusterRoles: [role('system:kube-scheduler', SCHEDULER_RULES), role('system:node', NODE_RULES)],
    clusterRoleBindings: [binding('system:kube-scheduler', { kind: 'User', name: 'system:kube-scheduler' })],
  };
}
