/**
 * The managers kube-apiserver's field manager adds on its own: at most 10 Update entries (the
 * oldest merged into `ancient-changes`), and `before-first-apply` for the fields of an object
 * that had no managedFields when it was first applied to (updates do not track such objects).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../types.js';
import { toOpenApiV3 } from '../model/openapi.js';
import { ApiError } from '../errors.js';
import { applyConfiguration, capUpdateManagers, decodeManagedFields, managedForUpdate, recordUpdate, type FieldManagerContext } from './managed-fields.js';

const defs = toOpenApiV3();
const schema = { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' };
const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`;
const ctx = (manager: string, time = at(0), apiVersion = 'v1'): FieldManagerContext => ({ defs, schema, manager, apiVersion, subresource: '', time });

function configMap(data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data } as KubeObject;
}

/** Writes `data[key]` as manager `m` by an update at `time`. */
function update(live: KubeObject, key: string, manager: string, time: string): KubeObject {
  const next = structuredClone(live);
  (next as { data: Record<string, string> }).data[key] = manager;
  next.metadata!.managedFields = recordUpdate(live, next, managedForUpdate(live, next, ''), ctx(manager, time));
  return next;
}

test('past 10 Update managers, the two oldest are merged into ancient-changes with the newer time', () => {
  let live = configMap({});
  live.metadata!.managedFields = recordUpdate(undefined, configMap({ k0: 'm0' }), new Map(), ctx('m0', at(0)));
  live = { ...configMap({ k0: 'm0' }), metadata: live.metadata };
  for (let i = 1; i < 10; i++) live = update(live, `k${i}`, `m${i}`, at(i));
  assert.equal(live.metadata!.managedFields!.length, 10);
  live = update(live, 'k10', 'm10', at(10));
  const entries = live.metadata!.managedFields!;
  assert.equal(entries.length, 10);
  assert.deepEqual(
    entries.map((e) => e.manager),
    ['ancient-changes', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10'],
  );
  assert.deepEqual(entries[0], { manager: 'ancient-changes', operation: 'Update', apiVersion: 'v1', time: at(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } } });
  // The next update merges the oldest entry into the bucket.
  live = update(live, 'k11', 'm11', at(11));
  assert.deepEqual(live.metadata!.managedFields!.map((e) => e.manager).slice(0, 2), ['ancient-changes', 'm3']);
  assert.deepEqual(live.metadata!.managedFields![0]!.fieldsV1, { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
});

test('Apply entries are never merged, and each apiVersion gets its own bucket', () => {
  const managed = decodeManagedFields([
    ...Array.from({ length: 6 }, (_, i) => ({ manager: `a${i}`, operation: 'Update', apiVersion: 'v1', time: at(i), fieldsType: 'FieldsV1', fieldsV1: { [`f:a${i}`]: {} } })),
    ...Array.from({ length: 6 }, (_, i) => ({ manager: `b${i}`, operation: 'Update', apiVersion: 'v2', time: at(10 + i), fieldsType: 'FieldsV1', fieldsV1: { [`f:b${i}`]: {} } })),
    { manager: 'applier', operation: 'Apply', apiVersion: 'v1', time: at(0), fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } },
  ]);
  const capped = capUpdateManagers(managed);
  const names = [...capped.values()].map((m) => `${m.manager}@${m.apiVersion}`).sort();
  // 12 updaters: a0 is the first v1 seen, a1 joins it in v1's bucket (11), a2 too (10).
  assert.deepEqual(names, ['a3@v1', 'a4@v1', 'a5@v1', 'ancient-changes@v1', 'applier@v1', 'b0@v2', 'b1@v2', 'b2@v2', 'b3@v2', 'b4@v2', 'b5@v2']);
});

test('an update does not start tracking an existing object without managedFields', () => {
  const live = configMap({ a: '1' });
  const next = configMap({ a: '2' });
  assert.deepEqual(recordUpdate(live, next, managedForUpdate(live, next, ''), ctx('editor')), []);
  // A create does.
  assert.equal(recordUpdate(undefined, next, new Map(), ctx('creator')).length, 1);
});

test('the first apply to an object without managedFields gives its fields to before-first-apply', () => {
  const live = configMap({ a: '1', b: '2' });
  const applied = applyConfiguration(live, configMap({ b: '2', c: '3' }), ctx('alice', at(5)));
  assert.deepEqual(applied.metadata!.managedFields, [
    { manager: 'alice', operation: 'Apply', apiVersion: 'v1', time: at(5), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {}, 'f:c': {} } } },
    { manager: 'before-first-apply', operation: 'Update', apiVersion: 'v1', time: at(5), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } },
  ]);
  assert.throws(
    () => applyConfiguration(live, configMap({ a: 'changed' }), ctx('alice', at(5))),
    (err: unknown) => err instanceof ApiError && err.code === 409 && err.message === 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
  );
});
