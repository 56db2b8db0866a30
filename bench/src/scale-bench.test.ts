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
  assert.match(formatListStream(r), /streamed \/ built\s+\d+\.\d\dx/);
});

test('procStatusBytes reads this process\'s RSS and peak', () => {
  if (process.platform !== 'linux') return;
  const rss = procStatusBytes(process.pid, 'VmRSS');
  assert.ok(rss > 1024 * 1024);
  assert.ok(procStatusBytes(process.pid, 'VmHWM') >= rss);
});

test('formatScale shows each figure against its target', () => {
  const list = { firstByteMs: 100, lastByteMs: 1500, parseMs: 900, bytes: 300e6, items: 150000, serverPeakRss: 600 * 1024 ** 2 };
  const r: ScaleBenchResult = { pods: 150000, nodes: 5000, createMs: 100_000, rssAfterCreate: 400 * 1024 ** 2, peakRssCreate: 500 * 1024 ** 2, list, paged: { ...list, lastByteMs: 3000, pages: 300 }, restartMs: 2000, rssAfterRestart: 300 * 1024 ** 2 };
  const text = formatScale(r);
  assert.match(text, /0\.50x of 3 s/);
  assert.match(text, /0\.29x of 2 GiB/);
  assert.match(text, /0\.20x of 10 s/);
  assert.match(text, /0\.50x the paged LIST/);
});
