/**
 * A scheduler for simulated clusters: binds pending pods to nodes through the binding
 * subresource with kube-scheduler's default plugins (scheduling/: filters, scores, preemption),
 * events and messages.
 */
import { ApiError, rfc3339 } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import {
  createEventRecorder,
  createInformer,
  createWorkqueue,
  itemExponentialFailureRateLimiter,
  realClock,
  Namespaces,
  Nodes,
  PodDisruptionBudgets,
  Pods,
  type Clock,
  type EventRecorder,
  type Informer,
  type kinds,
} from '@kplane/runtime';
import { ActiveQueue } from './scheduling/active-queue.js';
import { ClusterState, priorityOf } from './scheduling/cluster.js';
import { Cycle, fitErrorMessage, NO_NODES_MESSAGE, place, type Nomination } from './scheduling/framework.js';
import { findPreemption, PREEMPTION_REASON, type Candidate } from './scheduling/preemption.js';
import { podResources } from './scheduling/resources.js';
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

const keyOf = (p: kinds.Pod) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
const terminal = (p: kinds.Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const hasRequiredPodAffinity = (p: kinds.Pod) => !!p.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length;

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
 *   changes, when a pod goes away (or, for a pod with required pod affinity, is placed), and
 *   at the latest after `unschedulableRetryMs`.
 * - Pods ready to be scheduled are taken highest priority first, then in arrival order.
 * - Preemption deletes lower-priority victims (DisruptionTarget first, a `Preempted` event
 *   each) and nominates the node; the pod binds once they are gone.
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
  const nsInformer: Informer<kinds.Namespace> = createInformer({ api: options.client.resource(Namespaces), clock, onError });
  const pdbInformer: Informer<kinds.PodDisruptionBudget> = createInformer({ api: options.client.resource(PodDisruptionBudgets), clock, onError });
  const queue = createWorkqueue({ clock, rateLimiter: itemExponentialFailureRateLimiter(5, 30_000) });
  const recorder: EventRecorder = createEventRecorder({ client: options.client, component: schedulerName, clock });
  const cluster = new ClusterState((ns) => nsInformer.store.get(ns)?.metadata?.labels);
  const assumed = new Set<string>();
  const unschedulable = new Set<string>();
  const nominations = new Map<string, Nomination>();

  const needsScheduling = (p: kinds.Pod): boolean =>
    !p.spec?.nodeName && (p.spec?.schedulerName ?? 'default-scheduler') === schedulerName && !p.metadata?.deletionTimestamp && !terminal(p) && !(p.spec?.schedulingGates ?? []).length;
  const retry = (which: (key: string) => boolean = () => true): void => {
    for (const key of unschedulable) {
      if (!which(key)) continue;
      unschedulable.delete(key);
      queue.add(key);
    }
  };

  const observe = (p: kinds.Pod): void => {
    const key = keyOf(p);
    if (p.spec?.nodeName && !terminal(p)) {
      // Newly placed (bound by another, or our binding confirmed): pods with required pod affinity may fit now.
      const first = assumed.delete(key) || cluster.pods.get(key)?.node !== p.spec.nodeName;
      nominations.delete(key);
      cluster.setPod(key, p, p.spec.nodeName);
      if (first) retry((k) => { const q = podInformer.store.get(k); return !!q && hasRequiredPodAffinity(q); });
    } else if (!assumed.has(key) && cluster.removePod(key)) retry();
    const nominated = p.status?.nominatedNodeName;
    if (nominated && needsScheduling(p)) nominations.set(key, { node: nominated, priority: priorityOf(p), resources: podResources(p) });
    else if (!p.spec?.nodeName) nominations.delete(key);
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
      nominations.delete(key);
      if (cluster.removePod(key)) retry();
    },
  });
  // A namespace's labels feed namespaceSelector terms: recount, and give unschedulable pods another try.
  nsInformer.addEventHandler({ onUpdate: () => (cluster.invalidate(), retry()), onAdd: () => cluster.invalidate() });
  nodeInformer.addEventHandler({
    onAdd: (n) => (cluster.setNode(n), retry()),
    onUpdate: (_o, n) => (cluster.setNode(n), retry()),
    onDelete: (n) => cluster.removeNode(n.metadata!.name!),
  });

  const ref = (p: kinds.Pod): kinds.Pod => ({ ...p, apiVersion: 'v1', kind: 'Pod' });

  type Decision = { node: string } | { message: string; preempt?: Candidate; clearNomination?: boolean };
  /** Picks a node for the pod (synchronously, so no other decision interleaves), or explains why none fits. */
  const decide = (pod: kinds.Pod, key: string): Decision => {
    if (cluster.nodes.size === 0) return { message: NO_NODES_MESSAGE };
    const cycle = new Cycle(pod, key, cluster, nominations);
    const placed = place(cycle);
    if ('node' in placed) return placed;
    const result = findPreemption(cycle, placed.failures, pdbInformer.store.list());
    if ('candidate' in result) return { message: fitErrorMessage(placed.numNodes, placed.failures.values()), preempt: result.candidate };
    return { message: fitErrorMessage(placed.numNodes, placed.failures.values(), result.message), clearNomination: result.clearNomination && !!pod.status?.nominatedNodeName };
  };

  /** Deletes the victims (DisruptionTarget first, as kube-scheduler) and clears lower nominations on the node. */
  const preempt = async (pod: kinds.Pod, c: Candidate): Promise<void> => {
    const message = `${schedulerName}: preempting to accommodate a higher priority pod`;
    await Promise.all(
      c.victims.map(async (v) => {
        const m = v.pod.metadata!;
        try {
          const condition = { type: 'DisruptionTarget', status: 'True', reason: PREEMPTION_REASON, message, lastTransitionTime: rfc3339(clock.now()) };
          await pods.patch(m.name!, { status: { conditions: [condition] } }, 'strategic', { namespace: m.namespace, subresource: 'status' });
          await pods.delete(m.name!, { namespace: m.namespace, preconditions: { uid: m.uid } });
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
        }
        void recorder.event(ref(v.pod), 'Normal', 'Preempted', `Preempted by pod ${pod.metadata?.uid} on node ${c.node}`);
      }),
    );
    const priority = priorityOf(pod);
    for (const [key, n] of nominations) {
      if (n.node !== c.node || n.priority >= priority) continue;
      nominations.delete(key);
      const [namespace, name] = key.split('/') as [string, string];
      await pods.patch(name, { status: { nominatedNodeName: null } }, 'strategic', { namespace, subresource: 'status' }).catch(() => {});
    }
  };

  const markUnschedulable = async (pod: kinds.Pod, decision: { message: string; preempt?: Candidate; clearNomination?: boolean }): Promise<void> => {
    const key = keyOf(pod);
    const { message } = decision;
    unschedulable.add(key);
    queue.addAfter(key, retryMs);
    const nominated = decision.preempt ? decision.preempt.node : decision.clearNomination ? null : undefined;
    if (decision.preempt) {
      nominations.set(key, { node: decision.preempt.node, priority: priorityOf(pod), resources: podResources(pod) });
      await preempt(pod, decision.preempt);
    } else if (nominated === null) nominations.delete(key);
    void recorder.event(ref(pod), 'Warning', 'FailedScheduling', message);
    const cur = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const sameNomination = nominated === undefined || (pod.status?.nominatedNodeName ?? null) === nominated;
    if (cur?.status === 'False' && cur.reason === 'Unschedulable' && cur.message === message && sameNomination) return;
    const condition = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: cur?.status === 'False' ? cur.lastTransitionTime : rfc3339(clock.now()) };
    const status: Record<string, unknown> = { conditions: [condition] };
    if (nominated !== undefined) status.nominatedNodeName = nominated;
    await pods.patch(pod.metadata!.name!, { status }, 'strategic', { namespace: pod.metadata!.namespace, subresource: 'status' });
  };

  const schedule = async (key: string): Promise<void> => {
    const pod = podInformer.store.get(key);
    if (!pod || !needsScheduling(pod) || assumed.has(key)) return;
    unschedulable.delete(key);
    const choice = decide(pod, key);
    if ('message' in choice) return markUnschedulable(pod, choice);
    assumed.add(key);
    cluster.setPod(key, pod, choice.node);
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
      if (assumed.delete(key)) cluster.removePod(key);
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return; // gone, or bound by someone else
      throw err;
    }
    void recorder.event(ref(pod), 'Normal', 'Scheduled', `Successfully assigned ${m.namespace}/${m.name} to ${choice.node}`);
  };

  const abort = new AbortController();
  const loops: Promise<unknown>[] = [];
  // The workqueue keeps delays, retries and rate limits; what it releases waits in the active
  // queue, taken highest priority first (kube-scheduler's PrioritySort).
  const active = new ActiveQueue();
  const priorityOfKey = (key: string) => priorityOf(podInformer.store.get(key) ?? {});
  const pump = async (): Promise<void> => {
    for (;;) {
      const { key, shutdown } = await queue.get();
      if (shutdown) return active.close();
      active.push(key, priorityOfKey(key));
      queue.done(key);
    }
  };
  const inFlight = new Set<string>();
  const again = new Set<string>();
  // The active queue holds work the workqueue no longer sees: report it to a clock that waits for idleness.
  const untrack = clock.trackActivity?.({ name: `scheduler ${schedulerName}`, busy: () => active.length > 0 || inFlight.size > 0 });
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await active.pop();
      if (key === undefined) return;
      if (inFlight.has(key)) {
        again.add(key);
        continue;
      }
      inFlight.add(key);
      try {
        await schedule(key);
        queue.forget(key);
      } catch (err) {
        onError(err);
        queue.addRateLimited(key);
      } finally {
        inFlight.delete(key);
        if (again.delete(key)) active.push(key, priorityOfKey(key));
      }
    }
  };

  let started = false;
  return {
    async start() {
      if (started) return;
      started = true;
      const informers = [nodeInformer, nsInformer, pdbInformer, podInformer];
      for (const i of informers) loops.push(i.run(abort.signal));
      await Promise.all(informers.map((i) => i.waitForSync(abort.signal)));
      loops.push(pump());
      for (let i = 0; i < workers; i++) loops.push(worker());
    },
    async stop() {
      abort.abort();
      untrack?.();
      queue.shutDown();
      await Promise.allSettled(loops);
      await recorder.flush();
    },
    podsPerNode: () => new Map([...cluster.nodes.values()].map((n) => [n.name, n.load.pods])),
  };
}
