import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { defaultPullPolicy, podQOSClass } from './pod-defaults.js';
import { toTable } from '../server/table.js';
import { podResource } from './pod.js';

const pods = podResource();
const s = pods.strategy;
const now = new Date('2024-05-01T12:00:00Z');

function pod(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec, ...extra };
}

function messages(obj: KubeObject, old?: KubeObject): string[] {
  return (s.validate?.(obj, old) ?? []).map((c) => `${c.field}: ${c.message}`);
}

test('pod names and storage follow kube-apiserver', () => {
  assert.equal(pods.resource, 'pods');
  assert.deepEqual(pods.shortNames, ['po']);
  assert.deepEqual(pods.categories, ['all']);
  assert.equal(pods.storagePrefix, '/registry/pods');
  assert.equal(pods.subresources?.status, true);
  assert.equal(s.generation, false);
});

test('pod defaults: spec, containers, ports, probes and the initial status', () => {
  const p = pod({
    containers: [
      { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 80 } } },
      { name: 'b', image: 'nginx:1.27', resources: { limits: { cpu: '1', memory: '1Gi' } } },
    ],
    volumes: [{ name: 'v' }, { name: 'c', configMap: { name: 'x' } }],
  });
  delete p.status;
  s.defaults?.(p);
  const spec = p.spec as Record<string, any>;
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(spec.securityContext, {});
  assert.equal(spec.enableServiceLinks, true);
  const [a, b] = spec.containers;
  assert.equal(a.imagePullPolicy, 'Always');
  assert.equal(b.imagePullPolicy, 'IfNotPresent');
  assert.equal(a.terminationMessagePath, '/dev/termination-log');
  assert.equal(a.terminationMessagePolicy, 'File');
  assert.equal(a.ports[0].protocol, 'TCP');
  assert.deepEqual(a.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(b.resources.requests, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(spec.volumes[0], { name: 'v', emptyDir: {} });
  assert.equal(spec.volumes[1].configMap.defaultMode, 420);
  assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'Burstable' });
});

test('prepareForCreate adds what admission adds: service account, priority, tolerations', async () => {
  const p = pod({ containers: [{ name: 'a', image: 'x' }] });
  s.defaults?.(p);
  await s.prepareForCreate?.(p, {});
  const spec = p.spec as Record<string, any>;
  assert.equal(spec.serviceAccountName, 'default');
  assert.equal(spec.serviceAccount, 'default');
  assert.equal(spec.priority, 0);
  assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  const q = pod({ containers: [{ name: 'a', image: 'x' }], tolerations: [{ operator: 'Exists' }] });
  await s.prepareForCreate?.(q, {});
  assert.equal((q.spec as any).tolerations.length, 1);
});

test('image pull policy and QoS classes', () => {
  assert.equal(defaultPullPolicy('nginx'), 'Always');
  assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
  assert.equal(defaultPullPolicy('localhost:5000/nginx'), 'Always');
  assert.equal(defaultPullPolicy('localhost:5000/nginx:1'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('nginx@sha256:abc'), 'IfNotPresent');
  assert.equal(podQOSClass({ containers: [{ name: 'a' }] }), 'BestEffort');
  assert.equal(podQOSClass({ containers: [{ resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '0.5', memory: '128Mi' } } }] }), 'Guaranteed');
  assert.equal(podQOSClass({ containers: [{ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } } }] }), 'Burstable');
  assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '100m' } } }] }), 'Burstable');
});

test('pod validation messages', () => {
  const empty = pod({});
  s.defaults?.(empty);
  assert.deepEqual(messages(empty), ['spec.containers: Required value']);

  const bad = pod({
    containers: [
      { name: 'Web', image: '' },
      { name: 'x', image: 'i', ports: [{ containerPort: 70000 }, { containerPort: 0 }] },
      { name: 'x', image: 'i' },
    ],
  });
  s.defaults?.(bad);
  const got = messages(bad);
  assert.ok(got.includes(`spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`), got.join('\n'));
  assert.ok(got.includes('spec.containers[0].image: Required value'));
  assert.ok(got.includes('spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'));
  assert.ok(got.includes('spec.containers[1].ports[1].containerPort: Required value'));
  assert.ok(got.includes('spec.containers[2].name: Duplicate value: "x"'));

  const policy = pod({ containers: [{ name: 'a', image: 'i' }], restartPolicy: 'Sometimes' });
  s.defaults?.(policy);
  assert.deepEqual(messages(policy), ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);

  const mount = pod({ containers: [{ name: 'a', image: 'i', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }] });
  s.defaults?.(mount);
  assert.deepEqual(messages(mount), ['spec.containers[0].volumeMounts[0].name: Not found: "nope"']);
});

test('pod updates may only change images and a few fields', () => {
  const old = pod({ containers: [{ name: 'a', image: 'nginx:1' }] });
  s.defaults?.(old);
  const image = structuredClone(old);
  (image.spec as any).containers[0].image = 'nginx:2';
  assert.deepEqual(messages(image, old), []);
  const port = structuredClone(old);
  (port.spec as any).containers[0].ports = [{ containerPort: 80, protocol: 'TCP' }];
  const got = messages(port, old);
  assert.equal(got.length, 1);
  assert.match(got[0]!, /^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
});

test('pod deletion grace period', () => {
  const unscheduled = pod({ containers: [] });
  assert.equal(s.deletionGracePeriod?.(unscheduled, undefined), 0);
  const scheduled = pod({ nodeName: 'n1', terminationGracePeriodSeconds: 30, containers: [] });
  assert.equal(s.deletionGracePeriod?.(scheduled, undefined), 30);
  assert.equal(s.deletionGracePeriod?.(scheduled, 5), 5);
  assert.equal(s.deletionGracePeriod?.({ ...scheduled, status: { phase: 'Succeeded' } }, undefined), 0);
});

test('pod table rows', () => {
  const created = '2024-05-01T11:55:00Z';
  const running = pod(
    { nodeName: 'node-1', containers: [{ name: 'a' }, { name: 'b' }], readinessGates: [{ conditionType: 'x/ready' }] },
    {
      metadata: { name: 'web', namespace: 'default', creationTimestamp: created },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.5' }],
        conditions: [{ type: 'x/ready', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: '2024-05-01T11:58:00Z' } } },
          { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    },
  );
  assert.deepEqual(s.table?.row(running, now), ['web', '1/2', 'CrashLoopBackOff', '2 (2m ago)', '5m', '10.0.0.5', 'node-1', '<none>', '1/1']);
  const pending = pod({ containers: [{ name: 'a' }] }, { metadata: { name: 'p', creationTimestamp: created }, status: { phase: 'Pending' } });
  assert.deepEqual(s.table?.row(pending, now), ['p', '0/1', 'Pending', '0', '5m', '<none>', '<none>', '<none>', '<none>']);
  const terminating = pod({ containers: [{ name: 'a' }] }, { metadata: { name: 't', creationTimestamp: created, deletionTimestamp: created }, status: { phase: 'Running' } });
  assert.equal(s.table?.row(terminating, now)[2], 'Terminating');
  const init = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] }, { status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { running: {} } }] } });
  assert.equal(s.table?.row(init, now)[2], 'Init:0/1');
  const done = (phase: string, terminated: object) =>
    pod({ containers: [{ name: 'a' }] }, { metadata: { name: 'j', creationTimestamp: created }, status: { phase, containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated } }] } });
  assert.deepEqual(s.table?.row(done('Succeeded', { exitCode: 0, reason: 'Completed' }), now).slice(1, 4), ['0/1', 'Completed', '0']);
  assert.deepEqual(s.table?.rowConditions?.(done('Succeeded', { exitCode: 0, reason: 'Completed' })), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(s.table?.row(done('Failed', { exitCode: 3, reason: 'Error' }), now)[2], 'Error');
  assert.equal(s.table?.row(done('Failed', { exitCode: 3 }), now)[2], 'ExitCode:3');
  assert.equal(s.table?.rowConditions?.(done('Failed', { exitCode: 3 }))?.[0]?.reason, 'Failed');
  assert.equal(s.table?.rowConditions?.(running), undefined);
  const table = toTable(s.table, [done('Failed', { exitCode: 3 }), running], {}, { include: 'None', now }) as { rows: { conditions?: unknown }[] };
  assert.deepEqual(table.rows.map((r) => r.conditions), [[{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }], undefined]);
  const initFailed = pod(
    { initContainers: [{ name: 'i' }, { name: 'j' }], containers: [{ name: 'a' }] },
    { status: { phase: 'Failed', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 1, reason: 'Error' } } }, { name: 'j', state: { waiting: { reason: 'PodInitializing' } } }] } },
  );
  assert.equal(s.table?.row(initFailed, now)[2], 'Init:Error');
  const secondInit = pod(
    { initContainers: [{ name: 'i' }, { name: 'j' }], containers: [{ name: 'a' }] },
    { status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { name: 'j', state: { running: {} } }] } },
  );
  assert.equal(s.table?.row(secondInit, now)[2], 'Init:1/2');
  assert.deepEqual(s.table?.columns.map((c) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  assert.deepEqual(s.table?.columns.map((c) => c.priority), [0, 0, 0, 0, 0, 1, 1, 1, 1]);
});

test('pod field selectors', () => {
  const p = pod({ nodeName: 'n', restartPolicy: 'Never', schedulerName: 'x', serviceAccountName: 'sa', hostNetwork: true }, { status: { phase: 'Running', podIPs: [{ ip: '1.2.3.4' }], nominatedNodeName: 'm' } });
  const f = s.fieldSelectors!;
  assert.equal(f['spec.nodeName']!(p), 'n');
  assert.equal(f['spec.restartPolicy']!(p), 'Never');
  assert.equal(f['spec.schedulerName']!(p), 'x');
  assert.equal(f['spec.serviceAccountName']!(p), 'sa');
  assert.equal(f['spec.hostNetwork']!(p), 'true');
  assert.equal(f['status.phase']!(p), 'Running');
  assert.equal(f['status.podIP']!(p), '1.2.3.4');
  assert.equal(f['status.nominatedNodeName']!(p), 'm');
});
