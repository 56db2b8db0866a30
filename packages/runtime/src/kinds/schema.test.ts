import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { SchemaObject } from '@kplane/api';
import { KubeType, SchemaConversionError, structuralSchemaErrors, toStructuralSchema } from './schema.js';

/** Every schema node of a converted schema, with its path. */
function nodes(s: SchemaObject, path = ''): [string, SchemaObject][] {
  const out: [string, SchemaObject][] = [[path, s]];
  for (const [k, v] of Object.entries(s.properties ?? {})) out.push(...nodes(v, `${path}.${k}`));
  if (typeof s.additionalProperties === 'object') out.push(...nodes(s.additionalProperties, `${path}.*`));
  if (s.items) out.push(...nodes(s.items, `${path}[]`));
  return out;
}

test('objects: required from Type.Optional, $id and additionalProperties:false dropped, symbols gone', () => {
  const s = toStructuralSchema(
    Type.Object({ a: Type.String(), b: Type.Optional(Type.Boolean()), c: Type.Readonly(Type.Number()) }, { $id: 'Thing', additionalProperties: false, description: 'd' }),
  );
  assert.deepEqual(s, {
    type: 'object',
    description: 'd',
    required: ['a', 'c'],
    properties: { a: { type: 'string' }, b: { type: 'boolean' }, c: { type: 'number' } },
  });
  assert.deepEqual(Object.getOwnPropertySymbols(s), []);
  assert.deepEqual(Object.getOwnPropertySymbols(s.properties!.a!), []);
  assert.equal(JSON.stringify(s).includes('$id'), false);
});

test('an object with every field optional has no required list', () => {
  assert.deepEqual(toStructuralSchema(Type.Object({ a: Type.Optional(Type.String()) })), { type: 'object', properties: { a: { type: 'string' } } });
});

test('integers keep their format; validation keywords and defaults pass through', () => {
  assert.deepEqual(toStructuralSchema(KubeType.Int32({ minimum: 0, default: 1 })), { type: 'integer', format: 'int32', minimum: 0, default: 1 });
  assert.deepEqual(toStructuralSchema(KubeType.Int64()), { type: 'integer', format: 'int64' });
  assert.deepEqual(toStructuralSchema(Type.Integer({ maximum: 5, multipleOf: 5 })), { type: 'integer', maximum: 5, multipleOf: 5 });
  assert.deepEqual(toStructuralSchema(Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z]+$', format: 'hostname' })), {
    type: 'string', format: 'hostname', minLength: 1, maxLength: 63, pattern: '^[a-z]+$',
  });
  assert.deepEqual(toStructuralSchema(Type.Array(Type.String(), { minItems: 1, maxItems: 3, uniqueItems: true })), {
    type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: { type: 'string' },
  });
});

test('numeric exclusive bounds become OpenAPI v3.0 booleans', () => {
  assert.deepEqual(toStructuralSchema(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })), {
    type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true,
  });
});

test('literal unions, Type.Enum and single literals become enum with one type', () => {
  assert.deepEqual(toStructuralSchema(Type.Union([Type.Literal('A'), Type.Literal('B')], { description: 'mode', default: 'A' })), {
    type: 'string', description: 'mode', default: 'A', enum: ['A', 'B'],
  });
  enum Color { Red = 'red', Blue = 'blue' }
  assert.deepEqual(toStructuralSchema(Type.Enum(Color)), { type: 'string', enum: ['red', 'blue'] });
  assert.deepEqual(toStructuralSchema(Type.Literal('only')), { type: 'string', enum: ['only'] });
  assert.deepEqual(toStructuralSchema(Type.Union([Type.Literal(1), Type.Literal(2)])), { type: 'integer', enum: [1, 2] });
  assert.throws(() => toStructuralSchema(Type.Union([Type.Literal('a'), Type.Literal(1)])), /enum must have values of one type/);
});

test('X | null becomes nullable; integer | string becomes int-or-string', () => {
  assert.deepEqual(toStructuralSchema(Type.Union([Type.String({ maxLength: 3 }), Type.Null()])), { type: 'string', maxLength: 3, nullable: true });
  const ios = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  assert.deepEqual(toStructuralSchema(Type.Union([Type.Integer(), Type.String()])), ios);
  assert.deepEqual(toStructuralSchema(KubeType.IntOrString({ description: 'port' })), { description: 'port', ...ios });
  assert.deepEqual(structuralSchemaErrors({ type: 'object', properties: { p: toStructuralSchema(KubeType.IntOrString()) } }), []);
});

test('records become additionalProperties; free-form values preserve unknown fields', () => {
  assert.deepEqual(toStructuralSchema(Type.Record(Type.String(), Type.String())), { type: 'object', additionalProperties: { type: 'string' } });
  assert.deepEqual(toStructuralSchema(Type.Object({ any: Type.Any(), unknown: Type.Unknown() })), {
    type: 'object',
    required: ['any', 'unknown'],
    properties: { any: { 'x-kubernetes-preserve-unknown-fields': true }, unknown: { 'x-kubernetes-preserve-unknown-fields': true } },
  });
  assert.deepEqual(toStructuralSchema(KubeType.Unstructured({ description: 'raw' })), {
    type: 'object', description: 'raw', 'x-kubernetes-preserve-unknown-fields': true,
  });
  assert.throws(() => toStructuralSchema(Type.Record(Type.Number(), Type.String())), /patternProperties/);
});

test('Type.Unsafe and x-kubernetes-* options pass through', () => {
  const s = toStructuralSchema(
    Type.Object(
      { items: KubeType.ListMap(Type.Object({ name: Type.String(), v: Type.Optional(Type.String()) }), ['name']) },
      { 'x-kubernetes-validations': [{ rule: 'size(self.items) < 5' }], 'x-kubernetes-map-type': 'atomic' },
    ),
  );
  assert.deepEqual(s['x-kubernetes-validations'], [{ rule: 'size(self.items) < 5' }]);
  assert.equal(s['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(s.properties!.items, {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'string' } } },
  });
  assert.deepEqual(toStructuralSchema(Type.Unsafe<string>({ type: 'string', format: 'byte', 'x-kubernetes-foo': 1 })), {
    type: 'string', format: 'byte', 'x-kubernetes-foo': 1,
  });
});

test('intersections of objects are merged', () => {
  const s = toStructuralSchema(Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Optional(Type.Integer()) })], { description: 'both' }));
  assert.deepEqual(s, { type: 'object', description: 'both', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] });
  assert.throws(() => toStructuralSchema(Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ a: Type.String() })])), /declared twice/);
});

test('what has no structural form throws SchemaConversionError with the path', () => {
  const err = (schema: unknown) => {
    try {
      toStructuralSchema(schema as never, 'spec');
    } catch (e) {
      assert.ok(e instanceof SchemaConversionError);
      return e;
    }
    assert.fail('expected a SchemaConversionError');
  };
  assert.equal(err(Type.Object({ t: Type.Tuple([Type.String(), Type.Number()]) })).path, 'spec.t');
  assert.match(err(Type.Object({ r: Type.Ref('Other') })).message, /^spec\.r: unsupported schema keyword "\$ref"/);
  assert.match(err(Type.Union([Type.String(), Type.Boolean()])).message, /unions other than/);
  assert.match(err(Type.Null()).message, /null-only/);
  assert.match(err({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }).message, /mutually exclusive/);
  assert.match(err(Type.Not(Type.String())).message, /unsupported schema keyword "not"/);
});

test('every node of a converted schema has a type (or is int-or-string / preserve-unknown) and never both properties and additionalProperties', () => {
  const s = toStructuralSchema(
    Type.Object({
      name: Type.String(),
      labels: Type.Record(Type.String(), Type.String()),
      ports: Type.Array(Type.Object({ port: KubeType.IntOrString(), proto: Type.Optional(Type.Union([Type.Literal('TCP'), Type.Literal('UDP')])) })),
      raw: Type.Unknown(),
      nested: Type.Object({ deep: Type.Object({ x: Type.Union([Type.Integer(), Type.Null()]) }) }),
      intersect: Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
    }),
  );
  for (const [path, node] of nodes(s)) {
    const exempt = node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
    assert.ok(node.type || exempt, `${path || '<root>'} has a type`);
    assert.ok(!(node.properties && node.additionalProperties !== undefined), `${path} has not both properties and additionalProperties`);
  }
  assert.deepEqual(structuralSchemaErrors(s), []);
});

test('structuralSchemaErrors reports the rules apiextensions enforces', () => {
  const errs = structuralSchemaErrors({
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object' } } },
      untyped: { description: 'no type' },
      both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      ref: { $ref: '#/x', type: 'object' },
      junctor: { type: 'string', anyOf: [{ type: 'string', description: 'x' }] },
      arr: { type: 'array' },
      keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
      lm: { type: 'array', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } },
    },
  });
  const expected = [
    'openAPIV3Schema.properties[untyped].type: Required value',
    'openAPIV3Schema.properties[both].additionalProperties: Forbidden',
    'openAPIV3Schema.properties[ref].$ref: Forbidden',
    'openAPIV3Schema.properties[junctor].anyOf[0].type: Forbidden',
    'openAPIV3Schema.properties[junctor].anyOf[0].description: Forbidden',
    'openAPIV3Schema.properties[arr].items: Required value',
    'openAPIV3Schema.properties[keep].x-kubernetes-preserve-unknown-fields: Invalid value',
    'openAPIV3Schema.properties[lm].x-kubernetes-list-map-keys: Forbidden',
    'openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
  ];
  for (const e of expected) assert.ok(errs.some((x) => x.startsWith(e)), `missing: ${e}\n${errs.join('\n')}`);
  assert.equal(errs.length, expected.length, errs.join('\n'));
  assert.deepEqual(structuralSchemaErrors({ type: 'string' }), ['type: Required value: must be object at the root']);
  assert.deepEqual(structuralSchemaErrors({ type: 'object', properties: { metadata: { type: 'object', description: 'x' } } }), [
    'openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
  ]);
  assert.deepEqual(structuralSchemaErrors({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } }), []);
  assert.deepEqual(structuralSchemaErrors({ type: 'object', properties: { kind: { type: 'integer' }, apiVersion: { type: 'string' } } }), [
    'openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
  ]);
  const lm = structuralSchemaErrors({
    type: 'object',
    properties: { l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'z'], items: { type: 'object', properties: { k: { type: 'string' } } } } },
  });
  assert.equal(lm.length, 2, lm.join('\n'));
  assert.match(lm[0]!, /\[l\]\.x-kubernetes-list-map-keys: Invalid value: "z"|items\.properties\[k\]: Required value/);
});
