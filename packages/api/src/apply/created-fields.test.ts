/**
 * The managedFields of a create are remembered by the object's layout: objects laid out alike
 * (same keys, any scalar values) share their field set and its encoding; whatever names a path
 * element (list items' keys and values), another schema or other fields the writer may not own
 * give their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ManagedFieldsEntry } from '../types.js';
import { toOpenApiV3 } from '../model/openapi.js';
import { FieldSet } from './fieldpath.js';
import { recordUpdate, type FieldManagerContext } from './managed-fields.js';

const defs = toOpenApiV3();
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ctx = (schema: string, extra: Partial<FieldManagerContext> = {}): FieldManagerContext => ({
  defs,
  schema: ref(schema),
  manager: 'kubectl',
  apiVersion: 'v1',
  subresource: '',
  time: '2026-01-01T00:00:00Z',
  ...extra,
});
const CM = ctx('io.k8s.api.core.v1.ConfigMap');
const POD = ctx('io.k8s.api.core.v1.Pod');

const created = (obj: unknown, c: FieldManagerContext): ManagedFieldsEntry[] => recordUpdate(undefined, obj as KubeObject, new Map(), c);
const fields = (obj: unknown, c: FieldManagerContext) => created(obj, c)[0]!.fieldsV1 as Record<string, any>;

const configMap = (data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd', labels: { app: 'x' } }, data, ...extra });

test('creates laid out alike share one encoded field set, whatever their scalar values', () => {
  const a = created(configMap({ k: 'one' }), CM);
  const b = created({ ...configMap({ k: 'two' }), metadata: { name: 'b', namespace: 'e', labels: { app: 'y' } } }, CM);
  assert.deepEqual(a, [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }]);
  assert.equal(b[0]!.fieldsV1, a[0]!.fieldsV1);
  assert.ok(Object.isFrozen(a[0]!.fieldsV1));
  // A null is a scalar too.
  assert.equal(fields(configMap({ k: null }), CM), a[0]!.fieldsV1);
});

test('another key, another layout: its own fields', () => {
  assert.deepEqual(fields(configMap({ k: 'v', other: 'w' }), CM)['f:data'], { '.': {}, 'f:k': {}, 'f:other': {} });
  assert.deepEqual(fields(configMap({}), CM)['f:data'], {});
  assert.equal(fields(configMap({ k: 'v' }, { binaryData: undefined }), CM)['f:binaryData'], undefined);
});

test('list items are told apart by the values that name them (list-map keys, set members), and undefined from null', () => {
  const pod = (names: string[], finalizers: unknown[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', finalizers },
    spec: { containers: names.map((name) => ({ name, image: 'i' })) },
  });
  const a = fields(pod(['a'], ['x/y']), POD);
  const b = fields(pod(['b'], ['x/z']), POD);
  assert.deepEqual(Object.keys(a['f:spec']['f:containers']), ['k:{"name":"a"}']);
  assert.deepEqual(Object.keys(b['f:spec']['f:containers']), ['k:{"name":"b"}']);
  assert.deepEqual(Object.keys(a['f:metadata']['f:finalizers']), ['.', 'v:"x/y"']);
  assert.deepEqual(Object.keys(b['f:metadata']['f:finalizers']), ['.', 'v:"x/z"']);
  assert.deepEqual(Object.keys(fields(pod(['a'], [null]), POD)['f:metadata']['f:finalizers']), ['.', 'v:null']);
  assert.deepEqual(fields(pod(['a'], [undefined]), POD)['f:metadata']['f:finalizers'], {});
  // Numbers and strings are other values.
  assert.notDeepEqual(fields(pod(['a'], [1]), POD)['f:metadata']['f:finalizers'], fields(pod(['a'], ['1']), POD)['f:metadata']['f:finalizers']);
});

test('the fields the writer may not own, and the schema, are part of what is remembered', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending' } };
  const all = fields(pod, POD);
  assert.deepEqual(all['f:status'], { 'f:phase': {} });
  const STATUS = FieldSet.of(['f:status']);
  const mainResource = fields(pod, { ...POD, ignored: (set) => set.recursiveDifference(STATUS) });
  assert.equal(mainResource['f:status'], undefined);
  assert.deepEqual(mainResource['f:spec'], all['f:spec']);
  // The same layout under no schema: fields the Pod schema holds in its zero value are members here.
  const untyped = fields(pod, { ...POD, schema: undefined });
  assert.deepEqual(untyped['f:status'], { '.': {}, 'f:phase': {} });
});

test('a create with managedFields sent keeps what decodes of them, as before', () => {
  const sent = new Map([
    ['x', { manager: 'other', operation: 'Update' as const, apiVersion: 'v1', subresource: '', time: '2025-01-01T00:00:00Z', set: FieldSet.of(['f:data', 'f:k'], ['f:data', 'f:old']) }],
  ]);
  const entries = recordUpdate(undefined, configMap({ k: 'v' }) as KubeObject, sent, CM);
  assert.deepEqual(entries.map((e) => [e.manager, e.fieldsV1]), [
    ['other', { 'f:data': { 'f:old': {} } }],
    ['kubectl', { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }],
  ]);
});
