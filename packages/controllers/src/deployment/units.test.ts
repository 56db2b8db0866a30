import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment, ReplicaSet } from '@kplane/runtime';
import { canonicalEncoding, computeHash, equalIgnoreHash, fnv32a, safeEncodeString } from './hash.js';
import { getProportion, maxSurge, maxUnavailable, newRSNewReplicas, resolveFenceposts, setNewReplicaSetAnnotations } from './util.js';

const enc = (s: string) => new TextEncoder().encode(s);
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } };

function dep(replicas: number, strategy: NonNullable<Deployment['spec']>['strategy'] = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }): Deployment {
  return { metadata: { name: 'd', annotations: {} }, spec: { replicas, selector: { matchLabels: { app: 'web' } }, template, strategy } };
}
const rs = (replicas: number, annotations: Record<string, string> = {}): ReplicaSet => ({ metadata: { name: `rs${replicas}`, annotations }, spec: { replicas, selector: {} } });

describe('pod-template-hash', () => {
  it('uses FNV-32a and the safe alphabet', () => {
    assert.equal(fnv32a(enc('')), 0x811c9dc5);
    assert.equal(fnv32a(enc('a')), 0xe40c292c);
    assert.equal(fnv32a(enc('foobar')), 0xbf9cf968);
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });

  it('is the same for the same template, whatever its key order or empty members', () => {
    const h = computeHash(template);
    assert.match(h, /^[456789bcdf]{6,10}$/);
    const reordered = { spec: { containers: [{ ports: [{ containerPort: 80 }], image: 'nginx', name: 'c' }], volumes: [] }, metadata: { labels: { app: 'web' }, annotations: {} } };
    assert.equal(computeHash(reordered), h);
    assert.equal(canonicalEncoding(reordered), canonicalEncoding(template));
    assert.notEqual(computeHash({ ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }), h);
  });

  it('changes with the collision count (0 differs from none)', () => {
    const none = computeHash(template);
    assert.notEqual(computeHash(template, 0), none);
    assert.notEqual(computeHash(template, 1), computeHash(template, 0));
    assert.equal(computeHash(template, 1), computeHash(template, 1));
  });

  it('compares templates ignoring the hash label', () => {
    const withHash = { ...template, metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } };
    assert.ok(equalIgnoreHash(withHash, template));
    assert.ok(!equalIgnoreHash(withHash, { ...template, metadata: { labels: { app: 'other' } } }));
  });
});

describe('deployment arithmetic', () => {
  it('rounds surge up and unavailability down', () => {
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), [3, 2]);
    assert.deepEqual(resolveFenceposts('25%', '25%', 1), [1, 0]);
    assert.deepEqual(resolveFenceposts('1%', '1%', 2), [1, 0]);
    assert.deepEqual(resolveFenceposts(0, '1%', 2), [0, 1], 'both zero: one unavailable');
    assert.equal(maxSurge(dep(10)), 3);
    assert.equal(maxUnavailable(dep(10)), 2);
    assert.equal(maxUnavailable(dep(2, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } })), 2, 'capped at replicas');
    assert.equal(maxUnavailable(dep(3, { type: 'Recreate' })), 0);
    assert.equal(maxSurge(dep(3, { type: 'Recreate' })), 0);
  });

  it('sizes the new ReplicaSet within replicas + maxSurge', () => {
    const d = dep(4, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } });
    const newRS = rs(0);
    assert.equal(newRSNewReplicas(d, [rs(4), newRS], newRS), 1);
    assert.equal(newRSNewReplicas(d, [rs(3), { ...newRS, spec: { ...newRS.spec!, replicas: 1 } }], { ...newRS, spec: { ...newRS.spec!, replicas: 1 } }), 2);
    assert.equal(newRSNewReplicas(d, [rs(0), newRS], newRS), 4, 'never above replicas');
    assert.equal(newRSNewReplicas(dep(4, { type: 'Recreate' }), [rs(4), newRS], newRS), 4);
  });

  it('scales proportionally by the max-replicas annotation', () => {
    const d = dep(20, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    // Was 10 (max 10); scaling to 20 doubles each ReplicaSet's share.
    assert.equal(getProportion(rs(6, { 'deployment.kubernetes.io/max-replicas': '10' }), d, 10, 0), 6);
    assert.equal(getProportion(rs(4, { 'deployment.kubernetes.io/max-replicas': '10' }), d, 10, 6), 4);
    assert.equal(getProportion(rs(4, { 'deployment.kubernetes.io/max-replicas': '10' }), d, 10, 10), 0);
  });

  it('bumps revisions, keeps revision history and copies annotations', () => {
    const d = dep(3);
    d.metadata!.annotations = { 'kubernetes.io/change-cause': 'set image', 'deployment.kubernetes.io/revision': '9' };
    const fresh = rs(0);
    assert.ok(setNewReplicaSetAnnotations(d, fresh, '1', false));
    assert.deepEqual(fresh.metadata!.annotations, {
      'kubernetes.io/change-cause': 'set image',
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    const back = rs(0, { 'deployment.kubernetes.io/revision': '1', 'kubernetes.io/change-cause': 'set image' });
    assert.ok(setNewReplicaSetAnnotations(d, back, '3', true));
    assert.equal(back.metadata!.annotations!['deployment.kubernetes.io/revision'], '3');
    assert.equal(back.metadata!.annotations!['deployment.kubernetes.io/revision-history'], '1');
    assert.ok(setNewReplicaSetAnnotations(d, back, '5', true));
    assert.equal(back.metadata!.annotations!['deployment.kubernetes.io/revision-history'], '1,3');
    assert.equal(setNewReplicaSetAnnotations(d, back, '2', true), false, 'never lowered');
  });
});
