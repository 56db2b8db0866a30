import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createCa, issueCertificate } from '@kplane/apiserver';
import { ConfigMaps, Leases, Namespaces } from '@kplane/runtime';
import {
  CONTROLLER_MANAGER_LEASE,
  isControllerEnabled,
  startControllerManager,
  validateControllerSelectors,
  type ControllerManager,
} from './manager.js';
import { eventually, until } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from './namespace/testing.js';

let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

it('validates --controllers as kube-controller-manager, aliases included', () => {
  assert.deepEqual(validateControllerSelectors(['*', '-garbagecollector', 'namespace-controller', 'serviceaccount']), []);
  assert.deepEqual(validateControllerSelectors(['*', 'bootstrapsigner', '-nope']), [
    '"bootstrapsigner" is not in the list of known controllers',
    '"nope" is not in the list of known controllers',
  ]);
});

it('decides which controllers run: first mention wins, then "*"', () => {
  assert.equal(isControllerEnabled('namespace-controller', ['*']), true);
  assert.equal(isControllerEnabled('namespace-controller', ['*', '-namespace']), false);
  assert.equal(isControllerEnabled('namespace-controller', ['-namespace-controller', '*']), false);
  assert.equal(isControllerEnabled('namespace-controller', ['namespace', '-namespace']), true);
  assert.equal(isControllerEnabled('namespace-controller', ['serviceaccount']), false, 'no star: only what is named');
  assert.equal(isControllerEnabled('namespace-controller', []), false);
  assert.equal(isControllerEnabled('namespace-controller', ['*'], ['namespace-controller']), false, 'disabled by default');
});

it('refuses unknown controllers before starting anything', async () => {
  await assert.rejects(startControllerManager({ client: kp.client, controllers: ['*', 'tokencleaner'] }), {
    message: '"tokencleaner" is not in the list of known controllers',
  });
});

/** GET over HTTPS with optional bearer token or client certificate. */
function get(url: string, opts: { ca: string; token?: string; cert?: string; key?: string }): Promise<{ status: number; body: string; type?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: opts.ca, cert: opts.cert, key: opts.key, headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('leads on the kube-controller-manager Lease, serves metrics to the admin credentials only, and hands over', async () => {
  const ca = await createCa();
  const serving = await issueCertificate(ca, { subject: 'CN=localhost', usage: 'server', ipAddresses: ['127.0.0.1'] });
  const admin = await issueCertificate(ca, { subject: 'CN=kplane-admin, O=system:masters', usage: 'client' });
  const otherCa = await createCa('other');
  const stranger = await issueCertificate(otherCa, { subject: 'CN=stranger', usage: 'client' });
  const timing = { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 100 };
  const logs: string[] = [];
  let second: ControllerManager | undefined;
  // The API server's answers to the delegated TokenReview and SubjectAccessReview: token
  // "s3cret" is the user "lecteur", the only one allowed to get /metrics; "curieux" is known but not allowed.
  const reviews: string[] = [];
  const client = kp.clientWith(async (req, next) => {
    const body = req.body ? JSON.parse(Buffer.from(req.body).toString('utf8')) : undefined;
    const answer = (status: unknown) => ({ status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ...body, status })) });
    if (req.method === 'POST' && req.path === '/apis/authentication.k8s.io/v1/tokenreviews') {
      reviews.push(`token ${body.spec.token}`);
      const users: Record<string, string> = { s3cret: 'lecteur', curious: 'curieux' };
      const username = users[body.spec.token];
      return answer(username ? { authenticated: true, user: { username, groups: ['system:authenticated'] } } : { authenticated: false });
    }
    if (req.method === 'POST' && req.path === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
      reviews.push(`sar ${body.spec.user} ${body.spec.nonResourceAttributes.verb} ${body.spec.nonResourceAttributes.path}`);
      return answer({ allowed: body.spec.user === 'lecteur' && body.spec.nonResourceAttributes.path === '/metrics' });
    }
    return next(req);
  });
  const first = await startControllerManager({
    client,
    leaderElection: { identity: 'first', ...timing },
    serving: { port: 0, cert: serving.cert, key: serving.key, clientCa: ca.pem.cert },
    namespaceController: { deletionGracePeriodMs: 0 },
    log: (m) => logs.push(m),
  });
  try {
    assert.deepEqual(first.controllers, ['certificatesigningrequest-cleaner-controller', 'clusterrole-aggregation-controller', 'cronjob-controller', 'daemonset-controller', 'deployment-controller', 'disruption-controller', 'endpoints-controller', 'endpointslice-controller', 'garbage-collector-controller', 'horizontal-pod-autoscaler-controller', 'job-controller', 'namespace-controller', 'node-lifecycle-controller', 'persistentvolume-binder-controller', 'persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller', 'pod-garbage-collector-controller', 'replicaset-controller', 'replicationcontroller-controller', 'resourcequota-controller', 'serviceaccount-controller', 'statefulset-controller', 'taint-eviction-controller', 'ttl-after-finished-controller']);
    const lease = await eventually('the Lease', async () => {
      const l = await kp.client.resource(Leases).get(CONTROLLER_MANAGER_LEASE.name, { namespace: CONTROLLER_MANAGER_LEASE.namespace });
      return l.spec?.holderIdentity ? l : undefined;
    });
    assert.equal(lease.spec?.holderIdentity, 'first');
    await eventually('leadership', () => first.manager.leading());

    // The controllers run: a deleted namespace goes, a new one gets its ServiceAccount.
    await kp.client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'short-lived' } });
    await kp.client.resource(Namespaces).delete('short-lived');
    await eventually('the namespace to go', async () => !(await kp.client.resource(Namespaces).list()).items.some((n) => n.metadata?.name === 'short-lived'));

    // The garbage collector runs too: a dependent of a missing owner goes.
    await kp.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'orphelin', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'absent', uid: '8d9f5f8e-0000-4000-8000-000000000000' }] },
    });
    await eventually('the garbage collector', async () => !(await kp.client.resource(ConfigMaps).list({ namespace: 'default' })).items.some((c) => c.metadata?.name === 'orphelin'), 15_000);

    const base = first.url!;
    assert.match(base, /^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await get(`${base}/healthz`, { ca: ca.pem.cert });
    assert.deepEqual([health.status, health.body], [200, 'ok']);
    // As kube-controller-manager: no credentials is system:anonymous, refused by the SubjectAccessReview.
    const anonymous = await get(`${base}/metrics`, { ca: ca.pem.cert });
    assert.equal(anonymous.status, 403);
    assert.deepEqual(JSON.parse(anonymous.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "system:anonymous" cannot get path "/metrics"', reason: 'Forbidden', details: {}, code: 403,
    });
    const wrong = await get(`${base}/metrics`, { ca: ca.pem.cert, token: 'wrong' });
    assert.deepEqual([wrong.status, JSON.parse(wrong.body).reason, JSON.parse(wrong.body).message], [401, 'Unauthorized', 'Unauthorized']);
    assert.equal((await get(`${base}/metrics`, { ca: ca.pem.cert, cert: stranger.cert, key: stranger.key })).status, 403, 'a certificate of another CA names no one');
    const curious = await get(`${base}/metrics`, { ca: ca.pem.cert, token: 'curious' });
    assert.deepEqual([curious.status, JSON.parse(curious.body).message], [403, 'forbidden: User "curieux" cannot get path "/metrics"']);
    const byToken = await get(`${base}/metrics`, { ca: ca.pem.cert, token: 's3cret' });
    assert.equal(byToken.status, 200);
    assert.match(byToken.type ?? '', /^text\/plain/);
    assert.match(byToken.body, /^workqueue_adds_total\{name="namespace"\} [1-9]/m);
    assert.match(byToken.body, /^workqueue_depth\{name="serviceaccount"\} \d+/m);
    assert.match(byToken.body, /^leader_election_master_status\{name="kube-controller-manager"\} 1/m);
    const byCert = await get(`${base}/metrics`, { ca: ca.pem.cert, cert: admin.cert, key: admin.key });
    assert.equal(byCert.status, 200, 'system:masters needs no review');
    assert.equal((await get(`${base}/metrics`, { ca: ca.pem.cert, token: 's3cret' })).status, 200);
    assert.deepEqual(reviews, [
      'sar system:anonymous get /metrics',
      'token wrong',
      'token curious',
      'sar curieux get /metrics',
      'token s3cret',
      'sar lecteur get /metrics',
    ], 'the stranger and the second reads were answered from the caches');
    assert.equal((await get(`${base}/nope`, { ca: ca.pem.cert })).status, 403, 'authorised before routing');
    assert.equal((await get(`${base}/healthz`, { ca: ca.pem.cert, token: 'wrong' })).status, 200, 'health is never checked');

    // A second manager waits for the Lease, and takes over once the first stops.
    let leaseReads = 0;
    const counting = kp.clientWith(async (req, next) => {
      const res = await next(req);
      if (req.method === 'GET' && req.path.endsWith(`/leases/${CONTROLLER_MANAGER_LEASE.name}`)) leaseReads++;
      return res;
    });
    second = await startControllerManager({ client: counting, leaderElection: { identity: 'second', ...timing }, log: () => {} });
    // A third read of the Lease comes after the second attempt is over: twice it found first's.
    await until('the second to try twice', () => leaseReads >= 3);
    assert.equal(second.manager.leading(), false, 'the second waits');
    await first.stop();
    await eventually('the second to lead', () => second!.manager.leading());
    const taken = await kp.client.resource(Leases).get(CONTROLLER_MANAGER_LEASE.name, { namespace: CONTROLLER_MANAGER_LEASE.namespace });
    assert.equal(taken.spec?.holderIdentity, 'second');
    assert.ok(logs.some((l) => l.startsWith('successfully acquired lease kube-system/kube-controller-manager as first')), logs.join('\n'));
  } finally {
    await first.stop();
    await second?.stop();
  }
});

it('runs without leader election and only the selected controllers', async () => {
  const cm = await startControllerManager({ client: kp.client, leaderElect: false, controllers: ['serviceaccount'], log: () => {} });
  try {
    assert.deepEqual(cm.controllers, ['serviceaccount-controller']);
    await eventually('leading without a Lease', () => cm.manager.leading());
    assert.equal(cm.port, undefined);
  } finally {
    await cm.stop();
  }
});
