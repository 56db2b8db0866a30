import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { ApiError } from '../errors.js';
import { decodeKubernetesProtobuf } from '../protobuf/decode.js';
import { messageToJson } from '../protobuf/to-json.js';
import { buildProtoModel, protoDescriptor } from './proto.js';
import type { ApiPackageModel } from './types.js';

/** A small model in the shape of the generated one (field numbers as in Kubernetes). */
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CORE = 'io.k8s.api.core.v1.';
const IOS = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const QTY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

const SYNTHETIC: readonly ApiPackageModel[] = [
  {
    kubernetes: '1.32.0',
    schemaPrefix: META,
    protoPackage: 'k8s.io.apimachinery.pkg.apis.meta.v1',
    types: {
      Time: { special: 'time', protoFields: { seconds: [1, 'int64'], nanos: [2, 'int32'] } },
      MicroTime: { special: 'micro-time', protoFields: { seconds: [1, 'int64'], nanos: [2, 'int32'] } },
      Duration: { special: 'duration', protoFields: { duration: [1, 'int64'] } },
      ObjectMeta: {
        fields: {
          name: { type: 'string', proto: 1 },
          generation: { type: 'int64', proto: 7 },
          creationTimestamp: { type: `${META}Time`, proto: 8 },
          deletionTimestamp: { type: `${META}Time`, proto: 9, ptr: true },
          labels: { type: 'map[string]string', proto: 11 },
        },
      },
      LabelSelector: { fields: { matchLabels: { type: 'map[string]string', proto: 1 } } },
    },
  },
  {
    kubernetes: '1.32.0',
    schemaPrefix: 'io.k8s.apimachinery.pkg.util.intstr.',
    protoPackage: 'k8s.io.apimachinery.pkg.util.intstr',
    types: { IntOrString: { special: 'int-or-string', protoFields: { type: [1, 'int64'], intVal: [2, 'int32'], strVal: [3, 'string'] } } },
  },
  {
    kubernetes: '1.32.0',
    schemaPrefix: 'io.k8s.apimachinery.pkg.api.resource.',
    protoPackage: 'k8s.io.apimachinery.pkg.api.resource',
    types: { Quantity: { special: 'quantity', protoFields: { string: [1, 'string'] } } },
  },
  {
    kubernetes: '1.32.0',
    group: 'apps',
    version: 'v1',
    schemaPrefix: 'io.k8s.api.apps.v1.',
    protoPackage: 'k8s.io.api.apps.v1',
    types: {
      StatefulSet: {
        gvk: [{ group: 'apps', version: 'v1', kind: 'StatefulSet' }],
        fields: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: `${META}ObjectMeta`, proto: 1 },
          spec: { type: 'io.k8s.api.apps.v1.StatefulSetSpec', proto: 2 },
          status: { type: 'io.k8s.api.apps.v1.StatefulSetStatus', proto: 3 },
        },
      },
      StatefulSetSpec: {
        fields: {
          replicas: { type: 'int32', proto: 1, ptr: true },
          selector: { type: `${META}LabelSelector`, proto: 2, ptr: true, always: true, required: true },
          template: { type: `${CORE}PodTemplateSpec`, proto: 3, always: true, required: true },
          serviceName: { type: 'string', proto: 5 },
          minReadySeconds: { type: 'int32', proto: 9 },
        },
      },
      StatefulSetStatus: {
        fields: {
          replicas: { type: 'int32', proto: 2, always: true },
          observedGeneration: { type: 'int64', proto: 1 },
        },
      },
    },
  },
  {
    kubernetes: '1.32.0',
    group: '',
    version: 'v1',
    schemaPrefix: CORE,
    protoPackage: 'k8s.io.api.core.v1',
    types: {
      ConfigMap: {
        gvk: [{ group: '', version: 'v1', kind: 'ConfigMap' }],
        fields: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: `${META}ObjectMeta`, proto: 1 },
          immutable: { type: 'boolean', proto: 4, ptr: true },
          data: { type: 'map[string]string', proto: 2 },
          binaryData: { type: 'map[string]byte', proto: 3 },
        },
      },
      PodTemplateSpec: { fields: { metadata: { type: `${META}ObjectMeta`, proto: 1 }, spec: { type: `${CORE}PodSpec`, proto: 2 } } },
      PodSpec: {
        fields: {
          volumes: { type: `[]${CORE}Volume`, proto: 1 },
          containers: { type: `[]${CORE}Container`, proto: 2, always: true, required: true },
          activeDeadlineSeconds: { type: 'int64', proto: 5, ptr: true },
          overhead: { type: `map[string]${QTY}`, proto: 35 },
        },
      },
      Container: {
        fields: {
          name: { type: 'string', proto: 1, always: true, required: true },
          args: { type: '[]string', proto: 4 },
          resources: { type: `${CORE}ResourceRequirements`, proto: 8 },
          readinessProbe: { type: `${CORE}Probe`, proto: 11, ptr: true },
          stdin: { type: 'boolean', proto: 16 },
        },
      },
      ResourceRequirements: { fields: { limits: { type: `map[string]${QTY}`, proto: 1 } } },
      Probe: {
        embedded: [{ proto: 1, type: `${CORE}ProbeHandler` }],
        fields: {
          httpGet: { type: `${CORE}HTTPGetAction` },
          tcpSocket: { type: `${CORE}TCPSocketAction` },
          periodSeconds: { type: 'int32', proto: 4 },
        },
      },
      ProbeHandler: {
        fields: {
          httpGet: { type: `${CORE}HTTPGetAction`, proto: 2, ptr: true },
          tcpSocket: { type: `${CORE}TCPSocketAction`, proto: 3, ptr: true },
        },
      },
      HTTPGetAction: { fields: { path: { type: 'string', proto: 1 }, port: { type: IOS, proto: 2, required: true } } },
      TCPSocketAction: { fields: { port: { type: IOS, proto: 1, required: true } } },
      Volume: {
        embedded: [{ proto: 2, type: `${CORE}VolumeSource` }],
        fields: {
          name: { type: 'string', proto: 1, always: true, required: true },
          emptyDir: { type: `${CORE}EmptyDirVolumeSource` },
          configMap: { type: `${CORE}ConfigMapVolumeSource` },
        },
      },
      VolumeSource: {
        fields: {
          emptyDir: { type: `${CORE}EmptyDirVolumeSource`, proto: 2, ptr: true },
          configMap: { type: `${CORE}ConfigMapVolumeSource`, proto: 19, ptr: true },
        },
      },
      EmptyDirVolumeSource: { fields: { medium: { type: 'string', proto: 1 }, sizeLimit: { type: QTY, proto: 2, ptr: true } } },
      ConfigMapVolumeSource: {
        embedded: [{ proto: 1, type: `${CORE}LocalObjectReference` }],
        fields: { name: { type: 'string' }, defaultMode: { type: 'int32', proto: 3, ptr: true } },
      },
      LocalObjectReference: { fields: { name: { type: 'string', proto: 1 } } },
    },
  },
  {
    kubernetes: '1.32.0',
    group: 'authentication.k8s.io',
    version: 'v1',
    schemaPrefix: 'io.k8s.api.authentication.v1.',
    protoPackage: 'k8s.io.api.authentication.v1',
    types: {
      UserInfo: {
        fields: {
          username: { type: 'string', proto: 1 },
          extra: { type: 'map[string][]string', proto: 4, protoType: 'map[string]k8s.io.api.authentication.v1.ExtraValue' },
          groups: { type: '[]string', proto: 3, protoType: 'k8s.io.api.authentication.v1.Groups' },
        },
      },
      // a protobuf-only named slice, as the model writes it
      Groups: { protoFields: { items: [1, '[]string'] } },
    },
  },
];

const pm = buildProtoModel(SYNTHETIC);

/** Encodes `obj` (protobufjs field names: JSON names, embedded structs by type) as a protobuf body. */
function body(apiVersion: string, kind: string, obj: Record<string, unknown>): Uint8Array {
  const type = pm.kind(apiVersion, kind)!;
  const raw = type.encode(type.fromObject(obj)).finish();
  const env = pm.unknown.encode(pm.unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...env]);
}
const decode = (apiVersion: string, kind: string, obj: Record<string, unknown>) =>
  decodeKubernetesProtobuf(body(apiVersion, kind, obj), undefined, SYNTHETIC) as any;

test('messages are named by protobuf package and carry the model numbers under JSON names', () => {
  const spec = pm.root.lookupType('k8s.io.api.apps.v1.StatefulSetSpec');
  assert.deepEqual(
    spec.fieldsArray.map((f) => [f.name, f.id, f.type]),
    [['replicas', 1, 'int32'], ['selector', 2, '.k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector'], ['template', 3, '.k8s.io.api.core.v1.PodTemplateSpec'], ['serviceName', 5, 'string'], ['minReadySeconds', 9, 'int32']],
  );
  const pod = pm.root.lookupType('k8s.io.api.core.v1.PodSpec');
  assert.equal(pod.fields.containers!.repeated, true);
  assert.ok(pod.fields.overhead instanceof protobuf.MapField);
  assert.equal((pod.fields.overhead as protobuf.MapField).keyType, 'string');
  assert.equal(pm.root.lookupType('k8s.io.api.core.v1.ConfigMap').fields.binaryData!.type, 'bytes');
  // apiVersion and kind travel in the envelope, not in the message
  assert.equal(pm.root.lookupType('k8s.io.api.core.v1.ConfigMap').fields.apiVersion, undefined);
});

test('embedded structs are one field named after their type; the JSON-only copies are not fields', () => {
  const volume = pm.root.lookupType('k8s.io.api.core.v1.Volume');
  assert.deepEqual(volume.fieldsArray.map((f) => [f.name, f.id]), [['name', 1], ['volumeSource', 2]]);
  assert.equal(pm.embedded(volume.fields.volumeSource!), true);
  assert.equal(pm.embedded(volume.fields.name!), false);
  const cmv = pm.root.lookupType('k8s.io.api.core.v1.ConfigMapVolumeSource');
  assert.deepEqual(cmv.fieldsArray.map((f) => [f.name, f.id]), [['defaultMode', 3], ['localObjectReference', 1]]);
});

test('special types use their protoFields; named slices get a wrapper message', () => {
  const ios = pm.root.lookupType('k8s.io.apimachinery.pkg.util.intstr.IntOrString');
  assert.deepEqual(ios.fieldsArray.map((f) => [f.name, f.id, f.type]), [['type', 1, 'int64'], ['intVal', 2, 'int32'], ['strVal', 3, 'string']]);
  const extra = pm.root.lookupType('k8s.io.api.authentication.v1.UserInfo').fields.extra as unknown as protobuf.MapField;
  assert.equal(extra.resolvedType?.fullName, '.k8s.io.api.authentication.v1.ExtraValue');
  assert.equal(pm.wrapper(extra.resolvedType as protobuf.Type), true);
  assert.deepEqual((extra.resolvedType as protobuf.Type).fieldsArray.map((f) => [f.name, f.id, f.repeated]), [['items', 1, true]]);
  assert.equal(pm.modelOf(ios)?.name, IOS);
});

test('the kind table holds every type with a GVK, and the envelope is runtime.Unknown', () => {
  assert.deepEqual([...pm.kinds()].sort((a, b) => a.kind.localeCompare(b.kind)), [
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  ]);
  assert.equal(pm.kind('apps/v1', 'StatefulSet')?.fullName, '.k8s.io.api.apps.v1.StatefulSet');
  assert.equal(pm.kind('apps/v1', 'StatefulSetSpec'), undefined);
  assert.equal(pm.kind('v1', 'StatefulSet'), undefined);
  assert.equal(pm.unknown.fullName, '.k8s.io.apimachinery.pkg.runtime.Unknown');
  assert.deepEqual(pm.unknown.fieldsArray.map((f) => [f.name, f.id]), [['typeMeta', 1], ['raw', 2], ['contentEncoding', 3], ['contentType', 4]]);
});

test('a reference the model cannot resolve fails the build with its place', () => {
  const broken: ApiPackageModel = { ...SYNTHETIC[1]!, types: { Holder: { fields: { x: { type: 'io.k8s.nowhere.Thing', proto: 1 } } } } };
  assert.throws(() => protoDescriptor([broken]), /io\.k8s\.apimachinery\.pkg\.util\.intstr\.Holder\.x: type io\.k8s\.nowhere\.Thing/);
});

test('pointer zeros stay, omitempty zeros go, and always fields are written with their zero value', () => {
  const s = decode('apps/v1', 'StatefulSet', {
    metadata: { name: 'web', generation: 0 },
    spec: { replicas: 0, minReadySeconds: 0, serviceName: '', template: { spec: { containers: [{ name: 'c', stdin: false }] } } },
    status: {},
  });
  assert.deepEqual(s, {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', creationTimestamp: null },
    spec: {
      replicas: 0, // *int32 sent as 0
      selector: null, // *LabelSelector without omitempty, not sent
      template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: 'c', resources: {} }] } },
    },
    status: { replicas: 0 },
  });
  const cm = decode('v1', 'ConfigMap', { immutable: false, data: { k: '' } });
  assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: null }, immutable: false, data: { k: '' } });
  const bare = decode('v1', 'ConfigMap', {});
  assert.equal('immutable' in bare, false);
  // an always list that is absent is a nil slice: null, as Go writes it
  const noContainers = decode('apps/v1', 'StatefulSet', { spec: { template: { spec: {} } } });
  assert.equal(noContainers.spec.template.spec.containers, null);
});

test('embedded structs are merged into their parent (volume sources, probe handlers, object references)', () => {
  const s = decode('apps/v1', 'StatefulSet', {
    spec: {
      template: {
        spec: {
          volumes: [
            { name: 'scratch', volumeSource: { emptyDir: {} } },
            { name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 0 } } },
            { volumeSource: {} },
          ],
          containers: [
            { name: 'a', readinessProbe: { probeHandler: { httpGet: { path: '/healthz', port: { type: 0, intVal: 8080 } } }, periodSeconds: 5 } },
            { name: 'b', readinessProbe: { probeHandler: { tcpSocket: { port: { type: 1, strVal: 'http' } } } } },
            { name: 'c', readinessProbe: { probeHandler: { httpGet: {} } } },
          ],
        },
      },
    },
  });
  const pod = s.spec.template.spec;
  assert.deepEqual(pod.volumes, [
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'cm', defaultMode: 0 } },
    { name: '' },
  ]);
  assert.deepEqual(pod.containers.map((c: any) => c.readinessProbe), [
    { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
    { tcpSocket: { port: 'http' } },
    { httpGet: { port: 0 } }, // the IntOrString struct is always written
  ]);
});

test('special types, maps of messages, named slices, bytes and int64 get their JSON forms', () => {
  const s = decode('apps/v1', 'StatefulSet', {
    metadata: { creationTimestamp: { seconds: 1767225600, nanos: 5 }, deletionTimestamp: {}, labels: { empty: '' } },
    spec: {
      template: {
        spec: {
          activeDeadlineSeconds: 2 ** 40,
          overhead: { cpu: { string: '250m' }, memory: {} },
          containers: [{ name: 'c', args: ['', 'x'], resources: { limits: { cpu: { string: '1' } } } }],
        },
      },
    },
  });
  assert.equal(s.metadata.creationTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(s.metadata.deletionTimestamp, null); // a *Time pointing at the zero time
  assert.deepEqual(s.metadata.labels, { empty: '' });
  const pod = s.spec.template.spec;
  assert.equal(pod.activeDeadlineSeconds, 2 ** 40);
  assert.deepEqual(pod.overhead, { cpu: '250m', memory: '0' });
  assert.deepEqual(pod.containers[0].args, ['', 'x']);
  assert.deepEqual(pod.containers[0].resources, { limits: { cpu: '1' } });
  const cm = decode('v1', 'ConfigMap', { binaryData: { bin: Uint8Array.from([0, 255, 1]), empty: new Uint8Array() } });
  assert.deepEqual(cm.binaryData, { bin: 'AP8B', empty: '' });

  const user = pm.root.lookupType('k8s.io.api.authentication.v1.UserInfo');
  const groups = user.fields.groups!;
  assert.equal(groups.repeated, false);
  assert.equal(pm.wrapper(groups.resolvedType as protobuf.Type), true);
  const encoded = user.encode(user.fromObject({ username: 'u', extra: { scopes: { items: ['a', 'b'] }, none: {} }, groups: { items: ['g'] } }));
  const decoded = user.decode(encoded.finish());
  assert.deepEqual(messageToJson(pm, user, decoded as any), { username: 'u', extra: { scopes: ['a', 'b'], none: null }, groups: ['g'] });
});

test('a kind missing from the model is 415, like before', () => {
  const raw = new Uint8Array();
  const env = pm.unknown.encode(pm.unknown.fromObject({ typeMeta: { apiVersion: 'apps/v1', kind: 'Deployment' }, raw })).finish();
  assert.throws(
    () => decodeKubernetesProtobuf(Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...env]), undefined, SYNTHETIC),
    (e: unknown) => e instanceof ApiError && e.code === 415 && /apps\/v1, Kind=Deployment/.test(e.message),
  );
});
