/**
 * The pod garbage collector (kube-controller-manager's `pod-garbage-collector-controller`,
 * pkg/controller/podgc): every gcCheckPeriod it deletes, with grace period 0,
 * - terminated pods (Succeeded/Failed) beyond the --terminated-pod-gc-threshold, evicted first,
 *   then oldest first;
 * - terminating pods on NotReady nodes tainted node.kubernetes.io/out-of-service;
 * - orphaned pods bound to a node that no longer exists (checked again by a GET after a
 *   quarantine), first marked Failed with the DisruptionTarget condition;
 * - terminating pods that were never scheduled.
 * A pod not yet terminal gets phase Failed first, by server-side apply of its status with the
 * field manager `PodGC` and force (a strategic merge patch when the server answers 415).
 */
import { ApiError, rfc3339 } from '@kplane/api';
import { Nodes, Pods, type Clock, type Manager, type Node, type Pod, type Runnable } from '@kplane/runtime';

/** kube's gcCheckPeriod: how often the collector runs. */
export const POD_GC_CHECK_PERIOD_MS = 20_000;
/** kube's quarantineTime: how long a missing node may still show up before a GET confirms it gone. */
export const POD_GC_QUARANTINE_MS = 40_000;
/** kube-controller-manager's default --terminated-pod-gc-threshold. */
export const DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12_500;
/** The field manager of the collector's status writes. */
export const POD_GC_FIELD_MANAGER = 'PodGC';
/** The taint that lets terminating pods of a NotReady node go. */
export const TAINT_NODE_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/** Options of createPodGarbageCollector. */
export interface PodGarbageCollectorOptions {
  /** Terminated pods kept before the oldest are deleted (default 12 500; 0 or less: never). */
  terminatedPodThreshold?: number;
  /** Period of the collection loop (default 20 s). */
  gcCheckPeriodMs?: number;
  /** Quarantine of a missing node before its pods count as orphaned (default 40 s). */
  quarantineMs?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Failed writes (default console.error). */
  onError?: (err: unknown) => void;
  /** Called after each pass of the loop (for tests on virtual time). */
  onPass?: () => void;
}

/** The collector: a leader-elected runnable, with one pass exposed for tests. */
export interface PodGarbageCollector extends Runnable {
  /** Runs one collection pass over the caches. */
  gc(signal?: AbortSignal): Promise<void>;
}

const isTerminated = (pod: Pod): boolean => {
  const phase = pod.status?.phase;
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
};

const isEvicted = (pod: Pod): boolean => pod.status?.phase === 'Failed' && pod.status?.reason === 'Evicted';

/** byEvictionAndCreationTimestamp: evicted pods first, then oldest first, then by name. */
export function compareForDeletion(a: Pod, b: Pod): number {
  const ea = isEvicted(a);
  const eb = isEvicted(b);
  if (ea !== eb) return ea ? -1 : 1;
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

const nodeReady = (node: Node): boolean => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const ignorable = (err: unknown): boolean => err instanceof ApiError && err.code === 404;

/** Creates the pod garbage collector on `manager`'s caches; add it with `manager.add`. */
export function createPodGarbageCollector(manager: Manager, options: PodGarbageCollectorOptions = {}): PodGarbageCollector {
  const clock = options.clock ?? manager.clock;
  const threshold = options.terminatedPodThreshold ?? DEFAULT_TERMINATED_POD_GC_THRESHOLD;
  const period = options.gcCheckPeriodMs ?? POD_GC_CHECK_PERIOD_MS;
  const quarantine = options.quarantineMs ?? POD_GC_QUARANTINE_MS;
  const onError = options.onError ?? ((err: unknown) => console.error('pod-garbage-collector:', err));
  const pods = manager.factory.informerFor<Pod>(Pods);
  const nodes = manager.factory.informerFor<Node>(Nodes);
  const podApi = manager.client.resource<Pod>(Pods);
  const nodeApi = manager.client.resource<Node>(Nodes);
  /** Missing nodes waiting out their quarantine: name → when to check it. */
  const quarantined = new Map<string, number>();

  /** markFailedAndDeletePodWithCondition: phase Failed (and the condition) unless terminal, then delete with grace 0. */
  const markFailedAndDelete = async (pod: Pod, condition: { reason: string; message: string } | undefined, signal?: AbortSignal): Promise<void> => {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? '';
    try {
      if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
        const conditions = condition
          ? [{ type: 'DisruptionTarget', status: 'True', reason: condition.reason, message: condition.message, lastTransitionTime: rfc3339(clock.now()) }]
          : undefined;
        const status = { phase: 'Failed', ...(conditions ? { conditions } : {}) };
        try {
          await podApi.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, status } as never, { fieldManager: POD_GC_FIELD_MANAGER, force: true, subresource: 'status', signal });
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 415)) throw err;
          // A server without server-side apply: the same fields by strategic merge patch.
          await podApi.patch(name, { status }, 'strategic', { namespace, subresource: 'status', fieldManager: POD_GC_FIELD_MANAGER, signal });
        }
      }
      await podApi.delete(name, { namespace, gracePeriodSeconds: 0, signal });
    } catch (err) {
      if (!ignorable(err)) onError(err);
    }
  };

  const gcTerminated = async (all: Pod[], signal?: AbortSignal): Promise<void> => {
    const terminated = all.filter(isTerminated);
    const deleteCount = terminated.length - threshold;
    if (deleteCount <= 0) return;
    terminated.sort(compareForDeletion);
    await Promise.all(terminated.slice(0, deleteCount).map((p) => markFailedAndDelete(p, undefined, signal)));
  };

  const gcTerminatingOutOfService = async (all: Pod[], signal?: AbortSignal): Promise<void> => {
    const victims = all.filter((p) => {
      if (!p.metadata?.deletionTimestamp) return false;
      const node = nodes.store.get(p.spec?.nodeName ?? '');
      return !!node && !nodeReady(node) && (node.spec?.taints ?? []).some((t) => t.key === TAINT_NODE_OUT_OF_SERVICE);
    });
    victims.sort(compareForDeletion);
    await Promise.all(victims.map((p) => markFailedAndDelete(p, undefined, signal)));
  };

  const gcOrphaned = async (all: Pod[], signal?: AbortSignal): Promise<void> => {
    const existing = new Set(nodes.store.list().map((n) => n.metadata?.name ?? ''));
    const now = clock.now();
    for (const p of all) {
      const node = p.spec?.nodeName;
      if (node && !existing.has(node) && !quarantined.has(node)) quarantined.set(node, now + quarantine);
    }
    // discoverDeletedNodes: nodes past their quarantine, still missing from the cache and from a live GET.
    const deleted = new Set<string>();
    for (const [node, due] of [...quarantined]) {
      if (due > now) continue;
      quarantined.delete(node);
      if (existing.has(node)) continue;
      try {
        await nodeApi.get(node, { signal });
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) deleted.add(node);
        else onError(err); // queued again by the next pass if still needed
      }
    }
    if (deleted.size === 0) return;
    for (const p of all) {
      if (!deleted.has(p.spec?.nodeName ?? '')) continue;
      await markFailedAndDelete(p, { reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }, signal);
    }
  };

  const gcUnscheduledTerminating = async (all: Pod[], signal?: AbortSignal): Promise<void> => {
    for (const p of all) {
      if (!p.metadata?.deletionTimestamp || p.spec?.nodeName) continue;
      await markFailedAndDelete(p, undefined, signal);
    }
  };

  const gc = async (signal?: AbortSignal): Promise<void> => {
    const all = pods.store.list();
    if (threshold > 0) await gcTerminated(all, signal);
    await gcTerminatingOutOfService(all, signal);
    await gcOrphaned(all, signal);
    await gcUnscheduledTerminating(all, signal);
  };

  return {
    needLeaderElection: true,
    gc,
    async start(signal: AbortSignal): Promise<void> {
      // wait.Until: a pass at once, then one every period.
      while (!signal.aborted) {
        try {
          await gc(signal);
        } catch (err) {
          if (!signal.aborted) onError(err);
        }
        options.onPass?.();
        try {
          await clock.sleep(period, signal);
        } catch {
          return;
        }
      }
    },
  };
}
