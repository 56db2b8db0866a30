/**
 * Apply semantics checked against the facts of Kubernetes' server-side apply documentation:
 * list-map items merge by key, fields an applier drops are removed unless another manager owns
 * them, different values of another manager's field conflict unless forced, equal values are
 * shared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../types.js';
import { toOpenApiV3 } from '../model/openapi.js';
import { applyConfiguration, decodeManagedFields, managedForUpdate, recordUpdate, type FieldManagerContext } from './managed-fields.js';
import { toFieldSet } from './typed.js';
import { ApiError } from '../errors.js';

const defs = toOpenApiV3();
const schema = { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' };
const ctx = (manager: string, time = '2026-01-01T00:00:00Z'): FieldManagerContext => ({ defs, schema, manager, apiVersion: 'apps/v1', subresource: '', time });

function deployment(spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...(labels ? { labels } : {}) }, spec } as KubeObject;
}

const container = (name: string, image: string) => ({ name, image });

function fields(obj: KubeObject, manager: string): unknown {
  return obj.metadata!.managedFields!.find((e) => e.manager === manager)?.fieldsV1;
}

test('an applied configuration sets the fields the schema names: list-map items by key, atomic selectors whole', () => {
  const obj = deployment({ replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [container('nginx', 'nginx:1')] } } }, { app: 'web' });
  const set = toFieldSet(obj, schema, { defs });
  assert.equal(
    JSON.stringify(set.toFieldsV1()),
    '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}',
  );
});

test('create by apply records one Apply entry without the identity fields', () => {
  const obj = applyConfiguration(undefined, deployment({ replicas: 2 }, { app: 'web' }), ctx('alice'));
  assert.deepEqual(obj.metadata!.managedFields, [
    { manager: 'alice', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {} } } },
  ]);
});

test('list-map items of two appliers merge by key, each owning its own', () => {
  let live = applyConfiguration(undefined, deployment({ template: { spec: { containers: [container('a', 'x')] } } }), ctx('one'));
  live = applyConfiguration(live, deployment({ template: { spec: { containers: [container('b', 'y')] } } }), ctx('two'));
  const containers = (live.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers;
  assert.deepEqual(containers, [container('a', 'x'), container('b', 'y')]);
  assert.ok(JSON.stringify(fields(live, 'two')).includes('k:{\\"name\\":\\"b\\"}'));
  assert.ok(!JSON.stringify(fields(live, 'two')).includes('k:{\\"name\\":\\"a\\"}'));
});

test('a field the applier stops applying is removed when no one else owns it', () => {
  let live = applyConfiguration(undefined, deployment({ replicas: 3, paused: true }), ctx('alice'));
  live = applyConfiguration(live, deployment({ replicas: 3 }), ctx('alice'));
  assert.deepEqual(live.spec, { replicas: 3 });
});

test('a dropped field another applier also applies stays, owned by that applier', () => {
  let live = applyConfiguration(undefined, deployment({ replicas: 3, paused: true }), ctx('alice'));
  live = applyConfiguration(live, deployment({ paused: true }), ctx('bob'));
  live = applyConfiguration(live, deployment({ replicas: 3 }), ctx('alice'));
  assert.deepEqual(live.spec, { replicas: 3, paused: true });
  assert.deepEqual(fields(live, 'bob'), { 'f:spec': { 'f:paused': {} } });
});

test('a list item the applier drops goes; other appliers\' items stay', () => {
  let live = applyConfiguration(undefined, deployment({ template: { spec: { containers: [container('a', 'x'), container('b', 'y')] } } }), ctx('one'));
  live = applyConfiguration(live, deployment({ template: { spec: { containers: [container('c', 'z')] } } }), ctx('two'));
  live = applyConfiguration(live, deployment({ template: { spec: { containers: [container('a', 'x')] } } }), ctx('one'));
  const containers = (live.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers;
  assert.deepEqual(containers, [container('a', 'x'), container('c', 'z')]);
});

test('a different value of a field another manager owns is a conflict with Kubernetes\' message; force takes it over', () => {
  const created = deployment({ replicas: 1 });
  created.metadata!.managedFields = recordUpdate(undefined, created, new Map(), { ...ctx('kubectl-client-side-apply') });
  assert.throws(
    () => applyConfiguration(created, deployment({ replicas: 2 }), ctx('kubectl')),
    (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 409);
      assert.equal(err.reason, 'Conflict');
      assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
      assert.deepEqual(err.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
      return true;
    },
  );
  const forced = applyConfiguration(created, deployment({ replicas: 2 }), ctx('kubectl'), { force: true });
  assert.deepEqual(forced.spec, { replicas: 2 });
  assert.equal(forced.metadata!.managedFields!.length, 1);
  assert.equal(forced.metadata!.managedFields![0]!.manager, 'kubectl');
});

test('several conflicts are listed by manager', () => {
  let live = applyConfiguration(undefined, deployment({ replicas: 1, paused: false }), ctx('alice'));
  live = applyConfiguration(live, deployment({ minReadySeconds: 5 }), ctx('bob'));
  assert.throws(() => applyConfiguration(live, deployment({ replicas: 2, paused: true, minReadySeconds: 6 }), ctx('carol')), {
    message: 'Apply failed with 3 conflicts: conflicts with "alice":\n- .spec.paused\n- .spec.replicas\nconflicts with "bob":\n- .spec.minReadySeconds',
  });
});

test('an equal value is no conflict: both managers own the field', () => {
  let live = applyConfiguration(undefined, deployment({ replicas: 1 }), ctx('alice'));
  live = applyConfiguration(live, deployment({ replicas: 1 }), ctx('bob'));
  assert.deepEqual(fields(live, 'alice'), { 'f:spec': { 'f:replicas': {} } });
  assert.deepEqual(fields(live, 'bob'), { 'f:spec': { 'f:replicas': {} } });
});

test('kubectl takes over the fields of the last-applied annotation from client-side apply, and keeps the annotation in step', () => {
  const config = deployment({ replicas: 1 });
  const live = structuredClone(config);
  live.metadata!.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(config) };
  live.metadata!.managedFields = recordUpdate(undefined, live, new Map(), ctx('kubectl-client-side-apply'));
  const next = applyConfiguration(live, deployment({ replicas: 2 }), ctx('kubectl'));
  assert.deepEqual(next.spec, { replicas: 2 });
  assert.equal(JSON.parse(next.metadata!.annotations!['kubectl.kubernetes.io/last-applied-configuration']!).spec.replicas, 2);
  // Another manager gets no such pass.
  assert.throws(() => applyConfiguration(live, deployment({ replicas: 2 }), ctx('other')), /conflict/);
});

test('updates record what they change; removed fields leave every manager', () => {
  const m1 = deployment({ replicas: 1, paused: true }, { app: 'web' });
  m1.metadata!.managedFields = recordUpdate(undefined, m1, new Map(), ctx('creator'));
  assert.deepEqual(fields(m1, 'creator'), { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
  const m2 = structuredClone(m1);
  (m2.spec as Record<string, unknown>).replicas = 5;
  delete (m2.spec as Record<string, unknown>).paused;
  m2.metadata!.managedFields = recordUpdate(m1, m2, managedForUpdate(m1, m2, ''), ctx('scaler', '2026-01-01T00:01:00Z'));
  assert.deepEqual(fields(m2, 'creator'), { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  assert.deepEqual(fields(m2, 'scaler'), { 'f:spec': { 'f:replicas': {} } });
  assert.equal(m2.metadata!.managedFields![1]!.time, '2026-01-01T00:01:00Z');
});

test('managedFields sent on update: [] resets them, malformed ones keep the live ones', () => {
  const live = deployment({ replicas: 1 });
  live.metadata!.managedFields = recordUpdate(undefined, live, new Map(), ctx('creator'));
  assert.equal(managedForUpdate(live, { ...live, metadata: { ...live.metadata, managedFields: [] } }, '').size, 0);
  assert.equal(managedForUpdate(live, { ...live, metadata: { ...live.metadata, managedFields: [{}] } }, '').size, 0);
  assert.equal(managedForUpdate(live, { ...live, metadata: { ...live.metadata, managedFields: [{ operation: 'Bogus' }] } }, '').size, 1);
  assert.throws(() => decodeManagedFields([{ operation: 'Update', fieldsType: 'FieldsV2' }]), /fieldsType/);
});

test('an applied configuration may not carry managedFields', () => {
  const config = deployment({ replicas: 1 });
  config.metadata!.managedFields = [];
  assert.throws(() => applyConfiguration(undefined, config, ctx('alice')), { message: 'metadata.managedFields must be nil' });
});

test('a list-map key left out of an item takes its schema default (a container port is TCP)', () => {
  const obj = deployment({ template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } } });
  const set = toFieldSet(obj, schema, { defs });
  assert.ok(set.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"c"}', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']));
});

test('applying the same configuration again keeps the entry\'s time (a no-op write)', () => {
  const first = applyConfiguration(undefined, deployment({ replicas: 1 }), ctx('alice', '2026-01-01T00:00:00Z'));
  const again = applyConfiguration(first, deployment({ replicas: 1 }), ctx('alice', '2026-01-01T00:05:00Z'));
  assert.equal(again.metadata!.managedFields![0]!.time, '2026-01-01T00:00:00Z');
  const changed = applyConfiguration(first, deployment({ replicas: 2 }), ctx('alice', '2026-01-01T00:05:00Z'));
  assert.equal(changed.metadata!.managedFields![0]!.time, '2026-01-01T00:05:00Z');
});
