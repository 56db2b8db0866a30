/**
 * kubectl's own command tests for Services and ServiceAccounts, replayed with the real kubectl
 * against `kplane up`: describe (sections, events, list page size), `set selector` (local,
 * dry-run, resourceVersion preconditions), a dumped Service recreated, replace, custom columns,
 * ExternalName Services, `run --expose` and `expose` with overrides and field managers; plus the
 * Endpoints line of `describe svc` once a Service has ready pods.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, useKplane } from './harness.js';
import { NAMES, kubectlCmd } from './kubectl-cmd.js';

const redisMaster = `apiVersion: v1
kind: Service
metadata:
  name: redis-master
  labels:
    app: redis
    role: master
    tier: backend
spec:
  ports:
  - port: 6379
    targetPort: 6379
  selector:
    app: redis
    role: master
    tier: backend
`;

const redisSlave = `apiVersion: v1
kind: Service
metadata:
  name: redis-slave
  labels:
    app: redis
    role: slave
    tier: backend
spec:
  ports:
  - port: 6379
  selector:
    app: redis
    role: slave
    tier: backend
`;

const SELECTOR = '{{range.spec.selector}}{{.}}:{{end}}';

describe('kubectl command tests: services', () => {
  const suite = useKplane(['--nodes', '1']);
  const k = kubectlCmd(() => suite.kp.kubeconfig);

  it('creates, describes, re-selects, dumps, recreates and deletes Services', async () => {
    await k.getAssert('services', NAMES, 'kubernetes:');
    await k.ok(['create', '-f', '-'], redisMaster);
    await k.getAssert('services', NAMES, 'kubernetes:redis-master:');
    const sections = ['Name:', 'Labels:', 'Selector:', 'IP:', 'Port:', 'Endpoints:', 'Session Affinity:'];
    await k.describeAssert('services', 'redis-master', sections);
    await k.describeEventsAssert('services', 'redis-master');
    await k.describeAssert('services', '', sections);
    await k.describeEventsAssert('services', '');
    await k.describeChunkSizeAssert('services', ['events']);

    // set selector: locally, as a client dry run, for real, and back.
    await k.getAssert('services redis-master', SELECTOR, 'redis:master:backend:');
    assert.match(await k.ok(['set', 'selector', '-f', '-', 'role=padawan', '--local', '-o', 'yaml'], redisMaster), /selector:\n\s+role: padawan/);
    await k.ok(['set', 'selector', '-f', '-', 'role=padawan', '--dry-run=client', '-o', 'yaml'], redisMaster);
    await k.ok(['set', 'selector', '-f', '-', 'role=padawan'], redisMaster);
    await k.getAssert('services redis-master', SELECTOR, 'padawan:');
    await k.ok(['set', 'selector', '-f', '-', 'app=redis,role=master,tier=backend'], redisMaster);
    await k.getAssert('services redis-master', SELECTOR, 'redis:master:backend:');
    await k.ok(['set', 'selector', 'services', 'redis-master', 'role=padawan', '--dry-run=client', '-o', 'yaml']);
    await k.ok(['set', 'selector', 'services', 'redis-master', 'role=padawan', '--dry-run=server', '-o', 'yaml']);
    assert.match(await k.ok(['get', 'services', 'redis-master', '--show-managed-fields', '-o=jsonpath={.metadata.managedFields[*].manager}']), /kubectl-set/);
    await k.fails(['set', 'selector', 'services', 'redis-master', 'role=padawan', '--local', '-o', 'yaml']);
    await k.getAssert('services redis-master', SELECTOR, 'redis:master:backend:');
    const rv = await k.ok(['get', 'services', 'redis-master', '-o', 'jsonpath={.metadata.resourceVersion}']);
    await k.ok(['set', 'selector', 'services', 'redis-master', 'rvtest1=true', `--resource-version=${rv}`]);
    assert.match(await k.fails(['set', 'selector', 'services', 'redis-master', 'rvtest1=true', '--resource-version=1']), /Conflict/);

    // A dumped Service comes back from its JSON.
    const dumped = await k.ok(['get', 'service', 'redis-master', '-o', 'json']);
    await k.ok(['delete', 'service', 'redis-master']);
    await k.getAssert('services', NAMES, 'kubernetes:');
    await k.ok(['create', '-f', '-'], dumped);
    await k.getAssert('services', NAMES, 'kubernetes:redis-master:');

    // A selector-less Service, replaced by itself.
    await k.ok(['create', '-f', '-'], JSON.stringify({ kind: 'Service', apiVersion: 'v1', metadata: { name: 'service-v1-test' }, spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }] } }));
    await k.getAssert('services', NAMES, /^kubernetes:redis-master:service-.*-test:$/);
    await k.ok(['replace', '-f', '-'], await k.ok(['get', 'service', 'service-v1-test', '-o', 'json']));
    await k.ok(['delete', 'service', 'redis-master']);
    await k.ok(['delete', 'service', 'service-v1-test']);
    await k.getAssert('services', NAMES, 'kubernetes:');

    // Two at once, custom columns, deleted together.
    await k.ok(['create', '-f', '-'], redisMaster);
    await k.ok(['create', '-f', '-'], redisSlave);
    await k.getAssert('services', NAMES, 'kubernetes:redis-master:redis-slave:');
    assert.match(await k.all(['get', 'services', '-o=custom-columns=NAME:.metadata.name,RSRC:.metadata.resourceVersion']), /redis-master/);
    await k.ok(['delete', 'services', 'redis-master', 'redis-slave']);
    await k.getAssert('services', NAMES, 'kubernetes:');
  });

  it('creates an ExternalName Service, dry runs first', async () => {
    await k.ok(['create', 'service', 'externalname', 'beep-boop', '--dry-run=client', '--external-name', 'bar.com']);
    await k.ok(['create', 'service', 'externalname', 'beep-boop', '--dry-run=server', '--external-name', 'bar.com']);
    await k.getAssert('services', NAMES, 'kubernetes:');
    await k.ok(['create', 'service', 'externalname', 'beep-boop', '--external-name', 'bar.com']);
    await k.getAssert('services', NAMES, 'beep-boop:kubernetes:');
    await k.ok(['delete', 'service', 'beep-boop']);
    await k.getAssert('services', NAMES, 'kubernetes:');
  });

  it('run --expose and expose, with their field managers and overrides', async () => {
    await k.ok(['run', 'testmetadata', '--image=nginx', '--port=80', '--expose', '--dry-run=client']);
    await k.ok(['run', 'testmetadata', '--image=nginx', '--port=80', '--expose', '--dry-run=server']);
    await k.getAssert('services', NAMES, 'kubernetes:');
    await k.ok(['run', 'testmetadata', '--image=nginx', '--port=80', '--expose']);
    await k.getAssert('pods', NAMES, 'testmetadata:');
    await k.getAssert('service testmetadata', '{{(index .spec.ports 0).port}}', '80');
    assert.match(await k.ok(['get', 'pod', 'testmetadata', '-o=jsonpath={.metadata.managedFields[*].manager}']), /kubectl-run/);
    await k.ok(['expose', 'pod', 'testmetadata', '--port=1000', '--target-port=80', '--type=NodePort', '--name=exposemetadata', '--overrides={ "metadata": { "annotations": { "zone-context": "work" } } } ']);
    await k.getAssert('service exposemetadata', '{{.metadata.annotations}}', 'map[zone-context:work]');
    assert.match(await k.ok(['get', 'service', 'exposemetadata', '-o=jsonpath={.metadata.managedFields[*].manager}']), /kubectl-expose/);

    // The Endpoints line names the ready pod once it runs (kubectl reads the EndpointSlices).
    const ip = await eventually('pod IP', async () => (await k.ok(['get', 'pod', 'testmetadata', '-o', 'jsonpath={.status.podIP}'])) || undefined);
    await eventually('endpoints in describe', async () => (await k.ok(['describe', 'svc', 'exposemetadata'])).includes(`Endpoints:                ${ip}:80\n`));
    await k.ok(['delete', 'service', 'exposemetadata', 'testmetadata']);
    await k.ok(['delete', 'pod', 'testmetadata']);
  });

  it('creates a ServiceAccount in a namespace, dry runs first', async () => {
    const found = '{{range.items}}{{ if eq .metadata.name "test-service-account" }}found{{end}}{{end}}:';
    await k.ok(['create', 'namespace', 'test-service-accounts']);
    await k.getAssert('namespaces/test-service-accounts', '{{.metadata.name}}', 'test-service-accounts');
    await k.getAssert('serviceaccount --namespace=test-service-accounts', found, ':');
    await k.ok(['create', 'serviceaccount', 'test-service-account', '--dry-run=client', '--namespace=test-service-accounts']);
    await k.ok(['create', 'serviceaccount', 'test-service-account', '--dry-run=server', '--namespace=test-service-accounts']);
    await k.getAssert('serviceaccount --namespace=test-service-accounts', found, ':');
    await k.ok(['create', 'serviceaccount', 'test-service-account', '--namespace=test-service-accounts']);
    await k.getAssert('serviceaccount/test-service-account --namespace=test-service-accounts', '{{.metadata.name}}', 'test-service-account');
    await k.describeChunkSizeAssert('serviceaccounts', ['secrets', 'events'], ['--namespace=test-service-accounts']);
    await k.ok(['delete', 'serviceaccount', 'test-service-account', '--namespace=test-service-accounts']);
    await k.ok(['delete', 'namespace', 'test-service-accounts']);
  });
});
