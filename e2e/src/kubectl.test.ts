import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:https';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '@kplane/api/testing';
import { kubectl, kubectlOk, useKplane } from './harness.js';
import { GARDE_CONFIGMAP } from './harness.js';

const GARDE = GARDE_CONFIGMAP;

describe('kubectl against kplane up', () => {
  // The API server's own behaviour: no simulated nodes, so pods stay Pending as they were created.
  const suite = useKplane(['--nodes', '0']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const kIn = (input: string, ...args: string[]) => kubectlOk(suite.kp.kubeconfig, args, input);

  it('creates a namespace and lists the system ones', async () => {
    assert.match(await k('create', 'namespace', 'ch36'), /namespace\/ch36 created/);
    const out = await k('get', 'namespaces');
    assert.match(out, /^NAME\s+STATUS\s+AGE/m);
    for (const ns of ['ch36', 'default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(out, new RegExp(`^${ns}\\s+Active\\s`, 'm'));
  });

  it('applies a ConfigMap, changes it and applies again', async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vitrine\n  namespace: ch36\n  labels:\n    app: vitrine\ndata:\n  repliques: "${v}"\n  couleur: bleu\n`;
    assert.match(await kIn(cm('3'), 'apply', '-f', '-'), /configmap\/vitrine created/);
    assert.match(await kIn(cm('4'), 'apply', '-f', '-'), /configmap\/vitrine configured/);
    assert.match(await kIn(cm('4'), 'apply', '-f', '-'), /configmap\/vitrine unchanged/);
    const obj = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.equal(obj.data.repliques, '4');
    assert.ok(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'].includes('"repliques":"4"'));
    // Removing a key from the manifest removes it from the object (three-way merge).
    await kIn(cm('5').replace('  couleur: bleu\n', ''), 'apply', '-f', '-');
    const after = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.deepEqual(after.data, { repliques: '5' });
  });

  it('prints objects as yaml, json, jsonpath, custom-columns and wide', async () => {
    assert.match(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'yaml'), /^kind: ConfigMap$/m);
    assert.equal(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'jsonpath={.data.repliques}'), '5');
    const cc = await k('-n', 'ch36', 'get', 'cm', '-o', 'custom-columns=NOM:.metadata.name,R:.data.repliques');
    assert.match(cc, /^NOM\s+R$/m);
    assert.match(cc, /^vitrine\s+5$/m);
    const table = await k('-n', 'ch36', 'get', 'cm');
    assert.match(table, /^NAME\s+DATA\s+AGE$/m);
    assert.match(table, /^vitrine\s+1\s+\d+s$/m);
    const wide = await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'wide');
    assert.match(wide, /^vitrine\s+1\s+/m);
    const labels = await k('-n', 'ch36', 'get', 'cm', '-l', 'app=vitrine', '-o', 'name');
    assert.equal(labels.trim(), 'configmap/vitrine');
    // Every namespace also holds kube-root-ca.crt (the root CA certificate publisher's), as in Kubernetes.
    assert.equal((await k('-n', 'ch36', 'get', 'cm', '-l', 'app!=vitrine', '-o', 'name')).trim(), 'configmap/kube-root-ca.crt');
  });

  it('explains fields and lists api-resources', async () => {
    const ex = await k('explain', 'pods.spec.containers');
    assert.match(ex, /KIND:\s+Pod/);
    assert.match(ex, /FIELD:\s+containers/);
    assert.match(ex, /image\s+<string>/);
    const res = await k('api-resources');
    assert.match(res, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    assert.match(res, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(res, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    const wide = await k('api-resources', '-o', 'wide');
    assert.match(wide, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap\s+create,delete,deletecollection,get,list,patch,update,watch/m);
  });

  it('explains and checks the whole 1.32 schema: enums, required fields, scheduling rules', async () => {
    const policy = await k('explain', 'pods.spec.containers.imagePullPolicy');
    assert.match(policy, /ENUM:\s+Always\s+IfNotPresent\s+Never/);
    const term = await k('explain', 'pods.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution');
    assert.match(term, /FIELD:\s+requiredDuringSchedulingIgnoredDuringExecution <\[\]PodAffinityTerm>/);
    assert.match(term, /topologyKey\s+<string> -required-/);
    const pod = (extra: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: placed}\nspec:\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]${extra}}]}]}}}\n  containers: [{name: c, image: registry.k8s.io/pause:3.10}]\n`;
    const unknown = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'apply', '--validate=strict', '-f', '-'], pod(', weight: 1'));
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown field "spec\.affinity\.nodeAffinity\.requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.weight"/);
    assert.match(await kIn(pod(''), '-n', 'ch36', 'apply', '--validate=strict', '-f', '-'), /pod\/placed created/);
    const got = JSON.parse(await k('-n', 'ch36', 'get', 'pod', 'placed', '-o', 'json'));
    assert.deepEqual(got.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]);
    await k('-n', 'ch36', 'delete', 'pod', 'placed', '--wait=false');
  });

  it('answers get --raw', async () => {
    const ns = JSON.parse(await k('get', '--raw', '/api/v1/namespaces/default'));
    assert.equal(ns.kind, 'Namespace');
    assert.deepEqual(ns.spec.finalizers, ['kubernetes']);
    const version = JSON.parse(await k('get', '--raw', '/version'));
    assert.equal(version.major, '1');
  });

  it('serves /openapi/v2, which kubectl explain --output=plaintext-openapiv2 reads', async () => {
    const doc = JSON.parse(await k('get', '--raw', '/openapi/v2'));
    assert.equal(doc.swagger, '2.0');
    assert.deepEqual(doc.definitions['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    assert.equal(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch['x-kubernetes-action'], 'patch');
    const ex = await k('explain', 'deployment', '--output=plaintext-openapiv2');
    assert.match(ex, /^KIND:\s+Deployment$/m);
    assert.match(ex, /^VERSION:\s+apps\/v1$/m);
    assert.match(ex, /^\s+spec\s+<Object>$/m);
    const surge = await k('explain', 'deployment.spec.strategy.rollingUpdate.maxSurge', '--output=plaintext-openapiv2');
    assert.match(surge, /^FIELD:\s+maxSurge <string>$/m, 'an IntOrString is a string in v2');
    const ports = await k('explain', 'pods.spec.containers.ports', '--output=plaintext-openapiv2');
    assert.match(ports, /^\s+containerPort\s+<integer> -required-$/m);
    const recursive = await k('explain', 'pods', '--recursive', '--output=plaintext-openapiv2');
    assert.match(recursive, /^\s+containers\s+<\[\]Object>$/m);
  });

  it('patches with merge, json and strategic patches; labels and annotates', async () => {
    await k('-n', 'ch36', 'patch', 'cm', 'vitrine', '--type', 'merge', '-p', '{"data":{"b":"2"}}');
    await k('-n', 'ch36', 'patch', 'cm', 'vitrine', '--type', 'json', '-p', '[{"op":"add","path":"/data/c","value":"3"}]');
    await k('-n', 'ch36', 'patch', 'cm', 'vitrine', '--type', 'strategic', '-p', '{"data":{"d":"4"}}');
    await k('-n', 'ch36', 'label', 'cm', 'vitrine', 'niveau=haut');
    await k('-n', 'ch36', 'annotate', 'cm', 'vitrine', 'note=ok');
    const obj = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.deepEqual(obj.data, { repliques: '5', b: '2', c: '3', d: '4' });
    assert.equal(obj.metadata.labels.niveau, 'haut');
    assert.equal(obj.metadata.annotations.note, 'ok');
    const bad = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'patch', 'cm', 'vitrine', '--type', 'json', '-p', '[{"op":"remove","path":"/data/nope"}]']);
    assert.notEqual(bad.code, 0);
  });

  it('creates a deployment and scales it: generation goes up', async () => {
    assert.match(
      await k('-n', 'ch36', 'create', 'deployment', 'vitrine', '--image=registry.k8s.io/e2e-test-images/agnhost:2.61', '--replicas=2', '--', '/agnhost', 'netexec'),
      /deployment.apps\/vitrine created/,
    );
    const d1 = JSON.parse(await k('-n', 'ch36', 'get', 'deploy', 'vitrine', '-o', 'json'));
    assert.equal(d1.metadata.generation, 1);
    assert.equal(d1.spec.replicas, 2);
    assert.equal(d1.spec.strategy.type, 'RollingUpdate');
    assert.equal(d1.spec.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.match(await k('-n', 'ch36', 'scale', 'deploy', 'vitrine', '--replicas=3'), /deployment.apps\/vitrine scaled/);
    const d2 = JSON.parse(await k('-n', 'ch36', 'get', 'deploy', 'vitrine', '-o', 'json'));
    assert.equal(d2.metadata.generation, 2);
    assert.equal(d2.spec.replicas, 3);
    // A label change is metadata: no new generation.
    await k('-n', 'ch36', 'label', 'deploy', 'vitrine', 'x=y');
    assert.equal(JSON.parse(await k('-n', 'ch36', 'get', 'deploy', 'vitrine', '-o', 'json')).metadata.generation, 2);
    assert.match(await k('-n', 'ch36', 'get', 'deploy'), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    // A strategic merge patch merges containers and env entries by name.
    await k('-n', 'ch36', 'set', 'env', 'deploy/vitrine', 'A=1');
    await k('-n', 'ch36', 'patch', 'deploy', 'vitrine', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"agnhost","env":[{"name":"B","value":"2"}]}]}}}}');
    const d3 = JSON.parse(await k('-n', 'ch36', 'get', 'deploy', 'vitrine', '-o', 'json'));
    assert.equal(d3.spec.template.spec.containers.length, 1);
    assert.deepEqual(d3.spec.template.spec.containers[0].env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
    assert.equal(d3.spec.template.spec.containers[0].image, 'registry.k8s.io/e2e-test-images/agnhost:2.61');
    assert.equal(d3.metadata.generation, 4);
  });

  it('shows pods with kubectl\'s usual columns', async () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: seul\n  namespace: ch36\nspec:\n  containers:\n  - name: web\n    image: registry.k8s.io/e2e-test-images/agnhost:2.61\n    env:\n    - {name: A, value: "1"}\n`;
    assert.match(await kIn(pod, 'apply', '-f', '-'), /pod\/seul created/);
    const table = await k('-n', 'ch36', 'get', 'pods');
    assert.match(table, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    assert.match(table, /^seul\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    const wide = await k('-n', 'ch36', 'get', 'pods', '-o', 'wide');
    assert.match(wide, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m);
    const obj = JSON.parse(await k('-n', 'ch36', 'get', 'pod', 'seul', '-o', 'json'));
    assert.equal(obj.status.phase, 'Pending');
    assert.equal(obj.spec.restartPolicy, 'Always');
    assert.match(await k('-n', 'ch36', 'get', 'pods', '--field-selector', 'status.phase=Pending', '-o', 'name'), /pod\/seul/);
  });

  it('get -w shows later changes', async () => {
    const child = spawn('kubectl', ['-n', 'ch36', 'get', 'cm', '-w', '-o', 'custom-columns=N:.metadata.name,V:.data.v', '--no-headers'], {
      env: { ...process.env, KUBECONFIG: suite.kp.kubeconfig },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    try {
      const waitFor = (re: RegExp) => until(`${re} in the watch output`, () => re.test(out), { intervalMs: 50 });
      await waitFor(/^vitrine\s/m);
      await k('-n', 'ch36', 'create', 'cm', 'observe', '--from-literal=v=1');
      await waitFor(/^observe\s+1$/m);
      await k('-n', 'ch36', 'patch', 'cm', 'observe', '-p', '{"data":{"v":"2"}}');
      await waitFor(/^observe\s+2$/m);
    } finally {
      child.kill();
    }
  });

  it('holds an object with a finalizer until the finalizer is removed (garde.yaml)', async () => {
    assert.match(await kIn(GARDE, '-n', 'ch36', 'apply', '-f', '-'), /configmap\/garde created/);
    assert.match(await k('-n', 'ch36', 'delete', 'cm', 'garde', '--wait=false'), /configmap "garde" deleted/);
    const marked = await k('-n', 'ch36', 'get', 'cm', 'garde', '-o', 'jsonpath=deletionTimestamp={.metadata.deletionTimestamp} finalizers={.metadata.finalizers}');
    assert.match(marked, /^deletionTimestamp=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ finalizers=\["cours.exemple\/archivage"\]$/);
    assert.match(await k('-n', 'ch36', 'get', 'cm', 'garde'), /^garde\s+1\s+/m);
    // No new finalizer once deleting.
    const add = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'patch', 'cm', 'garde', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/finalizers/-","value":"cours.exemple/autre"}]']);
    assert.notEqual(add.code, 0);
    assert.match(add.stderr, /no new finalizers can be added if the object is being deleted/);
    assert.match(await k('-n', 'ch36', 'patch', 'cm', 'garde', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]'), /configmap\/garde patched/);
    const gone = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'get', 'cm', 'garde']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "garde" not found/);
  });

  it('reports errors as Kubernetes does', async () => {
    const dup = await kubectl(suite.kp.kubeconfig, ['create', 'namespace', 'ch36']);
    assert.match(dup.stderr, /Error from server \(AlreadyExists\): namespaces "ch36" already exists/);
    const nons = await kubectl(suite.kp.kubeconfig, ['-n', 'nope', 'create', 'cm', 'x', '--from-literal=a=b']);
    // kubectl create <kind> words it as its own error; the Status message is Kubernetes'.
    assert.match(nons.stderr, /^error: failed to create configmap: namespaces "nope" not found$/m);
    const invalid = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'create', 'cm', 'Bad_Name']);
    assert.match(invalid.stderr, /is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    const strict = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndatta: {}\n');
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /unknown field "datta"/);
  });

  it('refuses requests without credentials, but serves /healthz and /version', async () => {
    const ca = await readFile(join(suite.kp.dataDir, 'pki', 'ca.crt'), 'utf8');
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${suite.kp.url}${path}`, { ca }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const denied = await get('/api/v1/namespaces');
    assert.equal(denied.status, 401);
    assert.equal(JSON.parse(denied.body).reason, 'Unauthorized');
    assert.equal((await get('/healthz')).body, 'ok');
    assert.equal((await get('/readyz')).status, 200);
    assert.equal(JSON.parse((await get('/version')).body).minor, '32');
  });

  it('keeps every object across a restart on the same data dir', async () => {
    const before = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.equal(await suite.restart(), 0);
    const after = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.deepEqual(after.data, before.data);
    assert.equal(after.metadata.uid, before.metadata.uid);
    await k('-n', 'ch36', 'patch', 'cm', 'vitrine', '-p', '{"data":{"e":"5"}}');
    const later = JSON.parse(await k('-n', 'ch36', 'get', 'cm', 'vitrine', '-o', 'json'));
    assert.ok(Number(later.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    assert.match(await k('get', 'deploy', '-n', 'ch36', 'vitrine', '-o', 'name'), /deployment.apps\/vitrine/);
  });
});
