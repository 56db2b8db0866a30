import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectMeta, OwnerReference } from '@kplane/api';
import { createWorkqueue } from '@kplane/runtime';
import { createRestMapper } from './discovery.js';
import { GraphBuilder } from './graph-builder.js';
import { AbsentOwnerCache, alternateOwnerIdentity, identityString, type GraphNode } from './graph.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

function setup() {
  const attemptToDelete = createWorkqueue();
  const attemptToOrphan = createWorkqueue();
  const invalid: string[] = [];
  const absent = new AbsentOwnerCache(3);
  const b = new GraphBuilder({
    attemptToDelete,
    attemptToOrphan,
    absentOwnerCache: absent,
    onInvalidNamespace: (dep: GraphNode, ref: OwnerReference) => invalid.push(`${dep.identity.name}->${ref.name}`),
  });
  const queued = (): string[] => attemptToDelete.inspect().queued;
  const drain = (): void => {
    for (let k = attemptToDelete.tryGet(); k !== undefined; k = attemptToDelete.tryGet()) attemptToDelete.done(k);
  };
  return { b, attemptToDelete, attemptToOrphan, invalid, absent, queued, drain };
}

const meta = (name: string, uid: string, extra: Partial<ObjectMeta> = {}): ObjectMeta => ({ name, uid, namespace: 'ns', resourceVersion: '1', ...extra });
const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...extra });

test('a dependent seen before its owner creates a virtual owner, queued for verification, then observed', () => {
  const t = setup();
  t.b.observe(CM, meta('dep', 'd1', { ownerReferences: [ref('owner', 'o1')] }), undefined);
  const owner = t.b.nodes.get('o1')!;
  assert.equal(owner.virtual, true);
  assert.deepEqual(t.queued(), ['o1']);
  assert.deepEqual([...owner.dependents].map((d) => d.identity.uid), ['d1']);
  t.drain();
  t.b.observe(CM, meta('owner', 'o1'), undefined);
  assert.equal(owner.virtual, false);
  assert.deepEqual(t.queued(), [], 'matching coordinates: nothing to check');
});

test('deleting an owner queues its dependents and records it absent', () => {
  const t = setup();
  t.b.observe(CM, meta('owner', 'o1'), undefined);
  t.b.observe(CM, meta('dep', 'd1', { ownerReferences: [ref('owner', 'o1')] }), undefined);
  t.drain();
  t.b.observeDelete(meta('owner', 'o1'));
  assert.equal(t.b.nodes.has('o1'), false);
  assert.deepEqual(t.queued(), ['d1']);
  assert.equal(t.absent.has({ ...CM, name: 'owner', uid: 'o1', namespace: 'ns' }), true);
});

test('an owner in another namespace is reported and the dependent queued', () => {
  const t = setup();
  t.b.observe(CM, meta('owner', 'o1', { namespace: 'a' }), undefined);
  t.b.observe(CM, meta('dep', 'd1', { namespace: 'b', ownerReferences: [ref('owner', 'o1')] }), undefined);
  assert.deepEqual(t.invalid, ['dep->owner']);
  assert.deepEqual(t.queued(), ['d1']);
  // The other order: the owner is observed after its dependent.
  const u = setup();
  u.b.observe(CM, meta('dep', 'd1', { namespace: 'b', ownerReferences: [ref('owner', 'o1')] }), undefined);
  u.drain();
  u.b.observe(CM, meta('owner', 'o1', { namespace: 'a' }), undefined);
  assert.deepEqual(u.invalid, ['dep->owner']);
  assert.deepEqual(u.queued(), ['d1']);
});

test('foreground and orphan transitions queue the right work once', () => {
  const t = setup();
  t.b.observe(CM, meta('owner', 'o1'), undefined);
  t.b.observe(CM, meta('dep', 'd1', { ownerReferences: [ref('owner', 'o1', { blockOwnerDeletion: true })] }), undefined);
  t.drain();
  const deleting = meta('owner', 'o1', { resourceVersion: '2', deletionTimestamp: 'now', finalizers: ['foregroundDeletion'] });
  t.b.observe(CM, deleting, meta('owner', 'o1'));
  assert.equal(t.b.nodes.get('o1')!.deletingDependents, true);
  assert.deepEqual(t.queued().sort(), ['d1', 'o1']);
  assert.deepEqual(t.b.nodes.get('o1')!.blockingDependents().map((d) => d.identity.uid), ['d1']);
  t.drain();
  t.b.observe(CM, { ...deleting, resourceVersion: '3' }, deleting);
  assert.deepEqual(t.queued(), [], 'no new transition');
  // The blocking reference is dropped: the waiting owner is queued.
  t.b.observe(CM, meta('dep', 'd1', { resourceVersion: '2', ownerReferences: [ref('owner', 'o1')] }), undefined);
  assert.deepEqual(t.queued(), ['o1']);

  const o = setup();
  o.b.observe(CM, meta('owner', 'o2', { deletionTimestamp: 'now', finalizers: ['orphan'] }), undefined);
  assert.deepEqual(o.attemptToOrphan.inspect().queued, ['o2']);
});

test('a virtual delete keeps a virtual node other dependents know by other coordinates', () => {
  const t = setup();
  t.b.observe(CM, meta('a', 'd1', { ownerReferences: [ref('owner', 'o1')] }), undefined);
  t.b.observe(CM, meta('b', 'd2', { ownerReferences: [ref('renamed', 'o1')] }), undefined);
  t.drain();
  t.b.virtualDelete({ ...CM, name: 'owner', uid: 'o1', namespace: 'ns' });
  const node = t.b.nodes.get('o1')!;
  assert.ok(node, 'kept');
  assert.equal(node.identity.name, 'renamed', 'switched to the alternate identity');
  assert.deepEqual(t.queued(), ['d1']);
  assert.equal(alternateOwnerIdentity(node.dependents, node.identity)?.name, 'owner');
});

test('identity text, the absent cache bound and the REST mapper', () => {
  assert.equal(identityString({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web', uid: 'u' }), '[apps/v1/Deployment, namespace: x, name: web, uid: u]');
  const cache = new AbsentOwnerCache(2);
  const id = (uid: string) => ({ ...CM, name: 'n', namespace: '', uid });
  cache.add(id('1'));
  cache.add(id('2'));
  assert.ok(cache.has(id('1'))); // 1 becomes most recent
  cache.add(id('3'));
  assert.equal(cache.has(id('2')), false);
  assert.ok(cache.has(id('1')) && cache.has(id('3')));

  const mapper = createRestMapper([
    { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: [] },
    { group: 'x.io', version: 'v2', resource: 'things', kind: 'Thing', namespaced: false, verbs: [] },
    { group: 'x.io', version: 'v1', resource: 'things', kind: 'Thing', namespaced: false, verbs: [] },
  ]);
  assert.equal(mapper.resolve('apps/v1', 'Deployment')?.resource, 'deployments');
  assert.equal(mapper.resolve('x.io/v1', 'Thing')?.version, 'v1');
  assert.equal(mapper.resolve('x.io/v9', 'Thing')?.version, 'v2', 'an unserved version maps to the preferred one');
  assert.equal(mapper.resolve('v1', 'Nope'), undefined);
});
