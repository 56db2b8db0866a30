import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { buildNode } from './node-template.js';
import { filterNode, fitErrorMessage, podRequests, tolerates } from './predicates.js';
import { milliValue, parseQuantity, value } from './quantity.js';

const T = '2025-01-01T00:00:00Z';
const idle = { pods: 0, milliCpu: 0, memory: 0 };
const pod = (spec: Partial<kinds.PodSpec> = {}): kinds.Pod => ({ metadata: { name: 'p', namespace: 'd' }, spec: { containers: [{ name: 'c' }], ...spec } });

describe('scheduler filters', () => {
  it('parses quantities', () => {
    assert.equal(milliValue('100m'), 100);
    assert.equal(milliValue('1.5'), 1500);
    assert.equal(milliValue(2), 2000);
    assert.equal(value('128Mi'), 128 * 2 ** 20);
    assert.equal(value('1G'), 1e9);
    assert.equal(value('1e3'), 1000);
    assert.equal(parseQuantity('abc'), undefined);
  });

  it('sums requests (init containers as a maximum, plus overhead)', () => {
    const p = pod({
      containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' } } }, { name: 'b', resources: { requests: { cpu: '250m' } } }],
      initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }],
      overhead: { memory: '1Mi' },
    });
    assert.deepEqual(podRequests(p), { milliCpu: 1000, memory: 65 * 2 ** 20 });
  });

  it('rejects cordoned, tainted, not-ready, unmatched and full nodes with kube-scheduler reasons', () => {
    const node = buildNode(0, T, { maxPods: 2, cpu: '1' });
    assert.equal(filterNode(pod(), node, idle, podRequests(pod())), undefined);
    assert.deepEqual(filterNode(pod(), { ...node, spec: { ...node.spec, unschedulable: true } }, idle, { milliCpu: 0, memory: 0 })?.reasons, ['node(s) were unschedulable']);
    const tainted = { ...node, spec: { ...node.spec, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const }] } };
    assert.deepEqual(filterNode(pod(), tainted, idle, { milliCpu: 0, memory: 0 })?.reasons, ['node(s) had untolerated taint {dedicated: gpu}']);
    assert.equal(filterNode(pod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }), tainted, idle, { milliCpu: 0, memory: 0 }), undefined);
    const notReady = { ...node, status: { ...node.status, conditions: node.status!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' as const } : c)) } };
    assert.deepEqual(filterNode(pod(), notReady, idle, { milliCpu: 0, memory: 0 })?.reasons, ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
    assert.deepEqual(filterNode(pod({ nodeSelector: { disk: 'ssd' } }), node, idle, { milliCpu: 0, memory: 0 })?.reasons, ["node(s) didn't match Pod's node affinity/selector"]);
    const affinity: kinds.Affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['kplane-node-0'] }] }] } } };
    assert.equal(filterNode(pod({ affinity }), node, idle, { milliCpu: 0, memory: 0 }), undefined);
    const full = filterNode(pod(), node, { pods: 2, milliCpu: 900, memory: 0 }, { milliCpu: 200, memory: 0 });
    assert.deepEqual(full, { reasons: ['Too many pods', 'Insufficient cpu'], unresolvable: false });
  });

  it('matches tolerations as v1helper does', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoExecute' as const };
    assert.ok(tolerates({ key: 'k', operator: 'Equal', value: 'v' }, taint));
    assert.ok(tolerates({ operator: 'Exists' }, taint));
    assert.ok(!tolerates({ key: 'k', value: 'w' }, taint));
    assert.ok(!tolerates({ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint));
  });

  it('writes the FitError message with sorted reason counts and the preemption part', () => {
    const selector = { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
    assert.equal(
      fitErrorMessage(3, [selector, selector, selector]),
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    assert.equal(
      fitErrorMessage(2, [{ reasons: ['Insufficient cpu'], unresolvable: false }, { reasons: ['node(s) were unschedulable'], unresolvable: true }]),
      '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    );
  });
});
