import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from 'kplane';
import { benchStatefulSetScale, formatStatefulSetCase, statefulSetCaseInChildren } from './statefulset-bench.js';

test('benchStatefulSetScale waits for every replica Ready, in order, on real controllers and nodes', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 1, kubeletConfig: { defaults: { startAfterMs: 0 } } });
  try {
    const r = await benchStatefulSetScale({ client: cp.client, replicas: 4, timeoutMs: 30_000 });
    assert.equal(r.reached, true);
    assert.equal(r.readyReplicas, 4);
    assert.deepEqual(r.milestones.map((m) => m.ready), [1, 2, 4]);
  } finally {
    await cp.stop();
  }
});

test('the case runs both in child processes and reports the ratio', async () => {
  const c = await statefulSetCaseInChildren(3, 'memory', 60_000);
  assert.equal(c.deployment.result.readyReplicas, 3);
  assert.equal(c.statefulSet.result.readyReplicas, 3);
  const text = formatStatefulSetCase(c);
  assert.match(text, /StatefulSet 0 -> N \(OrderedReady\)\s+3\/3/);
  assert.match(text, /StatefulSet \/ Deployment time: \d+\.\d\dx \(target at most 3x: (met|MISSED)\)/);
});
