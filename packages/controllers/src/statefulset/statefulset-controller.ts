/**
 * The StatefulSet controller (kube-controller-manager's pkg/controller/statefulset), built on the
 * runtime like any user's controller: pods with stable ordinal names and claims, created and
 * deleted in order (OrderedReady) or all at once (Parallel), rolled to new templates by
 * RollingUpdate (with partition and maxUnavailable) or OnDelete, the templates recorded as
 * ControllerRevisions for `kubectl rollout history / undo`.
 */
import { ApiError, labelSelectorFromObject, type LabelSelector } from '@kplane/api';
import {
  Action, CONTROLLER_OWNER_INDEX, ControllerRevisions, NAMESPACE_INDEX, PersistentVolumeClaims, Pods, StatefulSets, TerminalError,
  createEventRecorder, objectKey,
  type Clock, type Controller, type ControllerRevision, type EventRecorder, type Manager, type PersistentVolumeClaim, type Pod, type Request,
  type StatefulSet, type StatefulSetStatus,
} from '@kplane/runtime';
import { deepFreeze } from '@kplane/runtime/internal';
import { createControllerHistory, equalRevision, findEqualRevisions, nextRevision, ownedOrOrphanRevisions, revisionsToTruncate, sortControllerRevisions } from '../history/index.js';
import { claimObjects, controllerOf, isStaleCacheError, recheckOwnerWith } from '../replicaset/controller-ref.js';
import { createOwnWrites } from '../replicaset/own-writes.js';
import { updateStatefulSet } from './control.js';
import { createPodControl } from './pod-control.js';
import { SET_API_VERSION, SET_KIND, completeRollingUpdate, inconsistentStatus, isMemberOf, newRevision, podRevision } from './utils.js';

/** Options of createStatefulSetController. */
export interface StatefulSetControllerOptions {
  /** Controller name, used for metrics and the workqueue (default "statefulset"). */
  name?: string;
  /** StatefulSets reconciled in parallel (default 5, kube-controller-manager's --concurrent-statefulset-syncs). */
  workers?: number;
  /** Time source for availability (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "statefulset-controller"); false records none. */
  recorder?: EventRecorder | false;
}

/** Delay before retrying a sync whose write met a newer version of an object. */
const CONFLICT_RETRY_MS = 50;
/** Index of the pod cache: pods without a controller, by namespace (the adoption candidates). */
const ORPHAN_POD_INDEX = 'statefulset:orphansByNamespace';
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function selectorOf(set: StatefulSet): LabelSelector {
  try {
    return labelSelectorFromObject(set.spec?.selector);
  } catch (err) {
    throw new TerminalError(`error converting StatefulSet ${set.metadata?.namespace}/${set.metadata?.name} selector: ${errorMessage(err)}`);
  }
}

/** The status as written: kube's omitempty fields dropped when zero. */
function compactStatus(status: StatefulSetStatus): StatefulSetStatus {
  const out: StatefulSetStatus = { ...status };
  for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'observedGeneration'] as const) if (!out[k]) delete out[k];
  for (const k of ['currentRevision', 'updateRevision'] as const) if (!out[k]) delete out[k];
  return out;
}

/**
 * Registers the StatefulSet controller on a runtime Manager (workqueue / metrics name
 * "statefulset"). Each sync: adopt orphan revisions, claim the set's pods (by selector and name),
 * find or create the update revision, run one pass of the algorithm, write the status when it
 * changed, and keep at most revisionHistoryLimit revisions no pod uses.
 */
export function createStatefulSetController(manager: Manager, options: StatefulSetControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const recorder =
    options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'statefulset-controller', clock }));
  const setInformer = manager.factory.informerFor<StatefulSet>(StatefulSets);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const revisionInformer = manager.factory.informerFor<ControllerRevision>(ControllerRevisions);
  const claimInformer = manager.factory.informerFor<PersistentVolumeClaim>(PersistentVolumeClaims);
  const setApi = manager.client.resource<StatefulSet>(StatefulSets);
  const podApi = manager.client.resource<Pod>(Pods);
  const history = createControllerHistory(manager.client.resource<ControllerRevision>(ControllerRevisions));
  try {
    podInformer.store.addIndexer(ORPHAN_POD_INDEX, (pod: Pod) => (controllerOf(pod) ? [] : [pod.metadata?.namespace ?? '']));
  } catch {
    // Already added by another StatefulSet controller on this informer: same function.
  }
  const ownWrites = createOwnWrites<StatefulSet>();
  setInformer.addEventHandler({ onDelete: (set) => ownWrites.forget(objectKey(set)) });

  const ops = createPodControl({
    podApi,
    claimApi: manager.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims),
    cachedClaim: (key) => claimInformer.store.get(key),
    cachedPod: (key) => podInformer.store.get(key),
    event: (set, type, reason, message) => void recorder?.event(set, type, reason, message),
  });

  /** The pod's StatefulSet: its controller, or for an orphan the sets whose selector matches it. */
  const podToSets = (pod: Pod): Array<{ namespace: string; name: string }> => {
    const ns = pod.metadata?.namespace ?? '';
    const ref = controllerOf(pod);
    if (ref) return ref.kind === SET_KIND && ref.apiVersion.startsWith('apps/') ? [{ namespace: ns, name: ref.name }] : [];
    if (pod.metadata?.deletionTimestamp) return [];
    const out: Array<{ namespace: string; name: string }> = [];
    for (const set of setInformer.store.byIndex(NAMESPACE_INDEX, ns)) {
      try {
        const sel = labelSelectorFromObject(set.spec?.selector);
        if (!sel.empty && sel.matches(pod.metadata?.labels)) out.push({ namespace: ns, name: set.metadata?.name ?? '' });
      } catch {
        // A set with an invalid selector claims nothing.
      }
    }
    return out;
  };

  /** getStatefulSetRevisions: the current revision and the update one (found, renumbered or created). */
  const revisionsFor = async (set: StatefulSet, revisions: ControllerRevision[]) => {
    let collisionCount = set.status?.collisionCount ?? 0;
    let update = newRevision(set, nextRevision(revisions), collisionCount);
    const equal = findEqualRevisions(revisions, update);
    const last = revisions[revisions.length - 1];
    if (equal.length > 0 && last && equalRevision(last, equal[equal.length - 1])) {
      update = last;
    } else if (equal.length > 0) {
      update = await history.update(equal[equal.length - 1]!, update.revision);
    } else {
      const created = await history.create(set, update, collisionCount);
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  };

  const writeStatus = async (key: string, set: StatefulSet, status: StatefulSetStatus): Promise<void> => {
    completeRollingUpdate(set, status);
    if (!inconsistentStatus(set, status)) return;
    const next = structuredClone(set);
    next.status = compactStatus({ ...(set.status?.conditions ? { conditions: set.status.conditions } : {}), ...status });
    let base = set.metadata?.resourceVersion;
    let written: StatefulSet;
    try {
      written = await setApi.updateStatus(next, { namespace: set.metadata?.namespace });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      const fresh = await setApi.get(set.metadata?.name ?? '', { namespace: set.metadata?.namespace });
      base = fresh.metadata?.resourceVersion;
      fresh.status = next.status;
      written = await setApi.updateStatus(fresh, { namespace: set.metadata?.namespace });
    }
    ownWrites.wrote(key, base, deepFreeze(written));
  };

  const sync = async (req: Request): Promise<Action | void> => {
    const cached = setInformer.store.get(req.key);
    if (!cached) {
      ownWrites.forget(req.key);
      return;
    }
    const set = structuredClone(ownWrites.latest(req.key, cached)) as StatefulSet;
    const selector = selectorOf(set);
    const ns = set.metadata?.namespace ?? '';
    const recheck = recheckOwnerWith(setApi, set, SET_KIND);

    // Adopt orphan revisions matching the selector.
    let revisions = ownedOrOrphanRevisions(set, selector, revisionInformer.store.byIndex(NAMESPACE_INDEX, ns));
    const orphans = revisions.filter((r) => !controllerOf(r));
    if (orphans.length > 0 && !set.metadata?.deletionTimestamp) {
      await recheck();
      const parent = { object: set, apiVersion: SET_API_VERSION, kind: SET_KIND };
      const adopted = new Map<string, ControllerRevision>();
      for (const r of orphans) adopted.set(r.metadata?.uid ?? '', await history.adopt(parent, r));
      revisions = revisions.map((r) => adopted.get(r.metadata?.uid ?? '') ?? r);
    } else {
      revisions = revisions.filter((r) => controllerOf(r));
    }
    revisions = sortControllerRevisions(revisions);

    // Claim pods: controlled or orphaned, matching the selector and named after the set.
    const candidates = [
      ...podInformer.store.byIndex(CONTROLLER_OWNER_INDEX, set.metadata?.uid ?? '').filter((p) => (p.metadata?.namespace ?? '') === ns),
      ...podInformer.store.byIndex(ORPHAN_POD_INDEX, ns),
    ];
    const pods = await claimObjects<Pod>({
      owner: set,
      ownerApiVersion: SET_API_VERSION,
      ownerKind: SET_KIND,
      objects: candidates,
      match: (p) => selector.matches(p.metadata?.labels) && isMemberOf(set, p),
      api: podApi,
      recheckOwner: recheck,
    });

    const { current, update, collisionCount } = await revisionsFor(set, revisions);
    const result = await updateStatefulSet({ set, currentRevision: current, updateRevision: update, collisionCount, pods, ops, nowMs: clock.now() });
    let error = result.error;
    try {
      await writeStatus(req.key, set, result.status);
    } catch (err) {
      error ??= err;
    }
    // Keep revisionHistoryLimit revisions that no pod, and neither current nor update, uses.
    const live = new Set([current.metadata?.name ?? '', update.metadata?.name ?? '', ...pods.map(podRevision)]);
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    const known = revisions.some((r) => r.metadata?.uid === update.metadata?.uid) ? revisions : sortControllerRevisions([...revisions, update]);
    for (const r of limit < 0 ? [] : revisionsToTruncate(known, live, limit)) await history.delete(r);
    if (error !== undefined) throw error;
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && result.status.availableReplicas !== (set.spec?.replicas ?? 1)) return Action.requeue(minReady * 1000);
    return Action.awaitChange();
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    try {
      return await sync(req);
    } catch (err) {
      // A write based on a cache one event behind (a conflict, a pod or revision the cache does
      // not show yet): try again once the cache caught up.
      if (isStaleCacheError(err, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
      if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists') {
        // Our own object the cache does not show yet: soon. One the cache shows (a pod of that
        // name someone else owns): the workqueue's backoff, as kube.
        const name = err.details?.name ?? '';
        const cached = err.details?.kind === 'pods' ? podInformer.store.get(`${req.namespace}/${name}`) : undefined;
        const setUid = setInformer.store.get(req.key)?.metadata?.uid;
        if (!cached || (setUid !== undefined && controllerOf(cached)?.uid === setUid)) return Action.requeue(CONFLICT_RETRY_MS);
      }
      throw err;
    }
  };

  return manager
    .controller()
    .named(options.name ?? 'statefulset')
    // A status this controller wrote comes back as an update of the set: nothing to do for it.
    .for<StatefulSet>(StatefulSets, { predicates: [(c) => c.type !== 'update' || !ownWrites.isOwn(objectKey(c.object), c.object)] })
    .watches<Pod>(Pods, podToSets)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}

