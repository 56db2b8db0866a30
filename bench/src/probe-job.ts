/**
 * Child-process entry of the Job case, on an in-process control plane (`listen: false`, memory
 * storage, controllers and 3 simulated nodes whose pods start at once and, for restartPolicy
 * Never, exit at once). Arguments: `<completions> <parallelism> <timeoutMs>`. A Deployment of
 * `completions` replicas is scaled from 0 first, as the baseline, then the Job runs.
 */
import { startControlPlane } from 'kplane';
import { captureStderr, reportFromChild } from './child.js';
import { benchJob, type JobBenchResult } from './job-bench.js';
import { benchDeploymentScale, type PodsProbeResult } from './pods-bench.js';

const [completionsArg, parallelismArg, timeoutArg] = process.argv.slice(2);
const completions = Number(completionsArg);
const parallelism = Number(parallelismArg);
const timeoutMs = Number(timeoutArg ?? 300_000);
if (!(completions > 0) || !(parallelism > 0)) throw new Error('usage: probe-job.js <completions> <parallelism> [timeoutMs]');

const stderr = captureStderr();

await reportFromChild(async (): Promise<PodsProbeResult<JobBenchResult>> => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 3, kubeletConfig: { defaults: { startAfterMs: 0, runMs: 0 } } });
  const deployment = await benchDeploymentScale({ client: cp.client, replicas: completions, timeoutMs });
  const job = await benchJob({ client: cp.client, completions, parallelism, timeoutMs });
  const ratio = job.succeeded / job.seconds / (deployment.readyReplicas / deployment.seconds);
  return { result: { job, deployment, ratio }, ...stderr.fields() };
});
