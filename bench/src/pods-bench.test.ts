import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from 'kplane';
import { deploymentInChild } from './deployment-child.js';
import { benchDeploymentScale, formatPods, milestoneTargets, podsReadyInChild, type DeploymentBenchResult } from './pods-bench.js';

test('milestoneTargets: 1, 10%, 50% and all, without repeats', () => {
  assert.deepEqual(milestoneTargets(10_000), [1, 1000, 5000, 10_000]);
  assert.deepEqual(milestoneTargets(5), [1, 3, 5]);
  assert.deepEqual(milestoneTargets(1), [1]);
});

test('benchDeploymentScale waits for every replica Ready on real controllers and nodes', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 1, kubeletConfig: { defaults: { startAfterMs: 0 } } });
  try {
    const progress: DeploymentBenchResult[] = [];
    const r = await benchDeploymentScale({ client: cp.client, replicas: 6, timeoutMs: 30_000, onProgress: (p) => progress.push(p) });
    assert.equal(r.reached, true);
    assert.equal(r.readyReplicas, 6);
    assert.deepEqual(r.milestones.map((m) => m.ready), [1, 3, 6]);
    assert.ok(r.milestones.every((m, i) => m.seconds <= r.seconds && (i === 0 || m.seconds >= r.milestones[i - 1]!.seconds)));
    assert.equal(progress[0]!.readyReplicas, 0, 'first report right after the scale request');
    assert.equal(progress.at(-1)!.readyReplicas, 6);
  } finally {
    await cp.stop();
  }
});

test('benchDeploymentScale reports how far it got when the timeout passes', async () => {
  // No nodes: pods stay Pending, readyReplicas stays 0.
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true });
  try {
    const r = await benchDeploymentScale({ client: cp.client, replicas: 3, timeoutMs: 300, namespace: 'no-nodes' });
    assert.equal(r.reached, false);
    assert.equal(r.readyReplicas, 0);
    assert.deepEqual(r.milestones, []);
    assert.ok(r.seconds >= 0.29);
  } finally {
    await cp.stop();
  }
});

test('deploymentInChild returns the child result, or its last progress when the parent deadline passes', async () => {
  const done = await deploymentInChild(4, { nodes: 1, timeoutMs: 30_000 });
  assert.equal(done.result.reached, true);
  assert.equal(done.result.readyReplicas, 4);
  assert.equal(done.killedAtDeadline, undefined);
  assert.equal(typeof done.stderrLines, 'number');
  const stuck = await deploymentInChild(3, { nodes: 0, timeoutMs: 400 });
  assert.equal(stuck.killedAtDeadline, true);
  assert.equal(stuck.result.reached, false);
  assert.equal(stuck.result.readyReplicas, 0);
  assert.equal(stuck.result.seconds, 0.4);
});

test('podsReadyInChild measures pods created directly in a fresh process', async () => {
  const r = await podsReadyInChild(15, 'memory', 60_000);
  assert.equal(r.result.pods, 15);
  assert.equal(r.result.nodes, 3);
  assert.ok(r.result.podsPerSecond > 0 && r.result.p50Ms <= r.result.p99Ms);
});

test('formatPods reads the rate, ramp and Deployment targets', () => {
  const pod = (pods: number, readySeconds: number) => ({
    result: { pods, nodes: 3, createSeconds: 1, readySeconds, podsPerSecond: pods / readySeconds, p50Ms: 100, p99Ms: 200, maxMs: 250 },
    stderrLines: 0,
  });
  const text = formatPods(
    {
      rate: pod(2000, 2),
      ramp: pod(10_000, 25),
      deployment: { result: { replicas: 10_000, readyReplicas: 5000, reached: false, seconds: 60, milestones: [{ ready: 1, seconds: 0.5 }] }, stderrLines: 3, firstError: 'boom failed', killedAtDeadline: true },
    },
    { minPodsPerSecond: 500, maxRampSeconds: 20 },
  );
  assert.match(text, /pods created directly \(2000 pods\)\s+2\.00\s+1000\s+>=500\/s met/);
  assert.match(text, /ramp \(10000 pods\)\s+25\.00\s+400\s+<=20s, >=500\/s MISSED/);
  assert.match(text, /Deployment scaled 0 -> 10000\s+60\.00\s+83\s+<=20s MISSED \(5000\/10000 Ready at the deadline, child stopped\)\s+readyReplicas first reached 1 at 0\.5 s/);
  assert.match(text, /Deployment: the control plane wrote 3 stderr lines; first failure: boom failed/);
  const fast = formatPods(
    { deployment: { result: { replicas: 10_000, readyReplicas: 10_000, reached: true, seconds: 15, milestones: [] }, stderrLines: 0 } },
    { minPodsPerSecond: 500, maxRampSeconds: 20 },
  );
  assert.match(fast, /Deployment scaled 0 -> 10000\s+15\.00\s+667\s+<=20s met\s/);
});
