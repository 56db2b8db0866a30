import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { clusterOf, decide, node, placeAll, pod } from './fixtures.js';
import { fitErrorMessage } from './framework.js';

// The docs' cluster: zoneA holds node1 and node2, zoneB node3 and node4; three foo=bar pods on node1, node2, node3.
const docsNodes = () => [node('node1', { zone: 'zoneA' }), node('node2', { zone: 'zoneA' }), node('node3', { zone: 'zoneB' }), node('node4', { zone: 'zoneB' })];
const foo = (name: string, spec: Partial<kinds.PodSpec> = {}) => pod(name, spec, { foo: 'bar' });
const docsCluster = () => clusterOf(docsNodes(), [[foo('p1'), 'node1'], [foo('p2'), 'node2'], [foo('p3'), 'node3']]);
const constraint = (topologyKey: string, extra: Partial<kinds.TopologySpreadConstraint> = {}): kinds.TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { foo: 'bar' } },
  ...extra,
});
const result = (r: ReturnType<typeof decide>) => ('failures' in r ? fitErrorMessage(r.numNodes, r.failures.values()) : r.node);

describe('PodTopologySpread', () => {
  it('puts the incoming pod in zoneB (one constraint), on node4 (zone and node constraints), as the docs say', () => {
    const oneZone = decide(docsCluster(), foo('mypod', { topologySpreadConstraints: [constraint('zone')] }));
    assert.ok('node' in oneZone && ['node3', 'node4'].includes(oneZone.node));
    assert.equal(result(decide(docsCluster(), foo('mypod', { topologySpreadConstraints: [constraint('zone'), constraint('kubernetes.io/hostname')] }))), 'node4');
  });

  it('rejects nodes that would exceed maxSkew, and nodes missing the topology key', () => {
    const nodes = [...docsNodes(), node('bare')];
    nodes[0]!.spec = { unschedulable: true };
    nodes[1]!.spec = { taints: [{ key: 'team', value: 'x', effect: 'NoSchedule' }] };
    // zoneA holds 2, zoneB 3: only zoneA keeps the skew, and both its nodes are out.
    const c = clusterOf(nodes, [[foo('p1'), 'node1'], [foo('p2'), 'node2'], [foo('p3'), 'node3'], [foo('p4'), 'node4'], [foo('p5'), 'node3']]);
    assert.equal(
      result(decide(c, foo('x', { topologySpreadConstraints: [constraint('zone')] }))),
      "0/5 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), 1 node(s) had untolerated taint {team: x}, 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints.",
    );
  });

  it('counts only nodes matching the pod node affinity (nodeAffinityPolicy Honor), or all with Ignore', () => {
    // zoneC has no foo pods but the pod's nodeSelector excludes it: with Honor it is not a domain.
    const nodes = [node('a', { zone: 'zoneA', pool: 'p' }), node('c', { zone: 'zoneC' })];
    const c = clusterOf(nodes, [[foo('p1'), 'a']]);
    const spec = (policy: 'Honor' | 'Ignore') => ({ topologySpreadConstraints: [constraint('zone', { nodeAffinityPolicy: policy })], nodeSelector: { pool: 'p' } });
    assert.equal(result(decide(c, foo('honor', spec('Honor')))), 'a');
    assert.match(String(result(decide(c, foo('ignore', spec('Ignore'))))), /1 node\(s\) didn't match pod topology spread constraints/);
  });

  it('treats the global minimum as 0 while there are fewer domains than minDomains', () => {
    const c = clusterOf([node('a', { zone: 'A' }), node('b', { zone: 'B' })], [[foo('p1'), 'a'], [foo('p2'), 'b']]);
    assert.ok('node' in decide(c, foo('x', { topologySpreadConstraints: [constraint('zone')] })));
    assert.match(String(result(decide(c, foo('y', { topologySpreadConstraints: [constraint('zone', { minDomains: 3 })] })))), /2 node\(s\) didn't match pod topology spread constraints/);
  });

  it('spreads ScheduleAnyway pods by score, evenly across zones', () => {
    const c = clusterOf([node('a1', { zone: 'A' }), node('a2', { zone: 'A' }), node('a3', { zone: 'A' }), node('b1', { zone: 'B' })]);
    const spec = { topologySpreadConstraints: [constraint('zone', { whenUnsatisfiable: 'ScheduleAnyway' })] };
    const placed = placeAll(c, Array.from({ length: 4 }, (_, i) => foo(`p${i}`, spec)));
    assert.equal(placed.filter((n) => n === 'b1').length, 2, placed.join(','));
  });

  it('merges matchLabelKeys into the selector', () => {
    const c = clusterOf([node('a', { zone: 'A' }), node('b', { zone: 'B' })], [[pod('old', {}, { app: 'web', rev: '1' }), 'a'], [pod('old2', {}, { app: 'web', rev: '1' }), 'a']]);
    const tsc = { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['rev'] };
    // Counting only rev=2 pods, zone A is as empty as zone B.
    assert.deepEqual(decide(c, pod('new', { topologySpreadConstraints: [tsc] }, { app: 'web', rev: '2' })), { node: 'b' });
    assert.ok('node' in decide(c, pod('new', { topologySpreadConstraints: [{ ...tsc, nodeAffinityPolicy: 'Ignore' }], nodeSelector: { zone: 'A' } }, { app: 'web', rev: '2' })));
    assert.ok('failures' in decide(c, pod('new', { topologySpreadConstraints: [{ ...tsc, matchLabelKeys: [], nodeAffinityPolicy: 'Ignore' }], nodeSelector: { zone: 'A' } }, { app: 'web', rev: '2' })));
  });
});
