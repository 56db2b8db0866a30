/**
 * Child-process entry of the Endpoints case, on an in-process control plane (`listen: false`,
 * memory storage, controllers and 3 simulated nodes whose pods start at once). Arguments:
 * `<replicas> [timeoutMs]`.
 */
import { startControlPlane } from 'kplane';
import { captureStderr, reportFromChild } from './child.js';
import { benchEndpoints, type EndpointsBenchResult } from './endpoints-bench.js';
import type { PodsProbeResult } from './pods-bench.js';

const [replicasArg, timeoutArg] = process.argv.slice(2);
const replicas = Number(replicasArg);
const timeoutMs = Number(timeoutArg ?? 300_000);
if (!(replicas > 0)) throw new Error('usage: probe-endpoints.js <replicas> [timeoutMs]');

const stderr = captureStderr();

await reportFromChild(async (): Promise<PodsProbeResult<EndpointsBenchResult>> => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 3, kubeletConfig: { defaults: { startAfterMs: 0 } } });
  const result = await benchEndpoints(cp.client, replicas, timeoutMs);
  return { result, ...stderr.fields() };
});
