/**
 * The simulated kubelet: registers fake Nodes, keeps their heartbeat Leases, and moves the
 * pods bound to them through their lifecycle (kwok-style, no containers), from informers
 * filtered by spec.nodeName and one delaying workqueue per node.
 */
import { ApiError, rfc3339 } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import {
  createEventRecorder,
  createInformer,
  createWorkqueue,
  itemExponentialFailureRateLimiter,
  realClock,
  Leases,
  Nodes,
  Pods,
  type Clock,
  type EventRecorder,
  type Informer,
  type Workqueue,
  type kinds,
} from '@kplane/runtime';
import { formatMicroTime } from '@kplane/runtime/internal';
import { ContainerLogs, DEFAULT_MAX_LOG_LINES } from './container-log.js';
import { createIpPool, type IpPool } from './ip-pool.js';
import { buildNode, buildNodeLease, healthyNodeConditions, nodeInternalIp, nodeName, podCidrBase, POD_IPS_PER_NODE, type NodeTemplateOptions } from './node-template.js';
import { simulatePod, stoppedPodStatus, type PodRecord } from './pod-status.js';
import { logStopping, logTransitions, type PodLogState } from './pod-log.js';
import { compileKubeletConfig, planFor, type CompiledConfig, type KubeletConfig } from './profile.js';
import { nodeMetrics, podMetrics, type NodeMetrics, type PodMetrics } from './usage.js';

/** Options of createKubelet. Durations in milliseconds. */
export interface KubeletOptions extends NodeTemplateOptions {
  client: Client;
  /**
   * The client each node acts through (its own identity, `system:node:<name>` in group
   * `system:nodes`, as a kubelet's credentials); default `client` for every node.
   */
  clientFor?: (nodeName: string) => Client;
  /** Number of nodes this kubelet runs (default 3). */
  nodes?: number;
  /** Index of its first node (default 0): nodes are `<prefix><first>` … */
  firstIndex?: number;
  /** Pod behaviour: defaults, rules, as in a `--config` file. */
  config?: KubeletConfig;
  clock?: Clock;
  /** Random source for jitter (default Math.random). */
  random?: () => number;
  /** Concurrent pod syncs per node (default 16). */
  workers?: number;
  /** Lease renewal period (default 10 000, as the kubelet). */
  leaseRenewIntervalMs?: number;
  /** spec.leaseDurationSeconds of node Leases (default 40). */
  leaseDurationSeconds?: number;
  /** How often node conditions get a new lastHeartbeatTime (default 300 000, nodeStatusReportFrequency). */
  nodeStatusReportIntervalMs?: number;
  /** Record Killing / BackOff events (default true). */
  events?: boolean;
  /** Told about API failures (they are retried). Default: ignore. */
  onError?: (err: unknown) => void;
  /** Log lines kept per container instance (default 1000). */
  maxLogLines?: number;
}

/** A running simulated kubelet. */
export interface Kubelet {
  /** Names of its nodes. */
  readonly nodeNames: readonly string[];
  /** Registers the nodes and their Leases, starts syncing pods; resolves once the pod caches are synced. */
  start(): Promise<void>;
  /** Stops syncing and renewing (nodes and Leases stay as they are). */
  stop(): Promise<void>;
  /** Pods currently tracked on all nodes. */
  trackedPods(): number;
  /** The logs of the containers on its nodes (read by the API server's `pods/log`). */
  readonly logs: ContainerLogs;
  /** A pod bound to one of its nodes, as its cache holds it. */
  pod(namespace: string, name: string): kinds.Pod | undefined;
  /**
   * The simulated resource usage of its nodes and their running pods now, as
   * metrics.k8s.io/v1beta1 objects (what metrics-server would serve).
   */
  metrics(): { nodes: NodeMetrics[]; pods: PodMetrics[] };
}

interface Stop {
  since: number;
  needMs: number;
  started: boolean;
  statusWritten?: boolean;
}

interface Rec extends PodRecord {
  /** Stage last written. */
  written?: string;
  /** The object our last write returned (newer than the cache for a while). */
  latest?: kinds.Pod;
  finished?: boolean;
  stop?: Stop;
  /** What has been written to its containers' logs. */
  logged: PodLogState;
  /** Crash-loop backoffs already announced by a BackOff event (`container:restartCount`). */
  backoffs: Set<string>;
}

interface SimNode {
  index: number;
  name: string;
  hostIP: string;
  pool: IpPool;
  node?: kinds.Node;
  informer: Informer<kinds.Pod>;
  queue: Workqueue;
  records: Map<string, Rec>;
  /** uids the kubelet deleted, until the informer reports them gone. */
  removed: Set<string>;
  recorder?: EventRecorder;
  /** The node's own API clients. */
  api: { pods: ResourceClient<kinds.Pod>; nodes: ResourceClient<kinds.Node>; leases: ResourceClient<kinds.Lease> };
}

const rvNum = (o: kinds.Pod | undefined): number => Number(o?.metadata?.resourceVersion ?? 0) || 0;
const is = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;
const keyOf = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

/**
 * Creates a simulated kubelet for `nodes` nodes.
 *
 * Guarantees:
 * - A pod's status is written only when its simulated state changes (one PUT of pods/status,
 *   pinned to the resourceVersion it was computed from); a burst of changes between writes is
 *   written once, as the kubelet's status manager does.
 * - A deleted pod is removed (DELETE with gracePeriodSeconds 0 and a uid precondition) only
 *   after its preStop sleep and stop delay, or when its grace period runs out, whichever is first.
 * - Timers are not per pod: each node's delaying queue keeps one timer for all its pods.
 */
export function createKubelet(options: KubeletOptions): Kubelet {
  const clock = options.clock ?? realClock;
  const random = options.random ?? Math.random;
  const config: CompiledConfig = compileKubeletConfig(options.config ?? {});
  const count = options.nodes ?? 3;
  const first = options.firstIndex ?? 0;
  const workers = options.workers ?? 16;
  const renewMs = options.leaseRenewIntervalMs ?? 10_000;
  const reportMs = options.nodeStatusReportIntervalMs ?? 300_000;
  const leaseSeconds = options.leaseDurationSeconds ?? 40;
  const onError = options.onError ?? (() => {});
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`nodes must be a whole number >= 0, got ${count}`);
  if ((options.maxPods ?? 0) > POD_IPS_PER_NODE) throw new RangeError(`maxPods must be at most ${POD_IPS_PER_NODE} (the pod CIDR of a node)`);

  const logs = new ContainerLogs(options.maxLogLines ?? DEFAULT_MAX_LOG_LINES);
  const nodes: SimNode[] = [];
  for (let i = first; i < first + count; i++) {
    const name = nodeName(i, options.namePrefix);
    const client = options.clientFor?.(name) ?? options.client;
    const api = { pods: client.resource(Pods), nodes: client.resource(Nodes), leases: client.resource(Leases) };
    const informer = createInformer<kinds.Pod>({ api: api.pods, fieldSelector: `spec.nodeName=${name}`, clock, onError });
    const n: SimNode = {
      index: i,
      name,
      hostIP: options.address ?? nodeInternalIp(i),
      pool: createIpPool(podCidrBase(i), POD_IPS_PER_NODE),
      informer,
      // Per-pod backoff only: a burst of conflicts must not be throttled by a shared bucket.
      queue: createWorkqueue({ clock, rateLimiter: itemExponentialFailureRateLimiter(5, 30_000) }),
      records: new Map(),
      removed: new Set(),
      recorder: options.events === false ? undefined : createEventRecorder({ client, component: 'kubelet', host: name, clock }),
      api,
    };
    informer.addEventHandler({
      onAdd: (p) => n.queue.add(keyOf(p.metadata?.namespace, p.metadata?.name)),
      onUpdate: (_o, p) => n.queue.add(keyOf(p.metadata?.namespace, p.metadata?.name)),
      onDelete: (p) => {
        if (p.metadata?.uid) n.removed.delete(p.metadata.uid);
        n.queue.add(keyOf(p.metadata?.namespace, p.metadata?.name));
      },
    });
    nodes.push(n);
  }

  const abort = new AbortController();
  const loops: Promise<unknown>[] = [];
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  let lastReport = 0;

  const forget = (n: SimNode, key: string, rec: Rec): void => {
    if (rec.podIP) n.pool.release(rec.podIP);
    logs.remove(rec.uid);
    n.records.delete(key);
  };

  /** The newer of the cached pod and the object our last write returned. */
  const latestOf = (pod: kinds.Pod, rec: Rec): kinds.Pod => (rec.latest && rvNum(rec.latest) > rvNum(pod) && rec.latest.metadata?.uid === pod.metadata?.uid ? rec.latest : pod);

  const newRecord = (n: SimNode, pod: kinds.Pod): Rec => {
    const now = clock.now();
    const plan = planFor(pod, config, random);
    const rec: Rec = { uid: pod.metadata!.uid!, seenAt: now, plan, hostIP: n.hostIP, logged: new Map(), backoffs: new Set() };
    const st = pod.status;
    if (st?.podIP && st.phase !== 'Succeeded' && st.phase !== 'Failed' && n.pool.reserve(st.podIP)) rec.podIP = st.podIP;
    if (st?.phase === 'Running' || rec.podIP) {
      // Running before this kubelet started (a restart): carry on from when the pod started (its
      // containers' restarts and exits are a function of that time), at least Ready, unwritten.
      const startedAt = Date.parse(st?.startTime ?? '');
      rec.seenAt = Number.isFinite(startedAt) && startedAt <= now - plan.readyAfterMs ? startedAt : now - plan.readyAfterMs;
      rec.written = simulatePod(pod, rec, now).stage;
    }
    if (st?.phase === 'Succeeded' || st?.phase === 'Failed') {
      rec.finished = true;
      return rec;
    }
    rec.podIP ??= n.pool.allocate();
    return rec;
  };

  const writeStatus = async (n: SimNode, pod: kinds.Pod, rec: Rec, status: kinds.PodStatus): Promise<void> => {
    const base = latestOf(pod, rec);
    const body: kinds.Pod = { apiVersion: 'v1', kind: 'Pod', metadata: base.metadata, spec: base.spec, status };
    try {
      rec.latest = await n.api.pods.updateStatus(body, { namespace: base.metadata?.namespace });
    } catch (err) {
      rec.latest = undefined;
      throw err;
    }
  };

  const terminate = async (n: SimNode, key: string, pod: kinds.Pod, rec: Rec): Promise<void> => {
    const now = clock.now();
    const m = pod.metadata!;
    const graceMs = (m.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    if (!rec.stop) {
      const started = !rec.finished && now >= rec.seenAt + rec.plan.startAfterMs;
      let preStopMs = 0;
      for (const c of pod.spec?.containers ?? []) preStopMs = Math.max(preStopMs, (c.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000);
      rec.stop = { since: now, needMs: started ? preStopMs + rec.plan.stopAfterMs : 0, started };
      if (started) logStopping(logs, rec.logged, pod, rec.uid, graceMs / 1000, now);
      if (started && n.recorder) {
        const ref = { ...pod, apiVersion: 'v1', kind: 'Pod' };
        for (const c of pod.spec?.containers ?? []) void n.recorder.event(ref, 'Normal', 'Killing', `Stopping container ${c.name}`);
      }
    }
    const stop = rec.stop;
    const doneAt = stop.since + Math.min(stop.needMs, graceMs);
    if (now < doneAt) {
      n.queue.addAfter(key, doneAt - now);
      return;
    }
    if (stop.started && !stop.statusWritten) {
      const stopped = stoppedPodStatus(latestOf(pod, rec), rec, now, stop.needMs > graceMs);
      await writeStatus(n, pod, rec, stopped);
      stop.statusWritten = true;
      logTransitions(logs, rec.logged, pod, rec.uid, stopped, now);
    }
    try {
      await n.api.pods.delete(m.name!, { namespace: m.namespace, gracePeriodSeconds: 0, preconditions: { uid: rec.uid } });
    } catch (err) {
      if (!is(err, 404) && !is(err, 409)) throw err;
    }
    n.removed.add(rec.uid);
    forget(n, key, rec);
  };

  const syncPod = async (n: SimNode, key: string): Promise<void> => {
    const pod = n.informer.store.get(key);
    let rec = n.records.get(key);
    if (!pod) {
      if (rec) forget(n, key, rec);
      return;
    }
    const m = pod.metadata!;
    if (rec && rec.uid !== m.uid) {
      forget(n, key, rec);
      rec = undefined;
    }
    if (n.removed.has(m.uid!)) return;
    // Grace period 0: removed already, or held by finalizers; nothing runs any more.
    if (m.deletionTimestamp && m.deletionGracePeriodSeconds === 0) {
      if (rec) forget(n, key, rec);
      return;
    }
    const phase = pod.status?.phase;
    if (!rec) {
      if ((phase === 'Succeeded' || phase === 'Failed') && !m.deletionTimestamp) return;
      rec = newRecord(n, pod);
      n.records.set(key, rec);
    }
    if (m.deletionTimestamp) return terminate(n, key, pod, rec);
    if (rec.finished) return;
    const now = clock.now();
    const sim = simulatePod(latestOf(pod, rec), rec, now);
    logTransitions(logs, rec.logged, pod, rec.uid, sim.status, now);
    if (sim.stage !== rec.written || latestOf(pod, rec).status?.phase !== sim.status.phase) {
      await writeStatus(n, pod, rec, sim.status);
      rec.written = sim.stage;
      const fresh = sim.backoff.filter((b) => !rec!.backoffs.has(b));
      for (const b of fresh) rec.backoffs.add(b);
      if (n.recorder && fresh.length) {
        const ref = { ...pod, apiVersion: 'v1', kind: 'Pod' };
        for (const b of fresh) {
          const c = b.slice(0, b.lastIndexOf(':'));
          void n.recorder.event(ref, 'Warning', 'BackOff', `Back-off restarting failed container ${c} in pod ${m.name}_${m.namespace}(${m.uid})`);
        }
      }
    }
    if (sim.status.phase === 'Succeeded' || sim.status.phase === 'Failed') {
      rec.finished = true;
      if (rec.podIP) n.pool.release(rec.podIP);
      rec.podIP = undefined;
      return;
    }
    if (sim.nextAt !== undefined) n.queue.addAfter(key, Math.max(0, sim.nextAt - now));
  };

  const worker = async (n: SimNode): Promise<void> => {
    for (;;) {
      const { key, shutdown } = await n.queue.get();
      if (shutdown) return;
      try {
        await syncPod(n, key);
        n.queue.forget(key);
      } catch (err) {
        if (is(err, 404)) n.queue.forget(key);
        else {
          if (!is(err, 409)) onError(err);
          n.queue.addRateLimited(key);
        }
      } finally {
        n.queue.done(key);
      }
    }
  };

  const register = async (n: SimNode): Promise<void> => {
    const time = rfc3339(clock.now());
    const desired = buildNode(n.index, time, options);
    try {
      n.node = await n.api.nodes.create(desired);
    } catch (err) {
      if (!is(err, 409)) throw err;
      // Registered before: report it healthy again, keep what users changed (labels, cordon, taints).
      const cur = await n.api.nodes.get(n.name);
      n.node = await n.api.nodes.updateStatus({ ...cur, status: { ...cur.status, ...desired.status } });
    }
    const lease = buildNodeLease(n.node, formatMicroTime(clock.now()), leaseSeconds);
    try {
      await n.api.leases.create(lease);
    } catch (err) {
      if (!is(err, 409)) throw err;
      await n.api.leases.patch(n.name, { metadata: { ownerReferences: lease.metadata?.ownerReferences }, spec: lease.spec }, 'merge', { namespace: 'kube-node-lease' });
    }
  };

  const renewLeases = async (): Promise<void> => {
    const now = clock.now();
    const report = now - lastReport >= reportMs;
    if (report) lastReport = now;
    await Promise.all(
      nodes.map(async (n) => {
        try {
          await n.api.leases.patch(n.name, { spec: { holderIdentity: n.name, leaseDurationSeconds: leaseSeconds, renewTime: formatMicroTime(now) } }, 'merge', { namespace: 'kube-node-lease' });
        } catch (err) {
          if (is(err, 404) && n.node) await n.api.leases.create(buildNodeLease(n.node, formatMicroTime(now), leaseSeconds)).catch(onError);
          else onError(err);
        }
        try {
          // As the kubelet at each status update: its own view of the conditions is posted when it
          // differs from the Node's (the node lifecycle controller set them Unknown) or when a
          // report is due; a condition whose status is unchanged keeps its lastTransitionTime.
          const cur = await n.api.nodes.get(n.name);
          const time = rfc3339(now);
          const current = cur.status?.conditions ?? [];
          const own = healthyNodeConditions(time).map((c) => {
            const seen = current.find((x) => x.type === c.type);
            return seen && seen.status === c.status && seen.lastTransitionTime ? { ...c, lastTransitionTime: seen.lastTransitionTime } : c;
          });
          const differs = own.some((c) => {
            const seen = current.find((x) => x.type === c.type);
            return !seen || seen.status !== c.status || seen.reason !== c.reason || seen.message !== c.message;
          });
          if (!report && !differs) return;
          const conditions = [...current.filter((x) => !own.some((c) => c.type === x.type)).map((c) => ({ ...c, lastHeartbeatTime: time })), ...own];
          await n.api.nodes.patch(n.name, { status: { conditions } }, 'strategic', { subresource: 'status' });
        } catch (err) {
          onError(err);
        }
      }),
    );
  };

  const scheduleRenew = (): void => {
    if (abort.signal.aborted) return;
    timer = clock.setTimeout(() => {
      // renewLeases reports its own failures; a throwing onError must not reach the process.
      renewLeases().catch(() => undefined).finally(scheduleRenew);
    }, renewMs);
  };

  let started = false;
  return {
    nodeNames: nodes.map((n) => n.name),
    async start() {
      if (started) return;
      started = true;
      lastReport = clock.now();
      await Promise.all(nodes.map(register));
      for (const n of nodes) {
        loops.push(n.informer.run(abort.signal));
        for (let i = 0; i < workers; i++) loops.push(worker(n));
      }
      scheduleRenew();
      await Promise.all(nodes.map((n) => n.informer.waitForSync(abort.signal)));
    },
    async stop() {
      abort.abort();
      if (timer !== undefined) clock.clearTimeout(timer);
      for (const n of nodes) n.queue.shutDown();
      logs.stopAll();
      await Promise.allSettled(loops);
      await Promise.all(nodes.map((n) => n.recorder?.flush()));
    },
    trackedPods: () => nodes.reduce((sum, n) => sum + n.records.size, 0),
    logs,
    pod(namespace, name) {
      for (const n of nodes) {
        const p = n.informer.store.get(keyOf(namespace, name));
        if (p) return p;
      }
      return undefined;
    },
    metrics() {
      const now = clock.now();
      const out: { nodes: NodeMetrics[]; pods: PodMetrics[] } = { nodes: [], pods: [] };
      for (const n of nodes) {
        const pods = n.informer.store.list();
        if (n.node) out.nodes.push(nodeMetrics(n.node, pods, now));
        for (const p of pods) {
          const m = podMetrics(p, now);
          if (m) out.pods.push(m);
        }
      }
      return out;
    },
  };
}
