/**
 * Child-process entry of the scheduler case: `<nodes> <pods> [timeoutMs]`. An in-process
 * control plane (memory storage, no controllers, no simulated kubelet) holds the nodes; the
 * batches are scheduled by schedulers this process starts. What the control plane writes to
 * stderr is counted, not printed.
 */
import { startControlPlane } from 'kplane';
import { captureStderr, reportFromChild } from './child.js';
import type { PodsProbeResult } from './pods-bench.js';
import { benchScheduler, type SchedulerCaseResult } from './scheduler-bench.js';

const [nodesArg, podsArg, timeoutArg] = process.argv.slice(2);
const nodes = Number(nodesArg);
const pods = Number(podsArg);
if (!(nodes > 0 && pods > 0)) throw new Error('usage: probe-scheduler.js <nodes> <pods> [timeoutMs]');

const stderr = captureStderr();

// The control plane is not stopped: the process exits as soon as the result is sent.
await reportFromChild(async (): Promise<PodsProbeResult<SchedulerCaseResult>> => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, nodes: 0 });
  const result = await benchScheduler(cp.client, nodes, pods, Number(timeoutArg ?? 120_000));
  return { result, ...stderr.fields() };
});
