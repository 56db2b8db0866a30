/**
 * The Job case: a Job of 1,000 completions with parallelism 100 run to completion by the
 * in-process Job controller and simulated nodes, against a Deployment of as many replicas
 * scaled from 0 on the same control plane just before: Job completions per second over
 * Deployment pods Ready per second.
 */
import type { Client } from '@kplane/client';
import { Jobs, Namespaces, type Job } from '@kplane/runtime';
import { runInChild } from './child.js';
import type { DeploymentBenchResult, PodsProbeResult } from './pods-bench.js';
import { formatTable } from './report.js';

/** Options of benchJob. */
export interface JobBenchOptions {
  /** A client on a control plane running the job controller, a scheduler and nodes. */
  client: Client;
  completions: number;
  parallelism: number;
  namespace?: string;
  timeoutMs?: number;
}

/** What benchJob measured. */
export interface JobRunResult {
  completions: number;
  parallelism: number;
  /** From the create to the Complete condition. */
  seconds: number;
  reached: boolean;
  succeeded: number;
  /** The highest status.active seen (never above parallelism). */
  maxActive: number;
}

/** The Job case: the Job run and the Deployment it is compared with. */
export interface JobBenchResult {
  job: JobRunResult;
  deployment: DeploymentBenchResult;
  /** Job completions per second / Deployment pods Ready per second. */
  ratio: number;
}

/** Creates the Job and watches it until it is Complete (or the timeout passes). */
export async function benchJob(options: JobBenchOptions): Promise<JobRunResult> {
  const { client, completions, parallelism } = options;
  const namespace = options.namespace ?? 'bench-job';
  const api = client.resource<Job>(Jobs);
  await client
    .resource(Namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const abort = new AbortController();
  let maxActive = 0;
  let succeeded = 0;
  const t0 = performance.now();
  const created = await api.create(
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'bench' },
      spec: { completions, parallelism, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'registry.k8s.io/pause:3.10' }] } } },
    },
    { namespace },
  );
  let rv = created.metadata!.resourceVersion!;
  const watching = (async (): Promise<boolean> => {
    while (!abort.signal.aborted) {
      for await (const ev of api.watch({ namespace, fieldSelector: 'metadata.name=bench', resourceVersion: rv, signal: abort.signal })) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        rv = ev.object.metadata?.resourceVersion ?? rv;
        maxActive = Math.max(maxActive, ev.object.status?.active ?? 0);
        succeeded = ev.object.status?.succeeded ?? 0;
        if (ev.object.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) return true;
      }
    }
    return false;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.timeoutMs ?? 300_000)));
  try {
    const reached = await Promise.race([watching, timedOut]);
    return { completions, parallelism, seconds: (performance.now() - t0) / 1000, reached, succeeded, maxActive };
  } finally {
    clearTimeout(timer);
    abort.abort();
    await watching.catch(() => false);
  }
}

/** Runs the Job case (`probe-job.js`) in a fresh child process. */
export function jobInChild(completions: number, parallelism: number, timeoutMs = 300_000): Promise<PodsProbeResult<JobBenchResult>> {
  return runInChild(new URL('./probe-job.js', import.meta.url), [String(completions), String(parallelism), String(timeoutMs)], { timeoutMs: 2 * timeoutMs + 60_000 });
}

/** The Job's target: completions per second at least this fraction of the Deployment's Ready pods per second. */
export const JOB_TARGET_RATIO = 0.5;

/** The Job table: the Deployment baseline, the Job, and their ratio against the target. */
export function formatJob(p: PodsProbeResult<JobBenchResult>): string {
  const { job, deployment, ratio } = p.result;
  const jobRate = job.succeeded / job.seconds;
  const ok = job.reached && ratio >= JOB_TARGET_RATIO;
  const lines = [
    formatTable(
      [
        ['case', 'seconds', 'pods/s', 'target', 'note'],
        [`Deployment 0 -> ${deployment.replicas} (baseline)`, deployment.seconds.toFixed(2), (deployment.readyReplicas / deployment.seconds).toFixed(0), '', 'pods Ready'],
        [
          `Job ${job.completions} completions, parallelism ${job.parallelism}`,
          job.seconds.toFixed(2),
          jobRate.toFixed(0),
          `>=${JOB_TARGET_RATIO}x ${ok ? 'met' : 'MISSED'} (${ratio.toFixed(2)}x)`,
          `pods Succeeded and counted; ${job.reached ? 'Complete' : `${job.succeeded}/${job.completions} at the deadline`}; most active ${job.maxActive}`,
        ],
      ],
      [1, 2],
    ),
  ];
  if (p.stderrLines > 0) lines.push(`Job: the control plane wrote ${p.stderrLines} stderr lines${p.firstError ? `; first failure: ${p.firstError}` : ''}`);
  return lines.join('\n');
}
