/**
 * A scheduler for simulated clusters: binds pending pods to Ready nodes through the binding
 * subresource, spreading them (fewest pods first), honouring nodeSelector, node affinity,
 * taints, cordons and resource requests, with kube-scheduler's events and messages.
 */
import { ApiError } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import {
  createEventRecorder,
  createInformer,
  createWorkqueue,
  itemExponentialFailureRateLimiter,
  realClock,
  Nodes,
  Pods,
  type Clock,
  type EventRecorder,
  type Informer,
  type kinds,
} from '@kplane/runtime';
import { filterNode, fitErrorMessage, NO_NODES_MESSAGE, podRequests, type FilterFailure, type NodeUsage, type PodRequests } from './predicates.js';
import { rfc3339 } from './pod-status.js';
import { selectNodeForClaims } from './volume-binding.js';

/** Options of createScheduler. */
export interface SchedulerOptions {
  client: Client;
  /** Pods whose spec.schedulerName is this are scheduled (default "default-scheduler"). */
  schedulerName?: string;
  clock?: Clock;
  /** Binds in flight at once (default 32). */
  workers?: number;
  /** An unschedulable pod is retried at the latest after this long (default 300 000 ms, as kube-scheduler). */
  unschedulableRetryMs?: number;
  /** Told about API failures (they are retried). Default: ignore. */
  onError?: (err: unknown) => void;
}

/** A running scheduler. */
export interface Scheduler {
  /** Starts the informers and workers; resolves once the caches are synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Pods counted on each node (bound or assumed), for tests and benchmarks. */
  podsPerNode(): Map<string, number>;
}

interface Placement extends PodRequests {
  node: string;
}

const keyOf = (p: kinds.Pod) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
const terminal = (p: kinds.Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * Creates a scheduler.
 *
 * Guarantees:
 * - Decisions are made one at a time against the cache plus the pods already assumed on each
 *   node (as kube-scheduler's assume step), so concurrent binds never over-fill a node or
 *   pile onto one node.
 * - A pod is bound at most once by this scheduler; a 409 from another binder is accepted.
 * - An unschedulable pod gets one FailedScheduling event per attempt and a PodScheduled=False
 *   condition written only when its message changes; it is retried when a node is added or
 *   changes, when a pod goes away, and at the latest after `unschedulableRetryMs`.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const clock = options.clock ?? realClock;
  const schedulerName = options.schedulerName ?? 'default-scheduler';
  const workers = options.workers ?? 32;
  const retryMs = options.unschedulableRetryMs ?? 300_000;
  const onError = options.onError ?? (() => {});
  const pods: ResourceClient<kinds.Pod> = options.client.resource(Pods);
  const podInformer: Informer<kinds.Pod> = createInformer({ api: pods, clock, onError });
  const nodeInformer: Informer<kinds.Node> = createInformer({ api: options.client.resource(Nodes), clock, onError });
  const queue = createWorkqueue({ clock, rateLimiter: itemExponentialFailureRateLimiter(5, 30_000) });
  const recorder: EventRecorder = createEventRecorder({ client: options.client, component: schedulerName, clock });
  const usage = new Map<string, NodeUsage>();
  const placed = new Map<string, Placement>();
  const assumed = new Set<string>();
  const unschedulable = new Set<string>();

  const use = (node: string): NodeUsage => {
    let u = usage.get(node);
    if (!u) usage.set(node, (u = { pods: 0, milliCpu: 0, memory: 0 }));
    return u;
  };
  const place = (key: string, node: string, req: PodRequests): void => {
    const cur = placed.get(key);
    if (cur?.node === node) return;
    if (cur) unplace(key);
    const u = use(node);
    u.pods++;
    u.milliCpu += req.milliCpu;
    u.memory += req.memory;
    placed.set(key, { node, ...req });
  };
  const unplace = (key: string): void => {
    const cur = placed.get(key);
    if (!cur) return;
    const u = use(cur.node);
    u.pods--;
    u.milliCpu -= cur.milliCpu;
    u.memory -= cur.memory;
    placed.delete(key);
  };
  const needsScheduling = (p: kinds.Pod): boolean =>
    !p.spec?.nodeName && (p.spec?.schedulerName ?? 'default-scheduler') === schedulerName && !p.metadata?.deletionTimestamp && !terminal(p) && !(p.spec?.schedulingGates ?? []).length;
  const retryUnschedulable = (): void => {
    for (const key of unschedulable) queue.add(key);
    unschedulable.clear();
  };

  const observe = (p: kinds.Pod): void => {
    const key = keyOf(p);
    if (p.spec?.nodeName && !terminal(p)) {
      assumed.delete(key);
      place(key, p.spec.nodeName, podRequests(p));
    } else if (!assumed.has(key)) {
      if (placed.has(key)) {
        unplace(key);
        retryUnschedulable();
      }
    }
    // An unschedulable pod waits for a cluster change (or the retry timer), not for its own updates.
    if (needsScheduling(p) && !assumed.has(key) && !unschedulable.has(key)) queue.add(key);
  };
  podInformer.addEventHandler({
    onAdd: observe,
    onUpdate: (_o, p) => observe(p),
    onDelete: (p) => {
      const key = keyOf(p);
      assumed.delete(key);
      unschedulable.delete(key);
      if (placed.has(key)) {
        unplace(key);
        retryUnschedulable();
      }
    },
  });
  nodeInformer.addEventHandler({ onAdd: retryUnschedulable, onUpdate: retryUnschedulable });

  const ref = (p: kinds.Pod): kinds.Pod => ({ ...p, apiVersion: 'v1', kind: 'Pod' });

  /** Picks a node for the pod (synchronously, so no other decision interleaves), or explains why none fits. */
  const decide = (pod: kinds.Pod): { node: string } | { message: string } => {
    const nodes = nodeInformer.store.list();
    if (nodes.length === 0) return { message: NO_NODES_MESSAGE };
    const req = podRequests(pod);
    const failures: FilterFailure[] = [];
    let best: string | undefined;
    let bestPods = Infinity;
    for (const node of nodes) {
      const name = node.metadata!.name!;
      const u = usage.get(name) ?? { pods: 0, milliCpu: 0, memory: 0 };
      const f = filterNode(pod, node, u, req);
      if (f) failures.push(f);
      else if (u.pods < bestPods || (u.pods === bestPods && name < best!)) {
        best = name;
        bestPods = u.pods;
      }
    }
    return best !== undefined ? { node: best } : { message: fitErrorMessage(nodes.length, failures) };
  };

  const markUnschedulable = async (pod: kinds.Pod, message: string): Promise<void> => {
    const key = keyOf(pod);
    unschedulable.add(key);
    queue.addAfter(key, retryMs);
    void recorder.event(ref(pod), 'Warning', 'FailedScheduling', message);
    const cur = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (cur?.status === 'False' && cur.reason === 'Unschedulable' && cur.message === message) return;
    const condition = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: cur?.status === 'False' ? cur.lastTransitionTime : rfc3339(clock.now()) };
    await pods.patch(pod.metadata!.name!, { status: { conditions: [condition] } }, 'strategic', { namespace: pod.metadata!.namespace, subresource: 'status' });
  };

  const schedule = async (key: string): Promise<void> => {
    const pod = podInformer.store.get(key);
    if (!pod || !needsScheduling(pod) || assumed.has(key)) return;
    unschedulable.delete(key);
    const choice = decide(pod);
    if ('message' in choice) return markUnschedulable(pod, choice.message);
    const req = podRequests(pod);
    assumed.add(key);
    place(key, choice.node, req);
    const m = pod.metadata!;
    try {
      await selectNodeForClaims(options.client, pod, choice.node);
      await pods.createSubresource(m.name!, 'binding', {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: m.name, namespace: m.namespace, uid: m.uid },
        target: { apiVersion: 'v1', kind: 'Node', name: choice.node },
      }, { namespace: m.namespace });
    } catch (err) {
      if (assumed.delete(key)) unplace(key);
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return; // gone, or bound by someone else
      throw err;
    }
    void recorder.event(ref(pod), 'Normal', 'Scheduled', `Successfully assigned ${m.namespace}/${m.name} to ${choice.node}`);
  };

  const abort = new AbortController();
  const loops: Promise<unknown>[] = [];
  const worker = async (): Promise<void> => {
    for (;;) {
      const { key, shutdown } = await queue.get();
      if (shutdown) return;
      try {
        await schedule(key);
        queue.forget(key);
      } catch (err) {
        onError(err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };

  let started = false;
  return {
    async start() {
      if (started) return;
      started = true;
      loops.push(podInformer.run(abort.signal), nodeInformer.run(abort.signal));
      await Promise.all([podInformer.waitForSync(abort.signal), nodeInformer.waitForSync(abort.signal)]);
      for (let i = 0; i < workers; i++) loops.push(worker());
    },
    async stop() {
      abort.abort();
      queue.shutDown();
      await Promise.allSettled(loops);
      await recorder.flush();
    },
    podsPerNode: () => new Map([...usage].map(([n, u]) => [n, u.pods])),
  };
}
