import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject, StatusCause } from '@kplane/api';
import { pruneUnknownFields } from '@kplane/api';
import { validateValue } from './schema-values.js';
import { applyDefaults } from './defaults.js';

const texts = (causes: StatusCause[]) => causes.map((c) => `${c.field}: ${c.message}`);
const check = (value: unknown, schema: SchemaObject, path = 'spec.x') => texts(validateValue(value, schema, path));

test('type, nullable and int-or-string', () => {
  assert.deepEqual(check('2', { type: 'integer' }), ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"']);
  assert.deepEqual(check(1.5, { type: 'integer' }), ['spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"']);
  assert.deepEqual(check(1, { type: 'number' }), []);
  assert.deepEqual(check(true, { type: 'string' }), ['spec.x: Invalid value: "boolean": spec.x in body must be of type string: "boolean"']);
  assert.deepEqual(check([], { type: 'object' }), ['spec.x: Invalid value: "array": spec.x in body must be of type object: "array"']);
  assert.deepEqual(check(null, { type: 'string' }), ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"']);
  assert.deepEqual(check(null, { type: 'string', nullable: true }), []);
  assert.deepEqual(check(3, { 'x-kubernetes-int-or-string': true }), []);
  assert.deepEqual(check('30%', { 'x-kubernetes-int-or-string': true }), []);
  assert.deepEqual(check(true, { 'x-kubernetes-int-or-string': true }), ['spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"']);
});

test('format, pattern and string lengths', () => {
  assert.deepEqual(check('2024-01-01T10:00:00Z', { type: 'string', format: 'date-time' }), []);
  assert.deepEqual(check('yesterday', { type: 'string', format: 'date-time' }), ['spec.x: Invalid value: "yesterday": spec.x in body must be of type date-time: "yesterday"']);
  assert.deepEqual(check('not-base64!', { type: 'string', format: 'byte' }), ['spec.x: Invalid value: "not-base64!": spec.x in body must be of type byte: "not-base64!"']);
  assert.deepEqual(check('10.0.0.1', { type: 'string', format: 'ipv4' }), []);
  assert.deepEqual(check('1.0', { type: 'string', pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$' }), []);
  assert.deepEqual(check('latest', { type: 'string', pattern: '^[0-9]+\\.[0-9]+$' }), ["spec.x: Invalid value: \"latest\": spec.x in body should match '^[0-9]+\\.[0-9]+$'"]);
  assert.deepEqual(check('abcd', { type: 'string', maxLength: 3 }), ['spec.x: Too long: must have at most 3 bytes']);
  assert.deepEqual(check('ab', { type: 'string', minLength: 3 }), ['spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long']);
  assert.deepEqual(check('héé', { type: 'string', maxLength: 3 }), [], 'lengths count characters');
});

test('minimum, maximum (exclusive) and multipleOf', () => {
  const s: SchemaObject = { type: 'integer', minimum: 1, maximum: 10 };
  assert.deepEqual(check(0, s), ['spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1']);
  assert.deepEqual(check(11, s), ['spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10']);
  assert.deepEqual(check(10, s), []);
  const ex: SchemaObject = { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 2.5, exclusiveMaximum: true };
  assert.deepEqual(check(1, ex), ['spec.x: Invalid value: 1: spec.x in body should be greater than 1']);
  assert.deepEqual(check(2.5, ex), ['spec.x: Invalid value: 2.5: spec.x in body should be less than 2.5']);
  assert.deepEqual(check(7, { type: 'integer', multipleOf: 5 } as SchemaObject), ['spec.x: Invalid value: 7: spec.x in body should be a multiple of 5']);
});

test('enum, required, items and properties', () => {
  assert.deepEqual(check('Maybe', { type: 'string', enum: ['True', 'False', 'Unknown'] }), ['spec.x: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']);
  const obj: SchemaObject = { type: 'object', required: ['version'], properties: { version: { type: 'string' }, n: { type: 'integer' } } };
  assert.deepEqual(check({ n: 'x' }, obj, 'spec'), ['spec.version: Required value', 'spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"']);
  assert.deepEqual(check([1, 2, 3], { type: 'array', maxItems: 2, items: { type: 'integer' } }), ['spec.x: Too many: 3: must have at most 2 items']);
  assert.deepEqual(check([], { type: 'array', minItems: 1, items: { type: 'integer' } }), ['spec.x: Invalid value: 0: spec.x in body should have at least 1 items']);
  assert.deepEqual(check([1, 'a'], { type: 'array', items: { type: 'integer' } }), ['spec.x[1]: Invalid value: "string": spec.x[1] in body must be of type integer: "string"']);
  assert.deepEqual(check({ a: 1, b: 2 }, { type: 'object', maxProperties: 1, additionalProperties: { type: 'integer' } }), ['spec.x: Too many: 2: must have at most 1 items']);
  assert.deepEqual(check({}, { type: 'object', minProperties: 1, additionalProperties: { type: 'integer' } }), ['spec.x: Invalid value: 0: spec.x in body should have at least 1 properties']);
  assert.deepEqual(check({ a: 'x' }, { type: 'object', additionalProperties: { type: 'integer' } }), ['spec.x.a: Invalid value: "string": spec.x.a in body must be of type integer: "string"']);
});

test('list types set and map, map type, embedded resources, junctors', () => {
  assert.deepEqual(check(['a', 'b', 'a'], { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }), ['spec.x[2]: Duplicate value: "a"']);
  const mapList: SchemaObject = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } };
  assert.deepEqual(check([{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'False' }], mapList), ['spec.x[1]: Duplicate value: map[string]interface {}{"type":"Ready"}']);
  assert.deepEqual(check([1, 1], { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'integer' } }), []);
  const embedded: SchemaObject = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
  assert.deepEqual(check({ metadata: { name: 'x' } }, embedded, 'spec.template'), ['spec.template.kind: Required value: must not be empty', 'spec.template.apiVersion: Required value: must not be empty']);
  assert.deepEqual(check({ apiVersion: 'v1', kind: 'Pod' }, embedded, 'spec.template'), []);
  assert.deepEqual(check(5, { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] }), ['spec.x: Invalid value: 5: spec.x in body must validate at least one schema (anyOf)']);
  assert.deepEqual(check(5, { type: 'integer', not: { minimum: 1 } }), ['spec.x: Invalid value: 5: spec.x in body must not validate the schema (not)']);
  assert.deepEqual(check(5, { type: 'integer', allOf: [{ maximum: 3 }] }), ['spec.x: Invalid value: 5: spec.x in body should be less than or equal to 3']);
  assert.deepEqual(check({ a: 1 }, { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'integer' } }), []);
});

test('ratcheting: unchanged invalid values are accepted, changed ones are not', () => {
  const s: SchemaObject = { type: 'object', properties: { a: { type: 'string', maxLength: 2 }, b: { type: 'string', maxLength: 2 } } };
  const old = { a: 'long', b: 'ok' };
  assert.deepEqual(texts(validateValue({ a: 'long', b: 'no' }, s, 'spec', { value: old })), []);
  assert.deepEqual(texts(validateValue({ a: 'longer', b: 'ok' }, s, 'spec', { value: old })), ['spec.a: Too long: must have at most 2 bytes']);
  assert.deepEqual(texts(validateValue({ a: 'long', b: 'ok' }, s, 'spec')), ['spec.a: Too long: must have at most 2 bytes'], 'no ratcheting on create');
  const list: SchemaObject = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer', maximum: 1 } } } };
  const oldList = [{ k: 'a', v: 5 }];
  assert.deepEqual(texts(validateValue([{ k: 'b', v: 0 }, { k: 'a', v: 5 }], list, 'spec.l', { value: oldList })), [], 'map-list items correlate by key');
});

test('defaults: absent and null fields get copies of defaults, deep', () => {
  const s: SchemaObject = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer', default: 2 }, message: { type: 'string', default: 'hello' }, opts: { type: 'object', default: {}, properties: { debug: { type: 'boolean', default: false } } } } },
      list: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } } },
      nullable: { type: 'string', nullable: true, default: 'd' },
    },
  };
  const obj: Record<string, any> = { spec: { message: null }, list: [{}, { port: 8080 }], nullable: null };
  applyDefaults(obj, s);
  assert.deepEqual(obj, { spec: { message: 'hello', replicas: 2, opts: { debug: false } }, list: [{ port: 80 }, { port: 8080 }], nullable: null });
  obj.spec.opts.debug = true;
  assert.deepEqual((s.properties!.spec!.properties!.opts!.default as object), {}, 'defaults are copied, never aliased');
});

test('pruning: unknown fields dropped except under preserve-unknown-fields and in embedded resources', () => {
  const schema: SchemaObject = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          version: { type: 'string' },
          config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
        },
      },
    },
  };
  const obj = { apiVersion: 'x/v1', kind: 'X', spec: { version: '1', replica: 3, config: { any: { thing: 1 } }, template: { apiVersion: 'v1', kind: 'Pod', spec: { a: 'x', b: 'y' } } } };
  const unknown = pruneUnknownFields(obj, schema, {});
  assert.deepEqual(unknown, ['spec.replica', 'spec.template.spec.b']);
  assert.deepEqual(obj.spec, { version: '1', config: { any: { thing: 1 } }, template: { apiVersion: 'v1', kind: 'Pod', spec: { a: 'x' } } });
});
