import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchUpDeployment, formatUp, type UpBenchResult } from './up-bench.js';
import type { DeploymentBenchResult } from './pods-bench.js';

test('benchUpDeployment scales a Deployment through a real kplane up process over HTTPS', async () => {
  const r = await benchUpDeployment({ replicas: 5, storage: 'memory', nodes: 1, timeoutMs: 60_000 });
  assert.equal(r.reached, true);
  assert.equal(r.readyReplicas, 5);
  assert.equal(r.storage, 'memory');
  assert.ok(r.startMs > 0);
  assert.deepEqual(r.milestones.map((m) => m.ready), [1, 3, 5]);
});

test('formatUp shows the target reading and the ratio to the in-process case', () => {
  const up: UpBenchResult = { replicas: 10_000, readyReplicas: 10_000, reached: true, seconds: 20, milestones: [{ ready: 10_000, seconds: 20 }], storage: 'memory', controllersInWorker: false, startMs: 900, serverCpuMs: 30_000, stderrLines: 0 };
  const inProcess: DeploymentBenchResult = { replicas: 10_000, readyReplicas: 10_000, reached: true, seconds: 10, milestones: [] };
  const text = formatUp(up, inProcess, { maxSeconds: 12, minPodsPerSecond: 800 });
  assert.match(text, /<=12s, >=800\/s MISSED/);
  assert.match(text, /= 0\.50x/);
  assert.match(text, /3\.00 ms per pod Ready/);
  assert.match(formatUp({ ...up, seconds: 10 }, undefined, { maxSeconds: 12, minPodsPerSecond: 800 }), /met/);
  const both = formatUp(up, inProcess, { maxSeconds: 12, minPodsPerSecond: 800 }, { ...up, controllersInWorker: true, seconds: 16 });
  assert.match(both, /--controllers-in-worker, HTTPS \(0 -> 10000\)/);
  assert.match(both, /both cores: kplane up --controllers-in-worker \/ kplane up pods Ready per second = 1\.25x/);
});
