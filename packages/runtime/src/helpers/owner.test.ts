import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { AlreadyOwnedError, getControllerOf, hasControllerReference, hasOwnerReference, setControllerReference, setOwnerReference } from './owner.js';

const rs = (name: string, ns = 'default'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: ns, uid: `uid-${name}` },
});
const pod = (ns = 'default'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: ns } });

test('setControllerReference: adds a controller reference with blockOwnerDeletion', () => {
  const p = pod();
  assert.equal(hasControllerReference(p), false);
  setControllerReference(rs('web'), p);
  assert.deepEqual(p.metadata!.ownerReferences, [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true },
  ]);
  assert.equal(hasControllerReference(p), true);
  assert.equal(getControllerOf(p)!.name, 'web');
  assert.equal(hasOwnerReference(p, rs('web')), true);
  assert.equal(hasOwnerReference(p, rs('other')), false);
});

test('setControllerReference: same owner again replaces in place (also across versions of the group)', () => {
  const p = pod();
  setControllerReference(rs('web'), p);
  const newer = { ...rs('web'), apiVersion: 'apps/v2', metadata: { name: 'web', namespace: 'default', uid: 'uid-2' } };
  setControllerReference(newer, p, { blockOwnerDeletion: false });
  assert.equal(p.metadata!.ownerReferences!.length, 1);
  assert.deepEqual(p.metadata!.ownerReferences![0], {
    apiVersion: 'apps/v2', kind: 'ReplicaSet', name: 'web', uid: 'uid-2', controller: true, blockOwnerDeletion: false,
  });
});

test('setControllerReference: refuses a second controller with controller-runtime\'s message', () => {
  const p = pod();
  setControllerReference(rs('web'), p);
  const before = structuredClone(p);
  assert.throws(
    () => setControllerReference(rs('other'), p),
    (err: unknown) =>
      err instanceof AlreadyOwnedError &&
      err.message === 'Object default/p is already owned by another ReplicaSet controller web' &&
      err.owner.name === 'web',
  );
  assert.deepEqual(p, before, 'unchanged on error');
  // A plain owner reference may still be added beside the controller.
  setOwnerReference(rs('other'), p);
  assert.deepEqual(p.metadata!.ownerReferences![1], { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'other', uid: 'uid-other' });
});

test('owner references: namespace rules', () => {
  assert.throws(
    () => setControllerReference(rs('web', 'a'), pod('b')),
    /^Error: cross-namespace owner references are disallowed, owner's namespace a, obj's namespace b$/,
  );
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
  assert.throws(
    () => setOwnerReference(rs('web', 'a'), node),
    /^Error: cluster-scoped resource must not have a namespace-scoped owner, owner's namespace a$/,
  );
  // A cluster-scoped owner may own namespaced and cluster-scoped objects.
  const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'u-ns' } };
  const p = pod('team');
  setControllerReference(ns, p);
  assert.equal(getControllerOf(p)!.kind, 'Namespace');
  setOwnerReference(ns, node, { blockOwnerDeletion: true });
  assert.deepEqual(node.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: 'u-ns', blockOwnerDeletion: true }]);
  assert.throws(() => setControllerReference({ metadata: { name: 'x' } }, pod()), /has no apiVersion\/kind/);
});
