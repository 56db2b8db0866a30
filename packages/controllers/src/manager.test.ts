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
import { eventually, startTestKplane, type TestKplane } from './namespace/testing.js';

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
  const first = await startControllerManager({
    client: kp.client,
    leaderElection: { identity: 'first', ...timing },
    serving: { port: 0, cert: serving.cert, key: serving.key, clientCa: ca.pem.cert, tokens: ['s3cret'] },
    namespaceController: { deletionGracePeriodMs: 0 },
    log: (m) => logs.push(m),
  });
  try {
    assert.deepEqual(first.controllers, ['certificatesigningrequest-cleaner-controller', 'deployment-controller', 'garbage-collector-controller', 'namespace-controller', 'replicaset-controller', 'serviceaccount-controller']);
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
    const anonymous = await get(`${base}/metrics`, { ca: ca.pem.cert });
    assert.equal(anonymous.status, 401);
    assert.equal(JSON.parse(anonymous.body).reason, 'Unauthorized');
    assert.equal((await get(`${base}/metrics`, { ca: ca.pem.cert, token: 'wrong' })).status, 401);
    assert.equal((await get(`${base}/metrics`, { ca: ca.pem.cert, cert: stranger.cert, key: stranger.key })).status, 401);
    const byToken = await get(`${base}/metrics`, { ca: ca.pem.cert, token: 's3cret' });
    assert.equal(byToken.status, 200);
    assert.match(byToken.type ?? '', /^text\/plain/);
    assert.match(byToken.body, /^workqueue_adds_total\{name="namespace"\} [1-9]/m);
    assert.match(byToken.body, /^workqueue_depth\{name="serviceaccount"\} \d+/m);
    assert.match(byToken.body, /^leader_election_master_status\{name="kube-controller-manager"\} 1/m);
    const byCert = await get(`${base}/metrics`, { ca: ca.pem.cert, cert: admin.cert, key: admin.key });
    assert.equal(byCert.status, 200);
    assert.equal((await get(`${base}/nope`, { ca: ca.pem.cert })).status, 404);

    // A second manager waits for the Lease, and takes over once the first stops.
    second = await startControllerManager({ client: kp.client, leaderElection: { identity: 'second', ...timing }, log: () => {} });
    await new Promise((r) => setTimeout(r, 300));
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
