import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { SchemaObject } from '@kplane/api';
import { defineKind, type CustomObject } from './custom.js';
import { structuralSchemaErrors } from './schema.js';
import type { ObjectOf } from './descriptors.js';
import { GreetingKind, type Greeting } from './greeting-example.js';
import { greetingCRD } from '@kplane/apiserver/testing';
import type { CustomResourceDefinition } from './builtin/index.js';

/** The Greeting CRD as written by hand in YAML in the seed chapter (the reference the TypeBox declaration must reproduce). */
const handWritten = greetingCRD() as unknown as CustomResourceDefinition;

test('Greeting: crd() reproduces the hand-written CRD field by field', () => {
  const crd = GreetingKind.crd();
  const want = handWritten;
  assert.equal(crd.apiVersion, want.apiVersion);
  assert.equal(crd.kind, want.kind);
  assert.deepEqual(crd.metadata, want.metadata);
  assert.equal(GreetingKind.crdName, 'greetings.demo.example.com');
  assert.equal(crd.spec.group, want.spec.group);
  assert.equal(crd.spec.scope, want.spec.scope);
  assert.deepEqual(crd.spec.names, want.spec.names);
  assert.equal(crd.spec.versions.length, 1);
  const got = crd.spec.versions[0]!;
  const exp = want.spec.versions[0]!;
  assert.equal(got.name, exp.name);
  assert.equal(got.served, true);
  assert.equal(got.storage, true);
  assert.deepEqual(got.subresources, exp.subresources);
  assert.deepEqual(got.additionalPrinterColumns, exp.additionalPrinterColumns);
  assert.deepEqual(got.selectableFields, exp.selectableFields);

  const schema = got.schema!.openAPIV3Schema!;
  const expSchema = exp.schema!.openAPIV3Schema!;
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.required, expSchema.required);
  const spec = schema.properties!.spec!;
  const expSpec = expSchema.properties!.spec!;
  assert.deepEqual(spec.required, expSpec.required);
  assert.deepEqual(spec['x-kubernetes-validations'], expSpec['x-kubernetes-validations']);
  for (const field of Object.keys(expSpec.properties!)) {
    assert.deepEqual(spec.properties![field], expSpec.properties![field], `spec.${field}`);
  }
  assert.deepEqual(spec, expSpec);
  assert.deepEqual(schema.properties!.status, expSchema.properties!.status);
  // What defineKind adds, as Kubernetes expects of every top-level schema.
  assert.deepEqual(Object.keys(schema.properties!).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.equal(schema.properties!.apiVersion!.type, 'string');
  assert.equal(schema.properties!.kind!.type, 'string');
  assert.deepEqual(schema.properties!.metadata, { type: 'object' }, 'Kubernetes allows nothing else on metadata');
  // And nothing else differs: the whole CRD minus those three is the hand-written one.
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = schema.properties!;
  assert.deepEqual({ ...crd, spec: { ...crd.spec, versions: [{ ...got, schema: { openAPIV3Schema: { ...schema, properties: rest } } }] } }, want);
});

test('Greeting: the generated schema is structural', () => {
  assert.deepEqual(structuralSchemaErrors(GreetingKind.schema()), []);
});

test('Greeting: descriptor', () => {
  assert.deepEqual({ ...GreetingKind.descriptor }, {
    group: 'demo.example.com', version: 'v1', resource: 'greetings', namespaced: true, kind: 'Greeting', apiVersion: 'demo.example.com/v1',
  });
});

test('crd() and schema() return fresh copies', () => {
  const a = GreetingKind.crd();
  a.spec.names.kind = 'Changed';
  a.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.type = 'string';
  assert.equal(GreetingKind.crd().spec.names.kind, 'Greeting');
  const s = GreetingKind.schema();
  s.required = [];
  assert.deepEqual(GreetingKind.schema().required, ['spec']);
  assert.equal(GreetingKind.crd().spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.type, 'object');
});

test('defineKind: defaults for singular and listKind, optional spec, no subresources, Cluster scope', () => {
  const k = defineKind({
    group: 'ops.example.org',
    version: 'v1alpha1',
    kind: 'BackupPolicy',
    plural: 'backuppolicies',
    scope: 'Cluster',
    description: 'How often to back up.',
    spec: Type.Optional(Type.Object({ schedule: Type.String() })),
  });
  const crd = k.crd();
  assert.deepEqual(crd.spec.names, { kind: 'BackupPolicy', listKind: 'BackupPolicyList', plural: 'backuppolicies', singular: 'backuppolicy' });
  assert.equal(crd.spec.scope, 'Cluster');
  const v = crd.spec.versions[0]!;
  assert.equal(v.subresources, undefined);
  assert.equal(v.additionalPrinterColumns, undefined);
  assert.equal(v.selectableFields, undefined);
  const schema = v.schema!.openAPIV3Schema!;
  assert.equal(schema.required, undefined, 'spec wrapped in Type.Optional is not required');
  assert.equal(schema.description, 'How often to back up.');
  assert.equal(schema.properties!.status, undefined);
  assert.equal(k.descriptor.namespaced, false);
  assert.equal(k.descriptor.apiVersion, 'ops.example.org/v1alpha1');
  // Type level: an optional spec may be left out, status does not exist.
  const obj: CustomObject<typeof specSchema> = { metadata: { name: 'x' } };
  assert.ok(obj);
});
const specSchema = Type.Optional(Type.Object({ schedule: Type.String() }));

test('defineKind: invalid names are rejected at definition time', () => {
  const base = { group: 'demo.example.com', version: 'v1', kind: 'Thing', plural: 'things', scope: 'Namespaced' as const, spec: Type.Object({}) };
  assert.throws(() => defineKind({ ...base, group: 'nodots' }), /group "nodots": should be a domain with at least one dot/);
  assert.throws(() => defineKind({ ...base, group: 'Bad_Group.io' }), /group "Bad_Group.io"/);
  assert.throws(() => defineKind({ ...base, plural: 'Things' }), /plural "Things"/);
  assert.throws(() => defineKind({ ...base, kind: 'thing' }), /kind "thing": must be CamelCase/);
  assert.throws(() => defineKind({ ...base, version: 'V1' }), /version "V1"/);
  assert.throws(() => defineKind({ ...base, shortNames: ['t_1'] }), /shortName "t_1"/);
  assert.doesNotThrow(() => defineKind(base));
});

test('defineKind: spec and status must be objects; non-structural schemas are rejected', () => {
  const base = { group: 'demo.example.com', version: 'v1', kind: 'Thing', plural: 'things', scope: 'Namespaced' as const };
  assert.throws(() => defineKind({ ...base, spec: Type.String() }), /spec: must be an object schema/);
  assert.throws(() => defineKind({ ...base, spec: Type.Object({}), status: Type.Array(Type.String()) }), /status: must be an object schema/);
  assert.throws(
    () => defineKind({ ...base, spec: Type.Object({ a: Type.Union([Type.Object({ x: Type.String() }), Type.Object({ y: Type.String() })]) }) }),
    /spec\.a: unions other than/,
  );
  assert.throws(
    () => defineKind({ ...base, spec: Type.Object({ list: KubeTypeListWithoutKey() }) }),
    /not structural[\s\S]*x-kubernetes-list-map-keys/,
  );
});

function KubeTypeListWithoutKey() {
  // A list-map whose key is neither required nor defaulted.
  return Type.Array(Type.Object({ name: Type.Optional(Type.String()) }), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
}

test('Greeting type: spec fields are typed from the TypeBox schema', () => {
  const g: Greeting = {
    apiVersion: 'demo.example.com/v1',
    kind: 'Greeting',
    metadata: { name: 'hello', namespace: 'demo' },
    spec: { version: '1.0', message: 'hi', host: 'hello.apps.example.com' },
  };
  const viaDescriptor: ObjectOf<typeof GreetingKind> = g;
  const viaKind: ObjectOf<typeof GreetingKind.descriptor> = viaDescriptor;
  const replicas: number | undefined = viaKind.spec.replicas;
  const cond = g.status?.conditions?.[0];
  const status: 'True' | 'False' | 'Unknown' | undefined = cond?.status;
  assert.equal(replicas, undefined);
  assert.equal(status, undefined);
  if (false as boolean) {
    // @ts-expect-error spec.version is required
    const noVersion: Greeting = { spec: { message: 'x' } };
    // @ts-expect-error spec itself is required
    const noSpec: Greeting = { metadata: { name: 'x' } };
    // @ts-expect-error replicas is a number
    const badReplicas: Greeting = { spec: { version: '1', replicas: 'two' } };
    // @ts-expect-error unknown spec field
    const typo: Greeting = { spec: { version: '1', replica: 2 } };
    // @ts-expect-error condition status is a literal union
    g.status = { conditions: [{ type: 'Ready', status: 'Yes' }] };
    const schemaOf: SchemaObject = GreetingKind.schema();
    void [noVersion, noSpec, badReplicas, typo, schemaOf];
  }
});
