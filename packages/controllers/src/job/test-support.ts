/**
 * Test support for the Job and TTL controllers (not exported from the package): a Job builder,
 * a stand-in kubelet that finishes pods through pods/status at the fake clock's time, and
 * helpers to read a Job's pods and events.
 */
import type { Client } from '@kplane/client';
import { Events, Jobs, Pods, formatTime, type CoreEvent, type FakeClock, type Job, type Pod } from '@kplane/runtime';

/** A Job of busybox pods with restartPolicy Never. */
export function newJob(name: string, spec: Partial<NonNullable<Job['spec']>> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
  };
}

/** The pods of a Job (by its generated label), oldest first. */
export async function jobPods(client: Client, namespace: string, job: string): Promise<Pod[]> {
  const list = await client.resource<Pod>(Pods).list({ namespace, labelSelector: `batch.kubernetes.io/job-name=${job}` });
  return list.items.sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** Pods still running (no phase written by the stand-in kubelet, not being deleted). */
export const running = (pods: Pod[]): Pod[] => pods.filter((p) => !p.status?.phase || p.status.phase === 'Pending' || p.status.phase === 'Running').filter((p) => !p.metadata?.deletionTimestamp);

/** Plays the kubelet: the pod ran and exited with `exitCode` at the clock's time (0: Succeeded, else Failed). */
export async function finishPod(client: Client, clock: FakeClock, pod: Pod, exitCode = 0, conditions: Array<{ type: string; status: string }> = []): Promise<void> {
  const now = formatTime(clock.now());
  await client.resource<Pod>(Pods).patch(
    pod.metadata!.name!,
    {
      status: {
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }, ...conditions.map((c) => ({ ...c, lastTransitionTime: now }))],
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name, image: c.image ?? '', imageID: '', ready: false, restartCount: 0, started: false,
          state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: now, finishedAt: now } },
        })),
      },
    },
    'merge',
    { namespace: pod.metadata!.namespace, subresource: 'status' },
  );
}

/** Plays the kubelet: the pod is Running and Ready. */
export async function runPod(client: Client, clock: FakeClock, pod: Pod): Promise<void> {
  const now = formatTime(clock.now());
  await client.resource<Pod>(Pods).patch(
    pod.metadata!.name!,
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
    'merge',
    { namespace: pod.metadata!.namespace, subresource: 'status' },
  );
}

/** Reads a Job. */
export const getJob = (client: Client, namespace: string, name: string): Promise<Job> => client.resource<Job>(Jobs).get(name, { namespace });

/** The condition of a type with status True, if any. */
export const trueCondition = (job: Job, type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === 'True');

/** "reason: message" of the events about an object. */
export async function eventsAbout(client: Client, namespace: string, name: string): Promise<string[]> {
  const list = await client.resource<CoreEvent>(Events).list({ namespace });
  return list.items.filter((e) => e.involvedObject?.name === name).map((e) => `${e.reason}: ${e.message}`);
}
