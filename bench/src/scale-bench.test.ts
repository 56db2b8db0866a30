import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatListStream, formatScale, listStreamInChildren, procStatusBytes, type ScaleBenchResult } from './scale-bench.js';

test('the in-process LIST probe lists every pod, streamed and built whole, with the same bytes', async () => {
  const r = await listStreamInChildren(1200);
  assert.equal(r.streamed.mode, 'streamed');
  assert.equal(r.built.mode, 'built');
  assert.equal(r.streamed.pods, 1200);
  assert.ok(r.streamed.bytes > 1200 * 500);
  assert.equal(r.streamed.bytes, r.built.bytes);
  // The same pods (their resourceVersions may differ in a digit).
  assert.ok(Math.abs(r.sqlite.bytes - r.built.bytes) < r.built.bytes / 100);
  assert.equal(r.sqlite.storage, 'sqlite');
  assert.match(formatListStream(r), /streamed \/ built\s+\d+\.\d\dx/);
  assert.match(formatListStream(r), /streamed on SQLite/);
});

test('procStatusBytes reads this process\'s RSS and peak', () => {
  if (process.platform !== 'linux') return;
  const rss = procStatusBytes(process.pid, 'VmRSS');
  assert.ok(rss > 1024 * 1024);
  assert.ok(procStatusBytes(process.pid, 'VmHWM') >= rss);
});

test('formatScale shows each figure against its target', () => {
  const list = { firstByteMs: 100, lastByteMs: 1500, parseMs: 900, bytes: 300e6, items: 150000, serverPeakRss: 600 * 1024 ** 2, serverCpuMs: 1200, contentType: 'application/json' };
  const r: ScaleBenchResult = {
    pods: 150000, nodes: 5000, apiPods: 2000, apiCreateMs: 10_000, storagePods: 148000, storageMs: 74_000, startMs: 4000, startCpuMs: 3000, rssAfterStart: 400 * 1024 ** 2, settleMs: 5000, settleCpuMs: 4000,
    list, protobuf: list, metadata: { ...list, lastByteMs: 600 }, paged: { ...list, lastByteMs: 3000, pages: 300 }, restartMs: 2000, restartCpuMs: 1500, rssAfterRestart: 300 * 1024 ** 2,
    maxRssSampled: 500 * 1024 ** 2, maxRssPeak: 600 * 1024 ** 2, maxRssAnonSampled: 300 * 1024 ** 2, loadAverage: 3.5,
  };
  const text = formatScale(r);
  assert.match(text, /0\.50x of 3 s/);
  assert.match(text, /0\.20x of 3 s/);
  assert.match(text, /0\.29x of 2 GiB/);
  assert.match(text, /0\.20x of 10 s/);
  assert.match(text, /0\.40x of 10 s/);
  assert.match(text, /200 pods\/s/);
  assert.match(text, /2000 pods\/s/);
  assert.match(text, /paged 0\.50x/);
  assert.match(text, /load average 3\.5/);
  assert.match(text, /server CPU 1\.50 s/);
  assert.match(text, /anonymous \(without the mapped database\) at most 300 MiB/);
});
