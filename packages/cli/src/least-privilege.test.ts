/**
 * Every built-in controller, the scheduler and the simulated kubelet work under their
 * least-privilege identities: each request they make is recorded with the identity it was sent
 * as, and checked against the rules of that identity's ClusterRoles (the controller policy's
 * roles, kube's system:kube-scheduler and system:node, and system:discovery / system:basic-user
 * that every authenticated user holds). Where the API server enforces RBAC on requests that
 * carry a user, a request outside a role also makes the scenario itself fail.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import { serviceAccountUser, type RawRequest, type UserInfo } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import {
  CONTROLLER_IDENTITIES,
  ensureClusterRole,
  ensureClusterRoleBinding,
  startControllerManager,
  type ControllerManager,
  type PolicyRule,
} from '@kplane/controllers';
import { NODE_RULES, nodeUser, SCHEDULER_RULES, SCHEDULER_USER, simulationPolicy, startSimulation, type Simulation } from '@kplane/kubelet';
import { CronJobs, DaemonSets, Deployments, Jobs, Namespaces, Pods, ReplicaSets, ServiceAccounts, StatefulSets } from '@kplane/runtime';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const url = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

/** system:discovery, system:basic-user and system:public-info-viewer: bound to every authenticated user. */
const EVERYONE: PolicyRule[] = [
  url(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
  r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
  r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
];

interface Attributes {
  verb: string;
  resourceRequest: boolean;
  path: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The authorization attributes of a request, as kube-apiserver's RequestInfoFactory derives them. */
function attributesOf(req: RawRequest): Attributes {
  const parts = req.path.split('/').filter(Boolean);
  const method = req.method.toUpperCase();
  const nonResource = (): Attributes => ({ verb: method.toLowerCase(), resourceRequest: false, path: req.path });
  let rest: string[];
  let apiGroup: string;
  if (parts[0] === 'api' && parts.length >= 3) [apiGroup, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length >= 4) [apiGroup, rest] = [parts[1]!, parts.slice(3)];
  else return nonResource();
  let namespace: string | undefined;
  // A namespace's own status and finalize are subresources of namespaces, not namespaced resources.
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1];
    if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  const watch = req.query?.watch === 'true' || req.query?.watch === '1';
  const verb =
    method === 'GET' ? (name ? 'get' : watch ? 'watch' : 'list')
    : method === 'POST' ? 'create'
    : method === 'PUT' ? 'update'
    : method === 'PATCH' ? 'patch'
    : method === 'DELETE' ? (name ? 'delete' : 'deletecollection')
    : method.toLowerCase();
  return { verb, resourceRequest: true, path: req.path, apiGroup, resource, subresource, namespace, name };
}

/** Does one of the rules allow the attributes (RBAC's rule matching)? */
function allowed(rules: readonly PolicyRule[], a: Attributes): boolean {
  const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));
  return rules.some((rule) => {
    if (!has(rule.verbs, a.verb)) return false;
    if (!a.resourceRequest) return !!rule.nonResourceURLs?.some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource!;
    if (!has(rule.apiGroups, a.apiGroup!)) return false;
    if (!rule.resources?.some((x) => x === '*' || x === resource || (a.subresource && x === `*/${a.subresource}`))) return false;
    return !rule.resourceNames?.length || (!!a.name && rule.resourceNames.includes(a.name));
  });
}

let kp: TestKplane;
let cm: ControllerManager;
let sim: Simulation;
const recorded: { user: UserInfo; req: RawRequest }[] = [];
const recordingClient = (user: UserInfo): Client =>
  createClient({
    transport: (req) => {
      recorded.push({ user, req });
      return kp.server.handle({ ...req, user });
    },
  });

before(async () => {
  kp = await startTestKplane();
  cm = await startControllerManager({
    client: kp.client,
    leaderElect: false,
    log: () => {},
    namespaceController: { deletionGracePeriodMs: 0 },
    serviceAccountClients: (account) => recordingClient(serviceAccountUser(account.namespace, account.name, account.uid)),
  });
  const policy = simulationPolicy();
  for (const role of policy.clusterRoles) await ensureClusterRole(kp.client, role);
  for (const binding of policy.clusterRoleBindings) await ensureClusterRoleBinding(kp.client, binding);
  sim = await startSimulation({
    client: kp.client,
    schedulerClient: recordingClient(SCHEDULER_USER),
    clientFor: (node) => recordingClient(nodeUser(node)),
    nodes: 2,
  });
});
after(async () => {
  await sim?.stop();
  await cm?.stop();
  await kp?.close();
});

/** The accounts of the controllers the scenario below exercises. */
const EXERCISED = [
  'cronjob-controller', 'deployment-controller', 'generic-garbage-collector', 'job-controller', 'namespace-controller', 'replicaset-controller',
  'ttl-after-finished-controller', 'service-account-controller', 'statefulset-controller',
];

it('creates the ServiceAccounts, ClusterRoles and bindings of the controllers it runs', async () => {
  const sas = (await kp.client.resource(ServiceAccounts).list({ namespace: 'kube-system' })).items.map((s) => s.metadata!.name!);
  const running = CONTROLLER_IDENTITIES.filter((i) => cm.controllers.includes(i.controller));
  assert.deepEqual(running.map((i) => i.account).filter((a) => EXERCISED.includes(a)), EXERCISED);
  for (const id of running) {
    assert.ok(sas.includes(id.account), `${id.account} in ${sas}`);
    const role = await kp.client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false }).get(`system:controller:${id.account}`);
    assert.deepEqual((role as unknown as { rules: unknown }).rules, id.rules);
    const binding = await kp.client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', namespaced: false }).get(`system:controller:${id.account}`);
    assert.deepEqual((binding as unknown as { subjects: unknown }).subjects, [{ kind: 'ServiceAccount', apiGroup: '', name: id.account, namespace: 'kube-system' }]);
  }
  assert.ok(sas.every((n) => !n.endsWith('controller') || CONTROLLER_IDENTITIES.some((i) => i.account === n)));
});

// Its requests are checked with everyone else's by the next test.
it('runs a Job to completion, removed by its TTL', async () => {
  const c = kp.client;
  const spec = { completions: 2, ttlSecondsAfterFinished: 0, template: { metadata: { annotations: { 'kplane.io/run-ms': '50' } }, spec: { restartPolicy: 'Never' as const, containers: [{ name: 'main', image: 'busybox' }] } } };
  await c.resource(Jobs).create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'tache' }, spec }, { namespace: 'default' });
  await until('the Job to be removed', async () => (await c.resource(Jobs).list({ namespace: 'default' })).items.length === 0);
  await until('its pods to go', async () => (await c.resource(Pods).list({ namespace: 'default', labelSelector: 'batch.kubernetes.io/job-name=tache' })).items.length === 0);
});

// Its requests are checked with everyone else's by the next test.
it('runs a CronJob whose last start time was missed; its finished Job goes past the history limit', async () => {
  const c = kp.client;
  const template = { spec: { template: { metadata: { annotations: { 'kplane.io/run-ms': '50' } }, spec: { restartPolicy: 'Never' as const, containers: [{ name: 'main', image: 'busybox' }] } } } };
  await c.resource(CronJobs).create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'horaire' }, spec: { schedule: '* * * * *', successfulJobsHistoryLimit: 0, jobTemplate: template } }, { namespace: 'default' });
  // A start time two minutes back is overdue: the controller runs it now rather than at the next minute.
  const cj = await c.resource(CronJobs).get('horaire', { namespace: 'default' });
  cj.status = { lastScheduleTime: new Date(Date.now() - 120_000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  await c.resource(CronJobs).updateStatus(cj, { namespace: 'default' });
  await until('a successful run', async () => (await c.resource(CronJobs).get('horaire', { namespace: 'default' })).status?.lastSuccessfulTime !== undefined);
  await until('its Job to be deleted', async () => (await c.resource(Jobs).list({ namespace: 'default' })).items.every((j) => j.status?.succeeded !== 1));
  await c.resource(CronJobs).delete('horaire', { namespace: 'default' });
});

it('runs a Deployment to Ready pods, deletes it and its namespace, each component within its role', async () => {
  const c = kp.client;
  await c.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'moindre' } });
  await until('the default ServiceAccount', async () => (await c.resource(ServiceAccounts).list({ namespace: 'moindre' })).items.length > 0);
  const labels = { app: 'vitrine' };
  await c.resource(Deployments).create(
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'vitrine' }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
    { namespace: 'moindre' },
  );
  await until('2 available replicas', async () => (await c.resource(Deployments).get('vitrine', { namespace: 'moindre' })).status?.availableReplicas === 2);
  await c.resource(Deployments).patch('vitrine', { spec: { replicas: 1, template: { metadata: { labels: { ...labels, v: '2' } } } } }, 'merge', { namespace: 'moindre' });
  await until('the rollout', async () => {
    const d = await c.resource(Deployments).get('vitrine', { namespace: 'moindre' });
    return d.status?.updatedReplicas === 1 && d.status?.replicas === 1 && d.status?.availableReplicas === 1;
  });
  // A StatefulSet with a claim the set owns (whenDeleted Delete), rolled to a second template and scaled down.
  const sts = c.resource(StatefulSets);
  const claim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce' as const], resources: { requests: { storage: '1Gi' } } } };
  const retention = { whenDeleted: 'Delete' as const, whenScaled: 'Delete' as const };
  await sts.create(
    { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'rayon' }, spec: { replicas: 2, serviceName: 'rayon', selector: { matchLabels: { app: 'rayon' } }, template: { metadata: { labels: { app: 'rayon' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } }, volumeClaimTemplates: [claim], persistentVolumeClaimRetentionPolicy: retention } },
    { namespace: 'moindre' },
  );
  await until('2 ready set replicas', async () => (await sts.get('rayon', { namespace: 'moindre' })).status?.readyReplicas === 2);
  await sts.patch('rayon', { spec: { replicas: 1, template: { metadata: { labels: { app: 'rayon', v: '2' } } } } }, 'merge', { namespace: 'moindre' });
  await until('the set rollout', async () => {
    const s = (await sts.get('rayon', { namespace: 'moindre' })).status;
    return s?.replicas === 1 && s.updatedReplicas === 1 && s.readyReplicas === 1 && s.currentRevision === s.updateRevision;
  });
  await c.resource(Deployments).delete('vitrine', { namespace: 'moindre' });
  await until('the garbage collector', async () => (await c.resource(ReplicaSets).list({ namespace: 'moindre' })).items.length === 0);
  await c.resource(Namespaces).delete('moindre');
  await until('the namespace to go', async () => (await c.resource(Namespaces).list()).items.every((n) => n.metadata?.name !== 'moindre'));
  assert.equal((await c.resource(Pods).list({ namespace: 'moindre' })).items.length, 0);

  const rulesOf = (user: UserInfo): readonly PolicyRule[] => {
    if (user.username === SCHEDULER_USER.username) return [...SCHEDULER_RULES, ...EVERYONE];
    if (user.groups.includes('system:nodes')) return [...NODE_RULES, ...EVERYONE];
    const id = CONTROLLER_IDENTITIES.find((i) => user.username === `system:serviceaccount:kube-system:${i.account}`);
    assert.ok(id, `unexpected identity ${user.username}`);
    return [...id.rules, ...EVERYONE];
  };
  const refused = new Set<string>();
  const seen = new Set<string>();
  for (const { user, req } of recorded) {
    seen.add(user.username.replace(/^system:node:.*/, 'system:node:*'));
    const a = attributesOf(req);
    if (!allowed(rulesOf(user), a)) refused.add(`${user.username} ${a.verb} ${a.resourceRequest ? `${a.apiGroup}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}` : a.path}`);
  }
  assert.deepEqual([...refused], []);
  // Every identity acted (the check is not vacuous).
  for (const account of EXERCISED) assert.ok(seen.has(`system:serviceaccount:kube-system:${account}`), `${account} made no request`);
  assert.ok(seen.has('system:kube-scheduler') && seen.has('system:node:*'), [...seen].join(', '));
});

it('the rule check refuses what a role does not grant', () => {
  const rs = CONTROLLER_IDENTITIES.find((i) => i.account === 'replicaset-controller')!.rules;
  assert.equal(allowed(rs, attributesOf({ method: 'POST', path: '/api/v1/namespaces/a/pods' })), true);
  assert.equal(allowed(rs, attributesOf({ method: 'GET', path: '/api/v1/namespaces/a/pods/p' })), false, 'no get on pods');
  assert.equal(allowed(rs, attributesOf({ method: 'PUT', path: '/apis/apps/v1/namespaces/a/replicasets/x/status' })), true);
  assert.equal(allowed(rs, attributesOf({ method: 'PUT', path: '/apis/apps/v1/namespaces/a/deployments/x/status' })), false);
  assert.equal(allowed(SCHEDULER_RULES, attributesOf({ method: 'PUT', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/other' })), false, 'resourceNames');
  assert.equal(allowed(EVERYONE, attributesOf({ method: 'GET', path: '/apis/apps/v1' })), true);
  assert.equal(allowed(EVERYONE, attributesOf({ method: 'GET', path: '/metrics' })), false);
});

it('runs and rolls a DaemonSet over the simulated nodes within the DaemonSet controller role', async () => {
  const c = kp.client;
  const account = 'system:serviceaccount:kube-system:daemon-set-controller';
  const from = recorded.length;
  await c.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'partout' } });
  const labels = { app: 'sonde' };
  const ds = c.resource(DaemonSets);
  await ds.create(
    { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'sonde' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'sonde', image: 'busybox' }] } } } },
    { namespace: 'partout' },
  );
  const rolled = async (image: string) => {
    const d = await ds.get('sonde', { namespace: 'partout' });
    const pods = (await c.resource(Pods).list({ namespace: 'partout' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    return d.status?.numberAvailable === 2 && d.status.updatedNumberScheduled === 2 && pods.length === 2 && pods.every((p) => p.spec?.containers[0]?.image === image);
  };
  await until('a ready pod on both nodes', () => rolled('busybox'));
  await ds.patch('sonde', { spec: { template: { spec: { containers: [{ name: 'sonde', image: 'busybox:1.36' }] } } } }, 'strategic', { namespace: 'partout' });
  await until('the rolling update', () => rolled('busybox:1.36'));
  await c.resource(Namespaces).delete('partout');
  await until('the namespace to go', async () => (await c.resource(Namespaces).list()).items.every((n) => n.metadata?.name !== 'partout'));
  const rules = [...CONTROLLER_IDENTITIES.find((i) => i.account === 'daemon-set-controller')!.rules, ...EVERYONE];
  const mine = recorded.slice(from).filter((r) => r.user.username === account);
  assert.ok(mine.length > 0, 'the DaemonSet controller made no request');
  const refused = mine.map((r) => attributesOf(r.req)).filter((a) => !allowed(rules, a)).map((a) => `${a.verb} ${a.apiGroup}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}`);
  assert.deepEqual(refused, []);
});
