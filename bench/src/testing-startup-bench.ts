/**
 * The test control plane's startup time: how long `startControlPlane()` of @kplane/testing
 * (memory storage, every controller, 3 simulated nodes, virtual time, resolved once idle) takes,
 * cold in fresh processes and warm (again in the same process, from a copy of the bootstrapped
 * storage).
 */
import { execFile } from 'node:child_process';
import { runInChild } from './child.js';
import { median } from './load.js';
import { formatTable } from './report.js';
import type { StartupSample } from './startup-bench.js';

/** The bound the warm start aims at, in ms. */
export const TEST_WARM_START_TARGET_MS = 50;

/** The samples of the fresh processes, and the wall time of a bare `node -e 0` before each (the machine's unit). */
export interface TestingStartupRun {
  samples: StartupSample[];
  nodeStartMs: number[];
}

/** Wall time of one `node -e 0` process, in ms. */
export async function nodeStartMs(): Promise<number> {
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => execFile(process.execPath, ['-e', '0'], (err) => (err ? reject(err) : resolve())));
  return performance.now() - t0;
}

/**
 * Runs `processes` fresh child processes (`probe-testing-startup.js`), one after another, each
 * after a `node -e 0`, so that the figures can be read as ratios to a bare Node start.
 */
export async function benchTestingStartup(processes: number, warm: number): Promise<TestingStartupRun> {
  const run: TestingStartupRun = { samples: [], nodeStartMs: [] };
  for (let i = 0; i < processes; i++) {
    run.nodeStartMs.push(await nodeStartMs());
    run.samples.push(await runInChild<StartupSample>(new URL('./probe-testing-startup.js', import.meta.url), [String(warm)]));
  }
  return run;
}

/**
 * The table: medians over the samples, with every value in the note; with the `node -e 0`
 * times, a column of ratios to their median.
 */
export function formatTestingStartup(samples: readonly StartupSample[], nodeStartMs: readonly number[] = []): string {
  const list = (xs: readonly number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
  const unit = nodeStartMs.length ? median([...nodeStartMs]) : undefined;
  const row = (name: string, xs: readonly number[], note: string): string[] => {
    const m = median([...xs]);
    return [name, m.toFixed(1), unit ? `${(m / unit).toFixed(2)}x` : '', `${note}: ${list(xs)}`];
  };
  const warm = samples.flatMap((s) => s.warmMs);
  const rows = [
    ['case', 'median ms', 'vs node -e 0', 'note'],
    row('test control plane, cold', samples.map((s) => s.coldMs), `first start in each of ${samples.length} fresh processes`),
    row('test control plane, warm', warm, `later starts in the same processes (${warm.length}; target < ${TEST_WARM_START_TARGET_MS} ms)`),
    row("import('@kplane/testing')", samples.map((s) => s.importMs), `${samples.length} fresh processes`),
  ];
  if (unit) rows.push(row('node -e 0', nodeStartMs, 'a bare Node process, before each'));
  return formatTable(rows, [1, 2]);
}
