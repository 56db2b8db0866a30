import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admitObject } from './admit.js';
import { decodeBody } from './decode.js';
import { applyJsonPatch } from './patch/json-patch.js';
import { applyMergePatch } from './patch/merge-patch.js';
import { applyStrategicMergePatch } from './patch/strategic-merge-patch.js';
import type { SchemaDefinitions, SchemaObject } from './schema.js';

const defs: SchemaDefinitions = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: { name: { type: 'string' }, finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' } },
  },
  'io.k8s.api.core.v1.ConfigMap': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      data: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
};
const schema: SchemaObject = { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' };
const opts = { kind: 'ConfigMap', version: 'v1' };
const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['x/y'] }, data: { k: 'v' } };

test('a body of the wrong type is 400 with the kind named', () => {
  const body = decodeBody('{"metadata":{"name":"a"},"data":[]}', 'application/json') as Record<string, unknown>;
  assert.throws(() => admitObject(body, schema, defs, opts), {
    code: 400,
    reason: 'BadRequest',
    message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
  });
});

test('a patch result of the wrong type is 422 on the patch field, worded per patch type', () => {
  const smp = applyStrategicMergePatch(current, { metadata: { finalizers: {} } }, schema, defs) as Record<string, unknown>;
  assert.throws(() => admitObject(smp, schema, defs, opts), (e: any) => {
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.equal(e.message, ' "" is invalid: patch: Invalid value: "map[metadata:map[finalizers:map[]]]": cannot restore slice from map');
    assert.deepEqual(e.details, { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "map[metadata:map[finalizers:map[]]]": cannot restore slice from map' }] });
    return true;
  });
  const merge = applyMergePatch(current, { data: { k: 1 } }) as Record<string, unknown>;
  assert.throws(() => admitObject(merge, schema, defs, opts), {
    code: 422,
    message: ' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"ConfigMap\\",\\"metadata\\":{\\"name\\":\\"a\\",\\"finalizers\\":[\\"x/y\\"]},\\"data\\":{\\"k\\":1}}": json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  });
  const jp = applyJsonPatch(current, [{ op: 'replace', path: '/metadata/name', value: {} }]) as Record<string, unknown>;
  assert.throws(() => admitObject(jp, schema, defs, opts), (e: any) => e.code === 422 && / of type string$/.test(e.message));
});

test('unknown and duplicate fields follow fieldValidation, for bodies and patches', () => {
  const text = '{"metadata":{"name":"a","name":"b"},"datta":{}}';
  const warnings: string[] = [];
  const warned = decodeBody(text, 'application/json') as Record<string, unknown>;
  admitObject(warned, schema, defs, { ...opts, warnings });
  assert.deepEqual(warnings, ['duplicate field "metadata.name"', 'unknown field "datta"']);
  assert.deepEqual(warned, { metadata: { name: 'b' } });
  assert.throws(() => admitObject(decodeBody(text, 'application/json') as Record<string, unknown>, schema, defs, { ...opts, fieldValidation: 'Strict' }), {
    code: 400,
    message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "datta"',
  });
  const ignored: string[] = [];
  admitObject(decodeBody(text, 'application/json') as Record<string, unknown>, schema, defs, { ...opts, fieldValidation: 'Ignore', warnings: ignored });
  assert.deepEqual(ignored, []);
  const patch = decodeBody('[{"op":"add","path":"/data/x","value":"1","value":"2"}]', 'application/json-patch+json');
  const patched = applyJsonPatch(current, patch) as Record<string, unknown>;
  const pw: string[] = [];
  admitObject(patched, schema, defs, { ...opts, warnings: pw });
  assert.deepEqual(pw, ['json patch duplicate field "[0].value"']);
  const smp = applyStrategicMergePatch(current, decodeBody('{"data":{"a":"1","a":"2"}}', 'application/strategic-merge-patch+json'), schema, defs) as Record<string, unknown>;
  assert.throws(() => admitObject(smp, schema, defs, { ...opts, fieldValidation: 'Strict' }), {
    code: 422,
    message: ' "" is invalid: patch: Invalid value: "map[data:map[a:2]]": strict decoding error: duplicate field "data.a"',
  });
});

test('without a schema nothing is checked', () => {
  const obj = { metadata: { name: 5 } };
  admitObject(obj, undefined, defs, opts);
  assert.deepEqual(obj, { metadata: { name: 5 } });
});
