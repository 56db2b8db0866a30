import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer, type TestServer } from '../testing.js';

const NS = '/api/v1/namespaces/default';

function pod(name: string, containers: object[] = [{ name: 'c', image: 'busybox' }], extra: object = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers, ...extra } };
}

async function withServer(fn: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startTestServer();
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

/** Creates a quota and writes its status as the controller would (nothing used yet). */
async function quota(s: TestServer, name: string, hard: Record<string, string>, spec: object = {}) {
  const r = await s.call('POST', `${NS}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...spec } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const used = Object.fromEntries(Object.keys(hard).map((k) => [k, '0']));
  const u = await s.call('PUT', `${NS}/resourcequotas/${name}/status`, { ...r.body, status: { hard, used } });
  assert.equal(u.status, 200, JSON.stringify(u.body));
}

const used = async (s: TestServer, name: string) => (await s.call('GET', `${NS}/resourcequotas/${name}`)).body.status.used;

test('Priority: the system classes exist; a pod takes its class\'s value; an unknown class is refused', () =>
  withServer(async (s) => {
    const list = await s.call('GET', '/apis/scheduling.k8s.io/v1/priorityclasses');
    assert.deepEqual(list.body.items.map((c: { metadata: { name: string }; value: number }) => [c.metadata.name, c.value]), [
      ['system-cluster-critical', 2000000000],
      ['system-node-critical', 2000001000],
    ]);
    const pc = await s.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' });
    assert.equal(pc.status, 201, JSON.stringify(pc.body));
    const p = await s.call('POST', `${NS}/pods`, pod('p', undefined, { priorityClassName: 'high' }));
    assert.equal(p.status, 201, JSON.stringify(p.body));
    assert.equal(p.body.spec.priority, 1000);
    assert.equal(p.body.spec.preemptionPolicy, 'Never');
    const lost = await s.call('POST', `${NS}/pods`, pod('lost', undefined, { priorityClassName: 'nope' }));
    assert.equal(lost.status, 403);
    assert.equal(lost.body.message, 'pods "lost" is forbidden: no PriorityClass with name nope was found');
    const wrong = await s.call('POST', `${NS}/pods`, pod('wrong', undefined, { priorityClassName: 'high', priority: 5 }));
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.message, 'pods "wrong" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
    const plain = await s.call('POST', `${NS}/pods`, pod('plain'));
    assert.equal(plain.body.spec.priority, 0);
    assert.equal(plain.body.spec.priorityClassName, undefined);
  }));

test('Priority: the global default class is given to pods without one; a second default is refused', () =>
  withServer(async (s) => {
    const mk = (name: string, value: number) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, globalDefault: true });
    assert.equal((await s.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', mk('normal', 100))).status, 201);
    const second = await s.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', mk('other', 200));
    assert.equal(second.status, 403);
    assert.equal(second.body.message, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist');
    const p = await s.call('POST', `${NS}/pods`, pod('p'));
    assert.equal(p.body.spec.priority, 100);
    assert.equal(p.body.spec.priorityClassName, 'normal');
    const sys = await s.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { ...mk('system-mine', 1), globalDefault: false });
    assert.equal(sys.status, 422);
    const big = await s.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { ...mk('huge', 1_000_000_001), globalDefault: false });
    assert.equal(big.status, 422);
    assert.match(big.body.message, /maximum allowed value of a user defined priority is 1000000000/);
  }));

async function limitRange(s: TestServer, limits: object[]) {
  const r = await s.call('POST', `${NS}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

test('LimitRanger: defaults from max, default and defaultRequest, recorded in the annotation', () =>
  withServer(async (s) => {
    const lr = await limitRange(s, [{ type: 'Container', max: { cpu: '1' }, defaultRequest: { memory: '64Mi' }, default: { memory: '128Mi' } }]);
    // SetDefaults_LimitRangeItem: default cpu from max, default request cpu from the default.
    assert.deepEqual(lr.spec.limits[0].default, { memory: '128Mi', cpu: '1' });
    assert.deepEqual(lr.spec.limits[0].defaultRequest, { memory: '64Mi', cpu: '1' });
    const p = await s.call('POST', `${NS}/pods`, pod('p', [{ name: 'web', image: 'busybox', resources: { requests: { cpu: '250m' } } }]));
    assert.equal(p.status, 201, JSON.stringify(p.body));
    assert.deepEqual(p.body.spec.containers[0].resources, { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi', cpu: '1' } });
    assert.equal(p.body.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: memory request for container web; cpu, memory limit for container web');
  }));

test('LimitRanger: max, min and maxLimitRequestRatio refuse with kube\'s messages', () =>
  withServer(async (s) => {
    await limitRange(s, [
      { type: 'Container', max: { cpu: '1' }, min: { memory: '10Mi' }, maxLimitRequestRatio: { cpu: '2' } },
      { type: 'Pod', max: { memory: '1Gi' } },
    ]);
    const res = (requests: object, limits: object) => [{ name: 'c', image: 'busybox', resources: { requests, limits } }];
    const over = await s.call('POST', `${NS}/pods`, pod('over', res({ cpu: '2', memory: '20Mi' }, { cpu: '2', memory: '20Mi' })));
    assert.equal(over.status, 403);
    assert.equal(over.body.message, 'pods "over" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    const small = await s.call('POST', `${NS}/pods`, pod('small', res({ cpu: '500m', memory: '1Mi' }, { cpu: '1', memory: '20Mi' })));
    assert.equal(small.body.message, 'pods "small" is forbidden: minimum memory usage per Container is 10Mi, but request is 1Mi');
    const ratio = await s.call('POST', `${NS}/pods`, pod('ratio', res({ cpu: '100m', memory: '20Mi' }, { cpu: '1', memory: '20Mi' })));
    assert.equal(ratio.body.message, 'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000');
    const podMax = await s.call('POST', `${NS}/pods`, pod('big', [
      ...res({ cpu: '500m', memory: '600Mi' }, { cpu: '1', memory: '600Mi' }),
      { name: 'd', image: 'busybox', resources: { requests: { cpu: '500m', memory: '600Mi' }, limits: { cpu: '1', memory: '600Mi' } } },
    ]));
    assert.equal(podMax.body.message, 'pods "big" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1200Mi');
    const both = await s.call('POST', `${NS}/pods`, pod('both', res({ cpu: '2', memory: '1Mi' }, { cpu: '2', memory: '20Mi' })));
    assert.equal(both.body.message, 'pods "both" is forbidden: [minimum memory usage per Container is 10Mi, but request is 1Mi, maximum cpu usage per Container is 1, but limit is 2]');
    const ok = await s.call('POST', `${NS}/pods`, pod('ok', res({ cpu: '500m', memory: '20Mi' }, { cpu: '1', memory: '20Mi' })));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  }));

test('ResourceQuota: the fourth pod exceeds pods=3 with kube\'s message; usage is charged at admission', () =>
  withServer(async (s) => {
    await quota(s, 'pods', { pods: '3' });
    for (const n of [1, 2, 3]) assert.equal((await s.call('POST', `${NS}/pods`, pod(`p${n}`))).status, 201);
    assert.deepEqual(await used(s, 'pods'), { pods: '3' });
    const fourth = await s.call('POST', `${NS}/pods`, pod('p4'));
    assert.equal(fourth.status, 403);
    assert.equal(fourth.body.reason, 'Forbidden');
    assert.equal(fourth.body.message, 'pods "p4" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3');
    // A dry run is checked but never charged.
    await quota(s, 'cms', { 'count/configmaps': '1' });
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    assert.equal((await s.call('POST', `${NS}/configmaps?dryRun=All`, cm('a'))).status, 201);
    assert.deepEqual(await used(s, 'cms'), { 'count/configmaps': '0' });
    assert.equal((await s.call('POST', `${NS}/configmaps`, cm('a'))).status, 201);
    const b = await s.call('POST', `${NS}/configmaps`, cm('b'));
    assert.equal(b.body.message, 'configmaps "b" is forbidden: exceeded quota: cms, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  }));

test('ResourceQuota: compute quotas need requests, sum them and name what is exceeded', () =>
  withServer(async (s) => {
    await quota(s, 'compute', { 'requests.cpu': '1', 'limits.memory': '1Gi' });
    const bare = await s.call('POST', `${NS}/pods`, pod('bare'));
    assert.equal(bare.status, 403);
    assert.equal(bare.body.message, 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');
    const sized = (name: string, cpu: string) => pod(name, [{ name: 'c', image: 'busybox', resources: { requests: { cpu }, limits: { memory: '512Mi' } } }]);
    assert.equal((await s.call('POST', `${NS}/pods`, sized('a', '600m'))).status, 201);
    assert.deepEqual(await used(s, 'compute'), { 'requests.cpu': '600m', 'limits.memory': '512Mi' });
    const b = await s.call('POST', `${NS}/pods`, sized('b', '500m'));
    assert.equal(b.body.message, 'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
  }));

test('ResourceQuota: scoped quotas count only matching pods; a quota without usage is "status unknown"', () =>
  withServer(async (s) => {
    await quota(s, 'besteffort', { pods: '1' }, { scopes: ['BestEffort'] });
    const sized = pod('sized', [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }]);
    assert.equal((await s.call('POST', `${NS}/pods`, sized)).status, 201);
    assert.equal((await s.call('POST', `${NS}/pods`, pod('be1'))).status, 201);
    const be2 = await s.call('POST', `${NS}/pods`, pod('be2'));
    assert.equal(be2.body.message, 'pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
    const r = await s.call('POST', `${NS}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'fresh' }, spec: { hard: { secrets: '5' } } });
    await s.call('PUT', `${NS}/resourcequotas/fresh/status`, { ...r.body, status: { hard: { secrets: '5' } } });
    const sec = await s.call('POST', `${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    assert.equal(sec.status, 403);
    assert.equal(sec.body.message, 'secrets "s" is forbidden: status unknown for quota: fresh, resources: secrets');
  }));

test('ResourceQuota: a service turned NodePort is charged its node ports; an unchanged update is free', () =>
  withServer(async (s) => {
    await quota(s, 'svc', { 'services.nodeports': '1', services: '5' });
    const svc = await s.call('POST', `${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } });
    assert.equal(svc.status, 201, JSON.stringify(svc.body));
    assert.deepEqual(await used(s, 'svc'), { 'services.nodeports': '0', services: '1' });
    const same = await s.call('PUT', `${NS}/services/web`, { ...svc.body, metadata: { ...svc.body.metadata, labels: { a: 'b' } } });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.deepEqual(await used(s, 'svc'), { 'services.nodeports': '0', services: '1' });
    const np = await s.call('PUT', `${NS}/services/web`, { ...same.body, spec: { ...same.body.spec, type: 'NodePort' } });
    assert.equal(np.status, 403);
    assert.equal(np.body.message, 'services "web" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
  }));
