/**
 * compareCreated, the comparison of a create, answers what comparing the object with an empty
 * one answers: the same added fields (structs that Go's zero value holds not added themselves,
 * only their fields), nothing modified or removed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOpenApiV3 } from '../model/openapi.js';
import { compare, compareCreated, type Comparison } from './typed.js';
import type { SchemaObject } from '../schema.js';

const defs = toOpenApiV3();
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const sets = (c: Comparison) => ({ added: c.added.toFieldsV1(), modified: c.modified.toFieldsV1(), removed: c.removed.toFieldsV1() });

const cases: Array<{ name: string; schema: SchemaObject | undefined; obj: unknown }> = [
  {
    name: 'ConfigMap',
    schema: ref('io.k8s.api.core.v1.ConfigMap'),
    obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd', labels: { app: 'x' }, annotations: {} }, data: { k: 'v', e: '' }, binaryData: {} },
  },
  {
    name: 'Pod with list-maps, sets, nulls and an empty struct',
    schema: ref('io.k8s.api.core.v1.Pod'),
    obj: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', finalizers: ['a/b', 'c/d'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u' }] },
      spec: {
        affinity: {},
        nodeSelector: null,
        containers: [
          { name: 'c', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 'UDP' }], env: [{ name: 'A', value: '1' }], resources: {} },
          { name: 'd', image: 'j', securityContext: { capabilities: { add: ['NET_ADMIN'] } } },
        ],
        tolerations: [{ key: 't', operator: 'Exists' }],
      },
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
    },
  },
  {
    name: 'Deployment (nested non-pointer structs)',
    schema: ref('io.k8s.api.apps.v1.Deployment'),
    obj: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { a: 'b' } },
      spec: { replicas: 2, selector: { matchLabels: { a: 'b' } }, strategy: {}, template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    },
  },
  { name: 'Service (list-map with a defaulted key)', schema: ref('io.k8s.api.core.v1.Service'), obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }] } } },
  { name: 'no schema, kind known from the object', schema: undefined, obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' } } },
  { name: 'no schema, unknown kind', schema: undefined, obj: { apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'a' }, spec: { list: [1, 2], deep: { deeper: {} } } } },
  { name: 'undefined values are no fields', schema: ref('io.k8s.api.core.v1.ConfigMap'), obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: undefined }, data: undefined } },
  { name: 'an empty object', schema: ref('io.k8s.api.core.v1.ConfigMap'), obj: {} },
  { name: 'not an object', schema: ref('io.k8s.api.core.v1.ConfigMap'), obj: 'text' },
  { name: 'an atomic root', schema: { type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' }, obj: { a: 'x' } },
];

for (const c of cases) {
  test(`compareCreated gives what compare with an empty object gives: ${c.name}`, () => {
    const want = sets(compare({}, c.obj, c.schema, { defs }));
    const got = sets(compareCreated(c.obj, c.schema, { defs }));
    assert.deepEqual(got, want);
  });
}

test('a create adds the fields of non-pointer structs, not the structs themselves', () => {
  const c = compareCreated(cases[2]!.obj, cases[2]!.schema, { defs });
  const added = c.added.toFieldsV1() as Record<string, Record<string, unknown>>;
  // metadata (ObjectMeta, a value in every object) holds its fields without being a member itself.
  assert.equal(added['f:metadata']!['.'], undefined);
  assert.deepEqual(added['f:metadata']!['f:labels'], { '.': {}, 'f:a': {} });
  assert.deepEqual(c.modified.toFieldsV1(), {});
  assert.deepEqual(c.removed.toFieldsV1(), {});
});
