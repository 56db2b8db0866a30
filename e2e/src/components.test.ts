/**
 * kplane's own components with the real kubectl: the controllers' ServiceAccounts as the seed
 * lists them, the seed's metrics-reader flow against the controller manager's port (delegated
 * TokenReview and SubjectAccessReview), and the audit log.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { auditEvents, eventually, httpsGet, kubectl, kubectlOk, removeDir, startControllerManager, startKplane, tempDir, type ControllerManagerProcess, type KplaneProcess } from './harness.js';


describe("kplane's own components", { concurrency: 1 }, () => {
  let kp: KplaneProcess;
  let dir: string;
  let auditPath: string;
  let metricsUrl: string;
  /** Does the API server serve TokenRequest, TokenReview and SubjectAccessReview? */
  let delegationServed = false;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);

  before(async () => {
    dir = await tempDir();
    auditPath = join(dir, 'audit.log');
    kp = await startKplane(dir, ['--audit-log', auditPath]);
    metricsUrl = /serving securely on (https:\/\/127\.0\.0\.1:\d+)/.exec(kp.output())?.[1] ?? '';
    const core = await k('get', '--raw', '/api/v1');
    const authn = await kubectl(kp.kubeconfig, ['get', '--raw', '/apis/authentication.k8s.io/v1']);
    const authz = await kubectl(kp.kubeconfig, ['get', '--raw', '/apis/authorization.k8s.io/v1']);
    delegationServed = core.includes('"serviceaccounts/token"') && authn.stdout.includes('"tokenreviews"') && authz.stdout.includes('"subjectaccessreviews"');
  });
  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it("lists the controllers' ServiceAccounts in kube-system, as the seed does", async () => {
    const names = (await k('-n', 'kube-system', 'get', 'sa', '-o', 'name'))
      .split('\n')
      .filter((l) => /controller$/.test(l))
      .map((l) => l.replace('serviceaccount/', ''));
    // (the other controllers' accounts join them as kplane runs more controllers: certificate-controller, …)
    for (const name of ['deployment-controller', 'namespace-controller', 'replicaset-controller', 'service-account-controller']) assert.ok(names.includes(name), names.join(' '));
    assert.ok(names.every((n) => n.endsWith('-controller')), names.join(' '));
    assert.match(await k('-n', 'kube-system', 'get', 'sa', 'generic-garbage-collector', '-o', 'name'), /generic-garbage-collector/);
    assert.match(await k('get', 'clusterrolebinding', 'system:controller:replicaset-controller', '-o', 'jsonpath={.roleRef.name} {.subjects[0].kind}/{.subjects[0].namespace}/{.subjects[0].name}'), /^system:controller:replicaset-controller ServiceAccount\/kube-system\/replicaset-controller$/);
    assert.equal((await k('get', 'clusterrole', 'system:node', '-o', 'name')).trim(), 'clusterrole.rbac.authorization.k8s.io/system:node');
  });

  it("serves the controller manager's metrics to a ServiceAccount allowed get on /metrics (the seed's flow)", async (t) => {
    assert.ok(delegationServed, 'the API server serves TokenRequest, TokenReview and SubjectAccessReview');
    assert.ok(metricsUrl, kp.output());
    await k('create', 'namespace', 'ch36');
    await k('-n', 'ch36', 'create', 'deployment', 'vitrine', '--image=nginx', '--replicas=1');
    // Without a binding: refused.
    await k('-n', 'ch36', 'create', 'sa', 'sans-droit');
    const denied = await httpsGet(`${metricsUrl}/metrics`, kp.kubeconfig, false, (await k('-n', 'ch36', 'create', 'token', 'sans-droit')).trim());
    assert.equal(denied.status, 403);
    assert.equal(JSON.parse(denied.body).message, 'forbidden: User "system:serviceaccount:ch36:sans-droit" cannot get path "/metrics"');

    await k('-n', 'ch36', 'create', 'sa', 'lecteur-metriques');
    await k('create', 'clusterrole', 'cours-lecture-metriques', '--verb=get', '--non-resource-url=/metrics');
    await k('create', 'clusterrolebinding', 'cours-lecture-metriques', '--clusterrole=cours-lecture-metriques', '--serviceaccount=ch36:lecteur-metriques');
    const token = (await k('-n', 'ch36', 'create', 'token', 'lecteur-metriques')).trim();
    const metrics = await eventually('the metrics', async () => {
      const r = await httpsGet(`${metricsUrl}/metrics`, kp.kubeconfig, false, token);
      return r.status === 200 && /^workqueue_adds_total\{name="replicaset"\} [1-9]/m.test(r.body) ? r.body : undefined;
    });
    assert.match(metrics, /^workqueue_adds_total\{name="deployment"\} [1-9]\d*$/m);
    assert.match(metrics, /^workqueue_depth\{name="deployment"\} \d+$/m);

    const bad = await httpsGet(`${metricsUrl}/metrics`, kp.kubeconfig, false, `${token}x`);
    assert.deepEqual([bad.status, JSON.parse(bad.body).reason], [401, 'Unauthorized']);
    const anonymous = await httpsGet(`${metricsUrl}/metrics`, kp.kubeconfig, false);
    assert.deepEqual([anonymous.status, JSON.parse(anonymous.body).message], [403, 'forbidden: User "system:anonymous" cannot get path "/metrics"']);
    assert.equal((await httpsGet(`${metricsUrl}/healthz`, kp.kubeconfig, false)).body, 'ok');
  });

  it("writes kubectl's requests to the audit log, with the Audit-Id kubectl sees", async () => {
    const r = await kubectl(kp.kubeconfig, ['get', 'namespaces', 'kube-system', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    const auditID = /Audit-Id: ([0-9a-f-]{36})/i.exec(r.stderr)?.[1];
    assert.ok(auditID, r.stderr);
    const event = await eventually('the audit event', async () => {
      return (await auditEvents(auditPath)).find((e) => e.auditID === auditID && e.stage === 'ResponseComplete');
    });
    assert.equal(event.apiVersion, 'audit.k8s.io/v1');
    assert.equal(event.level, 'Metadata');
    assert.equal(event.verb, 'get');
    assert.equal(event.requestURI, '/api/v1/namespaces/kube-system');
    assert.deepEqual(event.objectRef, { resource: 'namespaces', namespace: 'kube-system', name: 'kube-system', apiGroup: '', apiVersion: 'v1' });
    assert.deepEqual(event.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(event.sourceIPs, ['127.0.0.1']);
    assert.match(event.userAgent ?? '', /^kubectl\//);
    assert.match(event.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(event.user.username, 'kplane-admin');
    assert.ok(event.user.groups?.includes('system:masters'), JSON.stringify(event.user));
    assert.equal((await stat(auditPath)).mode & 0o777, 0o600);
  });
});

describe('kplane controller-manager --use-service-account-credentials', { concurrency: 1 }, () => {
  let kp: KplaneProcess;
  let cm: ControllerManagerProcess | undefined;
  let dir: string;
  let auditPath: string;
  let served = false;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);

  before(async () => {
    dir = await tempDir();
    auditPath = join(dir, 'audit.log');
    kp = await startKplane(dir, ['--no-controllers', '--nodes', '1', '--audit-log', auditPath]);
    served = (await k('get', '--raw', '/api/v1')).includes('"serviceaccounts/token"');
  });
  after(async () => {
    await cm?.stop();
    await kp?.stop();
    await removeDir(dir);
  });

  it('runs each controller with its ServiceAccount token: the ReplicaSet is created by deployment-controller', async (t) => {
    assert.ok(served, 'the API server serves TokenRequest');
    cm = await startControllerManager(kp.kubeconfig, undefined, ['--use-service-account-credentials']);
    await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await eventually('2 ready replicas', async () => (await k('get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}')) === '2');
    const events = await auditEvents(auditPath);
    const creator = (resource: string) =>
      events.find((e) => e.verb === 'create' && e.objectRef?.resource === resource && e.objectRef?.namespace === 'default' && e.responseStatus?.code === 201)?.user?.username;
    assert.equal(creator('replicasets'), 'system:serviceaccount:kube-system:deployment-controller');
    assert.equal(creator('pods'), 'system:serviceaccount:kube-system:replicaset-controller');
    const status = events.find((e) => e.verb === 'update' && e.objectRef?.resource === 'pods' && e.objectRef?.subresource === 'status');
    assert.equal(status?.user?.username, 'system:node:kplane-node-0');
  });
});
