/**
 * Structs in server-side apply, as structured-merge-diff treats them: an applied empty struct
 * (`{}`, a Go pointer-to-struct set but empty) is owned as a leaf and round-trips; a struct the
 * applier stops applying goes whole (no emptied struct is left behind) unless another manager
 * owns something in it; a null applied to a field is owned and removes the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../types.js';
import { toOpenApiV3 } from '../model/openapi.js';
import { applyConfiguration, managedForUpdate, recordUpdate, type FieldManagerContext } from './managed-fields.js';
import { FieldSet } from './fieldpath.js';
import { withNamedFieldsAsMembers } from './typed.js';

const defs = toOpenApiV3();
const schema = { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' };
const ctx = (manager: string, time = '2026-01-01T00:00:00Z'): FieldManagerContext => ({ defs, schema, manager, apiVersion: 'apps/v1', subresource: '', time });

/** A Deployment whose pod spec is `podSpec` plus one container. */
function withPodSpec(podSpec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { ...podSpec, containers: [{ name: 'c', image: 'x' }] } } } } as KubeObject;
}

const podSpecOf = (obj: KubeObject) => (obj.spec as { template: { spec: Record<string, unknown> } }).template.spec;
const fieldsOf = (obj: KubeObject, manager: string) => obj.metadata!.managedFields!.find((e) => e.manager === manager)?.fieldsV1 as Record<string, any> | undefined;
const NODE_AFFINITY = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }] } };

test('an applied empty struct is owned as a leaf ({}), kept, and re-applying it changes nothing', () => {
  const live = applyConfiguration(undefined, withPodSpec({ affinity: {} }), ctx('alice'));
  assert.deepEqual(podSpecOf(live).affinity, {});
  assert.deepEqual(fieldsOf(live, 'alice')!['f:spec']['f:template']['f:spec']['f:affinity'], {});
  const again = applyConfiguration(live, withPodSpec({ affinity: {} }), ctx('alice', '2026-01-01T00:09:00Z'));
  assert.deepEqual(again, live);
  const dropped = applyConfiguration(live, withPodSpec({}), ctx('alice'));
  assert.equal(podSpecOf(dropped).affinity, undefined);
});

test('a struct the applier stops applying goes whole, not left as an empty struct', () => {
  let live = applyConfiguration(undefined, withPodSpec({ affinity: { nodeAffinity: NODE_AFFINITY } }), ctx('alice'));
  live = applyConfiguration(live, withPodSpec({}), ctx('alice'));
  assert.equal(podSpecOf(live).affinity, undefined);
});

test('what another manager owns in a dropped struct stays, and only that', () => {
  let live = applyConfiguration(undefined, withPodSpec({ affinity: { nodeAffinity: NODE_AFFINITY } }), ctx('alice'));
  const edited = structuredClone(live);
  (podSpecOf(edited).affinity as Record<string, unknown>).podAffinity = {};
  edited.metadata!.managedFields = recordUpdate(live, edited, managedForUpdate(live, edited, ''), ctx('bob'));
  live = applyConfiguration(edited, withPodSpec({}), ctx('alice'));
  assert.deepEqual(podSpecOf(live).affinity, { podAffinity: {} });
});

test('declared struct fields on the way to a member become members; map keys and list items do not', () => {
  const set = FieldSet.of(['f:metadata', 'f:labels', 'f:app'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image']);
  const ensured = withNamedFieldsAsMembers(set, schema, { defs });
  for (const p of [['f:metadata'], ['f:metadata', 'f:labels'], ['f:spec'], ['f:spec', 'f:template'], ['f:spec', 'f:template', 'f:spec'], ['f:spec', 'f:template', 'f:spec', 'f:containers']]) {
    assert.ok(ensured.has(p), p.join('.'));
  }
  assert.ok(!ensured.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"c"}']));
});

test('a null applied to a field is owned by the applier', () => {
  const live = applyConfiguration(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { strategy: { type: 'Recreate', rollingUpdate: null } } } as KubeObject, ctx('alice'));
  assert.deepEqual(fieldsOf(live, 'alice'), { 'f:spec': { 'f:strategy': { 'f:rollingUpdate': {}, 'f:type': {} } } });
});

test('an update that adds a pointer struct owns it (the "." marker); non-pointer structs and lists without omitempty only hold their fields', () => {
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x', resources: {} }], securityContext: {} } },
    },
  } as KubeObject;
  const [entry] = recordUpdate(undefined, obj, new Map(), ctx('kubectl-create'));
  assert.deepEqual(entry!.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } }, 'f:securityContext': {} },
      },
    },
  });
});

test('dropping the last owned metadata field removes only it: metadata and what no one owns in it stay', () => {
  const cm = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', ...(labels ? { labels } : {}) }, data: { k: 'v' } }) as KubeObject;
  const cmCtx: FieldManagerContext = { ...ctx('alice'), schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' }, apiVersion: 'v1' };
  const live = applyConfiguration(undefined, cm({ a: 'b' }), cmCtx);
  live.metadata!.finalizers = ['example.com/held'];
  const next = applyConfiguration(live, cm(), cmCtx);
  assert.deepEqual(next.metadata!.finalizers, ['example.com/held']);
  assert.equal(next.metadata!.name, 'x');
  assert.equal(next.metadata!.labels, undefined);
});
