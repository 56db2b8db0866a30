/**
 * Garbage collector: background deletion of an owner with many dependents
 * (`benchGarbageCollector` from @kplane/controllers), in a fresh child process.
 */
import type { GarbageCollectorBenchResult } from '@kplane/controllers';
import { runInChild } from './child.js';
import { formatTable } from './report.js';

/** Runs `benchGarbageCollector(dependents)` in a fresh child process (`probe-gc.js`). */
export function garbageCollectorInChild(dependents: number, timeoutMs = 180_000): Promise<GarbageCollectorBenchResult> {
  return runInChild<GarbageCollectorBenchResult>(new URL('./probe-gc.js', import.meta.url), [String(dependents)], { timeoutMs });
}

/** The garbage-collector table; the delete row carries the target (at most `maxDeleteSeconds`) and its reading. */
export function formatGarbageCollector(r: GarbageCollectorBenchResult, maxDeleteSeconds: number): string {
  const met = r.deleteMs <= maxDeleteSeconds * 1000 ? 'met' : 'MISSED';
  return formatTable(
    [
      ['step', 'ms', 'target', 'note'],
      [`create owner + ${r.dependents} dependents`, r.setupMs.toFixed(0), '', `${((r.dependents * 1000) / r.setupMs).toFixed(0)} creates/s, not measured against a target`],
      ['collector start to synced', r.syncMs.toFixed(0), '', 'lists every deletable resource and builds the graph'],
      ['DELETE owner (Background) to last dependent gone', r.deleteMs.toFixed(0), `<=${maxDeleteSeconds}s ${met}`, `${((r.dependents * 1000) / r.deleteMs).toFixed(0)} dependents deleted/s`],
    ],
    [1],
  );
}
