import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Pods } from '@kplane/runtime';
import { benchPodsReady, formatPodBench } from './bench.js';
import { startKplane } from './test-kplane.js';

describe('benchPodsReady', () => {
  it('measures pods reaching Ready and cleans up', async () => {
    const k = await startKplane();
    try {
      const r = await benchPodsReady({ client: k.client, pods: 300, nodes: 2, timeoutMs: 20_000 });
      assert.equal(r.pods, 300);
      assert.ok(r.readySeconds > 0 && r.readySeconds >= r.createSeconds);
      assert.ok(r.p50Ms <= r.p99Ms && r.p99Ms <= r.maxMs);
      assert.ok(Math.abs(r.podsPerSecond - 300 / r.readySeconds) < 1e-6);
      assert.match(formatPodBench(r), /^300 pods on 2 nodes: Ready in /);
      assert.equal((await k.client.resource(Pods).list({ namespace: 'kplane-bench' })).items.length, 0);
    } finally {
      await k.close();
    }
  });
});
