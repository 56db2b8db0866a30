import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, Taint } from '../kinds/builtin/index.js';
import { effectiveTaints, findUntoleratedTaint, matchesNodeAffinity, tolerates } from './scheduling.js';

const node: Node = { metadata: { name: 'n1', labels: { zone: 'a', cores: '8' } } };
const pod = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], ...spec } });
const required = (...terms: unknown[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } }) as Partial<NonNullable<Pod['spec']>>;

test('tolerates: key, value, operator and effect', () => {
  const taint: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  assert.ok(tolerates({ key: 'k', value: 'v' }, taint));
  assert.ok(tolerates({ operator: 'Exists' }, taint));
  assert.ok(tolerates({ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint));
  assert.ok(!tolerates({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint));
  assert.ok(!tolerates({ key: 'k', value: 'w' }, taint));
});

test('findUntoleratedTaint honours the effect filter', () => {
  const taints: Taint[] = [
    { key: 'a', effect: 'PreferNoSchedule' },
    { key: 'b', effect: 'NoExecute' },
  ];
  assert.deepEqual(findUntoleratedTaint(taints, []), taints[0]);
  assert.deepEqual(findUntoleratedTaint(taints, [], (t) => t.effect === 'NoExecute'), taints[1]);
  assert.equal(findUntoleratedTaint(taints, [{ key: 'b', operator: 'Exists' }], (t) => t.effect !== 'PreferNoSchedule'), undefined);
  assert.equal(findUntoleratedTaint(undefined, undefined), undefined);
});

test('matchesNodeAffinity: nodeSelector, expressions, matchFields on metadata.name', () => {
  assert.ok(matchesNodeAffinity(pod({}), node));
  assert.ok(matchesNodeAffinity(pod({ nodeSelector: { zone: 'a' } }), node));
  assert.ok(!matchesNodeAffinity(pod({ nodeSelector: { zone: 'b' } }), node));
  assert.ok(matchesNodeAffinity(pod(required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] })), node));
  assert.ok(!matchesNodeAffinity(pod(required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] })), node));
  // Terms are ORed, requirements ANDed; empty terms match nothing.
  assert.ok(matchesNodeAffinity(pod(required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] })), node));
  assert.ok(!matchesNodeAffinity(pod(required({ matchExpressions: [{ key: 'zone', operator: 'Exists' }, { key: 'gpu', operator: 'Exists' }] })), node));
  assert.ok(!matchesNodeAffinity(pod(required({})), node));
  assert.ok(matchesNodeAffinity(pod(required({ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }, { key: 'zone', operator: 'NotIn', values: ['b'] }] })), node));
});

test('effectiveTaints: a node that is not Ready counts as tainted not-ready (unreachable when Unknown)', () => {
  const ready: Node = { metadata: { name: 'r' }, spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  assert.deepEqual(effectiveTaints(ready), [{ key: 'a', effect: 'NoSchedule' }]);
  assert.deepEqual(effectiveTaints({ metadata: { name: 'x' } }), [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
  const unknown: Node = { metadata: { name: 'u' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } };
  assert.deepEqual(effectiveTaints(unknown), [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }]);
  const tainted: Node = { metadata: { name: 't' }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] } };
  assert.equal(effectiveTaints(tainted).length, 1);
});
