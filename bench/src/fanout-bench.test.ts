import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchFanout, formatFanout, histogramQuantile } from './fanout-bench.js';

test('benchFanout, small: every create reaches every watcher, over HTTP/2 and HTTP/1.1', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-fanout-bench-'));
  try {
    for (const protocol of ['h2', 'http1.1'] as const) {
      const r = await benchFanout(join(dir, protocol), { watchers: 5, writesPerSecond: 20, seconds: 0.5, protocol, drainMs: 30_000 });
      assert.equal(r.protocol, protocol);
      assert.equal(r.writeErrors, 0);
      assert.equal(r.writesAsked, 10);
      assert.equal(r.deliveriesExpected, 50);
      assert.equal(r.deliveries, 50);
      assert.ok(r.p99Ms >= r.p50Ms && r.p50Ms > 0);
      assert.ok(r.clientCpuUsPerDelivery > 0, "the client's CPU is measured");
      assert.match(formatFanout([r]), /5 watchers/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('histogramQuantile reads 0.1 ms buckets', () => {
  const h = new Uint32Array(100);
  h[9] = 98;
  h[49] = 2;
  assert.equal(histogramQuantile(h, 100, 0.5), 1);
  assert.equal(histogramQuantile(h, 100, 0.99), 5);
  assert.ok(Number.isNaN(histogramQuantile(h, 0, 0.5)));
});
