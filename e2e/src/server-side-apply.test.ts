import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startKplane, tempDir, widgetCrd, type KplaneProcess } from './harness.js';

const deployment = (replicas: number, image = 'nginx:1.27') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: vitrine
  namespace: ssa
  labels: {app: vitrine}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: vitrine}}
  template:
    metadata: {labels: {app: vitrine}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
`;

/** The Widget CRD of ssa.example.com (a list-map of ports) padded with described fields to over `bytes`. */
function bigCrd(bytes: number): string {
  const desc = 'A setting of the widget, described at length so that the definition grows. '.repeat(12).trim();
  const properties: Record<string, object> = {
    ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
  };
  for (let i = 0; JSON.stringify(properties).length < bytes; i++) properties[`field${i}`] = { type: 'string', description: desc };
  return widgetCrd('ssa.example.com', { type: 'object', properties });
}

describe('server-side apply with kubectl', () => {
  let kp: KplaneProcess;
  let dir: string;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);
  const kIn = (input: string, ...args: string[]) => kubectlOk(kp.kubeconfig, args, input);
  const json = async (...args: string[]) => JSON.parse(await k(...args, '-o', 'json'));

  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, ['--nodes', '0']);
    await k('create', 'namespace', 'ssa');
  });

  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('the ClusterRole aggregation controller applies the aggregated rules with its own field manager, without conflicts', async () => {
    const entry = await eventually('admin aggregated', async () => {
      const admin = await json('get', 'clusterrole', 'admin', '--show-managed-fields');
      return admin.rules?.length > 0 && admin.metadata.managedFields.find((e: { manager: string }) => e.manager === 'clusterrole-aggregation-controller');
    });
    assert.deepEqual([entry.operation, entry.fieldsV1], ['Apply', { 'f:rules': {} }]);
    assert.doesNotMatch(kp.output(), /Reconciler error: controller="ClusterRoleAggregator"/);
  });

  it('applies a Deployment server-side; managedFields show kubectl\'s Apply entry', async () => {
    assert.match(await kIn(deployment(2), 'apply', '--server-side', '-f', '-'), /deployment.apps\/vitrine serverside-applied/);
    const obj = await json('-n', 'ssa', 'get', 'deployment', 'vitrine', '--show-managed-fields');
    const entry = obj.metadata.managedFields.find((e: { manager: string }) => e.manager === 'kubectl');
    assert.equal(entry.operation, 'Apply');
    assert.deepEqual(entry.fieldsV1['f:spec']['f:replicas'], {});
    assert.ok(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:ports']['k:{"containerPort":80,"protocol":"TCP"}']);
    // Without the flag kubectl hides them.
    assert.equal((await json('-n', 'ssa', 'get', 'deployment', 'vitrine')).metadata.managedFields, undefined);
    const yaml = await k('-n', 'ssa', 'get', 'deployment', 'vitrine', '-o', 'yaml', '--show-managed-fields');
    assert.match(yaml, /^ {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n/m);
  });

  it('refuses a conflicting apply after another manager changed a field, then --force-conflicts takes it', async () => {
    await k('-n', 'ssa', 'patch', 'deployment', 'vitrine', '--type', 'merge', '-p', '{"spec":{"replicas":5}}');
    const refused = await kubectl(kp.kubeconfig, ['apply', '--server-side', '-f', '-'], deployment(3));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Apply failed with 1 conflict: conflict with "kubectl-patch" using apps\/v1: \.spec\.replicas/);
    assert.equal((await json('-n', 'ssa', 'get', 'deployment', 'vitrine')).spec.replicas, 5);
    await kIn(deployment(3), 'apply', '--server-side', '--force-conflicts', '-f', '-');
    const obj = await json('-n', 'ssa', 'get', 'deployment', 'vitrine', '--show-managed-fields');
    assert.equal(obj.spec.replicas, 3);
    assert.ok(!obj.metadata.managedFields.some((e: { manager: string }) => e.manager === 'kubectl-patch'));
  });

  it('two managers share a list-map; a field dropped from a manifest is removed', async () => {
    const other = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vitrine, namespace: ssa}\nspec:\n  template:\n    spec:\n      containers:\n      - name: sidecar\n        image: busybox\n`;
    await kIn(other, 'apply', '--server-side', '--field-manager', 'sidecar-injector', '-f', '-');
    await kIn(deployment(3).replace('  labels: {app: vitrine}\n', ''), 'apply', '--server-side', '-f', '-');
    const obj = await json('-n', 'ssa', 'get', 'deployment', 'vitrine');
    assert.deepEqual(obj.spec.template.spec.containers.map((c: { name: string }) => c.name), ['web', 'sidecar']);
    assert.equal(obj.metadata.labels, undefined);
  });

  it('applies a multi-document manifest', async () => {
    const docs = ['a', 'b', 'c'].map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: doc-${n}, namespace: ssa}\ndata: {k: "${n}"}\n`).join('---\n');
    const out = await kIn(docs, 'apply', '--server-side', '-f', '-');
    for (const n of ['a', 'b', 'c']) assert.match(out, new RegExp(`configmap/doc-${n} serverside-applied`));
    assert.equal((await json('-n', 'ssa', 'get', 'configmap', 'doc-b')).data.k, 'b');
  });

  it('applies a CRD over 500 KiB and a custom resource, merging its list-map', async () => {
    const crd = bigCrd(520 * 1024);
    assert.ok(crd.length > 500 * 1024);
    assert.match(await kIn(crd, 'apply', '--server-side', '-f', '-'), /customresourcedefinition.apiextensions.k8s.io\/widgets.ssa.example.com serverside-applied/);
    await k('wait', '--for', 'condition=Established', 'crd/widgets.ssa.example.com', '--timeout', '30s');
    const widget = (ports: string) => `apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ssa}\nspec:\n  ports:\n${ports}`;
    await kIn(widget('  - {name: http, port: 80}\n'), 'apply', '--server-side', '-f', '-');
    await kIn(widget('  - {name: metrics, port: 9090}\n'), 'apply', '--server-side', '--field-manager', 'monitoring', '-f', '-');
    const obj = await json('-n', 'ssa', 'get', 'widget', 'w');
    assert.deepEqual(obj.spec.ports, [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }]);
  });

  it('upgrades from client-side apply to server-side apply and back', async () => {
    const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: upgrade, namespace: ssa}\ndata: {${data}}\n`;
    await kIn(cm('a: "1", b: "2"'), 'apply', '-f', '-');
    // The client-side manager owns a and b; kubectl's server-side apply takes them over without a conflict.
    await kIn(cm('a: "10", b: "2"'), 'apply', '--server-side', '-f', '-');
    let obj = await json('-n', 'ssa', 'get', 'configmap', 'upgrade', '--show-managed-fields');
    assert.deepEqual(obj.data, { a: '10', b: '2' });
    assert.ok(obj.metadata.managedFields.some((e: { manager: string; operation: string }) => e.manager === 'kubectl' && e.operation === 'Apply'));
    assert.equal(JSON.parse(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data.a, '10');
    // Back to client-side apply: the annotation kept in step makes its three-way merge right.
    await kIn(cm('b: "20"'), 'apply', '-f', '-');
    obj = await json('-n', 'ssa', 'get', 'configmap', 'upgrade');
    assert.deepEqual(obj.data, { b: '20' });
  });

  it('kubectl diff --server-side shows what an apply would change, and changes nothing', async () => {
    const r = await kubectl(kp.kubeconfig, ['diff', '--server-side', '-f', '-'], deployment(4, 'nginx:1.28'));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^-\s+replicas: 3$/m);
    assert.match(r.stdout, /^\+\s+replicas: 4$/m);
    assert.match(r.stdout, /^\+\s+- image: nginx:1.28$/m);
    assert.equal((await json('-n', 'ssa', 'get', 'deployment', 'vitrine')).spec.replicas, 3);
    const same = await kubectl(kp.kubeconfig, ['diff', '--server-side', '-f', '-'], deployment(3).replace('  labels: {app: vitrine}\n', ''));
    assert.equal(same.code, 0, same.stdout + same.stderr);
  });
});
