/**
 * The node lifecycle controller (kube-controller-manager's pkg/controller/nodelifecycle): a node
 * whose kubelet neither renewed its Lease in kube-node-lease nor posted a new status heartbeat
 * for the grace period gets its conditions set Unknown; the not-ready / unreachable, pressure
 * and unschedulable taints follow the node's conditions and spec; the pods of a node that stops
 * being Ready are marked not Ready. Times are when the controller observed a heartbeat, on the
 * injected clock, as kube's probe timestamps.
 */
import { ApiError } from '@kplane/api';
import {
  Action,
  Leases,
  Nodes,
  Pods,
  createEventRecorder,
  formatTime,
  type Clock,
  type Controller,
  type EventRecorder,
  type Lease,
  type Manager,
  type Node,
  type Pod,
  type Request,
} from '@kplane/runtime';
import { POD_NODE_INDEX, ensurePodNodeIndex, nodeConditionStatus, reconcileTaints } from './taints.js';

/** The namespace of the nodes' heartbeat Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** Options of createNodeLifecycleController. */
export interface NodeLifecycleOptions {
  /** Controller and workqueue name (default "node-lifecycle-controller"). */
  name?: string;
  /** --node-monitor-grace-period in ms (default 40 000). */
  gracePeriodMs?: number;
  /** --node-startup-grace-period in ms, for a node that never posted a Ready condition (default 60 000). */
  startupGracePeriodMs?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "node-controller"); false records none. */
  recorder?: EventRecorder | false;
}

interface Health {
  heartbeat?: string;
  renewTime?: string;
  /** When the controller last saw the kubelet alive (ms). */
  probeAt: number;
}

const CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

const CONFLICT_RETRY_MS = 100;

const is = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

/** Registers the node lifecycle controller on `manager`. */
export function createNodeLifecycleController(manager: Manager, options: NodeLifecycleOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const graceMs = options.gracePeriodMs ?? 40_000;
  const startupGraceMs = options.startupGracePeriodMs ?? 60_000;
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'node-controller', clock }));
  const nodes = manager.factory.informerFor<Node>(Nodes);
  const leases = manager.factory.informerFor<Lease>(Leases);
  const pods = manager.factory.informerFor<Pod>(Pods);
  ensurePodNodeIndex(pods);
  const nodeApi = manager.client.resource<Node>(Nodes);
  const podApi = manager.client.resource<Pod>(Pods);
  const health = new Map<string, Health>();
  const observedReady = new Map<string, string | undefined>();

  const event = (node: Node, reason: string): void => {
    const name = node.metadata?.name ?? '';
    // kube's RecordNodeStatusChange: the Node's uid is its name.
    if (recorder) void recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } }, 'Normal', reason, `Node ${name} status is now: ${reason}`);
  };

  /** Sets the Ready condition of every pod on the node False (kube's MarkPodsNotReady). */
  const markPodsNotReady = async (nodeName: string): Promise<void> => {
    const now = formatTime(clock.now());
    for (const pod of pods.store.byIndex(POD_NODE_INDEX, nodeName)) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False' || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      try {
        await podApi.patch(pod.metadata!.name!, { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }] } }, 'strategic', {
          namespace: pod.metadata?.namespace,
          subresource: 'status',
        });
        if (recorder) void recorder.event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (err) {
        if (!is(err, 404)) throw err;
      }
    }
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    const cached = nodes.store.get(req.name);
    if (!cached) {
      health.delete(req.name);
      observedReady.delete(req.name);
      return;
    }
    const now = clock.now();
    const conditions = cached.status?.conditions ?? [];
    const readyCond = conditions.find((c) => c.type === 'Ready');
    const lease = leases.store.get(`${NODE_LEASE_NAMESPACE}/${req.name}`);
    const heartbeat = readyCond?.lastHeartbeatTime;
    const renewTime = lease?.spec?.renewTime;
    let h = health.get(req.name);
    if (!h) {
      const created = Date.parse(cached.metadata?.creationTimestamp ?? '');
      // A node with no sign of life yet counts from its creation (never from a time ahead of this clock).
      h = { heartbeat, renewTime, probeAt: heartbeat || renewTime || Number.isNaN(created) ? now : Math.min(created, now) };
      health.set(req.name, h);
    } else if (h.heartbeat !== heartbeat || h.renewTime !== renewTime) {
      h.heartbeat = heartbeat;
      h.renewTime = renewTime;
      h.probeAt = now;
    }
    let node = cached;
    const grace = readyCond ? graceMs : startupGraceMs;
    const deadline = h.probeAt + grace;
    if (now >= deadline) {
      // The kubelet went silent: every condition it reports becomes Unknown.
      const time = formatTime(now);
      const [reason, message] = readyCond ? ['NodeStatusUnknown', 'Kubelet stopped posting node status.'] : ['NodeStatusNeverUpdated', 'Kubelet never posted node status.'];
      const next = structuredClone(cached);
      const conds = next.status?.conditions ?? [];
      let changed = false;
      for (const type of CONDITION_TYPES) {
        const c = conds.find((x) => x.type === type);
        if (!c) {
          conds.push({ type, status: 'Unknown', reason, message, lastHeartbeatTime: next.metadata?.creationTimestamp, lastTransitionTime: time });
          changed = true;
        } else if (c.status !== 'Unknown') {
          Object.assign(c, { status: 'Unknown', reason, message, lastTransitionTime: time });
          changed = true;
        }
      }
      if (changed) {
        next.status = { ...next.status, conditions: conds };
        try {
          node = await nodeApi.updateStatus(next);
        } catch (err) {
          // A stale cache: try again once it caught up.
          if (is(err, 409)) return Action.requeue(CONFLICT_RETRY_MS);
          if (is(err, 404)) return;
          throw err;
        }
      }
    }
    const ready = nodeConditionStatus(node, 'Ready');
    const prev = observedReady.has(req.name) ? observedReady.get(req.name) : ready;
    observedReady.set(req.name, ready);
    if (prev === 'True' && ready !== 'True') {
      event(node, 'NodeNotReady');
      await markPodsNotReady(req.name);
    } else if (prev !== undefined && prev !== 'True' && ready === 'True') event(node, 'NodeReady');
    const taints = reconcileTaints(node, formatTime(now));
    if (taints) {
      const next = structuredClone(node);
      const { taints: _old, ...rest } = next.spec ?? {};
      next.spec = taints.length ? { ...rest, taints } : rest;
      try {
        await nodeApi.update(next);
      } catch (err) {
        if (is(err, 409)) return Action.requeue(CONFLICT_RETRY_MS);
        if (is(err, 404)) return;
        throw err;
      }
    }
    if (now < deadline) return Action.requeue(deadline - now);
  };

  return manager
    .controller()
    .named(options.name ?? 'node-lifecycle-controller')
    .for<Node>(Nodes)
    .watches<Lease>(Leases, (lease) => (lease.metadata?.namespace === NODE_LEASE_NAMESPACE ? [{ namespace: '', name: lease.metadata?.name ?? '' }] : []))
    .withOptions({ maxConcurrentReconciles: 1 })
    .complete(reconcile);
}
