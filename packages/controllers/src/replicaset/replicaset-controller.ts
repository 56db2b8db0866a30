/**
 * The ReplicaSet controller (kube-controller-manager's pkg/controller/replicaset), built on the
 * runtime like any user's controller: keeps `spec.replicas` active pods matching the selector,
 * adopting orphans and releasing pods that stopped matching, and reports the counts in status.
 */
import { ApiError, type KubeObject, type LabelSelector, type OwnerReference } from '@kplane/api';
import {
  Action,
  CONTROLLER_OWNER_INDEX,
  NAMESPACE_INDEX,
  Pods,
  ReplicaSets,
  TerminalError,
  createEventRecorder,
  objectKey,
  formatTime,
  type Clock,
  type Controller,
  type KindDescriptor,
  type EventRecorder,
  type Manager,
  type Pod,
  type ReplicaSet,
  type ReplicaSetCondition,
  type ReplicaSetStatus,
  type Request,
} from '@kplane/runtime';
import { deepFreeze } from '@kplane/runtime/internal';
import { claimObjects, controllerOf, controllerRefTo, isStaleCacheError, recheckOwnerWith } from './controller-ref.js';
import { createExpectations, type Expectations } from './expectations.js';
import { createOwnWrites } from './own-writes.js';
import { factsOf, fullyLabeled, rsFactsOf, selectorOf, selects, type RsFacts } from './pod-facts.js';
import { createPodTally } from './pod-tally.js';
import { isPodAvailable, msUntilAvailable, podKey, podsToDelete } from './pods.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from './slow-start.js';

/** Kubernetes' BurstReplicas: the most pods one sync creates or deletes. */
export const BURST_REPLICAS = 500;
/** Delay before retrying a sync whose write met a newer version of the object. */
const CONFLICT_RETRY_MS = 50;

/** Options of createReplicaSetController. */
export interface ReplicaSetControllerOptions {
  /** Controller name, used for metrics and the workqueue (default "replicaset"). */
  name?: string;
  /** ReplicaSets reconciled in parallel (default 5, kube-controller-manager's --concurrent-replicaset-syncs). */
  workers?: number;
  /** The most pods created or deleted by one sync (default 500). */
  burstReplicas?: number;
  /** Time source for availability and expectations (default: the manager's clock). */
  clock?: Clock;
  /** Unmet expectations older than this are given up (default 5 minutes). */
  expectationsTtlMs?: number;
  /** Where events go (default: a recorder for "replicaset-controller"); false records none. */
  recorder?: EventRecorder | false;
  /**
   * Pod changes that arrive less than this long after a ReplicaSet's last sync started wait for
   * the end of that window (default 25 ms), so a burst of pod events costs one sync (and one
   * status write) per window instead of one each; a lone change still wakes it at once.
   */
  batchWindowMs?: number;
  /**
   * The kind reconciled (default ReplicaSets): another kind with a ReplicaSet's spec and status
   * (a ReplicationController) runs on this engine through a view of its objects as ReplicaSets.
   */
  kind?: ReplicaSetLikeKind;
}

/** A kind the ReplicaSet engine reconciles, seen as ReplicaSets. */
export interface ReplicaSetLikeKind {
  descriptor: KindDescriptor<KubeObject>;
  /** apiVersion and kind written in controller references and events. */
  apiVersion: string;
  kind: string;
  /** The component events are recorded as ("replicaset-controller"). */
  component: string;
  /** The object as a ReplicaSet (memoised per cached object, frozen when the object is). */
  view(obj: KubeObject): ReplicaSet;
  /** The object a view was made of (for writes). */
  original(view: ReplicaSet): KubeObject;
}

/** The ReplicaSet kind itself. */
export const REPLICA_SET_KIND: ReplicaSetLikeKind = {
  descriptor: ReplicaSets as KindDescriptor<KubeObject>,
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  component: 'replicaset-controller',
  view: (obj) => obj as ReplicaSet,
  original: (view) => view,
};

/** Default of ReplicaSetControllerOptions.batchWindowMs. */
export const POD_BATCH_WINDOW_MS = 25;

/** The registered controller, with its expectations (for inspection). */
export type ReplicaSetController = Controller & { readonly expectations: Expectations };

/** Index of the pod cache: pods without a controller owner, by namespace (the adoption candidates). */
export const ORPHAN_POD_INDEX = 'replicaset:orphansByNamespace';

const orphanIndexFunc = (pod: Pod): string[] => (controllerOf(pod) ? [] : [pod.metadata?.namespace ?? '']);

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function namespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/** The pod a ReplicaSet creates from its template (GetPodFromTemplate). */
export function podFromTemplate(rs: ReplicaSet, ref: OwnerReference): Pod {
  const template = rs.spec?.template ?? {};
  const tmeta = template.metadata ?? {};
  const metadata: Pod['metadata'] = { generateName: `${rs.metadata?.name ?? ''}-`, ownerReferences: [ref] };
  if (tmeta.labels) metadata.labels = { ...tmeta.labels };
  if (tmeta.annotations) metadata.annotations = { ...tmeta.annotations };
  if (tmeta.finalizers) metadata.finalizers = [...tmeta.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template.spec ?? { containers: [] }) };
}

/** The replica counts a ReplicaSet reports. */
export interface ReplicaCounts {
  replicas: number;
  fullyLabeled: number;
  ready: number;
  available: number;
}

/** Counts the claimed active pods of a ReplicaSet in one pass (per-pod facts memoised across syncs). */
export function countReplicas(rs: ReplicaSet, pods: Pod[], nowMs: number): ReplicaCounts {
  const rsFacts = rsFactsOf(rs);
  const minReady = rs.spec?.minReadySeconds ?? 0;
  const counts: ReplicaCounts = { replicas: pods.length, fullyLabeled: 0, ready: 0, available: 0 };
  for (const pod of pods) {
    if (fullyLabeled(pod, rsFacts)) counts.fullyLabeled++;
    if (factsOf(pod).ready) {
      counts.ready++;
      if (minReady <= 0 || isPodAvailable(pod, minReady, nowMs)) counts.available++;
    }
  }
  return counts;
}

/** The status a ReplicaSet should report for these counts of its claimed active pods (calculateStatus). */
export function replicaSetStatusFromCounts(rs: ReplicaSet, counts: ReplicaCounts, manageError: unknown, nowMs: number): ReplicaSetStatus {
  const status: ReplicaSetStatus = structuredClone(rs.status ?? { replicas: 0 });
  const failure = status.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (manageError !== undefined && !failure) {
    const diff = counts.replicas - (rs.spec?.replicas ?? 1);
    const cond: ReplicaSetCondition = {
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: formatTime(nowMs),
      reason: diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '',
      message: errorMessage(manageError),
    };
    status.conditions = [...(status.conditions ?? []), cond];
  } else if (manageError === undefined && failure) {
    status.conditions = status.conditions!.filter((c) => c.type !== 'ReplicaFailure');
    if (status.conditions.length === 0) delete status.conditions;
  }
  status.replicas = counts.replicas;
  status.fullyLabeledReplicas = counts.fullyLabeled;
  status.readyReplicas = counts.ready;
  status.availableReplicas = counts.available;
  return status;
}

/** The status a ReplicaSet should report for its claimed active pods (calculateStatus). */
export function calculateReplicaSetStatus(rs: ReplicaSet, pods: Pod[], manageError: unknown, nowMs: number): ReplicaSetStatus {
  return replicaSetStatusFromCounts(rs, countReplicas(rs, pods, nowMs), manageError, nowMs);
}

/** Drops zero counters as Go's omitempty does on the wire (replicas is always written). */
function compact(status: ReplicaSetStatus): ReplicaSetStatus {
  const out = { ...status };
  for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    if (!out[k]) delete out[k];
  }
  return out;
}

function sameStatus(rs: ReplicaSet, next: ReplicaSetStatus): boolean {
  const cur = rs.status ?? { replicas: 0 };
  return (
    (cur.replicas ?? 0) === next.replicas &&
    (cur.fullyLabeledReplicas ?? 0) === (next.fullyLabeledReplicas ?? 0) &&
    (cur.readyReplicas ?? 0) === (next.readyReplicas ?? 0) &&
    (cur.availableReplicas ?? 0) === (next.availableReplicas ?? 0) &&
    (rs.metadata?.generation ?? 0) === (cur.observedGeneration ?? 0) &&
    JSON.stringify(cur.conditions ?? []) === JSON.stringify(next.conditions ?? [])
  );
}

/**
 * Registers the ReplicaSet controller on `manager` (named "replicaset" unless told otherwise).
 *
 * Guarantees:
 * - Pods are created with generateName `<rs>-`, the template's labels, annotations, finalizers
 *   and spec, and a controller reference (controller and blockOwnerDeletion true).
 * - Expectations: after creating or deleting pods, a ReplicaSet does not count its pods again
 *   until the cache has shown every one of those creations and deletions (or 5 minutes
 *   passed), so no burst of events makes it create or delete twice.
 * - Creations go in slow-start batches (1, 2, 4 …), at most `burstReplicas` per sync.
 * - Pods to delete are chosen in Kubernetes' order (unscheduled, pending, not ready, doubled
 *   up on a node, ready most recently, most restarts, newest).
 * - Only active pods count (not terminal, not being deleted); orphans matching the selector are
 *   adopted (never by a ReplicaSet being deleted), pods that stop matching are released.
 * - status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas with
 *   minReadySeconds, observedGeneration, the ReplicaFailure condition) is written through the
 *   status subresource, only when it changed.
 * - Cost: a sync reads its pod counts from a tally kept by the pod events (no walk over its
 *   pods unless it deletes some or minReadySeconds is set); pod events within `batchWindowMs`
 *   of a sync are handled together at the window's end; the next status write starts from the
 *   last one written, not from a cache that has not seen it yet.
 */
export function createReplicaSetController(manager: Manager, options: ReplicaSetControllerOptions = {}): ReplicaSetController {
  const clock = options.clock ?? manager.clock;
  const rsKind = options.kind ?? REPLICA_SET_KIND;
  const RS_API_VERSION = rsKind.apiVersion;
  const RS_KIND = rsKind.kind;
  const RS_GROUP = groupOf(RS_API_VERSION);
  const view = rsKind.view;
  /** Does a controller reference point to this kind (any version of its group)? */
  const isOurs = (ref: OwnerReference): boolean => ref.kind === RS_KIND && groupOf(ref.apiVersion) === RS_GROUP;
  const burst = options.burstReplicas ?? BURST_REPLICAS;
  const expectations = createExpectations({ clock, ttlMs: options.expectationsTtlMs });
  const recorder =
    options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: rsKind.component, clock }));
  const rsInformer = manager.factory.informerFor<KubeObject>(rsKind.descriptor);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const rsApi = manager.client.resource<KubeObject>(rsKind.descriptor);
  const podApi = manager.client.resource<Pod>(Pods);
  try {
    podInformer.store.addIndexer(ORPHAN_POD_INDEX, orphanIndexFunc);
  } catch {
    // Already added by another ReplicaSet controller on this informer: same function.
  }

  const event = (rs: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...rs, apiVersion: RS_API_VERSION, kind: RS_KIND }, type, reason, message);
  };

  /** The key of the ReplicaSet a controller reference points to, if it is in the cache with that uid. */
  const resolveRef = (namespace: string, ref: OwnerReference | undefined): string | undefined => {
    if (!ref || !isOurs(ref)) return undefined;
    const key = `${namespace}/${ref.name}`;
    return rsInformer.store.get(key)?.metadata?.uid === ref.uid ? key : undefined;
  };
  const podGone = (pod: Pod): void => {
    const key = resolveRef(pod.metadata?.namespace ?? '', controllerOf(pod));
    if (key) expectations.deletionObserved(key, podKey(pod));
  };
  // Pod counts per ReplicaSet, kept current by the pod events (a sync reads them in O(1)).
  const tally = createPodTally(podInformer.store);
  // The status this controller last wrote, until its cache shows it (no 409 on the next write).
  const ownWrites = createOwnWrites<KubeObject>();
  podInformer.addEventHandler({
    onAdd(pod) {
      tally.observe(undefined, pod);
      if (pod.metadata?.deletionTimestamp) return podGone(pod);
      const key = resolveRef(pod.metadata?.namespace ?? '', controllerOf(pod));
      if (key) expectations.creationObserved(key);
    },
    onUpdate(old, pod) {
      tally.observe(old, pod);
      if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
      if (pod.metadata?.deletionTimestamp) {
        podGone(pod);
        if (JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {})) podGone(old);
      }
    },
    onDelete(pod) {
      tally.observe(pod, undefined);
      podGone(pod);
    },
  });
  rsInformer.addEventHandler({
    onDelete: (rs) => {
      const key = `${rs.metadata?.namespace ?? ''}/${rs.metadata?.name ?? ''}`;
      expectations.delete(key);
      ownWrites.forget(key);
      tally.forget(rs.metadata?.uid ?? '');
    },
  });

  /** ReplicaSets of a namespace whose selector matches an orphan pod's labels. */
  const replicaSetsForOrphan = (pod: Pod): Array<{ namespace: string; name: string }> => {
    if (pod.metadata?.deletionTimestamp) return [];
    const ns = pod.metadata?.namespace ?? '';
    const out: Array<{ namespace: string; name: string }> = [];
    for (const raw of rsInformer.store.byIndex(NAMESPACE_INDEX, ns)) {
      const rs = view(raw);
      let sel: LabelSelector;
      try {
        sel = selectorOf(rs);
      } catch {
        continue;
      }
      if (!sel.empty && sel.matches(pod.metadata?.labels)) out.push({ namespace: ns, name: rs.metadata?.name ?? '' });
    }
    return out;
  };
  const podToReplicaSets = (pod: Pod): Array<{ namespace: string; name: string }> => {
    const ref = controllerOf(pod);
    if (ref) return isOurs(ref) ? [{ namespace: pod.metadata?.namespace ?? '', name: ref.name }] : [];
    return replicaSetsForOrphan(pod);
  };

  /** Pods of the ReplicaSets that share this one's controller (for the deletion ranking). */
  const relatedPods = (rs: ReplicaSet): Pod[] => {
    const owner = controllerOf(rs);
    if (!owner) return [];
    const ns = rs.metadata?.namespace ?? '';
    const seen = new Set<string>();
    const out: Pod[] = [];
    const nsPods = podInformer.store.byIndex(NAMESPACE_INDEX, ns);
    for (const rawSibling of rsInformer.store.byIndex(CONTROLLER_OWNER_INDEX, owner.uid)) {
      const sibling = view(rawSibling);
      if ((sibling.metadata?.namespace ?? '') !== ns) continue;
      let sel: LabelSelector;
      try {
        sel = selectorOf(sibling);
      } catch {
        continue;
      }
      for (const p of nsPods) {
        const uid = p.metadata?.uid ?? '';
        if (seen.has(uid) || !sel.matches(p.metadata?.labels)) continue;
        seen.add(uid);
        out.push(p);
      }
    }
    return out;
  };

  const createPod = async (rs: ReplicaSet, ref: OwnerReference): Promise<void> => {
    try {
      const created = await podApi.create(podFromTemplate(rs, ref), { namespace: rs.metadata?.namespace });
      event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
    } catch (err) {
      event(rs, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      if (namespaceTerminating(err)) return; // every later create fails the same way: nothing to retry
      throw err;
    }
  };

  /** The active pods in its namespace that a ReplicaSet controls and its selector matches. */
  const controlledMatching = (rs: ReplicaSet, rsFacts: RsFacts): Pod[] => {
    const ns = rs.metadata?.namespace ?? '';
    return podInformer.store
      .byIndex(CONTROLLER_OWNER_INDEX, rs.metadata?.uid ?? '')
      .filter((p) => (p.metadata?.namespace ?? '') === ns && factsOf(p).active && selects(rsFacts, p));
  };

  /** Creates or deletes pods so that `replicas` (the claimed active pods, listed by `pods`) meets spec.replicas. */
  const manageReplicas = async (key: string, rs: ReplicaSet, replicas: number, pods: () => Pod[]): Promise<void> => {
    const diff = replicas - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const count = Math.min(-diff, burst);
      expectations.expectCreations(key, count);
      const ref = controllerRefTo(rs, RS_API_VERSION, RS_KIND);
      const result = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, () => createPod(rs, ref));
      // Creations never attempted will never be observed.
      for (let i = result.successes; i < count; i++) expectations.creationObserved(key);
      if (result.error !== undefined) throw result.error;
    } else if (diff > 0) {
      const count = Math.min(diff, burst);
      const victims = podsToDelete(pods(), relatedPods(rs), count, clock.now());
      expectations.expectDeletions(key, victims.map(podKey));
      const errors: unknown[] = [];
      await Promise.all(
        victims.map(async (pod) => {
          const name = pod.metadata?.name ?? '';
          try {
            await podApi.delete(name, { namespace: pod.metadata?.namespace });
            event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
          } catch (err) {
            // The deletion will not be observed as our doing: stop waiting for it.
            expectations.deletionObserved(key, podKey(pod));
            if (err instanceof ApiError && err.code === 404) return;
            event(rs, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
            errors.push(err);
          }
        }),
      );
      if (errors.length > 0) throw errors[0];
    }
  };

  const writeStatus = async (key: string, rs: ReplicaSet, status: ReplicaSetStatus): Promise<void> => {
    if (sameStatus(rs, status)) return;
    const next = structuredClone(rsKind.original(rs));
    next.status = compact({ ...status, observedGeneration: rs.metadata?.generation });
    let base = rs.metadata?.resourceVersion;
    let written: KubeObject;
    try {
      written = await rsApi.updateStatus(next, { namespace: rs.metadata?.namespace });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      // One retry on a fresh copy, as the Kubernetes controller does.
      const fresh = await rsApi.get(rs.metadata?.name ?? '', { namespace: rs.metadata?.namespace });
      base = fresh.metadata?.resourceVersion;
      fresh.status = compact({ ...status, observedGeneration: fresh.metadata?.generation });
      written = await rsApi.updateStatus(fresh, { namespace: rs.metadata?.namespace });
    }
    ownWrites.wrote(key, base, deepFreeze(written));
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    try {
      return await syncReplicaSet(req);
    } catch (err) {
      // A write based on a cache one event behind: try again once the cache caught up.
      if (isStaleCacheError(err, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
      throw err;
    }
  };

  const syncReplicaSet = async (req: Request): Promise<Action | void> => {
    const cached = rsInformer.store.get(req.key);
    if (!cached) {
      expectations.delete(req.key);
      ownWrites.forget(req.key);
      return;
    }
    const rs = view(ownWrites.latest(req.key, cached));
    // Deletions the cache already shows (gone or terminating) count even if their event was missed.
    for (const key of expectations.pending(req.key)?.deleting ?? []) {
      const pod = podInformer.store.get(key);
      if (!pod || pod.metadata?.deletionTimestamp) expectations.deletionObserved(req.key, key);
    }
    const needsSync = expectations.satisfied(req.key);
    try {
      selectorOf(rs);
    } catch (err) {
      throw new TerminalError(`error converting pod selector to selector for rs ${req.key}: ${errorMessage(err)}`);
    }
    // Only pods this ReplicaSet controls and orphans can be claimed (claimObjects skips pods of
    // other controllers). Controlled active pods that still match are counted by the tally; the
    // rest (controlled ones to release, orphans to adopt) go through claimObjects.
    const rsFacts = rsFactsOf(rs);
    const counts = tally.countsFor(rs);
    const kept = { matched: counts.matched, fullyLabeled: counts.fullyLabeled, ready: counts.ready };
    const toClaim: Pod[] = [];
    for (const key of counts.unmatched) {
      const p = podInformer.store.get(key);
      if (p && factsOf(p).active) toClaim.push(p);
    }
    for (const p of podInformer.store.byIndex(ORPHAN_POD_INDEX, req.namespace)) if (factsOf(p).active) toClaim.push(p);
    const minReady = rs.spec?.minReadySeconds ?? 0;
    // The kept pods themselves are listed (O(pods)) only when they are needed: to choose pods to
    // delete, or to tell availability under minReadySeconds.
    const mayDelete = needsSync && kept.matched + toClaim.length > (rs.spec?.replicas ?? 1);
    const keptPods = minReady > 0 || mayDelete ? controlledMatching(rs, rsFacts) : undefined;
    const claimed =
      toClaim.length === 0
        ? []
        : await claimObjects<Pod>({
            owner: rs,
            ownerApiVersion: RS_API_VERSION,
            ownerKind: RS_KIND,
            objects: toClaim,
            match: (p) => selects(rsFacts, p),
            api: podApi,
            recheckOwner: recheckOwnerWith(rsApi, rs, RS_KIND),
          });
    const replicas = kept.matched + claimed.length;
    const pods = (): Pod[] => {
      const list = keptPods ?? controlledMatching(rs, rsFacts);
      return claimed.length === 0 ? list : list.concat(claimed);
    };
    let manageError: unknown;
    if (needsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await manageReplicas(req.key, rs, replicas, pods);
      } catch (err) {
        manageError = err;
      }
    }
    const now = clock.now();
    let replicaCounts: ReplicaCounts;
    if (minReady > 0) replicaCounts = countReplicas(rs, pods(), now);
    else {
      const extra = countReplicas(rs, claimed, now);
      replicaCounts = { replicas, fullyLabeled: kept.fullyLabeled + extra.fullyLabeled, ready: kept.ready + extra.ready, available: kept.ready + extra.available };
    }
    await writeStatus(req.key, rs, replicaSetStatusFromCounts(rs, replicaCounts, manageError, now));
    if (manageError !== undefined) throw manageError;
    // Come back when the next ready pod has been ready for minReadySeconds.
    if (minReady > 0) {
      let next = Infinity;
      for (const p of pods()) {
        const ms = msUntilAvailable(p, minReady, now);
        if (ms > 0 && ms < next) next = ms;
      }
      if (next !== Infinity) return Action.requeue(next + 5);
    }
    return Action.awaitChange();
  };

  const controller = manager
    .controller()
    .named(options.name ?? (rsKind === REPLICA_SET_KIND ? 'replicaset' : 'replicationmanager'))
    // A status this controller wrote comes back as an update of the ReplicaSet: nothing to do for it.
    .for<KubeObject>(rsKind.descriptor, { predicates: [(c) => c.type !== 'update' || !ownWrites.isOwn(objectKey(c.object), c.object)] })
    .watches<Pod>(Pods, podToReplicaSets, { batchWindowMs: options.batchWindowMs ?? POD_BATCH_WINDOW_MS })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
  return Object.assign(controller, { expectations });
}
