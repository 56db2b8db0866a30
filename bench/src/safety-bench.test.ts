import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInChild } from './child.js';
import type { FuzzRunResult } from './probe-fuzz.js';
import { benchSafety, databaseBytes, formatSafety, procStatusBytes, type SafetyBenchResult } from './safety-bench.js';

const TARGETS = { maxPeakRssBytes: 1024 ** 3, maxDbRatio: 10, maxReadyzDelayMs: 100 };

test('benchSafety, small: patches under idle and stalled watchers, RSS, database after compaction, /readyz under pathological writes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-safety-bench-'));
  try {
    const r = await benchSafety({ dataDir: join(dir, 'data'), patches: 5, configMapBytes: 10_000, idleWatchers: 3, stalledWatchers: 2, regexLength: 12, pathologicalWrites: 2, compactionIntervalMs: 300 });
    assert.equal(r.patches, 5);
    assert.equal(r.patchErrors, 0, r.firstPatchError);
    assert.equal(r.idleWatchers + r.stalledWatchers, 5);
    assert.ok(r.liveBytes > 10_000, `live bytes ${r.liveBytes}`);
    assert.ok(r.dbBytesAfterCompaction > 0 && r.dbBytesAfterPatches > 0);
    // The server compacted on its own schedule, seen both after the patches and at the end.
    assert.equal(r.compactionIntervalMs, 300);
    assert.equal(r.compactionObserved, true);
    assert.ok(r.dbBytesAfterPatchCompaction! > 0 && r.patchCompactionMs! >= 0);
    assert.ok(r.readyzBaselineMs > 0);
    assert.equal(r.pathologicalTimedOut, false);
    // Both writes break the pattern (CRD pattern and CEL rule): Kubernetes answers 422.
    assert.deepEqual(r.pathologicalAnswers, { '422': 2 });
    if (process.platform === 'linux') assert.ok(r.peakRssBytes! >= r.startRssBytes!);
    assert.match(formatSafety(r, TARGETS), /server peak RSS[\s\S]*database \/ live data[\s\S]*\/readyz delay/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('formatSafety reads each figure against its target', () => {
  const r: SafetyBenchResult = {
    patches: 400, patchErrors: 0, patchMs: 8000, configMapBytes: 943718, idleWatchers: 1000, stalledWatchers: 10, watchersClosedEarly: 10,
    startRssBytes: 100 * 1024 ** 2, peakRssBytes: 600 * 1024 ** 2, compactionIntervalMs: 2000, dbBytesAfterPatches: 400 * 1024 ** 2, dbBytesAfterPatchCompaction: 6 * 1024 ** 2, patchCompactionMs: 3000,
    dbBytesAfterCompaction: 5 * 1024 ** 2, compactionObserved: true, compactionWalEmptied: true, liveBytes: 1024 ** 2,
    readyzBaselineMs: 1, readyzWorstMs: 21, readyzProbes: 30, pathologicalAnswers: { '422': 20 }, pathologicalMs: 40, pathologicalTimedOut: false,
  };
  const ok = formatSafety(r, TARGETS);
  assert.match(ok, /server peak RSS\s+600\.0 MiB\s+<1024\.0 MiB met/);
  assert.match(ok, /database \/ live data\s+5\.0x\s+<=10x met/);
  assert.match(ok, /\/readyz delay\s+20\.0 ms\s+<100 ms met/);
  const bad = formatSafety({ ...r, peakRssBytes: 2 * 1024 ** 3, dbBytesAfterCompaction: 50 * 1024 ** 2, readyzWorstMs: undefined, pathologicalMs: undefined, pathologicalTimedOut: true }, TARGETS);
  assert.match(bad, /server peak RSS\s+2048\.0 MiB\s+<1024\.0 MiB MISSED/);
  assert.match(bad, /50\.0x\s+<=10x MISSED/);
  assert.match(bad, /\/readyz delay\s+no answer\s+<100 ms MISSED/);
  assert.match(formatSafety({ ...r, peakRssBytes: undefined }, TARGETS), /server peak RSS\s+-\s+<1024\.0 MiB unknown/);
  // A compaction the run never saw is no compaction: the target is not met, whatever the ratio.
  assert.match(formatSafety({ ...r, compactionObserved: false }, TARGETS), /5\.0x\s+<=10x MISSED.*NOT seen/);
});

test('procStatusBytes and databaseBytes', async () => {
  if (process.platform === 'linux') assert.ok(procStatusBytes(process.pid, 'VmRSS')! > 1024 * 1024);
  assert.equal(procStatusBytes(-1, 'VmRSS'), undefined);
  assert.equal(databaseBytes(join(tmpdir(), 'no-such-kplane-db')), 0);
});

test('the long fuzz run in a child: counts, seed and canaries reported', async () => {
  const r = await runInChild<FuzzRunResult>(new URL('./probe-fuzz.js', import.meta.url), ['300', '7'], { timeoutMs: 60_000 });
  assert.equal(r.seed, 7);
  assert.equal(r.requests, 300);
  assert.equal(Object.values(r.statuses).reduce((a, b) => a + b, 0), 300);
  assert.ok(Array.isArray(r.canaryProblems) && Array.isArray(r.firstFailures));
  assert.ok(r.failures >= r.firstFailures.length);
});
