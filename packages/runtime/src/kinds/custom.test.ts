import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { SchemaObject } from '@kplane/api';
import { defineKind, type CustomObject } from './custom.js';
import { structuralSchemaErrors } from './schema.js';
import type { ObjectOf } from './descriptors.js';
import { BookKind, type Book } from './book-example.js';

// The full-size custom kind, Greeting (CEL rules, defaults, scale subresource), is checked
// against the chapter's hand-written CRD in examples/greeting-operator (kind.test.ts).

test('a TypeBox kind: structural schema, descriptor, schema() typed as a SchemaObject', () => {
  const schema: SchemaObject = BookKind.schema();
  assert.deepEqual(structuralSchemaErrors(schema), []);
  assert.deepEqual({ ...BookKind.descriptor }, {
    group: 'library.example.com', version: 'v1', resource: 'books', namespaced: true, kind: 'Book', apiVersion: 'library.example.com/v1',
  });
  const book: Book = { metadata: { name: 'dune' }, spec: { title: 'Dune' } };
  const viaKind: ObjectOf<typeof BookKind.descriptor> = book;
  const copies: number | undefined = viaKind.spec.copies;
  assert.equal(copies, undefined);
  if (false as boolean) {
    // @ts-expect-error spec.title is required
    const noTitle: Book = { spec: { copies: 1 } };
    // @ts-expect-error copies is a number
    const badCopies: Book = { spec: { title: 'x', copies: 'two' } };
    void [noTitle, badCopies];
  }
});

test('crd() and schema() return fresh copies', () => {
  const a = BookKind.crd();
  a.spec.names.kind = 'Changed';
  a.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.type = 'string';
  assert.equal(BookKind.crd().spec.names.kind, 'Book');
  const s = BookKind.schema();
  s.required = [];
  assert.deepEqual(BookKind.schema().required, ['spec']);
  assert.equal(BookKind.crd().spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.type, 'object');
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
