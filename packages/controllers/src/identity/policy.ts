/**
 * The least-privilege identities of the built-in controllers, as kube-controller-manager 1.32
 * runs them with --use-service-account-credentials: each controller acts as the ServiceAccount
 * `kube-system/<account>`, bound by a ClusterRoleBinding to the ClusterRole
 * `system:controller:<account>` holding the rules of Kubernetes' controller policy.
 */

/** A PolicyRule of rbac.authorization.k8s.io/v1. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** The identity and role of one controller. */
export interface ControllerIdentity {
  /** Canonical controller name (as --controllers names it). */
  readonly controller: string;
  /** ServiceAccount name in kube-system; the ClusterRole and binding are `system:controller:<account>`. */
  readonly account: string;
  readonly rules: readonly PolicyRule[];
}

/** The namespace of the controllers' ServiceAccounts. */
export const CONTROLLER_ACCOUNT_NAMESPACE = 'kube-system';
/** Prefix of the controllers' ClusterRoles and ClusterRoleBindings. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';
/** The label every bootstrap role and binding carries. */
export const BOOTSTRAP_LABEL = { 'kubernetes.io/bootstrapping': 'rbac-defaults' } as const;
/** The annotation that lets a start reconcile a bootstrap role ("false": left as the admin set it). */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };

/** Events, in both groups (the controller policy's eventsRule). */
const events = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

/** The certificate controllers' account (signing, approving and cleaning share it, as in kube-controller-manager). */
const certificateRules: readonly PolicyRule[] = [
  rule(['get', 'list', 'watch', 'delete'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
  rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
  rule(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  events,
];

/**
 * The controllers kplane runs (or will run), with the rules Kubernetes' controller policy gives their accounts.
 * Reads the controllers make through the controller manager's shared informers are not theirs:
 * those run as the controller manager itself (`system:kube-controller-manager`).
 */
export const CONTROLLER_IDENTITIES: readonly ControllerIdentity[] = [
  {
    controller: 'certificatesigningrequest-cleaner-controller',
    account: 'certificate-controller',
    rules: certificateRules,
  },
  {
    controller: 'certificatesigningrequest-signing-controller',
    account: 'certificate-controller',
    rules: certificateRules,
  },
  {
    controller: 'clusterrole-aggregation-controller',
    account: 'clusterrole-aggregation-controller',
    // Full power over ClusterRoles, escalate included, to write any aggregated rule.
    rules: [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], ['rbac.authorization.k8s.io'], ['clusterroles'])],
  },
  {
    controller: 'cronjob-controller',
    account: 'cronjob-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status']),
      rule(['update'], ['batch'], ['cronjobs/finalizers']),
      rule(['list', 'delete'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'daemonset-controller',
    account: 'daemon-set-controller',
    rules: [
      rule(['get', 'list', 'watch'], ['extensions', 'apps'], ['daemonsets']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/status']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
      events,
    ],
  },
  {
    controller: 'deployment-controller',
    account: 'deployment-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], ['deployments']),
      rule(['update'], ['extensions', 'apps'], ['deployments/status']),
      rule(['update'], ['extensions', 'apps'], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'disruption-controller',
    account: 'disruption-controller',
    rules: [
      rule(['get', 'list', 'watch'], ['extensions', 'apps'], ['deployments']),
      rule(['get', 'list', 'watch'], ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'watch'], [''], ['replicationcontrollers']),
      rule(['get', 'list', 'watch'], ['policy'], ['poddisruptionbudgets']),
      rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      rule(['get'], ['*'], ['*/scale']),
      rule(['patch', 'update'], [''], ['pods/status']),
      events,
    ],
  },
  {
    controller: 'garbage-collector-controller',
    account: 'generic-garbage-collector',
    rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), events],
  },
  {
    controller: 'endpoints-controller',
    account: 'endpoint-controller',
    rules: [
      rule(['get', 'list', 'watch'], [''], ['services', 'pods']),
      rule(['get', 'list', 'create', 'update', 'delete'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
      events,
    ],
  },
  {
    controller: 'endpointslice-controller',
    account: 'endpointslice-controller',
    rules: [
      rule(['get', 'list', 'watch'], [''], ['services', 'pods', 'nodes']),
      // Owning a slice with blockOwnerDeletion needs the right to set the Service's finalizers.
      rule(['update'], [''], ['services/finalizers']),
      rule(['get', 'list', 'create', 'update', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
      events,
    ],
  },
  {
    controller: 'horizontal-pod-autoscaler-controller',
    account: 'horizontal-pod-autoscaler',
    rules: [
      rule(['get', 'list', 'watch'], ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list'], [''], ['pods']),
      rule(['list'], ['metrics.k8s.io'], ['pods']),
      rule(['get', 'list'], ['custom.metrics.k8s.io'], ['*']),
      rule(['get', 'list'], ['external.metrics.k8s.io'], ['*']),
      events,
    ],
  },
  {
    controller: 'job-controller',
    account: 'job-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'namespace-controller',
    account: 'namespace-controller',
    rules: [
      rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  },
  {
    controller: 'node-lifecycle-controller',
    account: 'node-controller',
    rules: [
      rule(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['list', 'delete'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'taint-eviction-controller',
    account: 'taint-eviction-controller',
    rules: [rule(['patch'], [''], ['pods/status']), rule(['list', 'delete'], [''], ['pods']), events],
  },
  {
    controller: 'replicaset-controller',
    account: 'replicaset-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'persistentvolume-binder-controller',
    account: 'persistent-volume-binder',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
      rule(['get', 'create', 'delete'], [''], ['endpoints']),
      rule(['get'], [''], ['services']),
      rule(['get', 'list'], [''], ['nodes']),
      rule(['watch'], [''], ['events']),
      events,
      rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['storageclasses']),
    ],
  },
  {
    controller: 'persistentvolume-protection-controller',
    account: 'pv-protection-controller',
    rules: [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumes']), events],
  },
  {
    controller: 'persistentvolumeclaim-protection-controller',
    account: 'pvc-protection-controller',
    rules: [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [''], ['pods']), events],
  },
  {
    controller: 'replicationcontroller-controller',
    account: 'replication-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status']),
      rule(['update'], [''], ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      events,
    ],
  },
  {
    controller: 'resourcequota-controller',
    account: 'resourcequota-controller',
    rules: [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), events],
  },
  {
    controller: 'root-ca-certificate-publisher-controller',
    account: 'root-ca-cert-publisher',
    rules: [rule(['create', 'update'], [''], ['configmaps']), events],
  },
  {
    controller: 'ttl-after-finished-controller',
    account: 'ttl-after-finished-controller',
    rules: [rule(['get', 'list', 'watch', 'delete'], ['batch'], ['jobs']), events],
  },
  {
    controller: 'pod-garbage-collector-controller',
    account: 'pod-garbage-collector',
    rules: [rule(['list', 'watch', 'delete'], [''], ['pods']), rule(['get', 'list'], [''], ['nodes']), rule(['patch'], [''], ['pods/status'])],
  },
  {
    controller: 'serviceaccount-controller',
    account: 'service-account-controller',
    rules: [rule(['create'], [''], ['serviceaccounts']), events],
  },
  {
    controller: 'statefulset-controller',
    account: 'statefulset-controller',
    rules: [
      rule(['list', 'watch'], [''], ['pods']),
      rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
      rule(['get', 'create'], [''], ['persistentvolumeclaims']),
      events,
      rule(['update', 'delete'], [''], ['persistentvolumeclaims']),
    ],
  },
];

/** The identity of a controller by canonical name, if it has one. */
export function controllerIdentity(controller: string): ControllerIdentity | undefined {
  return CONTROLLER_IDENTITIES.find((i) => i.controller === controller);
}

/** The ClusterRole of a controller identity. */
export function controllerClusterRole(id: ControllerIdentity): Record<string, unknown> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: CONTROLLER_ROLE_PREFIX + id.account, labels: { ...BOOTSTRAP_LABEL }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    rules: id.rules.map((r) => ({ ...r })),
  };
}

/** The ClusterRoleBinding of a controller identity to its ServiceAccount. */
export function controllerClusterRoleBinding(id: ControllerIdentity): Record<string, unknown> {
  const name = CONTROLLER_ROLE_PREFIX + id.account;
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABEL }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', apiGroup: '', name: id.account, namespace: CONTROLLER_ACCOUNT_NAMESPACE }],
  };
}

/**
 * Every controller's ClusterRole and ClusterRoleBinding, as kube-apiserver's bootstrap policy
 * holds them: an API server started apart from the controller manager creates them, so that a
 * controller manager acting as `system:kube-controller-manager` (which may not write roles)
 * finds them in place.
 */
export function controllerRolesPolicy(): { clusterRoles: Record<string, unknown>[]; clusterRoleBindings: Record<string, unknown>[] } {
  const seen = new Set<string>();
  const ids = CONTROLLER_IDENTITIES.filter((id) => !seen.has(id.account) && seen.add(id.account));
  return { clusterRoles: ids.map(controllerClusterRole), clusterRoleBindings: ids.map(controllerClusterRoleBinding) };
}
