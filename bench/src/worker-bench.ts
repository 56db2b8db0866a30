/**
 * Both cores: the Deployment case with the controllers and simulated nodes in the control
 * plane's thread, and again in a worker thread (`controllersInWorker`), each in a fresh process;
 * the speed-up is the ratio of their rates of pods Ready (a run cut at its deadline counts with
 * the replicas Ready by then).
 */
import { formatTable } from './report.js';
import type { DeploymentBenchResult } from './pods-bench.js';

/** Pods Ready per second of a Deployment run (replicas Ready by its end, over its seconds). */
export function readyRate(r: DeploymentBenchResult): number {
  return r.seconds > 0 ? r.readyReplicas / r.seconds : 0;
}

/** The table: each run's time, Ready count and rate, and the worker's speed-up over the inline run. */
export function formatWorkerSpeedup(inline: DeploymentBenchResult, worker: DeploymentBenchResult): string {
  const row = (name: string, r: DeploymentBenchResult, ratio: string): string[] => [
    name,
    r.seconds.toFixed(2),
    `${r.readyReplicas}/${r.replicas}${r.reached ? '' : ' (cut at the deadline)'}`,
    readyRate(r).toFixed(0),
    ratio,
  ];
  const inlineRate = readyRate(inline);
  return formatTable(
    [
      ['controllers and nodes', 'seconds', 'ready', 'pods/s', 'speed-up'],
      row("in the API server's thread", inline, '1.00x'),
      row('in a worker thread', worker, inlineRate > 0 ? `${(readyRate(worker) / inlineRate).toFixed(2)}x` : 'n/a'),
    ],
    [1, 3, 4],
  );
}
