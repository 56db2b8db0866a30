/**
 * The endpointslice controller (kube-controller-manager's endpointslice-controller): keeps the
 * discovery.k8s.io/v1 EndpointSlices of every Service with a selector in line with the pods it
 * selects. Slices are owned by their Service (the garbage collector removes them with it) and
 * labelled `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by`.
 */
import { ApiError } from '@kplane/api';
import {
  CONTROLLER_OWNER_INDEX, EndpointSlices, NAMESPACE_INDEX, Nodes, Pods, Services, Action,
  type Controller, type EndpointSlice, type Manager, type Node, type Pod, type Request, type Service,
} from '@kplane/runtime';
import { MANAGED_BY, TriggerTimeTracker, MANAGED_BY_LABEL, selects, serviceSelector } from './pods.js';
import { reconcileSlices } from './reconciler.js';

/** Options of createEndpointSliceController. */
export interface EndpointSliceControllerOptions {
  /** Controller and workqueue name (default "endpointslice"). */
  name?: string;
  /** Services synced in parallel (default 5, --concurrent-service-endpoint-syncs). */
  workers?: number;
  /** Endpoints per slice (default 100, --max-endpoints-per-slice). */
  maxEndpointsPerSlice?: number;
  /** Batching of pod changes per Service (ms, default 0: --endpointslice-updates-batch-period). */
  batchPeriodMs?: number;
}

/** The Services in the pod's namespace that select it. */
export function servicesSelecting(services: readonly Service[], pod: Pod): Request[] {
  return services.filter((s) => selects(s, pod)).map((s) => ({ namespace: s.metadata!.namespace!, name: s.metadata!.name! }) as Request);
}

/** Registers the endpointslice controller on `manager`. */
export function createEndpointSliceController(manager: Manager, options: EndpointSliceControllerOptions = {}): Controller {
  const services = manager.factory.informerFor<Service>(Services);
  const pods = manager.factory.informerFor<Pod>(Pods);
  const nodes = manager.factory.informerFor<Node>(Nodes);
  const slices = manager.factory.informerFor<EndpointSlice>(EndpointSlices);
  const api = manager.client.resource<EndpointSlice>(EndpointSlices);
  // Writes the cache has not shown yet, per Service: slice name → generation written (0: deleted).
  const pending = new Map<string, Map<string, number>>();
  const triggers = new TriggerTimeTracker();

  const managedSlices = (svc: Service): EndpointSlice[] =>
    slices.store.byIndex(CONTROLLER_OWNER_INDEX, svc.metadata!.uid!).filter((s) => s.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY);

  /** Has the cache caught up with this controller's last writes for the Service? */
  const synced = (key: string): boolean => {
    const waits = pending.get(key);
    if (!waits) return true;
    for (const [name, generation] of waits) {
      const cached = slices.store.get(`${key.split('/')[0]}/${name}`);
      if (generation === 0 ? cached === undefined : (cached?.metadata?.generation ?? 0) >= generation) waits.delete(name);
    }
    if (waits.size === 0) pending.delete(key);
    return waits.size === 0;
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    const key = `${req.namespace}/${req.name}`;
    if (!synced(key)) return Action.requeue(1000);
    const svc = services.store.get(key);
    if (!svc || svc.metadata?.deletionTimestamp) {
      triggers.forget(req.namespace, req.name);
      return; // the garbage collector removes owned slices
    }
    const selector = serviceSelector(svc);
    const existing = managedSlices(svc);
    const waits = new Map<string, number>();
    const remove = async (s: EndpointSlice) => {
      try {
        await api.delete(s.metadata!.name!, { namespace: req.namespace, preconditions: { uid: s.metadata?.uid } });
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
      }
      waits.set(s.metadata!.name!, 0);
    };
    try {
      if (!selector || svc.spec?.type === 'ExternalName') {
        for (const s of existing) await remove(s);
        return;
      }
      const selected = pods.store.byIndex(NAMESPACE_INDEX, req.namespace ?? '').filter((p) => selects(svc, p));
      const changes = reconcileSlices({
        service: svc,
        pods: selected,
        existing,
        node: (name) => nodes.store.get(name),
        maxEndpointsPerSlice: options.maxEndpointsPerSlice,
        triggerTime: triggers.compute(svc, selected),
      });
      // Creates first, then updates, then deletes: endpoints are never missing in between.
      for (const s of changes.create) {
        const made = await api.create(s, { namespace: req.namespace });
        waits.set(made.metadata!.name!, made.metadata?.generation ?? 1);
      }
      for (const s of changes.update) {
        try {
          const written = await api.update(s, { namespace: req.namespace });
          waits.set(written.metadata!.name!, written.metadata?.generation ?? 1);
        } catch (err) {
          // A stale cache: the watch brings the current slice and wakes the Service again.
          if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue;
          throw err;
        }
      }
      for (const s of changes.delete) await remove(s);
    } finally {
      if (waits.size > 0) pending.set(key, waits);
    }
  };

  const batchWindowMs = options.batchPeriodMs && options.batchPeriodMs > 0 ? options.batchPeriodMs : undefined;
  return manager
    .controller()
    .named(options.name ?? 'endpointslice')
    .for<Service>(Services)
    .owns(EndpointSlices)
    .watches<Pod>(Pods, (pod) => servicesSelecting(services.store.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? ''), pod), { batchWindowMs })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
