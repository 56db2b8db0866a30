import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubernetesProtobuf } from './decode.js';
import { PROTOBUF_KINDS, lookupKind, schemaRoot } from './registry.js';
import { goDuration } from './to-json.js';

/** Encodes `obj` as `apiVersion/kind` inside the k8s\0 + runtime.Unknown envelope. */
function envelope(apiVersion: string, kind: string, obj: Record<string, unknown>): Uint8Array {
  const type = lookupKind(apiVersion, kind)!;
  const raw = type.encode(type.fromObject(obj)).finish();
  const unknown = schemaRoot().lookupType('runtime.Unknown');
  const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
}

const decode = (apiVersion: string, kind: string, obj: Record<string, unknown>) =>
  decodeKubernetesProtobuf(envelope(apiVersion, kind, obj)) as any;

const podTemplate = (spec: Record<string, unknown>) => ({ template: { metadata: {}, spec } });

test('every listed kind has a message type in the schema', () => {
  for (const { apiVersion, kind } of PROTOBUF_KINDS) assert.ok(lookupKind(apiVersion, kind), `${apiVersion} ${kind}`);
});

test('pointer scalars keep explicit zeros; plain scalars drop them (Go omitempty)', () => {
  const d = decode('apps/v1', 'Deployment', {
    metadata: { name: 'd', generation: 0 },
    spec: {
      replicas: 0,
      revisionHistoryLimit: 0,
      minReadySeconds: 0,
      paused: false,
      ...podTemplate({
        containers: [{ name: 'c', image: 'i', stdin: false, tty: false, workingDir: '', resources: {} }],
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        hostNetwork: false,
        dnsPolicy: '',
      }),
    },
  });
  assert.deepEqual(d.metadata, { name: 'd' });
  assert.deepEqual(d.spec, {
    replicas: 0,
    revisionHistoryLimit: 0,
    template: {
      spec: {
        containers: [{ name: 'c', image: 'i' }],
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
      },
    },
  });
  const absent = decode('apps/v1', 'Deployment', { metadata: { name: 'd' }, spec: { strategy: {} } });
  assert.equal(absent.spec, undefined);

  const job = decode('batch/v1', 'Job', { spec: { backoffLimit: 0, parallelism: 0, suspend: false, ...podTemplate({}) } });
  assert.deepEqual(job.spec, { backoffLimit: 0, parallelism: 0, suspend: false });
  const cm = decode('v1', 'ConfigMap', { immutable: false, data: { k: '' } });
  assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', immutable: false, data: { k: '' } });
  const tr = decode('authentication.k8s.io/v1', 'TokenRequest', { spec: { expirationSeconds: 0, audiences: [] } });
  assert.deepEqual(tr.spec, { expirationSeconds: 0 });
});

test('pointer messages stay even when empty; inline structs are merged into their parent', () => {
  const d = decode('apps/v1', 'Deployment', {
    spec: {
      selector: {},
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: { type: 0, intVal: 0 }, maxSurge: { type: 1, strVal: '25%' } } },
      ...podTemplate({
        volumes: [
          { name: 'scratch', volumeSource: { emptyDir: {} } },
          { name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 420, items: [{ key: 'a', path: 'b' }] } } },
        ],
        containers: [
          {
            name: 'c',
            env: [
              { name: 'A', value: 'x' },
              { name: 'B', valueFrom: { configMapKeyRef: { localObjectReference: { name: 'cm' }, key: 'k', optional: false } } },
              { name: 'C', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            ],
            envFrom: [{ prefix: 'P_', secretRef: { localObjectReference: { name: 's' } } }],
            readinessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 0, intVal: 8080 } } }, periodSeconds: 5 },
            livenessProbe: { handler: { tcpSocket: { port: { type: 1, strVal: 'http' } } } },
            lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['true'] } } },
            securityContext: { runAsNonRoot: false, capabilities: { drop: ['ALL'] } },
            volumeMounts: [{ name: 'scratch', mountPath: '/tmp', readOnly: false }],
          },
        ],
      }),
    },
  });
  assert.deepEqual(d.spec.selector, {});
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } });
  const pod = d.spec.template.spec;
  assert.deepEqual(pod.volumes, [
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'a', path: 'b' }], defaultMode: 420 } },
  ]);
  const c = pod.containers[0];
  assert.deepEqual(c.env, [
    { name: 'A', value: 'x' },
    { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: false } } },
    { name: 'C', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
  ]);
  assert.deepEqual(c.envFrom, [{ prefix: 'P_', secretRef: { name: 's' } }]);
  assert.deepEqual(c.readinessProbe, { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 });
  assert.deepEqual(c.livenessProbe, { tcpSocket: { port: 'http' } });
  assert.deepEqual(c.lifecycle, { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 5 } } });
  assert.deepEqual(c.securityContext, { capabilities: { drop: ['ALL'] }, runAsNonRoot: false });
  assert.deepEqual(c.volumeMounts, [{ name: 'scratch', mountPath: '/tmp' }]);
});

test('Quantity maps, int64 and bytes get their JSON forms; list and map entries keep zero values', () => {
  const p = decode('v1', 'Pod', {
    metadata: { name: 'p', labels: { empty: '' } },
    spec: {
      activeDeadlineSeconds: 2 ** 40,
      securityContext: { runAsUser: 1000, supplementalGroups: [0, 5] },
      containers: [{ name: 'c', args: ['', 'x'], resources: { limits: { cpu: { string: '500m' } }, requests: { memory: { string: '64Mi' } } } }],
      tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 0 }],
    },
  });
  assert.deepEqual(p.metadata.labels, { empty: '' });
  assert.equal(p.spec.activeDeadlineSeconds, 2 ** 40);
  assert.deepEqual(p.spec.securityContext, { runAsUser: 1000, supplementalGroups: [0, 5] });
  assert.deepEqual(p.spec.containers[0].args, ['', 'x']);
  assert.deepEqual(p.spec.containers[0].resources, { limits: { cpu: '500m' }, requests: { memory: '64Mi' } });
  assert.deepEqual(p.spec.tolerations, [{ key: 'k', operator: 'Exists', tolerationSeconds: 0 }]);
  const s = decode('v1', 'Secret', { data: { bin: Uint8Array.from([0, 255, 1]), empty: new Uint8Array() }, type: 'Opaque' });
  assert.deepEqual(s.data, { bin: 'AP8B', empty: '' });
});

test('Time, FieldsV1 and managedFields convert like the Go JSON encoder', () => {
  const cm = decode('v1', 'ConfigMap', {
    metadata: {
      name: 'c',
      creationTimestamp: { seconds: 1767225600 },
      deletionTimestamp: { seconds: 1767225601, nanos: 999_000_000 },
      deletionGracePeriodSeconds: 0,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: false }],
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Update',
          apiVersion: 'v1',
          time: { seconds: 1767225600 },
          fieldsType: 'FieldsV1',
          fieldsV1: { raw: new TextEncoder().encode('{"f:data":{".":{}}}') },
        },
      ],
    },
  });
  assert.deepEqual(cm.metadata, {
    name: 'c',
    creationTimestamp: '2026-01-01T00:00:00Z',
    deletionTimestamp: '2026-01-01T00:00:01Z',
    deletionGracePeriodSeconds: 0,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: false }],
    managedFields: [
      { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {} } } },
    ],
  });
  assert.throws(
    () => decode('v1', 'ConfigMap', { metadata: { creationTimestamp: { seconds: 400_000_000_000 } } }),
    (e: any) => e.code === 400 && /year outside of range/.test(e.message),
  );
  assert.throws(
    () => decode('v1', 'ConfigMap', { metadata: { managedFields: [{ fieldsV1: { raw: new TextEncoder().encode('{nope') } }] } }),
    (e: any) => e.code === 400 && /FieldsV1 does not hold valid JSON/.test(e.message),
  );
});

test('rbac, networking, policy and scheduling messages decode with their field numbers', () => {
  const rb = decode('rbac.authorization.k8s.io/v1', 'RoleBinding', {
    subjects: [{ kind: 'ServiceAccount', apiGroup: '', name: 'sa', namespace: 'ns' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
  });
  assert.deepEqual(rb.subjects, [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }]);
  const ing = decode('networking.k8s.io/v1', 'Ingress', {
    spec: { rules: [{ host: 'h', ingressRuleValue: { http: { paths: [{ path: '/', pathType: 'Prefix', backend: { resource: { apiGroup: 'k8s.example', kind: 'Bucket', name: 'b' } } }] } } }] },
  });
  assert.deepEqual(ing.spec.rules, [{ host: 'h', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { resource: { apiGroup: 'k8s.example', kind: 'Bucket', name: 'b' } } }] } }]);
  const pdb = decode('policy/v1', 'PodDisruptionBudget', { spec: { maxUnavailable: { type: 0, intVal: 0 }, unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
  assert.deepEqual(pdb.spec, { maxUnavailable: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
  const cj = decode('batch/v1', 'CronJob', { spec: { schedule: '@hourly', suspend: false, successfulJobsHistoryLimit: 0, jobTemplate: { spec: { completions: 1 } } } });
  assert.deepEqual(cj.spec, { schedule: '@hourly', suspend: false, jobTemplate: { spec: { completions: 1 } }, successfulJobsHistoryLimit: 0 });
});

test('goDuration formats like Go time.Duration.String', () => {
  assert.equal(goDuration(0), '0s');
  assert.equal(goDuration(3600e9), '1h0m0s');
  assert.equal(goDuration(90e9), '1m30s');
  assert.equal(goDuration(1.5e9), '1.5s');
  assert.equal(goDuration(300e6), '300ms');
  assert.equal(goDuration(-2e3), '-2µs');
  assert.equal(goDuration(5), '5ns');
});
