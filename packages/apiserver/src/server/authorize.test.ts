import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { UserInfo } from '@kplane/api';
import { createMemoryBackend } from '@kplane/storage';
import { startTestServer, type TestServer } from '../testing.js';
import { createApiServer } from './server.js';
import { requestAttributes } from './authorize.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'kplane-admin', groups: ['system:masters', 'system:authenticated'] };
const anonymous: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

let t: TestServer;

before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

/** A request as `user`, JSON in and out. */
async function as(user: UserInfo | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const [p, qs] = path.split('?');
  const r = await t.server.handle({
    method,
    path: p!,
    query: Object.fromEntries(new URLSearchParams(qs ?? '')),
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    ...(user ? { user } : {}),
  });
  const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: r.status, body: parsed };
}

/** Writes as trusted code and waits until the RBAC index has seen the write. */
async function grant(path: string, obj: any): Promise<void> {
  const r = await as(undefined, 'POST', path, obj);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  if (!path.startsWith(RBAC)) return;
  await t.server.rbacSynced(path.includes('clusterrolebindings') ? 'clusterrolebindings' : path.includes('rolebindings') ? 'rolebindings' : path.includes('clusterroles') ? 'clusterroles' : 'roles', r.body.metadata.resourceVersion);
}

function role(name: string, rules: object[], ns?: string) {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: ns ? 'Role' : 'ClusterRole', metadata: { name }, rules };
}
function bindingTo(name: string, kind: string, roleName: string, subjects: object[]) {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects };
}
function clusterBinding(name: string, roleName: string, subjects: object[]) {
  return { ...bindingTo(name, 'ClusterRole', roleName, subjects), kind: 'ClusterRoleBinding' };
}
const userSubject = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

test('request attributes: routed verbs, field-selector names, namespaces of namespaces, non-resource paths', () => {
  const a = (method: string, path: string, query: Record<string, string> = {}) => {
    const x = requestAttributes({ method, path, query }, alice);
    return [x.verb, x.resource ?? x.path, x.subresource ?? '', x.namespace ?? '', x.name ?? ''].join('|');
  };
  assert.equal(a('GET', '/api/v1/namespaces/default/pods'), 'list|pods||default|');
  assert.equal(a('GET', '/api/v1/namespaces/default/pods', { watch: 'true' }), 'watch|pods||default|');
  assert.equal(a('GET', '/api/v1/namespaces/default/pods', { fieldSelector: 'metadata.name=web' }), 'list|pods||default|web');
  assert.equal(a('GET', '/api/v1/watch/namespaces/default/pods/web'), 'watch|pods||default|web');
  assert.equal(a('GET', '/api/v1/namespaces/default/pods/web/log'), 'get|pods|log|default|web');
  assert.equal(a('DELETE', '/api/v1/namespaces/default/pods'), 'deletecollection|pods||default|');
  assert.equal(a('DELETE', '/api/v1/namespaces/default/pods/web'), 'delete|pods||default|web');
  assert.equal(a('POST', '/api/v1/namespaces/default/pods'), 'create|pods||default|');
  assert.equal(a('PATCH', '/apis/apps/v1/namespaces/x/deployments/d/scale'), 'patch|deployments|scale|x|d');
  assert.equal(a('PUT', '/api/v1/namespaces/kube-system/finalize'), 'update|namespaces|finalize|kube-system|kube-system');
  assert.equal(a('GET', '/api/v1/namespaces/kube-system'), 'get|namespaces||kube-system|kube-system');
  assert.equal(a('GET', '/api/v1/nodes'), 'list|nodes|||');
  assert.equal(a('GET', '/apis/apps/v1'), 'get|/apis/apps/v1|||');
  assert.equal(a('HEAD', '/healthz'), 'head|/healthz|||');
});

test('every request with a user is authorized; in-process trusted code is not', async () => {
  const r = await as(alice, 'GET', '/api/v1/namespaces/default/configmaps');
  assert.equal(r.status, 403);
  assert.equal(r.body.reason, 'Forbidden');
  assert.equal(r.body.message, 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
  assert.deepEqual(r.body.details, { kind: 'configmaps' });
  assert.equal((await as(admin, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  assert.equal((await as(undefined, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  // Authorization comes before routing: no 404 for what one may not see.
  const unknown = await as(alice, 'GET', '/apis/nothing.example.com/v1/things');
  assert.equal(unknown.status, 403);
  assert.equal(unknown.body.message, 'things.nothing.example.com is forbidden: User "alice" cannot list resource "things" in API group "nothing.example.com" at the cluster scope');
  const ns = await as(alice, 'GET', '/api/v1/namespaces/kube-system');
  assert.equal(ns.body.message, 'namespaces "kube-system" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "kube-system"');
});

test('public info for anonymous users, discovery for authenticated ones', async () => {
  for (const p of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await as(anonymous, 'GET', p)).status, 200, p);
  const api = await as(anonymous, 'GET', '/api');
  assert.equal(api.status, 403);
  assert.equal(api.body.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
  assert.equal((await as(anonymous, 'GET', '/openapi/v2')).status, 403);
  assert.equal((await as(alice, 'GET', '/api')).status, 200);
  assert.equal((await as(alice, 'GET', '/apis/apps/v1')).status, 200);
  assert.equal((await as(alice, 'GET', '/openapi/v3')).status, 200);
});

test('a Role limits a user to what it allows, resourceNames through a metadata.name field selector', async () => {
  await grant('/api/v1/namespaces', { metadata: { name: 'team-a' } });
  await grant(`${RBAC}/namespaces/team-a/roles`, role('cm', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }, { apiGroups: [''], resources: ['secrets'], resourceNames: ['app'], verbs: ['get', 'list'] }], 'team-a'));
  await grant(`${RBAC}/namespaces/team-a/rolebindings`, bindingTo('cm', 'Role', 'cm', [userSubject('alice')]));
  assert.equal((await as(alice, 'POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'c1' } })).status, 201);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/team-a/configmaps')).status, 200);
  assert.equal((await as(alice, 'DELETE', '/api/v1/namespaces/team-a/configmaps/c1')).status, 403);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/default/configmaps')).status, 403);
  assert.equal((await as(alice, 'GET', '/api/v1/configmaps')).status, 403);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/team-a/secrets')).status, 403);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/team-a/secrets?fieldSelector=metadata.name%3Dapp')).status, 200);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/team-a/secrets/app')).status, 404);
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/team-a/secrets/other')).status, 403);
});

test('impersonation needs the impersonate verb, then the request runs as the impersonated user', async () => {
  const bob = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'bob' });
  assert.equal(bob.status, 403);
  assert.equal(bob.body.message, 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  const saRefused = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'system:serviceaccount:ns1:robot' });
  assert.equal(saRefused.body.message, 'serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"');
  await grant(`${RBAC}/clusterroles`, role('impersonate-bob', [{ apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] }]));
  await grant(`${RBAC}/clusterrolebindings`, clusterBinding('alice-as-bob', 'impersonate-bob', [userSubject('alice')]));
  const asBob = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'bob' });
  assert.equal(asBob.status, 403);
  assert.equal(asBob.body.message, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"');
  const group = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'bob', 'impersonate-group': 'system:masters' });
  assert.equal(group.body.message, 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
  const uid = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'bob', 'impersonate-uid': 'u-1' });
  assert.equal(uid.body.message, 'uids.authentication.k8s.io "u-1" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
  const extra = await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'bob', 'impersonate-extra-scopes': 'view' });
  assert.equal(extra.body.message, 'userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
  assert.equal((await as(alice, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-group': 'x' })).status, 500);
  // Who the request runs as: SelfSubjectReview-like check through a rules review of bob.
  const masters = await as(admin, 'GET', '/api/v1/namespaces/default/pods', undefined, { 'impersonate-user': 'system:serviceaccount:default:default' });
  assert.equal(masters.body.message, 'pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
});

test('access reviews: can-i for oneself, for others, and the rules in a namespace', async () => {
  const ssar = (user: UserInfo, ra: object, headers: Record<string, string> = {}) =>
    as(user, 'POST', `${AUTHZ}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: ra } }, headers);
  const yes = await ssar(alice, { namespace: 'team-a', verb: 'create', resource: 'configmaps' });
  assert.equal(yes.status, 201);
  assert.equal(yes.body.kind, 'SelfSubjectAccessReview');
  assert.equal(yes.body.status.allowed, true);
  assert.equal(yes.body.status.reason, 'RBAC: allowed by RoleBinding "cm/team-a" of Role "cm" to User "alice"');
  const no = await ssar(alice, { namespace: 'default', verb: 'create', resource: 'configmaps' });
  assert.deepEqual(no.body.status, { allowed: false });
  assert.equal((await ssar(anonymous, { verb: 'get', resource: 'pods' })).status, 403);
  const invalid = await as(alice, 'POST', `${AUTHZ}/selfsubjectaccessreviews`, { spec: {} });
  assert.equal(invalid.status, 422);
  assert.equal(invalid.body.message, 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified');

  const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'configmaps' } } };
  assert.equal((await as(alice, 'POST', `${AUTHZ}/subjectaccessreviews`, sar)).status, 403);
  const other = await as(admin, 'POST', `${AUTHZ}/subjectaccessreviews`, sar);
  assert.equal(other.body.status.allowed, true);
  const nonResource = await as(admin, 'POST', `${AUTHZ}/subjectaccessreviews`, { spec: { user: 'x', groups: ['system:authenticated'], nonResourceAttributes: { path: '/api', verb: 'get' } } });
  assert.equal(nonResource.body.status.allowed, true);
  const lsar = await as(admin, 'POST', `${AUTHZ}/namespaces/team-a/localsubjectaccessreviews`, { spec: { user: 'alice', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'secrets', name: 'app' } } });
  assert.equal(lsar.status, 201);
  assert.equal(lsar.body.status.allowed, true);
  assert.equal(lsar.body.metadata.namespace, 'team-a');
  const lsarWrong = await as(admin, 'POST', `${AUTHZ}/namespaces/team-a/localsubjectaccessreviews`, { spec: { user: 'alice', resourceAttributes: { namespace: 'other', verb: 'get', resource: 'secrets' } } });
  assert.equal(lsarWrong.status, 422);

  const rules = await as(alice, 'POST', `${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: 'team-a' } });
  assert.equal(rules.status, 201);
  assert.equal(rules.body.status.incomplete, false);
  assert.ok(rules.body.status.resourceRules.some((r: any) => r.resources.includes('configmaps') && r.verbs.includes('create')));
  assert.ok(rules.body.status.resourceRules.some((r: any) => r.resources.includes('secrets') && r.resourceNames?.includes('app')));
  assert.ok(rules.body.status.nonResourceRules.some((r: any) => r.nonResourceURLs.includes('/api')));
  const elsewhere = await as(alice, 'POST', `${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: 'default' } });
  assert.ok(!elsewhere.body.status.resourceRules.some((r: any) => r.resources.includes('configmaps')));
  assert.equal((await as(alice, 'GET', `${AUTHZ}/selfsubjectrulesreviews`)).status, 403);
  assert.equal((await as(admin, 'GET', `${AUTHZ}/selfsubjectrulesreviews`)).status, 405);
});

test('escalation: roles and bindings grant only what the writer holds, unless escalate or bind', async () => {
  const carl: UserInfo = { username: 'carl', groups: ['system:authenticated'] };
  await grant('/api/v1/namespaces', { metadata: { name: 'team-c' } });
  await grant(`${RBAC}/namespaces/team-c/roles`, role('rbac-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }], 'team-c'));
  await grant(`${RBAC}/namespaces/team-c/rolebindings`, bindingTo('carl', 'Role', 'rbac-writer', [userSubject('carl')]));
  // Within what carl holds: allowed.
  const ok = await as(carl, 'POST', `${RBAC}/namespaces/team-c/roles`, role('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }], 'team-c'));
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  // Beyond it: refused with kube's message.
  const more = await as(carl, 'POST', `${RBAC}/namespaces/team-c/roles`, role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }], 'team-c'));
  assert.equal(more.status, 403);
  assert.equal(
    more.body.message,
    'roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "carl" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
  );
  assert.deepEqual(more.body.details, { name: 'secret-reader', group: 'rbac.authorization.k8s.io', kind: 'roles' });
  // Binding a role carl does not hold: refused; one he holds: allowed.
  const bindAdmin = await as(carl, 'POST', `${RBAC}/namespaces/team-c/rolebindings`, bindingTo('carl-admin', 'ClusterRole', 'cluster-admin', [userSubject('carl')]));
  assert.equal(bindAdmin.status, 403);
  assert.match(bindAdmin.body.message, /^rolebindings\.rbac\.authorization\.k8s\.io "carl-admin" is forbidden: user "carl" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
  const bindMissing = await as(carl, 'POST', `${RBAC}/namespaces/team-c/rolebindings`, bindingTo('x', 'Role', 'nope', [userSubject('carl')]));
  assert.equal(bindMissing.body.message, 'rolebindings.rbac.authorization.k8s.io "x" is forbidden: role.rbac.authorization.k8s.io "nope" not found');
  assert.equal((await as(carl, 'POST', `${RBAC}/namespaces/team-c/rolebindings`, bindingTo('dora-cm', 'Role', 'cm-reader', [userSubject('dora')]))).status, 201);
  // escalate and bind lift the checks.
  await grant(`${RBAC}/namespaces/team-c/roles`, role('lift', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }], 'team-c'));
  await grant(`${RBAC}/namespaces/team-c/rolebindings`, bindingTo('carl-lift', 'Role', 'lift', [userSubject('carl')]));
  assert.equal((await as(carl, 'POST', `${RBAC}/namespaces/team-c/roles`, role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }], 'team-c'))).status, 201);
  assert.equal((await as(carl, 'POST', `${RBAC}/namespaces/team-c/rolebindings`, bindingTo('carl-admin', 'ClusterRole', 'cluster-admin', [userSubject('carl')]))).status, 201);
  // An aggregationRule needs every right.
  const agg = await as(carl, 'POST', `${RBAC}/clusterroles`, { ...role('agg', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
  assert.equal(agg.status, 403);
});

test('the bootstrap policy is there, comes back when deleted, and is left alone with autoupdate=false', async () => {
  const backend = createMemoryBackend();
  const s1 = createApiServer({ backend });
  await s1.start();
  const get = async (s: typeof s1, path: string) => {
    const r = await s.handle({ method: 'GET', path });
    return { status: r.status, body: JSON.parse(Buffer.from(r.body!).toString()) };
  };
  const names = (await get(s1, `${RBAC}/clusterroles`)).body.items.map((i: any) => i.metadata.name);
  for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer']) assert.ok(names.includes(n), n);
  const view = (await get(s1, `${RBAC}/clusterroles/view`)).body;
  assert.equal(view.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');
  assert.equal(view.metadata.labels['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
  assert.deepEqual(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  const masters = (await get(s1, `${RBAC}/clusterrolebindings/cluster-admin`)).body;
  assert.deepEqual(masters.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
  await s1.handle({ method: 'DELETE', path: `${RBAC}/clusterroles/system:basic-user` });
  await s1.handle({ method: 'DELETE', path: `${RBAC}/clusterrolebindings/system:discovery` });
  const pinned = (await get(s1, `${RBAC}/clusterroles/system:public-info-viewer`)).body;
  pinned.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
  pinned.rules = [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }];
  assert.equal((await s1.handle({ method: 'PUT', path: `${RBAC}/clusterroles/system:public-info-viewer`, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(pinned)) })).status, 200);
  const trimmed = (await get(s1, `${RBAC}/clusterroles/system:monitoring`)).body;
  trimmed.rules = [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }];
  trimmed.metadata.labels.mine = 'yes';
  await s1.handle({ method: 'PUT', path: `${RBAC}/clusterroles/system:monitoring`, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(trimmed)) });
  await s1.close();

  const s2 = createApiServer({ backend });
  await s2.start();
  assert.equal((await get(s2, `${RBAC}/clusterroles/system:basic-user`)).status, 200);
  assert.equal((await get(s2, `${RBAC}/clusterrolebindings/system:discovery`)).status, 200);
  assert.deepEqual((await get(s2, `${RBAC}/clusterroles/system:public-info-viewer`)).body.rules, [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]);
  const monitoring = (await get(s2, `${RBAC}/clusterroles/system:monitoring`)).body;
  assert.equal(monitoring.metadata.labels.mine, 'yes');
  assert.ok(monitoring.rules.some((r: any) => r.nonResourceURLs.includes('/readyz/*')), JSON.stringify(monitoring.rules));
  await s2.close();
  await backend.close();
});

test('anonymous requests reach nothing but the public-info paths', async () => {
  const refused: string[] = [];
  const paths = ['/', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/openapi/v2', '/openapi/v3', '/metrics', '/healthz/ping', '/livez/ping', '/readyz/ping'];
  for (const store of t.server.registry.all()) {
    const base = store.type.group ? `/apis/${store.type.group}/${store.type.version}` : `/api/${store.type.version}`;
    paths.push(`${base}/${store.type.resource}`);
    if (store.type.namespaced) paths.push(`${base}/namespaces/default/${store.type.resource}/x`);
  }
  for (const p of paths) {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const r = await as(anonymous, method, p, method === 'POST' ? {} : undefined);
      if (r.status !== 403) refused.push(`${method} ${p}: ${r.status}`);
    }
  }
  assert.deepEqual(refused, []);
  for (const p of ['/healthz', '/livez', '/readyz', '/version', '/version/']) assert.equal((await as(anonymous, 'GET', p)).status, 200, p);
});

test('a GET of pods/exec, attach or portforward also needs create', async () => {
  const erin: UserInfo = { username: 'erin', groups: ['system:authenticated'] };
  await grant(`${RBAC}/namespaces/default/roles`, role('exec-get', [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['get'] }], 'default'));
  await grant(`${RBAC}/namespaces/default/rolebindings`, bindingTo('erin-exec', 'Role', 'exec-get', [userSubject('erin')]));
  const r = await as(erin, 'GET', '/api/v1/namespaces/default/pods/web/exec?command=ls');
  assert.equal(r.status, 403);
  assert.equal(r.body.message, 'pods "web" is forbidden: User "erin" cannot create resource "pods/exec" in API group "" in the namespace "default"');
});
