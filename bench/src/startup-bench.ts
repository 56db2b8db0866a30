/**
 * Control-plane startup time: how long `startControlPlane({ storage: 'memory', listen: false })`
 * takes to resolve, cold in fresh processes and warm (again in the same process).
 */
import { runInChild } from './child.js';
import { median } from './load.js';
import { formatTable } from './report.js';

/** What one fresh process measured. */
export interface StartupSample {
  /** `import('kplane')`, in ms. */
  importMs: number;
  /** The first start in the process (cold: nothing compiled yet), in ms. */
  coldMs: number;
  /** Later starts in the same process, each after stopping the previous one, in ms. */
  warmMs: number[];
  /** From the process's time origin to the first start resolving (Node bootstrap + import + start), in ms. */
  readyAtMs: number;
}

/** A control plane that can be stopped. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Measures, in the current process, `load` (the import) once, then `start` once cold and
 * `warm` more times, stopping each control plane before the next start.
 */
export async function measureStartup(
  load: () => Promise<() => Promise<Stoppable>>,
  warm: number,
  now: () => number = () => performance.now(),
): Promise<StartupSample> {
  const t0 = now();
  const start = await load();
  const t1 = now();
  let cp = await start();
  const t2 = now();
  await cp.stop();
  const warmMs: number[] = [];
  for (let i = 0; i < warm; i++) {
    const s = now();
    cp = await start();
    warmMs.push(now() - s);
    await cp.stop();
  }
  return { importMs: t1 - t0, coldMs: t2 - t1, warmMs, readyAtMs: t2 };
}

/** Runs `processes` fresh child processes (`probe-startup.js`), one after another. */
export async function benchStartup(processes: number, warm: number): Promise<StartupSample[]> {
  const samples: StartupSample[] = [];
  for (let i = 0; i < processes; i++) samples.push(await runInChild<StartupSample>(new URL('./probe-startup.js', import.meta.url), [String(warm)]));
  return samples;
}

/** The startup table: medians over the samples, with every value in the note. */
export function formatStartup(samples: readonly StartupSample[]): string {
  const list = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
  const row = (name: string, xs: number[], note: string): string[] => [name, median(xs).toFixed(1), `${note}: ${list(xs)}`];
  const n = samples.length;
  const warm = samples.flatMap((s) => s.warmMs);
  return formatTable(
    [
      ['case', 'median ms', 'note'],
      row('startControlPlane, cold', samples.map((s) => s.coldMs), `first call in each of ${n} fresh processes`),
      row('startControlPlane, warm', warm, `later calls in the same processes (${warm.length})`),
      row("import('kplane')", samples.map((s) => s.importMs), `${n} fresh processes`),
      row('process start to ready', samples.map((s) => s.readyAtMs), 'Node bootstrap + import + cold start'),
    ],
    [1],
  );
}
