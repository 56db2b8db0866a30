/**
 * kubectl's own command tests for nodes and cluster management, replayed with the real kubectl
 * against `kplane up` with no kubelet: a node `127.0.0.1` registered by hand (as a kubelet
 * would, then never heard of again), described, patched unschedulable; taint and untaint,
 * cordon, drain (dry runs, --pod-selector, --selector, --chunk-size) and uncordon, with their
 * messages and the list pages kubectl requests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useKplane } from './harness.js';
import { NAMES, kubectlCmd } from './kubectl-cmd.js';

const NODE = '127.0.0.1';

const node = JSON.stringify({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
  status: {
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    addresses: [{ type: 'InternalIP', address: NODE }],
  },
});

const testPod = (name: string, label: [string, string]) =>
  JSON.stringify({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name, labels: { [label[0]]: label[1], type: 'test-pod' } },
    spec: { nodeName: NODE, containers: [{ name: 'container-1', resources: {}, image: 'test-image' }] },
  });

const DEDICATED = '{{range .spec.taints}}{{if eq .key "dedicated"}}{{.key}}={{.value}}:{{.effect}}{{end}}{{end}}';
const UNSCHEDULABLE = '{{.spec.unschedulable}}';

describe('kubectl command tests: nodes and cluster management', () => {
  // No kubelet and a long grace period: the node keeps the status it was registered with.
  const suite = useKplane(['--nodes', '0', '--node-monitor-grace-period', '10m']);
  const k = kubectlCmd(() => suite.kp.kubeconfig);
  const createTestPods = async () => {
    await k.ok(['create', '-f', '-'], testPod('test-pod-1', ['e', 'f']));
    await k.ok(['create', '-f', '-'], testPod('test-pod-2', ['c', 'd']));
  };
  const deleteTestPods = async () => {
    await k.all(['delete', 'pod/test-pod-1', '--force', '--ignore-not-found']);
    await k.all(['delete', 'pod/test-pod-2', '--force', '--ignore-not-found']);
  };

  it('describes a node and patches it unschedulable and back', async () => {
    await k.ok(['create', '-f', '-'], node);
    await k.getAssert('nodes', NAMES, `${NODE}:`);
    const sections = ['Name:', 'Labels:', 'CreationTimestamp:', 'Conditions:', 'Addresses:', 'Capacity:', 'Pods:'];
    await k.describeAssert('nodes', NODE, sections);
    await k.describeEventsAssert('nodes', NODE);
    await k.describeAssert('nodes', '', sections);
    await k.describeEventsAssert('nodes', '');
    await k.describeChunkSizeAssert('nodes', ['pods', 'events']);

    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');
    await k.ok(['patch', 'nodes', NODE, '-p={"spec":{"unschedulable":true}}']);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, 'true');
    await k.ok(['patch', 'nodes', NODE, '-p={"spec":{"unschedulable":null}}']);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');

    // A TokenReview is accepted (kubectl prints no answer).
    const review = { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', spec: { token: 'not-a-token' } };
    await k.ok(['create', '-f', '-', '--validate=false'], JSON.stringify(review));
  });

  it('taints and untaints a node, dry runs first', async () => {
    await k.ok(['create', 'namespace', 'cluster-management']);
    await k.ok(['config', 'set-context', '--current', '--namespace=cluster-management']);
    await createTestPods();
    await k.getAssert(`nodes ${NODE}`, DEDICATED, '');
    await k.ok(['taint', 'node', NODE, '--dry-run=client', 'dedicated=foo:PreferNoSchedule']);
    await k.ok(['taint', 'node', NODE, '--dry-run=server', 'dedicated=foo:PreferNoSchedule']);
    await k.getAssert(`nodes ${NODE}`, DEDICATED, '');
    await k.ok(['taint', 'node', NODE, 'dedicated=foo:PreferNoSchedule']);
    await k.getAssert(`nodes ${NODE}`, DEDICATED, 'dedicated=foo:PreferNoSchedule');
    await k.ok(['taint', 'node', NODE, 'dedicated-']);
    await k.ok(['taint', 'node', NODE, 'dedicated:PreferNoSchedule']);
    await k.getAssert(`nodes ${NODE}`, DEDICATED, 'dedicated=<no value>:PreferNoSchedule');
    assert.match(await k.all(['get', 'node', NODE, '--show-managed-fields', '-o=jsonpath={.metadata.managedFields[*].manager}']), /kubectl-taint/);
    await k.ok(['taint', 'node', NODE, '--dry-run=client', 'dedicated-']);
    await k.ok(['taint', 'node', NODE, '--dry-run=server', 'dedicated-']);
    await k.getAssert(`nodes ${NODE}`, DEDICATED, 'dedicated=<no value>:PreferNoSchedule');
    await k.ok(['taint', 'node', NODE, 'dedicated-']);
    await k.getAssert(`nodes ${NODE}`, DEDICATED, '');
  });

  it('cordon and drain dry runs leave the node schedulable; drain --pod-selector evicts only its pods', async () => {
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');
    await k.ok(['cordon', NODE, '--dry-run=client']);
    await k.ok(['cordon', NODE, '--dry-run=server']);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');
    await k.all(['drain', NODE, '--dry-run=client', '--force']);
    await k.all(['drain', NODE, '--dry-run=server', '--force']);
    await k.getAssert('nodes', NAMES, `${NODE}:`);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');

    await k.getAssert('pods', '{{range .items}}{{.metadata.name}},{{end}}', 'test-pod-1,test-pod-2,');
    await k.all(['drain', NODE, '--pod-selector', 'e in (f)', '--dry-run=client', '--force']);
    await k.all(['drain', NODE, '--pod-selector', 'e in (f)', '--dry-run=server', '--force']);
    await k.getAssert('pods', '{{range .items}}{{.metadata.name}},{{end}}', 'test-pod-1,test-pod-2,');
    const drained = await k.all(['drain', NODE, '--force', '--pod-selector', 'e in (f)', '--skip-wait-for-delete-timeout=1']);
    assert.match(drained, /evicting pod .*\/test-pod-1/);
    await k.getAssert('pods/test-pod-2', '{{.metadata.deletionTimestamp}}', '<no value>');
    await deleteTestPods();
    await createTestPods();
    await k.ok(['uncordon', NODE]);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');

    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');
    assert.match(await k.ok(['uncordon', NODE, '--dry-run=client']), /already uncordoned/);
    assert.match(await k.ok(['uncordon', NODE, '--dry-run=server']), /already uncordoned/);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');
  });

  it('drain by node selector, in pages of --chunk-size', async () => {
    await k.ok(['label', 'node', NODE, 'test=label']);
    await k.getAssert(`nodes ${NODE}`, '{{.metadata.labels.test}}', 'label');
    assert.match(await k.fails(['drain', NODE, '--selector', 'test=label']), /cannot specify both a node name/);

    await k.getAssert('pods', '{{range .items}}{{.metadata.name}},{{end}}', 'test-pod-1,test-pod-2,');
    const paged = await k.all(['--v=6', 'drain', '--force', '--pod-selector', 'type=test-pod', '--selector', 'test=label', '--chunk-size=1', '--dry-run=client']);
    assert.match(paged, /GET https:\/\/\S+\/v1\/nodes\?labelSelector=test%3Dlabel&limit=1 200 OK/);
    assert.match(paged, /GET https:\/\/\S+\/v1\/pods\?fieldSelector=spec\.nodeName%3D127\.0\.0\.1&labelSelector=type%3Dtest-pod&limit=1 200 OK/);
    assert.match(paged, /GET https:\/\/\S+\/v1\/pods\?continue=\S*&fieldSelector=spec\.nodeName%3D127\.0\.0\.1&labelSelector=type%3Dtest-pod&limit=1 200 OK/);
    assert.match(paged, /evicting pod .*\/test-pod-1/);
    assert.match(paged, /evicting pod .*\/test-pod-2/);
    await k.ok(['uncordon', NODE]);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, '<no value>');

    const byDefault = await k.all(['--v=6', 'drain', '--force', '--selector', 'test=label', '--dry-run=client']);
    assert.match(byDefault, /GET https:\/\/\S+\/v1\/nodes\?labelSelector=test%3Dlabel&limit=500 200 OK/);
    assert.match(byDefault, /GET https:\/\/\S+\/v1\/pods\?fieldSelector=spec\.nodeName%3D127\.0\.0\.1&limit=500 200 OK/);
  });

  it('cordon needs a node or a selector that matches', async () => {
    assert.match(await k.fails(['cordon']), /error: USAGE: cordon NODE/);
    await k.ok(['uncordon', NODE]);
    assert.match(await k.fails(['cordon', '--selector=']), /must provide one or more resources/);
    assert.match(await k.ok(['cordon', '--selector', 'test=label']), /node\/127\.0\.0\.1 cordoned/);
    assert.doesNotMatch(await k.ok(['cordon', '--selector', 'invalid=label']), /cordoned/);
    await k.getAssert(`nodes ${NODE}`, UNSCHEDULABLE, 'true');
    await deleteTestPods();
  });
});
