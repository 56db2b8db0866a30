import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubernetesProtobuf } from './decode.js';
import { lookupKind, protobufKinds, unknownType } from './registry.js';
import { goDuration } from './to-json.js';

/**
 * Encodes `obj` as `apiVersion/kind` inside the k8s\0 + runtime.Unknown envelope. Field names
 * are the JSON names; an embedded Go struct is one field named after its type (`volumeSource`,
 * `probeHandler`, `localObjectReference`, ...); special types take their protobuf fields.
 */
function envelope(apiVersion: string, kind: string, obj: Record<string, unknown>): Uint8Array {
  const type = lookupKind(apiVersion, kind)!;
  const raw = type.encode(type.fromObject(obj)).finish();
  const unknown = unknownType();
  const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
}

const decode = (apiVersion: string, kind: string, obj: Record<string, unknown>) =>
  decodeKubernetesProtobuf(envelope(apiVersion, kind, obj)) as any;

const podTemplate = (spec: Record<string, unknown>) => ({ template: { metadata: {}, spec } });
/** A pod template as Go writes an empty one: its ObjectMeta's zero creationTimestamp is null. */
const templateOut = (spec: Record<string, unknown>) => ({ metadata: { creationTimestamp: null }, spec });
const utf8 = (s: string) => new TextEncoder().encode(s);

test('every kind of the model has a message type', () => {
  const kinds = protobufKinds();
  assert.ok(kinds.length > 100, `only ${kinds.length} kinds`);
  for (const { apiVersion, kind } of kinds) assert.ok(lookupKind(apiVersion, kind), `${apiVersion} ${kind}`);
});

test('pointer scalars keep explicit zeros; omitempty scalars drop them; always fields and structs stay', () => {
  const d = decode('apps/v1', 'Deployment', {
    metadata: { name: 'd', generation: 0 },
    spec: {
      replicas: 0,
      revisionHistoryLimit: 0,
      minReadySeconds: 0,
      paused: false,
      ...podTemplate({
        containers: [{ name: 'c', image: 'i', stdin: false, tty: false, workingDir: '' }],
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        hostNetwork: false,
        dnsPolicy: '',
      }),
    },
  });
  assert.deepEqual(d.metadata, { name: 'd', creationTimestamp: null });
  assert.deepEqual(d.spec, {
    replicas: 0,
    revisionHistoryLimit: 0,
    selector: null, // *LabelSelector without omitempty, not sent
    strategy: {}, // a struct: omitempty never drops it
    template: templateOut({
      containers: [{ name: 'c', image: 'i', resources: {} }],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
    }),
  });
  assert.deepEqual(d.status, {});

  const job = decode('batch/v1', 'Job', { spec: { backoffLimit: 0, parallelism: 0, suspend: false, ...podTemplate({}) } });
  assert.deepEqual(job.spec, { backoffLimit: 0, parallelism: 0, suspend: false, template: templateOut({ containers: null }) });
  const cm = decode('v1', 'ConfigMap', { immutable: false, data: { k: '' } });
  assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: null }, immutable: false, data: { k: '' } });
  const tr = decode('authentication.k8s.io/v1', 'TokenRequest', { spec: { expirationSeconds: 0, audiences: [] } });
  assert.deepEqual(tr.spec, { audiences: null, expirationSeconds: 0, boundObjectRef: null });
  const pc = decode('scheduling.k8s.io/v1', 'PriorityClass', { value: 0, globalDefault: false });
  assert.deepEqual(pc, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { creationTimestamp: null }, value: 0 });
});

test('pointer messages stay even when empty; embedded structs are merged into their parent', () => {
  const d = decode('apps/v1', 'Deployment', {
    spec: {
      selector: {},
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: { type: 0, intVal: 0 }, maxSurge: { type: 1, strVal: '25%' } } },
      ...podTemplate({
        volumes: [
          { name: 'scratch', volumeSource: { emptyDir: {} } },
          { name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 420, items: [{ key: 'a', path: 'b' }] } } },
          { name: 'sec', volumeSource: { secret: { secretName: 's', optional: false } } },
          { name: 'proj', volumeSource: { projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] } } },
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
            readinessProbe: { probeHandler: { httpGet: { path: '/healthz', port: { type: 0, intVal: 8080 } } }, periodSeconds: 5 },
            livenessProbe: { probeHandler: { tcpSocket: { port: { type: 1, strVal: 'http' } } } },
            startupProbe: { probeHandler: { grpc: { port: 9000 } }, failureThreshold: 30 },
            lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['true'] } } },
            securityContext: { runAsNonRoot: false, capabilities: { drop: ['ALL'] } },
            volumeMounts: [{ name: 'scratch', mountPath: '/tmp', readOnly: false }],
          },
        ],
        ephemeralContainers: [{ ephemeralContainerCommon: { name: 'debug', image: 'busybox' }, targetContainerName: 'c' }],
      }),
    },
  });
  assert.deepEqual(d.spec.selector, {});
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } });
  const pod = d.spec.template.spec;
  assert.deepEqual(pod.volumes, [
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'a', path: 'b' }], defaultMode: 420 } },
    { name: 'sec', secret: { secretName: 's', optional: false } },
    { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] } },
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
  assert.deepEqual(c.startupProbe, { grpc: { port: 9000, service: null }, failureThreshold: 30 });
  assert.deepEqual(c.lifecycle, { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 5 } } });
  assert.deepEqual(c.securityContext, { capabilities: { drop: ['ALL'] }, runAsNonRoot: false });
  assert.deepEqual(c.volumeMounts, [{ name: 'scratch', mountPath: '/tmp' }]);
  assert.deepEqual(pod.ephemeralContainers, [{ name: 'debug', image: 'busybox', resources: {}, targetContainerName: 'c' }]);
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
  assert.deepEqual(p.status, {});
  const s = decode('v1', 'Secret', { data: { bin: Uint8Array.from([0, 255, 1]), empty: new Uint8Array() }, type: 'Opaque' });
  assert.deepEqual(s.data, { bin: 'AP8B', empty: '' });
});

test('Time, MicroTime, FieldsV1 and managedFields convert like the Go JSON encoder', () => {
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
          fieldsV1: { Raw: utf8('{"f:data":{".":{}}}') },
        },
      ],
    },
  });
  assert.deepEqual(cm.metadata, {
    name: 'c',
    creationTimestamp: '2026-01-01T00:00:00Z',
    deletionTimestamp: '2026-01-01T00:00:01Z', // Time keeps whole seconds
    deletionGracePeriodSeconds: 0,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: false }],
    managedFields: [
      { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {} } } },
    ],
  });
  const lease = decode('coordination.k8s.io/v1', 'Lease', {
    spec: { holderIdentity: 'h', leaseDurationSeconds: 15, acquireTime: { seconds: 1767225600, nanos: 123_456_789 }, leaseTransitions: 0 },
  });
  assert.deepEqual(lease.spec, { holderIdentity: 'h', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.123456Z', leaseTransitions: 0 });
  const ev = decode('events.k8s.io/v1', 'Event', { metadata: { name: 'e' }, eventTime: { seconds: 1767225600, nanos: 5000 }, reason: 'Started', note: 'n' });
  assert.deepEqual(ev, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e', creationTimestamp: null },
    eventTime: '2026-01-01T00:00:00.000005Z',
    reason: 'Started',
    note: 'n',
    regarding: {},
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  });
  assert.throws(
    () => decode('v1', 'ConfigMap', { metadata: { creationTimestamp: { seconds: 400_000_000_000 } } }),
    (e: any) => e.code === 400 && /year outside of range/.test(e.message),
  );
  assert.throws(
    () => decode('v1', 'ConfigMap', { metadata: { managedFields: [{ fieldsV1: { Raw: utf8('{nope') } }] } }),
    (e: any) => e.code === 400 && /FieldsV1 does not hold valid JSON/.test(e.message),
  );
});

test('rbac, networking, policy and batch messages decode with their field numbers', () => {
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
  assert.deepEqual(cj.spec, {
    schedule: '@hourly',
    suspend: false,
    successfulJobsHistoryLimit: 0,
    jobTemplate: { metadata: { creationTimestamp: null }, spec: { completions: 1, template: templateOut({ containers: null }) } },
  });
});

test('kinds the hand-written schemas lacked: StatefulSet, Job policies, PersistentVolume, CustomResourceDefinition', () => {
  const sts = decode('apps/v1', 'StatefulSet', {
    metadata: { name: 'db' },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: { string: '1Gi' } } } } }],
      updateStrategy: { type: 'OnDelete' },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      ordinals: { start: 0 },
    },
  });
  assert.deepEqual(sts.spec, {
    replicas: 0,
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' }, creationTimestamp: null }, spec: { containers: [{ name: 'pg', image: 'postgres', resources: {} }] } },
    serviceName: '', // no omitempty
    volumeClaimTemplates: [
      { metadata: { name: 'data', creationTimestamp: null }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: {} },
    ],
    updateStrategy: { type: 'OnDelete' },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    ordinals: { start: 0 },
  });
  assert.deepEqual(sts.status, { replicas: 0, availableReplicas: 0 });

  const job = decode('batch/v1', 'Job', {
    spec: {
      completionMode: 'Indexed',
      podFailurePolicy: {
        rules: [
          { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
      successPolicy: { rules: [{ succeededCount: 1 }] },
      ...podTemplate({ containers: [{ name: 'c' }], restartPolicy: 'Never' }),
    },
  });
  assert.deepEqual(job.spec.podFailurePolicy, {
    rules: [
      { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ],
  });
  assert.deepEqual(job.spec.successPolicy, { rules: [{ succeededCount: 1 }] });
  assert.equal(job.spec.completionMode, 'Indexed');

  const pv = decode('v1', 'PersistentVolume', {
    spec: { capacity: { storage: { string: '1Gi' } }, persistentVolumeSource: { hostPath: { path: '/data', type: 'DirectoryOrCreate' } }, accessModes: ['ReadWriteOnce'] },
  });
  assert.deepEqual(pv.spec, { capacity: { storage: '1Gi' }, hostPath: { path: '/data', type: 'DirectoryOrCreate' }, accessModes: ['ReadWriteOnce'] });

  const crd = decode('apiextensions.k8s.io/v1', 'CustomResourceDefinition', {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: false,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', default: { raw: utf8('3') }, minimum: 0 },
                    tags: { type: 'array', items: { schema: { type: 'string' } } },
                    labels: { type: 'object', additionalProperties: { schema: { type: 'string' } } },
                    free: { 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: { allows: true } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  });
  assert.deepEqual(crd.spec, {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: false, // no omitempty
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', default: 3, minimum: 0 },
                  tags: { type: 'array', items: { type: 'string' } },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  free: { 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: true },
                },
              },
            },
          },
        },
      },
    ],
  });
  assert.deepEqual(crd.status, { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: null });
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
