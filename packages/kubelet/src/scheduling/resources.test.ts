import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { milliValue, parseQuantity, value } from '../quantity.js';
import { clusterOf, decide, node, placeAll, pod, requests } from './fixtures.js';
import { fitErrorMessage } from './framework.js';
import { balancedAllocationScore, emptyLoad, insufficientResources, leastAllocatedScore, podResources } from './resources.js';

const GI = 2 ** 30;
const MI = 2 ** 20;

describe('resources (NodeResourcesFit)', () => {
  it('parses quantities', () => {
    assert.equal(milliValue('100m'), 100);
    assert.equal(milliValue('1.5'), 1500);
    assert.equal(milliValue(2), 2000);
    assert.equal(value('128Mi'), 128 * MI);
    assert.equal(value('1G'), 1e9);
    assert.equal(value('1e3'), 1000);
    assert.equal(parseQuantity('abc'), undefined);
  });

  it('sums containers, takes the largest init step (sidecars kept running), and adds overhead', () => {
    const p = pod('p', {
      containers: [
        { name: 'a', image: 'x', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
        { name: 'b', image: 'x', resources: { requests: { cpu: '250m', 'example.com/gpu': '1' } } },
      ],
      initContainers: [
        { name: 'side', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } },
        { name: 'init', image: 'x', resources: { requests: { cpu: '1', memory: '32Mi' } } },
      ],
      overhead: { memory: '1Mi' },
    });
    // Containers + sidecar: 400m; the init step: 1 + 50m = 1050m, which wins. Memory: 64Mi > 32Mi, plus 1Mi overhead.
    assert.deepEqual(podResources(p).requests, { cpu: 1050, memory: 65 * MI, 'example.com/gpu': 1 });
    // For scoring, containers without requests count as 100m and 200Mi.
    const best = podResources(pod('b'));
    assert.deepEqual([best.requests, best.nonZeroCpu, best.nonZeroMemory], [{}, 100, 200 * MI]);
  });

  it('reports insufficient resources in kube-scheduler order, extended resources and pods included', () => {
    const load = { pods: 2, requested: { cpu: 3500, memory: 7 * GI, 'ephemeral-storage': 0 }, nonZeroCpu: 0, nonZeroMemory: 0 };
    const want = podResources(pod('p', requests({ cpu: '1', memory: '2Gi', 'ephemeral-storage': '20Gi', 'example.com/gpu': '1' })));
    const alloc = { cpu: 4000, memory: 8 * GI, 'ephemeral-storage': 10 * GI };
    assert.deepEqual(insufficientResources(want, load, alloc, 2), ['Too many pods', 'Insufficient cpu', 'Insufficient memory', 'Insufficient ephemeral-storage', 'Insufficient example.com/gpu']);
    assert.deepEqual(insufficientResources(podResources(pod('none')), load, alloc, 3), []);
  });

  it('scores LeastAllocated and BalancedAllocation as the Resource Bin Packing docs describe', () => {
    const alloc = { cpu: 4000, memory: 8 * GI };
    const p = podResources(pod('p', requests({ cpu: '1', memory: '2Gi' })));
    // Empty node: 3/4 of cpu and memory left: 75; equal fractions: perfectly balanced.
    assert.equal(leastAllocatedScore(p, emptyLoad(), alloc), 75);
    assert.equal(balancedAllocationScore(p, emptyLoad(), alloc), 100);
    // A node with 2 cpu already requested: cpu 25, memory 75 -> 50; fractions 0.75 and 0.25 -> 1 - 0.25.
    const busy = { pods: 1, requested: { cpu: 2000 }, nonZeroCpu: 2000, nonZeroMemory: 0 };
    assert.equal(leastAllocatedScore(p, busy, alloc), 50);
    assert.equal(balancedAllocationScore(p, busy, alloc), 75);
    // A best-effort pod is not scored by BalancedAllocation.
    assert.equal(balancedAllocationScore(podResources(pod('b')), busy, alloc), 0);
  });

  it('places a pod on the least allocated node and spreads equal pods evenly', () => {
    const c = clusterOf([node('a'), node('b')], [[pod('big', requests({ cpu: '3' })), 'a']]);
    assert.deepEqual(decide(c, pod('p', requests({ cpu: '500m', memory: '1Gi' }))), { node: 'b' });
    const even = clusterOf([node('n1'), node('n2'), node('n3')]);
    const placed = placeAll(even, Array.from({ length: 9 }, (_, i) => pod(`p${i}`)));
    assert.deepEqual([1, 2, 3].map((i) => placed.filter((n) => n === `n${i}`).length), [3, 3, 3]);
  });

  it('builds the FitError message of kube-scheduler', () => {
    const c = clusterOf([node('a'), node('b', {}, {}, { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), node('c', {}, {}, { unschedulable: true })]);
    const r = decide(c, pod('p', requests({ cpu: '8' })));
    assert.ok('failures' in r);
    assert.equal(fitErrorMessage(r.numNodes, r.failures.values()), '0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable.');
    assert.equal(fitErrorMessage(1, [], 'preemption: not eligible due to preemptionPolicy=Never.'), '0/1 nodes are available: preemption: not eligible due to preemptionPolicy=Never..');
  });
});
