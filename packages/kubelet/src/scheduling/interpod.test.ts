import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { clusterOf, decide, node, placeAll, pod } from './fixtures.js';
import { fitErrorMessage } from './framework.js';

const zones = () => [node('a1', { zone: 'a' }), node('a2', { zone: 'a' }), node('b1', { zone: 'b' })];
const anti = (app: string, key = 'kubernetes.io/hostname'): kinds.Affinity => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: key }] },
});
const reasons = (r: ReturnType<typeof decide>) => ('failures' in r ? fitErrorMessage(r.numNodes, r.failures.values()) : r.node);

describe('InterPodAffinity', () => {
  it('spreads replicas with required anti-affinity one per node, then leaves the next one pending', () => {
    const c = clusterOf(zones());
    const placed = placeAll(c, [1, 2, 3].map((i) => pod(`web-${i}`, { affinity: anti('web') }, { app: 'web' })));
    assert.deepEqual([...placed].sort(), ['a1', 'a2', 'b1']);
    assert.equal(reasons(decide(c, pod('web-4', { affinity: anti('web') }, { app: 'web' }))), "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
  });

  it("honours an existing pod's anti-affinity symmetrically (topologyKey zone)", () => {
    const c = clusterOf(zones(), [[pod('loner', { affinity: anti('web', 'zone') }), 'a1']]);
    // A web pod may not go to zone a, where the loner refuses web pods.
    assert.equal(reasons(decide(c, pod('web', {}, { app: 'web' }))), 'b1');
    const onlyA = clusterOf([node('a1', { zone: 'a' })], [[pod('loner', { affinity: anti('web', 'zone') }), 'a1']]);
    assert.equal(reasons(decide(onlyA, pod('web', {}, { app: 'web' }))), "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.");
  });

  it('requires affinity: co-locates with a matching pod in its zone; the first of a self-affine group goes anywhere', () => {
    const affinity: kinds.Affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'zone' }] } };
    const c = clusterOf(zones(), [[pod('cache', {}, { app: 'cache' }), 'b1']]);
    assert.equal(reasons(decide(c, pod('web', { affinity }))), 'b1');
    const empty = clusterOf(zones());
    assert.equal(reasons(decide(empty, pod('web', { affinity }))), "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");
    // A pod matching its own term is the first of its group: any node.
    assert.notEqual(reasons(decide(empty, pod('cache-0', { affinity }, { app: 'cache' }))), undefined);
    assert.ok(['a1', 'a2', 'b1'].includes(String(reasons(decide(empty, pod('cache-0', { affinity }, { app: 'cache' }))))));
  });

  it('matches terms in the pod namespace by default, in named namespaces, or by namespaceSelector', () => {
    const other = pod('cache', {}, { app: 'cache' }, 'team-b');
    const c = clusterOf(zones(), [[other, 'a2']], { 'team-b': { team: 'b' }, default: {} });
    const term = (extra: Partial<kinds.PodAffinityTerm>): kinds.Affinity => ({
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname', ...extra }] },
    });
    assert.ok('failures' in decide(c, pod('own-ns', { affinity: term({}) })));
    assert.equal(reasons(decide(c, pod('named', { affinity: term({ namespaces: ['team-b'] }) }))), 'a2');
    assert.equal(reasons(decide(c, pod('selected', { affinity: term({ namespaceSelector: { matchLabels: { team: 'b' } } }) }))), 'a2');
    assert.equal(reasons(decide(c, pod('all', { affinity: term({ namespaceSelector: {} }) }))), 'a2');
  });

  it('merges matchLabelKeys and mismatchLabelKeys into the selector with the pod own values', () => {
    const c = clusterOf(zones(), [[pod('old', {}, { app: 'web', rev: '1' }), 'a1'], [pod('other-team', {}, { app: 'web', team: 'x' }), 'a2']]);
    const term = (extra: Partial<kinds.PodAffinityTerm>): kinds.Affinity => ({
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone', ...extra }] },
    });
    // Counting every web pod, zone a is taken; counting only rev=2 pods it is free.
    assert.equal(reasons(decide(c, pod('new', { affinity: term({}), nodeSelector: { zone: 'a' } }, { app: 'web', rev: '2' }))), "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match pod anti-affinity rules.");
    assert.ok('node' in decide(c, pod('new', { affinity: term({ matchLabelKeys: ['rev'] }), nodeSelector: { zone: 'a' } }, { app: 'web', rev: '2' })));
    // mismatchLabelKeys: only pods of other teams count; team x's own pod does not.
    const c2 = clusterOf(zones(), [[pod('mine', {}, { app: 'web', team: 'x' }), 'a1']]);
    assert.ok('node' in decide(c2, pod('again', { affinity: term({ mismatchLabelKeys: ['team'] }), nodeSelector: { zone: 'a' } }, { app: 'web', team: 'x' })));
    assert.ok('failures' in decide(c2, pod('again', { affinity: term({ mismatchLabelKeys: ['team'] }), nodeSelector: { zone: 'a' } }, { app: 'web', team: 'y' })));
  });

  it('scores preferred affinity towards, and preferred anti-affinity away from, matching pods', () => {
    const c = clusterOf(zones(), [[pod('cache', {}, { app: 'cache' }), 'a2']]);
    const towards: kinds.Affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } }] } };
    assert.equal(reasons(decide(c, pod('near', { affinity: towards }))), 'a2');
    const away: kinds.Affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'zone' } }] } };
    assert.equal(reasons(decide(c, pod('far', { affinity: away }))), 'b1');
    // An existing pod's preferred affinity attracts the incoming pod too.
    const c2 = clusterOf(zones(), [[pod('likes-web', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' } }] } } }), 'b1']]);
    assert.equal(reasons(decide(c2, pod('web', {}, { app: 'web' }))), 'b1');
  });
});
