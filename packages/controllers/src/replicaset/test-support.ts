/**
 * API server on memory storage and a stand-in kubelet that makes pods Running and Ready
 * through the pods/status subresource.
 */
import type { Client } from '@kplane/client';
import { Namespaces, Pods, type Pod } from '@kplane/runtime';

export { startTestKplane as startKplane, type TestKplane } from '@kplane/apiserver/testing';

/** Creates a namespace. */
export async function createNamespace(client: Client, name: string): Promise<void> {
  await client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Resolves after `ms` (only to let time pass, never for correctness). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Active (not deleting) pods of a namespace, optionally by label selector. */
export async function activePods(client: Client, namespace: string, labelSelector?: string): Promise<Pod[]> {
  const list = await client.resource<Pod>(Pods).list({ namespace, labelSelector });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** Plays the kubelet for one pod: phase Running, Ready and ContainersReady True, running containers. */
export async function markReady(client: Client, pod: Pod, ready = true): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const status = ready ? 'True' : 'False';
  await client.resource<Pod>(Pods).patch(
    pod.metadata!.name!,
    {
      status: {
        phase: 'Running',
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status, lastTransitionTime: now },
          { type: 'Ready', status, lastTransitionTime: now },
        ],
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: now } },
        })),
      },
    },
    'merge',
    { namespace: pod.metadata!.namespace, subresource: 'status' },
  );
}

/**
 * A stand-in kubelet: watches the pods of `namespace` and marks each new one Ready after
 * `delayMs`. Stops when `signal` aborts.
 */
export function startFakeKubelet(client: Client, namespace: string, signal: AbortSignal, delayMs = 20): Promise<void> {
  const handled = new Set<string>();
  const api = client.resource<Pod>(Pods);
  return (async () => {
    while (!signal.aborted) {
      try {
        for await (const ev of api.watch({ namespace, signal })) {
          if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
          const pod = ev.object;
          const uid = pod.metadata?.uid ?? '';
          if (handled.has(uid) || pod.metadata?.deletionTimestamp) continue;
          handled.add(uid);
          setTimeout(() => {
            if (!signal.aborted) markReady(client, pod).catch(() => undefined);
          }, delayMs);
        }
      } catch {
        if (!signal.aborted) await sleep(20);
      }
    }
  })();
}
