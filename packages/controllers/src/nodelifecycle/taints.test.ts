import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Node } from '@kplane/runtime';
import { desiredManagedTaints, minTolerationMs, reconcileTaints, toleratesTaint } from './taints.js';

const node = (ready: string | undefined, extra: Partial<NonNullable<Node['spec']>> = {}, pressure?: string): Node => ({
  metadata: { name: 'n' },
  spec: extra,
  status: { conditions: [...(ready ? [{ type: 'Ready', status: ready }] : []), ...(pressure ? [{ type: pressure, status: 'True' }] : [])] },
});

it('toleratesTaint: key, effect, Equal and Exists as kube matches them', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoExecute' as const };
  assert.ok(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v' }, taint));
  assert.ok(toleratesTaint({ key: 'k', value: 'v', effect: 'NoExecute' }, taint), 'Equal by default');
  assert.ok(!toleratesTaint({ key: 'k', value: 'w' }, taint));
  assert.ok(!toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint));
  assert.ok(toleratesTaint({ operator: 'Exists' }, taint), 'empty key with Exists tolerates everything');
  assert.ok(!toleratesTaint({ key: 'other', operator: 'Exists' }, taint));
});

it('minTolerationMs: 0 when a taint is not tolerated, the least seconds used, Infinity for ever', () => {
  const u = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' as const };
  const x = { key: 'x', effect: 'NoExecute' as const };
  const ex = (key: string, s?: number) => ({ key, operator: 'Exists' as const, effect: 'NoExecute' as const, ...(s === undefined ? {} : { tolerationSeconds: s }) });
  assert.equal(minTolerationMs([], [u]), 0);
  assert.equal(minTolerationMs([ex(u.key, 300)], [u]), 300_000);
  assert.equal(minTolerationMs([ex(u.key, 300), ex('x', 20)], [u, x]), 20_000);
  assert.equal(minTolerationMs([ex(u.key, 300)], [u, x]), 0);
  assert.equal(minTolerationMs([ex(u.key)], [u]), Infinity);
  assert.equal(minTolerationMs([ex(u.key, -5)], [u]), 0);
});

it('desired taints follow Ready, the pressure conditions and spec.unschedulable', () => {
  const keys = (n: Node) => desiredManagedTaints(n).map((t) => `${t.key}:${t.effect}`);
  assert.deepEqual(keys(node('True')), []);
  assert.deepEqual(keys(node('False')), ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute']);
  assert.deepEqual(keys(node('Unknown')), ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
  assert.deepEqual(keys(node('True', { unschedulable: true }, 'MemoryPressure')), ['node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/unschedulable:NoSchedule']);
});

it('reconcileTaints keeps foreign and existing taints, stamps new NoExecute ones, drops stale ones', () => {
  const t0 = '2026-03-01T10:00:00Z';
  const n = node('Unknown', { taints: [{ key: 'user', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: t0 }] });
  assert.deepEqual(reconcileTaints(n, 'T'), [
    { key: 'user', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: 'T' },
  ]);
  const steady = node('Unknown', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: t0 }, { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] });
  assert.equal(reconcileTaints(steady, 'T'), undefined, 'nothing to change');
  assert.deepEqual(reconcileTaints(node('True', { taints: steady.spec!.taints }), 'T'), []);
});
