import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import protobuf from 'protobufjs';
import {
  MODEL_PACKAGES,
  modelKind,
  modelType,
  modelTypes,
  parseTypeRef,
  type FieldModel,
  type ModelType,
  type TypeRef,
} from './index.js';

/** The innermost TypeRef of a list or map. */
function innermost(ref: TypeRef): TypeRef {
  const parsed = parseTypeRef(ref);
  if (parsed.kind === 'list') return innermost(parsed.item);
  if (parsed.kind === 'map') return innermost(parsed.value);
  return ref;
}

/** The model type a protobuf message name stands for (`k8s.io.api.core.v1.Pod`). */
function typeOfMessage(message: string): ModelType | undefined {
  const dot = message.lastIndexOf('.');
  const pkg = MODEL_PACKAGES.find((p) => p.protoPackage === message.slice(0, dot));
  return pkg && modelType(pkg.schemaPrefix + message.slice(dot + 1));
}

/** A protobuf type spelling (`[]X`, `map[string]X`) without its list or map prefix. */
function protoItem(spelling: string): string {
  return spelling.replace(/^\[\]/, '').replace(/^map\[\w+\]/, '');
}

const PROTO_SCALARS = new Set(['string', 'bool', 'int32', 'int64', 'double', 'bytes', 'float', 'uint32', 'uint64']);

/** The protobuf type a field has on the wire, spelled like FieldModel.protoType. */
function wireSpelling(field: FieldModel): string {
  if (field.protoType !== undefined) return field.protoType;
  const spell = (ref: TypeRef): string => {
    const parsed = parseTypeRef(ref);
    switch (parsed.kind) {
      case 'list':
        return '[]' + spell(parsed.item);
      case 'map':
        return 'map[string]' + spell(parsed.value);
      case 'scalar':
        return { string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', double: 'double', byte: 'bytes' }[parsed.scalar];
      case 'named': {
        const target = modelType(parsed.name);
        return target ? `${target.pkg.protoPackage}.${target.shortName}` : `unresolved:${parsed.name}`;
      }
    }
  };
  return spell(field.type);
}

test('the model holds every GA package of the built-in API and the apimachinery packages they use', () => {
  const names = new Set(MODEL_PACKAGES.map((p) => (p.group === undefined ? p.schemaPrefix : `${p.group}/${p.version}`)));
  for (const gv of ['/v1', 'apps/v1', 'batch/v1', 'apiextensions.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'storage.k8s.io/v1']) {
    assert.ok(names.has(gv), `missing ${gv}`);
  }
  assert.ok(names.has('io.k8s.apimachinery.pkg.apis.meta.v1.'));
  assert.ok(MODEL_PACKAGES.every((p) => p.kubernetes === '1.32.0'));
});

test('every TypeRef, embedded type and protobuf message named in the model resolves', () => {
  const unresolved: string[] = [];
  let count = 0;
  for (const t of modelTypes()) {
    for (const [name, field] of Object.entries(t.type.fields ?? {})) {
      const inner = parseTypeRef(innermost(field.type));
      count++;
      if (inner.kind === 'named' && !modelType(inner.name)) unresolved.push(`${t.name}.${name}: ${inner.name}`);
      if (field.protoType !== undefined) {
        const item = protoItem(field.protoType);
        if (!PROTO_SCALARS.has(item) && !typeOfMessage(item)) unresolved.push(`${t.name}.${name}: ${field.protoType}`);
      }
    }
    for (const e of t.type.embedded ?? []) if (!modelType(e.type)) unresolved.push(`${t.name} embeds ${e.type}`);
    for (const [name, [, type]] of Object.entries(t.type.protoFields ?? {})) {
      const item = protoItem(type);
      if (!PROTO_SCALARS.has(item) && !typeOfMessage(item)) unresolved.push(`${t.name}.${name}: ${type}`);
    }
  }
  assert.ok(count > 2000, `only ${count} fields`);
  assert.deepEqual(unresolved, []);
});

test('protobuf numbers are unique within each type', () => {
  const collisions: string[] = [];
  for (const t of modelTypes()) {
    const seen = new Map<number, string>();
    const claim = (n: number, what: string) => {
      if (seen.has(n)) collisions.push(`${t.name}: ${n} is ${seen.get(n)} and ${what}`);
      seen.set(n, what);
    };
    for (const [name, f] of Object.entries(t.type.fields ?? {})) if (f.proto !== undefined) claim(f.proto, name);
    for (const e of t.type.embedded ?? []) claim(e.proto, e.type);
    for (const [name, [n]] of Object.entries(t.type.protoFields ?? {})) claim(n, name);
  }
  assert.deepEqual(collisions, []);
});

test('every kind of the model is found by apiVersion and kind, the served kinds among them', () => {
  let kinds = 0;
  for (const t of modelTypes()) {
    for (const g of t.type.gvk ?? []) {
      kinds++;
      const found = modelKind(g.group ? `${g.group}/${g.version}` : g.version, g.kind);
      assert.ok(found?.type.gvk?.some((x) => x.group === g.group && x.version === g.version && x.kind === g.kind), `${g.kind}`);
    }
  }
  assert.ok(kinds > 150, `only ${kinds} kinds`);
  const served: [string, string, string][] = [
    ['v1', 'Pod', 'io.k8s.api.core.v1.Pod'],
    ['v1', 'Namespace', 'io.k8s.api.core.v1.Namespace'],
    ['v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap'],
    ['v1', 'Secret', 'io.k8s.api.core.v1.Secret'],
    ['v1', 'Service', 'io.k8s.api.core.v1.Service'],
    ['v1', 'Node', 'io.k8s.api.core.v1.Node'],
    ['v1', 'Binding', 'io.k8s.api.core.v1.Binding'],
    ['v1', 'Event', 'io.k8s.api.core.v1.Event'],
    ['v1', 'Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status'],
    ['apps/v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment'],
    ['apps/v1', 'ReplicaSet', 'io.k8s.api.apps.v1.ReplicaSet'],
    ['events.k8s.io/v1', 'Event', 'io.k8s.api.events.v1.Event'],
    ['coordination.k8s.io/v1', 'Lease', 'io.k8s.api.coordination.v1.Lease'],
    ['networking.k8s.io/v1', 'Ingress', 'io.k8s.api.networking.v1.Ingress'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'io.k8s.api.rbac.v1.ClusterRoleBinding'],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'],
    ['autoscaling/v1', 'Scale', 'io.k8s.api.autoscaling.v1.Scale'],
    ['batch/v1', 'Job', 'io.k8s.api.batch.v1.Job'],
    ['policy/v1', 'PodDisruptionBudget', 'io.k8s.api.policy.v1.PodDisruptionBudget'],
  ];
  for (const [apiVersion, kind, name] of served) assert.equal(modelKind(apiVersion, kind)?.name, name, `${apiVersion} ${kind}`);
  assert.equal(modelKind('apps/v1', 'Pod'), undefined);
});

test('no string of the model is prose: none holds a space, bar enum values of a few lowercase words', () => {
  const found: string[] = [];
  const walk = (value: unknown, where: string, inEnum: boolean): void => {
    if (typeof value === 'string') {
      if (/\s/.test(value) && !(inEnum && /^[a-z]+( [a-z]+){0,3}$/.test(value))) found.push(`${where}: ${value.slice(0, 40)}`);
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}[${i}]`, inEnum));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        walk(k, where, false);
        walk(v, `${where}.${k}`, k === 'enum');
      }
    }
  };
  for (const pkg of MODEL_PACKAGES) walk(pkg, pkg.schemaPrefix, false);
  assert.deepEqual(found, []);
});

test('spot facts of Kubernetes 1.32', () => {
  const field = (type: string, name: string): FieldModel => {
    const f = modelType(type)?.type.fields?.[name];
    assert.ok(f, `${type}.${name}`);
    return f;
  };
  const hostIPs = field('io.k8s.api.core.v1.PodStatus', 'hostIPs');
  assert.equal(hostIPs.listType, 'atomic');
  assert.equal(hostIPs.patchMergeKey, 'ip');
  const ports = field('io.k8s.api.core.v1.Container', 'ports');
  assert.equal(ports.listType, 'map');
  assert.deepEqual(ports.listMapKeys, ['containerPort', 'protocol']);
  assert.equal(ports.patchMergeKey, 'containerPort');
  assert.deepEqual(ports.items, { default: {} });
  const replicas = field('io.k8s.api.apps.v1.DeploymentSpec', 'replicas');
  assert.equal(replicas.ptr, true);
  assert.equal(replicas.proto, 1);
  assert.equal(field('io.k8s.api.apps.v1.DeploymentSpec', 'template').always, true);
  assert.deepEqual(field('io.k8s.api.apps.v1.DeploymentSpec', 'strategy').default, {});
  assert.equal(field('io.k8s.api.core.v1.ServicePort', 'protocol').default, 'TCP');
  assert.deepEqual(field('io.k8s.api.core.v1.ServicePort', 'protocol').enum, ['SCTP', 'TCP', 'UDP']);
  assert.deepEqual(field('io.k8s.api.core.v1.Volume', 'name').required, true);
  assert.deepEqual(modelType('io.k8s.api.core.v1.Volume')?.type.embedded, [{ proto: 2, type: 'io.k8s.api.core.v1.VolumeSource' }]);
  assert.equal(modelType('io.k8s.api.core.v1.VolumeSource')?.type.protoOnly, true);
  assert.equal(field('io.k8s.api.authentication.v1.UserInfo', 'extra').protoType, 'map[string]k8s.io.api.authentication.v1.ExtraValue');
  assert.deepEqual(modelType('io.k8s.api.authentication.v1.ExtraValue')?.type.protoFields, { items: [1, '[]string'] });
  assert.equal(modelType('io.k8s.apimachinery.pkg.apis.meta.v1.Time')?.type.special, 'time');
  assert.equal(modelType('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')?.type.mapType, 'atomic');
  assert.equal(field('io.k8s.api.core.v1.Container', 'lifecycle').type, 'io.k8s.api.core.v1.Lifecycle');
  assert.equal(modelType('io.k8s.api.core.v1.Lifecycle')?.type.fields?.['stopSignal'], undefined, 'stopSignal is 1.33');
});

/** The gzipped FileDescriptorProtos of the k8s.io .proto files linked into a Go binary. */
function descriptorsIn(binary: Buffer): protobuf.Root {
  const require = createRequire(import.meta.url);
  const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: protobuf.Type };
  const header = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const files = new Map<string, object>();
  for (let at = binary.indexOf(header); at >= 0; at = binary.indexOf(header, at + 1)) {
    let raw: Buffer;
    try {
      raw = inflateRawSync(binary.subarray(at + 10, at + 10 + 400_000));
    } catch {
      continue;
    }
    if (raw[0] !== 0x0a) continue;
    let file: { name?: string };
    try {
      file = descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(raw)) as { name?: string };
    } catch {
      continue;
    }
    if (file.name?.startsWith('k8s.io/') && !files.has(file.name)) files.set(file.name, file);
  }
  const fromDescriptor = (protobuf.Root as unknown as { fromDescriptor(set: object): protobuf.Root }).fromDescriptor;
  const root = fromDescriptor({ file: [...files.values()] });
  root.resolveAll();
  return root;
}

/** The protobuf type of a descriptor field, spelled like FieldModel.protoType. */
function descriptorSpelling(field: protobuf.Field): string {
  const name = (f: protobuf.Field) => (f.resolvedType ? f.resolvedType.fullName.slice(1) : f.type);
  const entry = field.resolvedType;
  // Map fields are repeated messages `XEntry` (key = 1, value = 2) nested in the field's message.
  if (field.repeated && entry instanceof protobuf.Type && entry.parent === field.parent && entry.name.endsWith('Entry')) {
    return `map[${name(entry.fieldsById[1]!)}]${name(entry.fieldsById[2]!)}`;
  }
  return (field.repeated ? '[]' : '') + name(field);
}

function findOnPath(command: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    if (dir && existsSync(candidate)) return realpathSync(candidate);
  }
  return undefined;
}

test('protobuf numbers and wire types agree with the descriptors compiled into kubectl', (t) => {
  const kubectl = findOnPath('kubectl');
  if (!kubectl) {
    t.skip('kubectl not found');
    return;
  }
  const version = execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  const minor = Number((JSON.parse(version) as { clientVersion: { minor: string } }).clientVersion.minor.replace(/\D.*$/, ''));
  assert.ok(minor >= 32, 'kubectl older than 1.32 lacks fields of the model');
  const root = descriptorsIn(readFileSync(kubectl));
  const mismatches: string[] = [];
  let compared = 0;
  const missingPackages = new Set<string>();
  for (const mt of modelTypes()) {
    const message = root.lookup(`${mt.pkg.protoPackage}.${mt.shortName}`);
    if (!(message instanceof protobuf.Type)) {
      if (Object.values(mt.type.fields ?? {}).some((f) => f.proto !== undefined) || mt.type.protoFields) {
        missingPackages.add(mt.pkg.protoPackage);
      }
      continue;
    }
    const expect = (n: number, spelling: string, what: string, name?: string) => {
      compared++;
      const df = message.fieldsById[n];
      if (!df) mismatches.push(`${mt.name}.${what}: no field ${n}`);
      else if (descriptorSpelling(df) !== spelling) mismatches.push(`${mt.name}.${what} = ${n}: ${spelling} vs ${descriptorSpelling(df)}`);
      else if (name !== undefined && name.replace(/\W/g, '').toLowerCase() !== df.name.toLowerCase()) {
        mismatches.push(`${mt.name}.${what} = ${n}: named ${df.name}`);
      }
    };
    for (const [name, f] of Object.entries(mt.type.fields ?? {})) {
      if (f.proto !== undefined && !mt.type.special) expect(f.proto, wireSpelling(f), name, name);
    }
    for (const e of mt.type.embedded ?? []) {
      const target = modelType(e.type);
      expect(e.proto, target ? `${target.pkg.protoPackage}.${target.shortName}` : e.type, `(embedded ${e.type})`);
    }
    for (const [name, [n, spelling]] of Object.entries(mt.type.protoFields ?? {})) expect(n, spelling, name, name);
  }
  assert.deepEqual(mismatches, []);
  // kubectl links every k8s.io/api and apimachinery package, not apiextensions-apiserver or kube-aggregator.
  assert.deepEqual([...missingPackages].sort(), ['k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1', 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1']);
  assert.ok(compared > 1700, `only ${compared} fields compared`);
});
