import { it } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import { parse } from 'yaml';
import { kubeconfigYaml, startControlPlane } from './control-plane.js';

it('starts in-process on memory storage, without disk or network, and serves a client', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false });
  try {
    assert.equal(cp.url, undefined);
    const cms = cp.client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } });
    assert.equal(created.metadata?.namespace, 'default');
    const got = await cms.get('x');
    assert.deepEqual(got.data, { a: '1' });
  } finally {
    await cp.stop();
  }
});

it('runs the controllers in process when asked, and stops them with the control plane', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true });
  try {
    assert.deepEqual(cp.controllerManager?.controllers, ['certificatesigningrequest-cleaner-controller', 'clusterrole-aggregation-controller', 'cronjob-controller', 'daemonset-controller', 'deployment-controller', 'disruption-controller', 'endpoints-controller', 'endpointslice-controller', 'garbage-collector-controller', 'horizontal-pod-autoscaler-controller', 'job-controller', 'namespace-controller', 'node-lifecycle-controller', 'persistentvolume-binder-controller', 'persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller', 'pod-garbage-collector-controller', 'replicaset-controller', 'replicationcontroller-controller', 'resourcequota-controller', 'serviceaccount-controller', 'serviceaccount-token-controller', 'statefulset-controller', 'taint-eviction-controller', 'ttl-after-finished-controller']);
    const sas = cp.client.resource({ group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true });
    await until('the serviceaccount controller to make kube-system/default', async () => (await sas.list({ namespace: 'kube-system' })).items.some((s) => s.metadata?.name === 'default'));
    const lease = await cp.client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true }).get('kube-controller-manager', { namespace: 'kube-system' });
    assert.equal((lease.spec as { holderIdentity?: string }).holderIdentity, cp.controllerManager?.identity);
  } finally {
    await cp.stop();
  }
});

it('serves the controller manager on its own port, and runs without it when the port is taken', async () => {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { createServer } = await import('node:net');
  const dir = await mkdtemp(join(tmpdir(), 'kplane-cp-'));
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const cp = await startControlPlane({ dataDir: join(dir, 'a'), storage: 'memory', port: 0, controllers: true, controllerManagerPort: 0 });
    try {
      assert.match(cp.controllerManager?.url ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await cp.stop();
    }
    const cp2 = await startControlPlane({ dataDir: join(dir, 'b'), storage: 'memory', port: 0, controllers: true, controllerManagerPort: taken });
    try {
      assert.ok(cp2.controllerManager, 'the controllers run');
      assert.equal(cp2.controllerManager.url, undefined);
    } finally {
      await cp2.stop();
    }
  } finally {
    blocker.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it('keeps the data dir owner-only: 0700, and 0600 for the database, the keys and the kubeconfig', async () => {
  const { chmod, mkdir, mkdtemp, rm, stat, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const root = await mkdtemp(join(tmpdir(), 'kplane-modes-'));
  const dataDir = join(root, 'data');
  // A data dir left world-readable by an older version is tightened too.
  await mkdir(dataDir, { mode: 0o755 });
  await chmod(dataDir, 0o755);
  await writeFile(join(dataDir, 'kubeconfig'), 'old', { mode: 0o644 });
  const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
  try {
    const cp = await startControlPlane({ dataDir, port: 0 });
    try {
      await cp.client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true }).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
      assert.equal(await mode(dataDir), 0o700);
      assert.equal(await mode(join(dataDir, 'kubeconfig')), 0o600);
      for (const db of ['state.db', 'state.db-wal', 'state.db-shm']) assert.equal(await mode(join(dataDir, db)), 0o600, db);
      assert.equal(await mode(join(dataDir, 'pki')), 0o700);
      for (const secret of ['ca.key', 'serving.key', 'admin.key', 'admin.token', 'sa.key']) assert.equal(await mode(join(dataDir, 'pki', secret)), 0o600, secret);
    } finally {
      await cp.stop();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it('authenticates HTTPS requests: static tokens, ServiceAccount tokens kept valid across a restart on the same key, anonymous only on public paths', async () => {
  const { mkdtemp, rm, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { request } = await import('node:https');
  const root = await mkdtemp(join(tmpdir(), 'kplane-auth-'));
  const tokenFile = join(root, 'tokens.csv');
  await writeFile(tokenFile, 'alice-token,alice,alice-uid,"dev,ops"\n');
  const call = (url: string, ca: string, method: string, path: string, token?: string, body?: unknown) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${url}${path}`, { method, ca, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const whoami = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
  try {
    const start = () => startControlPlane({ dataDir: join(root, 'data'), port: 0, authentication: { tokenAuthFile: tokenFile } });
    let cp = await start();
    let token: string;
    try {
      const { readFile } = await import('node:fs/promises');
      const ca = await readFile(join(root, 'data', 'pki', 'ca.crt'), 'utf8');
      const me = await call(cp.url!, ca, 'POST', whoami, 'alice-token', {});
      assert.equal(me.status, 201);
      assert.deepEqual(me.body.status.userInfo, { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
      assert.equal((await call(cp.url!, ca, 'GET', '/api/v1/namespaces')).status, 401);
      assert.equal((await call(cp.url!, ca, 'GET', '/healthz')).status, 200);
      const bad = await call(cp.url!, ca, 'GET', '/healthz', 'wrong');
      assert.equal(bad.status, 401);
      assert.equal(bad.body.message, 'Unauthorized');
      await cp.client.resource({ group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true }).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
      // RBAC: alice may ask tokens of default's ServiceAccounts.
      const rbac = (resource: string) => cp!.client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, namespaced: true });
      await rbac('roles').create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tokens', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }] } as never);
      const rb = await rbac('rolebindings').create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-tokens', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tokens' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] } as never);
      await cp.apiServer.rbacSynced('rolebindings', rb.metadata!.resourceVersion!);
      const issued = await call(cp.url!, ca, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', 'alice-token', { spec: {} });
      assert.equal(issued.status, 201);
      token = issued.body.status.token;
      assert.equal((await call(cp.url!, ca, 'POST', whoami, token, {})).body.status.userInfo.username, 'system:serviceaccount:default:robot');
      // In process, a transport for a given identity.
      const asRobot = await cp.transportFor({ username: 'system:serviceaccount:default:robot', groups: ['system:serviceaccounts', 'system:authenticated'] })({ method: 'POST', path: whoami, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });
      assert.equal(JSON.parse(Buffer.from(asRobot.body!).toString()).status.userInfo.username, 'system:serviceaccount:default:robot');
    } finally {
      await cp.stop();
    }
    cp = await start();
    try {
      const { readFile } = await import('node:fs/promises');
      const ca = await readFile(join(root, 'data', 'pki', 'ca.crt'), 'utf8');
      assert.equal((await call(cp.url!, ca, 'POST', whoami, token, {})).status, 201);
      const jwks = await call(cp.url!, ca, 'GET', '/openid/v1/jwks', token);
      assert.equal(jwks.body.keys[0].alg, 'RS256');
    } finally {
      await cp.stop();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it('writes the audit log asked for, in-process requests included, owner-only', async () => {
  const { mkdtemp, readFile, rm, stat } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'kplane-audit-'));
  const path = join(dir, 'audit.log');
  try {
    const cp = await startControlPlane({ storage: 'memory', listen: false, auditLogPath: path });
    try {
      const r = await cp.transport({ method: 'GET', path: '/api/v1/namespaces/kube-system/configmaps/absent', user: { username: 'u', groups: ['system:masters', 'system:authenticated'] } });
      assert.equal(r.status, 404);
      assert.ok(r.headers['audit-id']);
    } finally {
      await cp.stop();
    }
    const events = (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const e = events.find((x) => x.auditID === events.at(-1).auditID);
    assert.deepEqual([e.verb, e.user, e.objectRef, e.responseStatus.code], ['get', { username: 'u', groups: ['system:masters', 'system:authenticated'] }, { resource: 'configmaps', namespace: 'kube-system', name: 'absent', apiGroup: '', apiVersion: 'v1' }, 404]);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('writes a kubeconfig that YAML reads back as the admin config, IPv6 server included', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  for (const server of ['https://127.0.0.1:6443', 'https://[::1]:6443']) {
    assert.deepEqual(parse(kubeconfigYaml(server, 'CA\n', 'CERT "x"\n', 'KEY\n')), {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kplane', cluster: { server, 'certificate-authority-data': b64('CA\n') } }],
      users: [{ name: 'kplane-admin', user: { 'client-certificate-data': b64('CERT "x"\n'), 'client-key-data': b64('KEY\n') } }],
      contexts: [{ name: 'kplane', context: { cluster: 'kplane', user: 'kplane-admin' } }],
      'current-context': 'kplane',
      preferences: {},
    });
  }
});
