import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from 'kplane';
import { benchDaemonSetRollout, daemonSetInChild, formatDaemonSet } from './daemonset-bench.js';

test('benchDaemonSetRollout waits for a Ready pod on every node', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 2, kubeletConfig: { defaults: { startAfterMs: 0 } } });
  try {
    const r = await benchDaemonSetRollout({ client: cp.client, timeoutMs: 30_000 });
    assert.deepEqual([r.reached, r.desired, r.ready], [true, 2, 2]);
    assert.ok(r.seconds > 0);
  } finally {
    await cp.stop();
  }
});

test('benchDaemonSetRollout reports how far it got when the timeout passes', async () => {
  // No nodes: nothing is desired, so the rollout never counts as done.
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true });
  try {
    const r = await benchDaemonSetRollout({ client: cp.client, timeoutMs: 300, namespace: 'no-nodes' });
    assert.deepEqual([r.reached, r.desired, r.ready], [false, 0, 0]);
  } finally {
    await cp.stop();
  }
});

test('the DaemonSet case runs in a child and compares with the Deployment', async () => {
  const r = await daemonSetInChild(3, 60_000);
  assert.equal(r.result.nodes, 3);
  assert.equal(r.result.deployment.reached, true);
  assert.equal(r.result.daemonSet.reached, true);
  assert.ok(Math.abs(r.result.ratio - r.result.daemonSet.seconds / r.result.deployment.seconds) < 1e-9);
  assert.match(formatDaemonSet(r), /^DaemonSet over 3 nodes: all pods Ready in \d+\.\d\d s; Deployment of 3 replicas on the same nodes: \d+\.\d\d s; ratio \d+\.\d\dx/);
});
