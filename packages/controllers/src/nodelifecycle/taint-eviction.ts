/**
 * The taint-eviction controller (kube-controller-manager's pkg/controller/tainteviction): a pod
 * on a node with NoExecute taints it does not tolerate is deleted at once; one that tolerates
 * them for a while (tolerationSeconds) is deleted when that time has passed since the taints
 * were first seen, unless they go first. Before deleting, the pod gets the DisruptionTarget
 * condition and a TaintManagerEviction event, as kube's.
 */
import { ApiError } from '@kplane/api';
import { Action, Nodes, Pods, createEventRecorder, formatTime, keyOf, type Clock, type Controller, type EventRecorder, type Manager, type Node, type Pod, type Request } from '@kplane/runtime';
import { POD_NODE_INDEX, ensurePodNodeIndex, minTolerationMs, type Taint, type Toleration } from './taints.js';

/** Options of createTaintEvictionController. */
export interface TaintEvictionOptions {
  /** Controller and workqueue name (default "taint-eviction-controller"). */
  name?: string;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "taint-eviction-controller"); false records none. */
  recorder?: EventRecorder | false;
}

const is = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

/** Registers the taint-eviction controller on `manager`. */
export function createTaintEvictionController(manager: Manager, options: TaintEvictionOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'taint-eviction-controller', clock }));
  const nodes = manager.factory.informerFor<Node>(Nodes);
  const pods = manager.factory.informerFor<Pod>(Pods);
  ensurePodNodeIndex(pods);
  const podApi = manager.client.resource<Pod>(Pods);
  /** Pods (key) with an eviction scheduled, and when its countdown started (ms). */
  const scheduled = new Map<string, number>();

  const event = (pod: Pod, message: string): void => {
    if (recorder) void recorder.event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Normal', 'TaintManagerEviction', `${message} ${pod.metadata?.namespace}/${pod.metadata?.name}`);
  };

  const cancel = (key: string, pod: Pod | undefined): void => {
    if (!scheduled.delete(key)) return;
    if (pod) event(pod, 'Cancelling deletion of Pod');
  };

  const evict = async (pod: Pod): Promise<void> => {
    const ns = pod.metadata?.namespace;
    const name = pod.metadata!.name!;
    event(pod, 'Marking for deletion Pod');
    try {
      await podApi.patch(
        name,
        {
          status: {
            conditions: [
              { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint', lastTransitionTime: formatTime(clock.now()) },
            ],
          },
        },
        'strategic',
        { namespace: ns, subresource: 'status' },
      );
      await podApi.delete(name, { namespace: ns, preconditions: { uid: pod.metadata?.uid } });
    } catch (err) {
      if (is(err, 404) || is(err, 409)) return;
      throw err;
    }
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    const key = keyOf(req.namespace, req.name);
    const pod = pods.store.get(key);
    if (!pod || pod.metadata?.deletionTimestamp || !pod.spec?.nodeName) {
      scheduled.delete(key);
      return;
    }
    const node = nodes.store.get(pod.spec.nodeName);
    const taints = ((node?.spec?.taints ?? []) as Taint[]).filter((t) => t.effect === 'NoExecute');
    if (taints.length === 0) return cancel(key, pod);
    const allowedMs = minTolerationMs((pod.spec.tolerations ?? []) as Toleration[], taints);
    if (allowedMs === Infinity) return cancel(key, pod);
    const now = clock.now();
    const start = scheduled.get(key) ?? now;
    scheduled.set(key, start);
    const at = start + allowedMs;
    if (now < at) return Action.requeue(at - now);
    scheduled.delete(key);
    await evict(pod);
  };

  return manager
    .controller()
    .named(options.name ?? 'taint-eviction-controller')
    .for<Pod>(Pods)
    .watches<Node>(Nodes, (node) => pods.store.byIndex(POD_NODE_INDEX, node.metadata?.name ?? '').map((p) => ({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' })))
    .withOptions({ maxConcurrentReconciles: 8 })
    .complete(reconcile);
}
