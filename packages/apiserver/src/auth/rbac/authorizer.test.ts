import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { RbacAuthorizer } from './authorizer.js';
import { bootstrapPolicy } from './bootstrap.js';
import { forbiddenError } from './rules.js';
import type { AuthorizationAttributes, UserInfo } from '../types.js';

const G = 'rbac.authorization.k8s.io';

function role(ns: string | undefined, name: string, rules: object[]): KubeObject {
  return { apiVersion: `${G}/v1`, kind: ns ? 'Role' : 'ClusterRole', metadata: { name, ...(ns ? { namespace: ns } : {}) }, rules } as KubeObject;
}

function binding(ns: string | undefined, name: string, ref: [string, string], subjects: object[]): KubeObject {
  return {
    apiVersion: `${G}/v1`,
    kind: ns ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: { name, ...(ns ? { namespace: ns } : {}) },
    roleRef: { apiGroup: G, kind: ref[0], name: ref[1] },
    subjects,
  } as KubeObject;
}

const U = (name: string) => ({ kind: 'User', apiGroup: G, name });
const Gr = (name: string) => ({ kind: 'Group', apiGroup: G, name });
const SA = (name: string, namespace?: string) => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

/** The objects of the examples of Kubernetes' RBAC documentation, plus the bootstrap policy. */
function documentedPolicy(): RbacAuthorizer {
  const a = new RbacAuthorizer();
  const policy = bootstrapPolicy();
  for (const r of policy.clusterRoles) a.setClusterRole(r);
  for (const b of policy.clusterRoleBindings) a.setBinding(b);
  // Role pod-reader in default, bound to jane.
  a.setRole(role('default', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'watch', 'list'] }]));
  a.setBinding(binding('default', 'read-pods', ['Role', 'pod-reader'], [U('jane')]));
  // ClusterRole secret-reader: bound in development to dave, cluster-wide to the group manager.
  a.setClusterRole(role(undefined, 'secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'watch', 'list'] }]));
  a.setBinding(binding('development', 'read-secrets', ['ClusterRole', 'secret-reader'], [U('dave')]));
  a.setBinding(binding(undefined, 'read-secrets-global', ['ClusterRole', 'secret-reader'], [Gr('manager')]));
  // Subresources: pods and pods/log.
  a.setRole(role('default', 'pod-and-pod-logs-reader', [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }]));
  a.setBinding(binding('default', 'logs', ['Role', 'pod-and-pod-logs-reader'], [U('logan')]));
  // resourceNames.
  a.setRole(role('default', 'configmap-updater', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['my-configmap'], verbs: ['update', 'get'] }]));
  a.setBinding(binding('default', 'cm', ['Role', 'configmap-updater'], [U('carol')]));
  // Non-resource URLs.
  a.setClusterRole(role(undefined, 'healthz-poster', [{ nonResourceURLs: ['/healthz', '/healthz/*'], verbs: ['get', 'post'] }]));
  a.setBinding(binding(undefined, 'healthz', ['ClusterRole', 'healthz-poster'], [U('hal')]));
  // Deployments in apps and extensions, with their scale subresource.
  a.setClusterRole(role(undefined, 'deployer', [{ apiGroups: ['apps', 'extensions'], resources: ['deployments', 'deployments/scale'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]));
  a.setBinding(binding('apps-ns', 'deployer', ['ClusterRole', 'deployer'], [U('dora')]));
  // */scale and */status.
  a.setClusterRole(role(undefined, 'scaler', [{ apiGroups: ['*'], resources: ['*/scale'], verbs: ['update', 'patch'] }]));
  a.setBinding(binding(undefined, 'scaler', ['ClusterRole', 'scaler'], [U('sam')]));
  // Wildcards within a namespace.
  a.setRole(role('sandbox', 'everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  a.setBinding(binding('sandbox', 'owner', ['Role', 'everything'], [U('wendy')]));
  // ServiceAccounts: the default SA of kube-system cluster-wide; every SA of qa; every SA.
  a.setClusterRole(role(undefined, 'node-reader', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }]));
  a.setBinding(binding(undefined, 'sa-nodes', ['ClusterRole', 'node-reader'], [SA('default', 'kube-system')]));
  a.setBinding(binding('qa', 'qa-view', ['ClusterRole', 'pod-lister'], [Gr('system:serviceaccounts:qa')]));
  a.setClusterRole(role(undefined, 'pod-lister', [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]));
  a.setBinding(binding(undefined, 'all-sa', ['ClusterRole', 'cm-lister'], [Gr('system:serviceaccounts')]));
  a.setClusterRole(role(undefined, 'cm-lister', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]));
  // A ServiceAccount subject without a namespace in a RoleBinding: the binding's namespace.
  a.setRole(role('team', 'lease-holder', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'] }]));
  a.setBinding(binding('team', 'bot', ['Role', 'lease-holder'], [SA('bot')]));
  // A binding to a role that does not exist.
  a.setBinding(binding('default', 'dangling', ['Role', 'missing'], [U('dan')]));
  a.setBinding(binding(undefined, 'dangling-c', ['ClusterRole', 'missing-c'], [U('dan')]));
  // Custom resources and special verbs.
  a.setClusterRole(role(undefined, 'greeter', [{ apiGroups: ['demo.example.com'], resources: ['greetings', 'greetings/status'], verbs: ['get', 'list', 'update'] }]));
  a.setBinding(binding(undefined, 'greeter', ['ClusterRole', 'greeter'], [U('greta')]));
  a.setClusterRole(role(undefined, 'impersonator', [{ apiGroups: [''], resources: ['users', 'groups'], verbs: ['impersonate'], resourceNames: ['jane', 'developers'] }]));
  a.setBinding(binding(undefined, 'impersonator', ['ClusterRole', 'impersonator'], [U('ivan')]));
  return a;
}

function user(name: string, ...groups: string[]): UserInfo {
  if (name === 'system:anonymous') return { username: name, groups: ['system:unauthenticated', ...groups] };
  return { username: name, groups: [...groups, 'system:authenticated'] };
}

function sa(ns: string, name: string): UserInfo {
  return { username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
}

/**
 * `what`: a path (`/healthz`), or `resource[.group][/subresource][:name]`.
 */
function attrs(u: UserInfo, verb: string, what: string, namespace?: string): AuthorizationAttributes {
  if (what.startsWith('/')) return { user: u, verb, resourceRequest: false, path: what };
  const [res, name] = what.split(':') as [string, string | undefined];
  const [rg, subresource] = res.split('/') as [string, string | undefined];
  const dot = rg.indexOf('.');
  const resource = dot < 0 ? rg : rg.slice(0, dot);
  const apiGroup = dot < 0 ? '' : rg.slice(dot + 1);
  return { user: u, verb, resourceRequest: true, apiGroup, resource, subresource, namespace, name };
}

type Case = [UserInfo, string, string, string | undefined, boolean];

const jane = user('jane');
const dave = user('dave');
const mia = user('mia', 'manager');
const logan = user('logan');
const carol = user('carol');
const hal = user('hal');
const dora = user('dora');
const sam = user('sam');
const wendy = user('wendy');
const admin = user('kplane-admin', 'system:masters');
const anon = user('system:anonymous');
const nobody = user('nobody');
const kubeSystemDefault = sa('kube-system', 'default');
const qaBuilder = sa('qa', 'builder');
const devBuilder = sa('dev', 'builder');
const teamBot = sa('team', 'bot');
const otherBot = sa('other', 'bot');
const greta = user('greta');
const ivan = user('ivan');
const proxy = user('system:kube-proxy');

const CASES: Case[] = [
  // A Role grants access in its own namespace only.
  [jane, 'get', 'pods', 'default', true],
  [jane, 'list', 'pods', 'default', true],
  [jane, 'watch', 'pods', 'default', true],
  [jane, 'get', 'pods:web-1', 'default', true],
  [jane, 'create', 'pods', 'default', false],
  [jane, 'delete', 'pods:web-1', 'default', false],
  [jane, 'list', 'pods', 'kube-system', false],
  [jane, 'list', 'pods', undefined, false],
  [jane, 'get', 'pods/log', 'default', false],
  [jane, 'get', 'pods/status', 'default', false],
  [jane, 'list', 'services', 'default', false],
  [jane, 'list', 'pods.apps', 'default', false],
  // A RoleBinding to a ClusterRole grants it in the binding's namespace only.
  [dave, 'get', 'secrets', 'development', true],
  [dave, 'list', 'secrets', 'development', true],
  [dave, 'get', 'secrets', 'default', false],
  [dave, 'list', 'secrets', undefined, false],
  [dave, 'update', 'secrets', 'development', false],
  // A ClusterRoleBinding grants it everywhere, to every member of the group.
  [mia, 'get', 'secrets', 'default', true],
  [mia, 'list', 'secrets', 'kube-system', true],
  [mia, 'list', 'secrets', undefined, true],
  [mia, 'watch', 'secrets', undefined, true],
  [mia, 'delete', 'secrets:db', 'default', false],
  [user('max', 'managers'), 'get', 'secrets', 'default', false],
  // Subresources are named as resource/subresource.
  [logan, 'get', 'pods/log', 'default', true],
  [logan, 'get', 'pods:web-1', 'default', true],
  [logan, 'get', 'pods/exec', 'default', false],
  [logan, 'create', 'pods/log', 'default', false],
  [logan, 'get', 'pods/log', 'other', false],
  // resourceNames restrict requests that name an object.
  [carol, 'get', 'configmaps:my-configmap', 'default', true],
  [carol, 'update', 'configmaps:my-configmap', 'default', true],
  [carol, 'get', 'configmaps:other', 'default', false],
  [carol, 'list', 'configmaps', 'default', false],
  [carol, 'create', 'configmaps', 'default', false],
  [carol, 'delete', 'configmaps:my-configmap', 'default', false],
  [carol, 'watch', 'configmaps', 'default', false],
  [carol, 'list', 'configmaps:my-configmap', 'default', false],
  // Non-resource URLs, with a trailing * as a prefix.
  [hal, 'get', '/healthz', undefined, true],
  [hal, 'post', '/healthz', undefined, true],
  [hal, 'get', '/healthz/etcd', undefined, true],
  [hal, 'put', '/healthz', undefined, false],
  [hal, 'get', '/metrics', undefined, false],
  [hal, 'get', '/healthzz', undefined, false],
  // API groups are matched exactly; one rule may name several.
  [dora, 'create', 'deployments.apps', 'apps-ns', true],
  [dora, 'patch', 'deployments.extensions', 'apps-ns', true],
  [dora, 'update', 'deployments.apps/scale', 'apps-ns', true],
  [dora, 'get', 'deployments.apps/status', 'apps-ns', false],
  [dora, 'create', 'deployments', 'apps-ns', false],
  [dora, 'create', 'replicasets.apps', 'apps-ns', false],
  [dora, 'deletecollection', 'deployments.apps', 'apps-ns', false],
  // */subresource matches that subresource of any resource.
  [sam, 'update', 'deployments.apps/scale', 'default', true],
  [sam, 'patch', 'replicasets.apps/scale', 'x', true],
  [sam, 'update', 'greetings.demo.example.com/scale', 'x', true],
  [sam, 'update', 'deployments.apps', 'default', false],
  [sam, 'update', 'deployments.apps/status', 'default', false],
  [sam, 'get', 'deployments.apps/scale', 'default', false],
  // * matches every group, resource, subresource and verb.
  [wendy, 'create', 'pods', 'sandbox', true],
  [wendy, 'deletecollection', 'secrets', 'sandbox', true],
  [wendy, 'escalate', 'roles.rbac.authorization.k8s.io', 'sandbox', true],
  [wendy, 'get', 'pods/log', 'sandbox', true],
  [wendy, 'get', 'pods', 'default', false],
  [wendy, 'get', '/api', undefined, true],
  // ServiceAccounts: by name and namespace, and by their groups.
  [kubeSystemDefault, 'list', 'nodes', undefined, true],
  [sa('default', 'default'), 'list', 'nodes', undefined, false],
  [qaBuilder, 'list', 'pods', 'qa', true],
  [qaBuilder, 'list', 'pods', 'dev', false],
  [devBuilder, 'list', 'configmaps', 'dev', true],
  [devBuilder, 'list', 'configmaps', undefined, true],
  [user('system:serviceaccount:dev:builder'), 'list', 'configmaps', 'dev', false],
  [teamBot, 'update', 'leases.coordination.k8s.io:x', 'team', true],
  [otherBot, 'update', 'leases.coordination.k8s.io:x', 'team', false],
  // Deny by default; bindings to missing roles grant nothing.
  [nobody, 'get', 'pods', 'default', false],
  [nobody, 'get', 'namespaces:default', 'default', false],
  [user('dan'), 'get', 'pods', 'default', false],
  // system:masters may do everything, bound or not.
  [admin, 'delete', 'nodes:n1', undefined, true],
  [admin, 'impersonate', 'users:anyone', undefined, true],
  [admin, 'get', '/anything', undefined, true],
  // The bootstrap policy: discovery for authenticated users, public info for everyone.
  [nobody, 'get', '/api', undefined, true],
  [nobody, 'get', '/apis/apps/v1', undefined, true],
  [nobody, 'get', '/openapi/v3', undefined, true],
  [nobody, 'get', '/version', undefined, true],
  [nobody, 'get', '/metrics', undefined, false],
  [nobody, 'post', '/api', undefined, false],
  [nobody, 'create', 'selfsubjectaccessreviews.authorization.k8s.io', undefined, true],
  [nobody, 'create', 'selfsubjectrulesreviews.authorization.k8s.io', undefined, true],
  [nobody, 'create', 'selfsubjectreviews.authentication.k8s.io', undefined, true],
  [nobody, 'create', 'subjectaccessreviews.authorization.k8s.io', undefined, false],
  [anon, 'get', '/healthz', undefined, true],
  [anon, 'get', '/livez', undefined, true],
  [anon, 'get', '/readyz', undefined, true],
  [anon, 'get', '/version', undefined, true],
  [anon, 'get', '/api', undefined, false],
  [anon, 'get', '/healthz/ping', undefined, false],
  [anon, 'create', 'selfsubjectaccessreviews.authorization.k8s.io', undefined, false],
  [anon, 'list', 'pods', 'default', false],
  [user('mon', 'system:monitoring'), 'get', '/metrics', undefined, true],
  [user('mon', 'system:monitoring'), 'get', '/readyz/ping', undefined, true],
  [proxy, 'list', 'services', undefined, true],
  [proxy, 'list', 'endpointslices.discovery.k8s.io', 'default', true],
  [proxy, 'delete', 'services:kubernetes', 'default', false],
  [sa('x', 'y'), 'get', '/openid/v1/jwks', undefined, true],
  // Custom resources, their status, and special verbs on named objects.
  [greta, 'list', 'greetings.demo.example.com', 'default', true],
  [greta, 'update', 'greetings.demo.example.com/status', 'default', true],
  [greta, 'patch', 'greetings.demo.example.com/status', 'default', false],
  [greta, 'list', 'greetings.other.example.com', 'default', false],
  [ivan, 'impersonate', 'users:jane', undefined, true],
  [ivan, 'impersonate', 'groups:developers', undefined, true],
  [ivan, 'impersonate', 'users:kplane-admin', undefined, false],
  [ivan, 'impersonate', 'serviceaccounts:default', 'default', false],
];

test('RBAC decisions follow Kubernetes documentation (table)', () => {
  assert.ok(CASES.length >= 80, `${CASES.length} cases`);
  const a = documentedPolicy();
  const wrong: string[] = [];
  for (const [u, verb, what, ns, expected] of CASES) {
    const d = a.authorize(attrs(u, verb, what, ns));
    if (d.allowed !== expected) wrong.push(`${u.username} ${verb} ${what} in ${ns ?? '(cluster)'}: got ${d.allowed}, want ${expected} (${d.reason})`);
  }
  assert.deepEqual(wrong, []);
});

test('the allowing binding is named as kube-apiserver names it', () => {
  const a = documentedPolicy();
  assert.equal(a.authorize(attrs(jane, 'get', 'pods', 'default')).reason, 'RBAC: allowed by RoleBinding "read-pods/default" of Role "pod-reader" to User "jane"');
  assert.equal(a.authorize(attrs(mia, 'get', 'secrets', 'x')).reason, 'RBAC: allowed by ClusterRoleBinding "read-secrets-global" of ClusterRole "secret-reader" to Group "manager"');
  assert.equal(a.authorize(attrs(teamBot, 'get', 'leases.coordination.k8s.io', 'team')).reason, 'RBAC: allowed by RoleBinding "bot/team" of Role "lease-holder" to ServiceAccount "bot/team"');
});

test('refusals carry kube-apiserver messages, with RBAC errors as the reason', () => {
  const a = documentedPolicy();
  const msg = (at: AuthorizationAttributes) => forbiddenError(at, a.authorize(at).reason).message;
  assert.equal(msg(attrs(user('alice'), 'list', 'configmaps', 'default')), 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
  assert.equal(msg(attrs(user('alice'), 'list', 'nodes')), 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
  assert.equal(msg(attrs(user('alice'), 'get', 'deployments.apps/scale:web', 'default')), 'deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" in the namespace "default"');
  assert.equal(msg(attrs(anon, 'get', '/api')), 'forbidden: User "system:anonymous" cannot get path "/api"');
  assert.equal(
    msg(attrs(user('dan'), 'get', 'pods', 'default')),
    'pods is forbidden: User "dan" cannot get resource "pods" in API group "" in the namespace "default": RBAC: [clusterrole.rbac.authorization.k8s.io "missing-c" not found, role.rbac.authorization.k8s.io "missing" not found]',
  );
  assert.equal(msg(attrs(user('dan'), 'get', 'nodes')), 'nodes is forbidden: User "dan" cannot get resource "nodes" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "missing-c" not found');
  const e = forbiddenError(attrs(user('alice'), 'get', 'deployments.apps:web', 'default'), '');
  assert.deepEqual(e.details, { name: 'web', group: 'apps', kind: 'deployments' });
});

test('the index follows changes: a binding removed or changed stops granting', () => {
  const a = documentedPolicy();
  assert.equal(a.authorize(attrs(jane, 'get', 'pods', 'default')).allowed, true);
  a.setBinding(binding('default', 'read-pods', ['Role', 'pod-reader'], [U('john')]));
  assert.equal(a.authorize(attrs(jane, 'get', 'pods', 'default')).allowed, false);
  assert.equal(a.authorize(attrs(user('john'), 'get', 'pods', 'default')).allowed, true);
  a.deleteBinding('default', 'read-pods');
  assert.equal(a.authorize(attrs(user('john'), 'get', 'pods', 'default')).allowed, false);
  // A role's rules are read at decision time.
  a.setRole(role('default', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }]));
  a.setBinding(binding('default', 'read-pods', ['Role', 'pod-reader'], [U('john')]));
  assert.equal(a.authorize(attrs(user('john'), 'delete', 'pods:x', 'default')).allowed, true);
  a.deleteRole('default', 'pod-reader');
  assert.equal(a.authorize(attrs(user('john'), 'get', 'pods', 'default')).reason, 'RBAC: role.rbac.authorization.k8s.io "pod-reader" not found');
});

test('rulesFor lists cluster-wide and namespace rules', () => {
  const a = documentedPolicy();
  const r = a.rulesFor(jane, 'default');
  assert.ok(r.rules.some((x) => x.resources?.includes('pods') && x.verbs.includes('watch')));
  assert.ok(r.rules.some((x) => x.nonResourceURLs?.includes('/api')));
  assert.ok(!a.rulesFor(jane, 'other').rules.some((x) => x.resources?.includes('pods')));
  assert.deepEqual(a.rulesFor(user('dan'), 'default').errors.sort(), ['clusterrole.rbac.authorization.k8s.io "missing-c" not found', 'role.rbac.authorization.k8s.io "missing" not found']);
});
