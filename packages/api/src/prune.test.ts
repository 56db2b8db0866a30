import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneUnknownFields, strictDecodingError, unknownFieldWarnings } from './prune.js';
import type { SchemaDefinitions, SchemaObject } from './schema.js';

const defs: SchemaDefinitions = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      managedFields: { type: 'array', items: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry' } },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': {
    type: 'object',
    properties: { manager: { type: 'string' }, fieldsV1: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1' }] } },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { type: 'object' },
  Container: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } },
  Deployment: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          containers: { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/Container' }] } },
          selector: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          partly: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
          empty: { type: 'object' },
          open: { type: 'object', additionalProperties: true },
          quantity: { 'x-kubernetes-int-or-string': true },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
          },
        },
      },
    },
  },
};
const schema: SchemaObject = { $ref: '#/components/schemas/Deployment' };

test('prunes unknown fields and reports Kubernetes paths in document order', () => {
  const obj: Record<string, any> = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { a: 'b' }, bogus: 1, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} }, extra: true }] },
    top: 1,
    spec: {
      replica: 3,
      replicas: 2,
      containers: [{ name: 'a', image: 'x' }, { name: 'b', imagee: 'y' }],
      selector: { app: 'x' },
      free: { anything: { goes: [1] } },
      partly: { other: 1, known: { a: 'x', b: 'y' } },
      empty: { gone: 1 },
      open: { kept: 1 },
      quantity: '10',
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't', junk: 1 }, spec: { x: 'y', z: 1 }, extra: 1 },
    },
  };
  const pruned = pruneUnknownFields(obj, schema, defs);
  assert.deepEqual(pruned, [
    'metadata.bogus',
    'metadata.managedFields[0].extra',
    'top',
    'spec.replica',
    'spec.containers[1].imagee',
    'spec.partly.known.b',
    'spec.empty.gone',
    'spec.template.metadata.junk',
    'spec.template.spec.z',
    'spec.template.extra',
  ]);
  assert.deepEqual(obj.spec.containers[1], { name: 'b' });
  assert.deepEqual(obj.spec.free, { anything: { goes: [1] } });
  assert.deepEqual(obj.spec.partly, { other: 1, known: { a: 'x' } });
  assert.deepEqual(obj.spec.empty, {});
  assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:spec': {} });
  assert.equal(obj.spec.quantity, '10');
  assert.equal(obj.apiVersion, 'apps/v1');
});

test('no schema or a preserve-unknown root prunes nothing', () => {
  const obj = { apiVersion: 'v1', kind: 'X', spec: { a: 1 } };
  assert.deepEqual(pruneUnknownFields(obj, undefined, defs), []);
  assert.deepEqual(pruneUnknownFields(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, defs), []);
  assert.deepEqual(obj, { apiVersion: 'v1', kind: 'X', spec: { a: 1 } });
});

test('messages for Strict and Warn', () => {
  assert.deepEqual(unknownFieldWarnings(['spec.replica']), ['unknown field "spec.replica"']);
  const err = strictDecodingError('Deployment', 'v1', ['spec.replica', 'spec.containers[0].imagee']);
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  assert.equal(
    err.message,
    'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.containers[0].imagee"',
  );
});

test('resolveSchema caches per schema and set of definitions, until the definitions change', async () => {
  const { resolveSchema, definitionsChanged } = await import('./schema.js');
  const defs: Record<string, { type: 'object'; description?: string }> = { A: { type: 'object', description: 'one' } };
  const wrapper = { $ref: '#/components/schemas/A', description: 'outer' };
  const first = resolveSchema(wrapper, defs);
  assert.deepEqual(first, { type: 'object', description: 'outer' });
  assert.equal(resolveSchema(wrapper, defs), first, 'the same resolution object');
  defs['A'] = { type: 'object', description: 'two' };
  const unresolved = { $ref: '#/components/schemas/B' };
  assert.deepEqual(resolveSchema(unresolved, defs), {});
  (defs as Record<string, unknown>)['B'] = { type: 'string' };
  definitionsChanged(defs);
  assert.deepEqual(resolveSchema(unresolved, defs), { type: 'string' }, 'a definition added later is found after definitionsChanged');
  assert.notEqual(resolveSchema(wrapper, defs), first);
});
