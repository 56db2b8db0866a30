/**
 * Test support for the CronJob controller (not exported from the package): an in-process API
 * server whose clock is a fake one (creation times, events and the controller's schedule all
 * on virtual time), a manager running the controller, and Job completion as the Job controller
 * would write it.
 */
import { createApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { CronJobs, Jobs, Namespaces, createFakeClock, createManager, type CronJob, type FakeClock, type Job } from '@kplane/runtime';
import { createMemoryBackend } from '@kplane/storage';
import { settle } from '@kplane/runtime/testing';
import { createCronJobController } from './controller.js';

/** A running control plane for CronJob tests. */
export interface CronJobTestEnv {
  client: Client;
  clock: FakeClock;
  /** Advances virtual time in steps, letting the controller and the server work after each. */
  advance(ms: number, stepMs?: number): Promise<void>;
  close(): Promise<void>;
}


/** Starts an API server and the CronJob controller on a fake clock starting at `startMs`. */
export async function startCronJobEnv(startMs: number): Promise<CronJobTestEnv> {
  const clock = createFakeClock(startMs);
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, now: () => new Date(clock.now()) });
  await server.start();
  const client = createClient({ transport: (req) => server.handle(req) });
  await client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  const manager = createManager({ client, clock });
  createCronJobController(manager);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  await settle(50);
  return {
    client,
    clock,
    async advance(ms, stepMs = 1000) {
      for (let done = 0; done < ms; done += stepMs) {
        await clock.advanceAsync(Math.min(stepMs, ms - done));
        await settle(20);
      }
      await settle(50);
    },
    async close() {
      abort.abort();
      await done;
      await server.close();
      await backend.close();
    },
  };
}

/** A CronJob in namespace "ns" running busybox. */
export function cronJob(name: string, spec: Partial<NonNullable<CronJob['spec']>>): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'ns' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } },
      ...spec,
    },
  };
}

/** The Jobs of namespace "ns", by name. */
export async function jobsOf(client: Client, cronJobName: string): Promise<Job[]> {
  const list = await client.resource<Job>(Jobs).list({ namespace: 'ns' });
  return list.items.filter((j) => j.metadata?.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === cronJobName)).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
}

/** Finishes a Job as the Job controller would: Complete (with SuccessCriteriaMet) or Failed (with FailureTarget). */
export async function finishJob(client: Client, job: Job, outcome: 'Complete' | 'Failed', atMs: number): Promise<void> {
  const at = new Date(atMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const current = await client.resource<Job>(Jobs).get(job.metadata!.name!, { namespace: 'ns' });
  const condition = (type: string) => ({ type, status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: type === 'Failed' || type === 'FailureTarget' ? 'BackoffLimitExceeded' : 'CompletionsReached', message: '' });
  current.status = outcome === 'Complete'
    ? { conditions: [condition('SuccessCriteriaMet'), condition('Complete')], startTime: current.status?.startTime ?? at, completionTime: at, succeeded: 1, active: 0, ready: 0, terminating: 0, uncountedTerminatedPods: {} }
    : { conditions: [condition('FailureTarget'), condition('Failed')], startTime: current.status?.startTime ?? at, failed: 1, active: 0, ready: 0, terminating: 0, uncountedTerminatedPods: {} };
  await client.resource<Job>(Jobs).updateStatus(current, { namespace: 'ns' });
}

/** Events about one object in namespace "ns", as "Reason: message", oldest first. */
export async function eventsOf(client: Client, name: string): Promise<string[]> {
  const list = await client.raw({ method: 'GET', path: '/api/v1/namespaces/ns/events' });
  const items = (JSON.parse(Buffer.from(list.body ?? []).toString('utf8')).items ?? []) as Array<{ involvedObject?: { name?: string }; reason?: string; message?: string; firstTimestamp?: string; metadata?: { name?: string } }>;
  return items.filter((e) => e.involvedObject?.name === name).map((e) => `${e.reason}: ${e.message}`);
}

export { CronJobs, Jobs };
