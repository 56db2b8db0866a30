/**
 * The test control plane's startup time: how long `startControlPlane()` of @kplane/testing
 * (memory storage, every controller, 3 simulated nodes, virtual time, resolved once idle) takes,
 * cold in fresh processes and warm (again in the same process, from a copy of the bootstrapped
 * storage).
 */
import { runInChild } from './child.js';
import { median } from './load.js';
import { formatTable } from './report.js';
import type { StartupSample } from './startup-bench.js';

/** The bound the warm start aims at, in ms. */
export const TEST_WARM_START_TARGET_MS = 50;

/** Runs `processes` fresh child processes (`probe-testing-startup.js`), one after another. */
export async function benchTestingStartup(processes: number, warm: number): Promise<StartupSample[]> {
  const samples: StartupSample[] = [];
  for (let i = 0; i < processes; i++) samples.push(await runInChild<StartupSample>(new URL('./probe-testing-startup.js', import.meta.url), [String(warm)]));
  return samples;
}

/** The table: medians over the samples, with every value in the note. */
export function formatTestingStartup(samples: readonly StartupSample[]): string {
  const list = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
  const row = (name: string, xs: number[], note: string): string[] => [name, median(xs).toFixed(1), `${note}: ${list(xs)}`];
  const warm = samples.flatMap((s) => s.warmMs);
  return formatTable(
    [
      ['case', 'median ms', 'note'],
      row('test control plane, cold', samples.map((s) => s.coldMs), `first start in each of ${samples.length} fresh processes`),
      row('test control plane, warm', warm, `later starts in the same processes (${warm.length}; target < ${TEST_WARM_START_TARGET_MS} ms)`),
      row("import('@kplane/testing')", samples.map((s) => s.importMs), `${samples.length} fresh processes`),
    ],
    [1],
  );
}
