/**
 * The bootstrap policy: kube-apiserver 1.32's default ClusterRoles and ClusterRoleBindings (as
 * far as they name what kplane serves), and their reconciliation at every start, as
 * kube-apiserver's `rbac/bootstrap-roles` post-start hook: a missing default is created, an
 * existing one with `rbac.authorization.kubernetes.io/autoupdate: "true"` gains what it lacks
 * (rules, aggregation selectors, subjects, labels, annotations), one marked "false" is left alone.
 */
import type { KubeObject } from '@kplane/api';
import { ApiError } from '@kplane/api';
import type { Registry } from '../../registry/registry.js';
import { AUTHENTICATED_GROUP, MASTERS_GROUP, SERVICE_ACCOUNTS_GROUP, UNAUTHENTICATED_GROUP } from '../types.js';
import { rulesOf } from './authorizer.js';
import { covers } from './escalation.js';
import type { PolicyRule, Subject } from './rules.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** The annotation that lets the API server reconcile a default role or binding at start. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return { apiGroups, resources, ...(resourceNames ? { resourceNames } : {}), verbs };
}

function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { nonResourceURLs, verbs };
}

/** A ClusterRole of the bootstrap policy. */
export function clusterRole(name: string, rules: PolicyRule[], opts: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...opts.labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    ...(opts.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [opts.aggregateFrom]: 'true' } }] } } : {}),
    rules,
  };
}

/** A ClusterRoleBinding of the bootstrap policy (binding name = role name). */
export function clusterRoleBinding(role: string, subjects: Subject[], name = role): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects,
  };
}

/** A Group subject. */
export function group(name: string): Subject {
  return { apiGroup: RBAC_GROUP, kind: 'Group', name };
}

/** A User subject. */
export function user(name: string): Subject {
  return { apiGroup: RBAC_GROUP, kind: 'User', name };
}

const TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

/** The default ClusterRoles and ClusterRoleBindings. */
export interface BootstrapPolicy {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
}

/** kube-apiserver's default ClusterRoles and ClusterRoleBindings, as far as they name what kplane serves. */
export function bootstrapPolicy(): BootstrapPolicy {
  const clusterRoles = [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('admin', [], { aggregateFrom: TO_ADMIN }),
    clusterRole('edit', [], { aggregateFrom: TO_EDIT, labels: { [TO_ADMIN]: 'true' } }),
    clusterRole('view', [], { aggregateFrom: TO_VIEW, labels: { [TO_EDIT]: 'true' } }),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['rolebindings', 'roles'])],
      { labels: { [TO_ADMIN]: 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
        rule(['impersonate'], [''], ['serviceaccounts']),
        rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
        rule(['create'], [''], ['pods/eviction']),
        rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
        rule(['create'], [''], ['serviceaccounts/token']),
        rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
        rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
        rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
        rule(WRITE, ['policy'], ['poddisruptionbudgets']),
        rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
        rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
      ],
      { labels: { [TO_EDIT]: 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
        rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
        rule(READ, [''], ['namespaces']),
        rule(READ, ['discovery.k8s.io'], ['endpointslices']),
        rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
        rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
        rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
        rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      { labels: { [TO_VIEW]: 'true' } },
    ),
    clusterRole('system:auth-delegator', [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])]),
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:monitoring', [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [''], ['endpoints', 'services']),
      rule(READ, [''], ['nodes']),
      rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
      rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
    // The controller manager's own identity: its shared informers, leader election, the
    // controllers' ServiceAccounts and their tokens (each controller then acts as its account).
    clusterRole('system:kube-controller-manager', [
      rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ]),
    ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map((signer) =>
      clusterRole(`system:certificates.k8s.io:${signer}-approver`, [rule(['approve'], ['certificates.k8s.io'], ['signers'], [`kubernetes.io/${signer}`])]),
    ),
  ];
  const clusterRoleBindings = [
    clusterRoleBinding('cluster-admin', [group(MASTERS_GROUP)]),
    clusterRoleBinding('system:basic-user', [group(AUTHENTICATED_GROUP)]),
    clusterRoleBinding('system:discovery', [group(AUTHENTICATED_GROUP)]),
    clusterRoleBinding('system:public-info-viewer', [group(AUTHENTICATED_GROUP), group(UNAUTHENTICATED_GROUP)]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group(SERVICE_ACCOUNTS_GROUP)]),
    clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  ];
  return { clusterRoles, clusterRoleBindings };
}

type Obj = Record<string, unknown>;

function protectedFromUpdate(existing: KubeObject): boolean {
  return existing.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

/** Existing labels and annotations with the expected ones added. */
function mergeMeta(existing: KubeObject, expected: KubeObject): KubeObject {
  const next = structuredClone(existing);
  const m = next.metadata!;
  m.labels = { ...(expected.metadata?.labels ?? {}), ...(m.labels ?? {}) };
  m.annotations = { ...(expected.metadata?.annotations ?? {}), ...(m.annotations ?? {}) };
  return next;
}

/** A ClusterRole as reconciliation leaves it: the union of the existing and the expected one. */
export function reconcileClusterRole(existing: KubeObject, expected: KubeObject): KubeObject {
  const next = mergeMeta(existing, expected) as Obj;
  const wanted = (expected as Obj).aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  if (wanted) {
    const have = ((next.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors ?? []).slice();
    for (const sel of wanted.clusterRoleSelectors ?? []) if (!have.some((h) => JSON.stringify(h) === JSON.stringify(sel))) have.push(sel);
    next.aggregationRule = { clusterRoleSelectors: have };
    return next as KubeObject;
  }
  const { missing } = covers(rulesOf(existing), rulesOf(expected));
  if (missing.length) next.rules = [...(((next.rules as unknown[]) ?? []) as unknown[]), ...missing];
  return next as KubeObject;
}

/** A binding as reconciliation leaves it: existing subjects with the expected ones added. */
export function reconcileBinding(existing: KubeObject, expected: KubeObject): KubeObject {
  const next = mergeMeta(existing, expected) as Obj;
  const subjects = ((next.subjects as Subject[] | undefined) ?? []).slice();
  for (const s of ((expected as Obj).subjects as Subject[]) ?? []) {
    if (!subjects.some((x) => x.kind === s.kind && x.name === s.name && (x.namespace ?? '') === (s.namespace ?? ''))) subjects.push(s);
  }
  next.subjects = subjects;
  return next as KubeObject;
}

/**
 * Creates or reconciles the bootstrap policy (plus `extra`, e.g. the roles of kplane's own
 * components) through the RBAC stores, as trusted in-process code.
 */
export async function ensureBootstrapPolicy(registry: Registry, extra: Partial<BootstrapPolicy> = {}): Promise<void> {
  const policy = bootstrapPolicy();
  const roles = registry.get(RBAC_GROUP, 'v1', 'clusterroles');
  const bindings = registry.get(RBAC_GROUP, 'v1', 'clusterrolebindings');
  if (!roles || !bindings) return;
  const ensure = async (store: NonNullable<typeof roles>, expected: KubeObject, reconcile: (e: KubeObject, x: KubeObject) => KubeObject) => {
    const name = expected.metadata!.name!;
    for (let attempt = 0; attempt < 5; attempt++) {
      let existing: KubeObject | undefined;
      try {
        existing = await store.get(undefined, name);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
      try {
        if (!existing) {
          await store.create(undefined, structuredClone(expected));
          return;
        }
        if (protectedFromUpdate(existing)) return;
        const ref = (existing as Obj).roleRef as Obj | undefined;
        const wantRef = (expected as Obj).roleRef as Obj | undefined;
        if (wantRef && (ref?.kind !== wantRef.kind || ref?.name !== wantRef.name)) {
          // roleRef is immutable: a binding to another role is replaced.
          await store.delete(undefined, name);
          await store.create(undefined, structuredClone(expected));
          return;
        }
        const next = reconcile(existing, expected);
        if (JSON.stringify(next) !== JSON.stringify(existing)) await store.update(undefined, name, next);
        return;
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue;
        throw err;
      }
    }
  };
  for (const r of [...policy.clusterRoles, ...(extra.clusterRoles ?? [])]) await ensure(roles, r, reconcileClusterRole);
  for (const b of [...policy.clusterRoleBindings, ...(extra.clusterRoleBindings ?? [])]) await ensure(bindings, b, reconcileBinding);
}
