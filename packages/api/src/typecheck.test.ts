import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaDefinitions, SchemaObject } from './schema.js';
import { base64ErrorAt, checkObjectTypes, typeErrorMessage } from './typecheck.js';
import { MAX_NESTING_DEPTH } from './json-scan.js';

const ref = (n: string): SchemaObject => ({ $ref: `#/components/schemas/${n}` });
const defs: SchemaDefinitions = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' } },
      generation: { type: 'integer', format: 'int64' },
      creationTimestamp: ref('io.k8s.apimachinery.pkg.apis.meta.v1.Time'),
      managedFields: { type: 'array', items: { type: 'object', properties: { fieldsV1: ref('io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1') } } },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string', format: 'date-time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { type: 'object' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { 'x-kubernetes-int-or-string': true },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { 'x-kubernetes-int-or-string': true },
  'io.k8s.api.apps.v1.WidgetSpec': {
    type: 'object',
    properties: {
      replicas: { type: 'integer', format: 'int32' },
      ratio: { type: 'number' },
      paused: { type: 'boolean' },
      port: ref('io.k8s.apimachinery.pkg.util.intstr.IntOrString'),
      limits: { type: 'object', additionalProperties: ref('io.k8s.apimachinery.pkg.api.resource.Quantity') },
      items: { type: 'array', items: ref('io.k8s.api.apps.v1.Item') },
      blob: { type: 'string', format: 'byte' },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'io.k8s.api.apps.v1.Item': { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'integer', format: 'int32' } } },
  'io.k8s.api.apps.v1.Widget': {
    type: 'object',
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), spec: ref('io.k8s.api.apps.v1.WidgetSpec') },
  },
};
const widget = ref('io.k8s.api.apps.v1.Widget');

function check(obj: Record<string, unknown>, style: 'json' | 'unstructured' = 'json'): string | undefined {
  const e = checkObjectTypes(obj, widget, defs, { kind: 'Widget' });
  return e && typeErrorMessage(e, style);
}

test('well-typed objects pass; unknown fields are left alone', () => {
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { a: 'b' }, finalizers: ['x/y'], generation: 2, creationTimestamp: '2024-01-01T00:00:00Z', managedFields: [{ fieldsV1: { 'f:a': {} } }] },
    spec: { replicas: 3, ratio: 0.5, paused: false, port: 'http', limits: { cpu: '100m', memory: 1024, gpu: '1e3' }, items: [{ name: 'i', weight: -1 }], blob: 'aGk=', extra: { any: [1, { x: null }] }, unknown: [{}] },
  };
  assert.equal(check(obj), undefined);
  assert.equal(check({ spec: { port: 8080 } }), undefined);
});

test('Go decoder messages name the struct, the path without indexes and the Go type', () => {
  assert.equal(check({ metadata: { name: [false] } }), 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.name of type string');
  assert.equal(check({ metadata: { labels: ['a'] } }), 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string');
  assert.equal(check({ metadata: { labels: { a: 1 } } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  assert.equal(check({ metadata: 'x' }), 'json: cannot unmarshal string into Go struct field Widget.metadata of type v1.ObjectMeta');
  assert.equal(check({ spec: { items: {} } }), 'json: cannot unmarshal object into Go struct field WidgetSpec.spec.items of type []v1.Item');
  assert.equal(check({ spec: { items: [{ name: 'a' }, { weight: 'x' }] } }), 'json: cannot unmarshal string into Go struct field Item.spec.items.weight of type int32');
  assert.equal(check({ spec: { replicas: 2 ** 31 } }), 'json: cannot unmarshal number 2147483648 into Go struct field WidgetSpec.spec.replicas of type int32');
  assert.equal(check({ spec: { replicas: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go struct field WidgetSpec.spec.replicas of type int32');
  assert.equal(check({ spec: { paused: 'yes' } }), 'json: cannot unmarshal string into Go struct field WidgetSpec.spec.paused of type bool');
  assert.equal(check({ spec: { ratio: true } }), 'json: cannot unmarshal bool into Go struct field WidgetSpec.spec.ratio of type float64');
  assert.equal(check({ spec: { extra: 'x' } }), 'json: cannot unmarshal string into Go struct field WidgetSpec.spec.extra of type v1.Extra');
  assert.equal(check({ metadata: { generation: 2 ** 63 } }), 'json: cannot unmarshal number 9223372036854776000 into Go struct field ObjectMeta.metadata.generation of type int64');
});

test('types with their own decoders: Time, IntOrString, Quantity, base64 bytes', () => {
  assert.equal(check({ metadata: { creationTimestamp: 5 } }), 'json: cannot unmarshal number into Go value of type string');
  assert.equal(check({ spec: { port: true } }), 'json: cannot unmarshal bool into Go value of type int32');
  assert.equal(check({ spec: { port: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go value of type int32');
  assert.match(check({ spec: { limits: { cpu: 'lots' } } })!, /^quantities must match the regular expression/);
  assert.match(check({ spec: { limits: { cpu: [] } } })!, /^quantities must match the regular expression/);
  assert.equal(check({ spec: { limits: { cpu: '1Qi' } } }), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  assert.equal(check({ spec: { limits: { cpu: '1kk' } } }), "unable to parse quantity's suffix");
  assert.equal(check({ spec: { blob: 'a?==' } }), 'illegal base64 data at input byte 1');
  assert.equal(base64ErrorAt(''), -1);
  assert.equal(base64ErrorAt('aGk='), -1);
  assert.equal(base64ErrorAt('aGVsbG8gd29ybGQ='), -1);
  assert.equal(base64ErrorAt('aGk'), 0);
  assert.equal(base64ErrorAt('aGk=aGk'), 4);
  assert.equal(base64ErrorAt('aGk=x'), 4);
  assert.equal(base64ErrorAt('a'), 0);
  assert.equal(base64ErrorAt('aGVsbG8gd29ybGQ'), 12);
});

test('IntOrString and Quantity in the forms Kubernetes publishes (a oneOf, no extension) are checked the same', () => {
  const published: SchemaDefinitions = {
    ...defs,
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
  };
  const run = (obj: Record<string, unknown>): string | undefined => {
    const e = checkObjectTypes(obj, widget, published, { kind: 'Widget' });
    return e && typeErrorMessage(e);
  };
  assert.equal(run({ spec: { port: 'http', limits: { cpu: '100m', memory: 1024 } } }), undefined);
  assert.equal(run({ spec: { port: 8080 } }), undefined);
  assert.equal(run({ spec: { port: true } }), 'json: cannot unmarshal bool into Go value of type int32');
  assert.match(run({ spec: { limits: { cpu: 'lots' } } })!, /^quantities must match the regular expression/);
  const nulls: Record<string, unknown> = { spec: { limits: { cpu: null } } };
  assert.equal(run(nulls), undefined);
  assert.deepEqual(nulls, { spec: { limits: { cpu: '0' } } });
});

test('the unstructured converter words errors of strategic merge patch results', () => {
  assert.equal(check({ metadata: { finalizers: {} } }, 'unstructured'), 'cannot restore slice from map');
  assert.equal(check({ metadata: { labels: 'x' } }, 'unstructured'), 'cannot restore map from string');
  assert.equal(check({ spec: 5 }, 'unstructured'), 'cannot restore struct from: int64');
  assert.equal(check({ metadata: { name: 5 } }, 'unstructured'), 'cannot convert int64 to string');
  assert.equal(check({ metadata: { name: 0.5 } }, 'unstructured'), 'cannot convert float64 to string');
  assert.equal(check({ metadata: { name: true } }, 'unstructured'), 'unrecognized type: string');
  assert.equal(check({ spec: { replicas: 'x' } }, 'unstructured'), 'unrecognized type: int32');
  assert.equal(check({ spec: { port: {} } }, 'unstructured'), 'json: cannot unmarshal object into Go value of type int32');
});

test('nulls are replaced as Go decodes them', () => {
  const obj: Record<string, unknown> = { metadata: { name: null, labels: { a: null }, finalizers: [null, 'x/y'] }, spec: { replicas: null, items: [null], limits: { cpu: null } } };
  assert.equal(check(obj), undefined);
  assert.deepEqual(obj, { metadata: { labels: { a: '' }, finalizers: ['', 'x/y'] }, spec: { items: [{}], limits: { cpu: '0' } } });
});

test('depth is bounded everywhere, free-form and unknown fields included', () => {
  const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
  assert.equal(check({ spec: { extra: deep(MAX_NESTING_DEPTH - 2) as object } }), undefined);
  assert.throws(() => check({ spec: { extra: deep(MAX_NESTING_DEPTH - 1) as object } }), { code: 400, message: `json: exceeded max depth of ${MAX_NESTING_DEPTH}` });
  assert.throws(() => check({ unknown: deep(MAX_NESTING_DEPTH) as object }), { code: 400 });
  assert.throws(() => check({ metadata: { managedFields: [{ fieldsV1: deep(MAX_NESTING_DEPTH) }] } }), { code: 400 });
});

test('own properties only: __proto__ and constructor keys are data, not schema lookups', () => {
  const obj = JSON.parse('{"metadata":{"labels":{"__proto__":"x","constructor":"y"}},"spec":{"constructor":5,"__proto__":{"replicas":"x"}}}');
  assert.equal(check(obj), undefined);
});

test('custom resources: only metadata is typed', () => {
  const e = checkObjectTypes({ metadata: { name: 1 }, spec: 'anything' }, { type: 'object', properties: { spec: { type: 'object' } } }, defs, {
    kind: 'Greeting',
    metaSchema: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
    metadataOnly: true,
  });
  assert.equal(e && typeErrorMessage(e), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
  assert.equal(checkObjectTypes({ spec: 'anything' }, undefined, defs, { kind: 'Greeting', metadataOnly: true }), undefined);
});

test('the CRD schema unions: a schema or a list of schemas, a schema or a boolean', () => {
  const d: SchemaDefinitions = {
    'x.v1.JSONSchemaProps': { type: 'object', properties: { type: { type: 'string' }, items: ref('x.v1.JSONSchemaPropsOrArray'), additionalProperties: ref('x.v1.JSONSchemaPropsOrBool') }, 'x-kubernetes-preserve-unknown-fields': true },
    'x.v1.JSONSchemaPropsOrArray': { 'x-kubernetes-preserve-unknown-fields': true },
    'x.v1.JSONSchemaPropsOrBool': { 'x-kubernetes-preserve-unknown-fields': true },
    'x.v1.CRD': { type: 'object', properties: { schema: ref('x.v1.JSONSchemaProps') } },
  };
  const c = (schema: unknown) => {
    const e = checkObjectTypes({ schema }, ref('x.v1.CRD'), d, { kind: 'CRD' });
    return e && typeErrorMessage(e);
  };
  assert.equal(c({ type: 'array', items: { type: 'string' }, additionalProperties: false }), undefined);
  assert.equal(c({ items: [{ type: 'string' }], additionalProperties: { type: 'string' } }), undefined);
  assert.equal(c({ items: { type: 5 } }), 'json: cannot unmarshal number into Go struct field JSONSchemaProps.schema.items.type of type string');
  assert.equal(c({ items: [{ type: 5 }] }), 'json: cannot unmarshal number into Go struct field JSONSchemaProps.schema.items.type of type string');
  assert.equal(c({ items: 'x' }), 'json: cannot unmarshal string into Go value of type v1.JSONSchemaProps');
  assert.equal(c({ items: [1] }), 'json: cannot unmarshal number into Go value of type v1.JSONSchemaProps');
  assert.equal(c({ additionalProperties: 'x' }), 'boolean or JSON schema expected');
});
