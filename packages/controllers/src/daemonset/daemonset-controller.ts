/**
 * The DaemonSet controller (kube-controller-manager's pkg/controller/daemon), built on the
 * runtime like any user's controller: one pod on every node a DaemonSet's template may run on,
 * pinned there by a required node affinity on `metadata.name` and placed by the scheduler;
 * rolling updates within maxUnavailable or maxSurge, or OnDelete; ControllerRevisions for
 * `kubectl rollout history / undo`; the full status.
 */
import { ApiError, labelSelectorFromObject, type KubeObject, type LabelSelector } from '@kplane/api';
import {
  Action,
  CONTROLLER_OWNER_INDEX,
  ControllerRevisions,
  DaemonSets,
  NAMESPACE_INDEX,
  Nodes,
  Pods,
  TerminalError,
  createEventRecorder,
  objectKey,
  type Clock,
  type Controller,
  type ControllerRevision,
  type DaemonSet,
  type DaemonSetStatus,
  type EventRecorder,
  type Manager,
  type Node,
  type Pod,
  type Request,
} from '@kplane/runtime';
import { deepFreeze, effectiveTaints } from '@kplane/runtime/internal';
import { createControllerHistory } from '../history/index.js';
import { claimObjects, controllerOf, controllerRefTo, isStaleCacheError, recheckOwnerWith } from '../replicaset/controller-ref.js';
import { createExpectations, type Expectations } from '../replicaset/expectations.js';
import { createOwnWrites } from '../replicaset/own-writes.js';
import { podKey } from '../replicaset/pods.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../replicaset/slow-start.js';
import { cleanupHistory, constructHistory } from './history.js';
import { podsShouldBeOnNode, rollingUpdatePlan, statusCounts, type DaemonSetCounts, type PlanEvent } from './plan.js';
import { DAEMONSET_HASH_LABEL, createFailedPodBackoff, createPodTemplate, daemonPodForPredicates, isPodTerminal, nodeShouldRunDaemonPod, pinToNode, targetNodeName, type NodePlacement } from './util.js';

/** Kubernetes' BurstReplicas for DaemonSets: the most pods one sync creates or deletes. */
export const DAEMONSET_BURST_REPLICAS = 250;
/** Default of DaemonSetControllerOptions.batchWindowMs. */
export const DAEMONSET_BATCH_WINDOW_MS = 25;

/** Options of createDaemonSetController. */
export interface DaemonSetControllerOptions {
  /** Controller name, used for metrics and the workqueue (default "daemonset"). */
  name?: string;
  /** DaemonSets reconciled in parallel (default 2, kube-controller-manager's --concurrent-daemonset-syncs). */
  workers?: number;
  /** The most pods created or deleted by one sync (default 250). */
  burstReplicas?: number;
  /** Time source for availability, expectations and the failed-pod backoff (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "daemonset-controller"); false records none. */
  recorder?: EventRecorder | false;
  /** Pod and node changes within this long of a DaemonSet's last sync wait for the window's end (default 25 ms). */
  batchWindowMs?: number;
  /** Backoff before deleting a node's failed daemon pod again: first and longest delay (default 1 s and 15 min). */
  failedPodBackoff?: { initialMs?: number; maxMs?: number };
}

/** The registered controller, with its expectations (for inspection). */
export type DaemonSetController = Controller & { readonly expectations: Expectations };

/** Index of the pod cache: pods without a controller owner, by namespace (the adoption candidates). */
const ORPHAN_POD_INDEX = 'daemonset:orphansByNamespace';

const API_VERSION = 'apps/v1';
const KIND = 'DaemonSet';
const CONFLICT_RETRY_MS = 50;
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

function selectorOf(ds: DaemonSet): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(ds.spec?.selector as Parameters<typeof labelSelectorFromObject>[0]);
  } catch {
    return undefined;
  }
}

function namespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/**
 * Registers the DaemonSet controller on `manager` (named "daemonset" unless told otherwise).
 *
 * Guarantees:
 * - Each node whose labels match the template's nodeSelector and required node affinity and whose
 *   NoSchedule/NoExecute taints the pod tolerates (with the DaemonSet's default tolerations) gets
 *   one pod, `<name>-xxxxx`, with `controller-revision-hash` and `pod-template-generation`
 *   labels and a required node affinity `metadata.name In [node]`; the scheduler binds it.
 * - A node that stops qualifying loses its pod (only an untolerated NoExecute taint evicts a
 *   running one); failed pods are deleted (with a per-node backoff) and replaced, succeeded ones
 *   deleted; unscheduled pods of nodes that no longer exist are deleted (bound ones are left to
 *   the pod garbage collector).
 * - Expectations: after creating or deleting pods, a DaemonSet does not act again until the
 *   cache has shown them (or 5 minutes passed); at most `burstReplicas` creations and deletions
 *   per sync, creations in slow-start batches.
 * - RollingUpdate replaces pods within maxUnavailable (delete, then create) or maxSurge (create
 *   beside, delete once available); OnDelete only creates pods where old ones were deleted.
 * - Status (desired, current, misscheduled, ready, updated, available, unavailable counts and
 *   observedGeneration) is written through the status subresource only when it changed.
 */
export function createDaemonSetController(manager: Manager, options: DaemonSetControllerOptions = {}): DaemonSetController {
  const clock = options.clock ?? manager.clock;
  const burst = options.burstReplicas ?? DAEMONSET_BURST_REPLICAS;
  const window = options.batchWindowMs ?? DAEMONSET_BATCH_WINDOW_MS;
  const backoffInitial = options.failedPodBackoff?.initialMs ?? 1000;
  const backoffMax = options.failedPodBackoff?.maxMs ?? 15 * 60_000;
  const expectations = createExpectations({ clock });
  const recorder =
    options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'daemonset-controller', clock }));
  const dsInformer = manager.factory.informerFor<DaemonSet>(DaemonSets);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const nodeInformer = manager.factory.informerFor<Node>(Nodes);
  const revInformer = manager.factory.informerFor<ControllerRevision>(ControllerRevisions);
  const dsApi = manager.client.resource<DaemonSet>(DaemonSets);
  const podApi = manager.client.resource<Pod>(Pods);
  const revApi = manager.client.resource<ControllerRevision>(ControllerRevisions);
  const historyDeps = { history: createControllerHistory(revApi), revApi, dsApi, podApi };
  try {
    podInformer.store.addIndexer(ORPHAN_POD_INDEX, (pod: Pod) => (controllerOf(pod) ? [] : [pod.metadata?.namespace ?? '']));
  } catch {
    // Already added by another DaemonSet controller on this informer: same function.
  }

  const event = (ds: DaemonSet, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...ds, apiVersion: API_VERSION, kind: KIND } as KubeObject, type, reason, message);
  };
  const ownWrites = createOwnWrites<DaemonSet>();

  // The failed-pod backoff (flowcontrol.Backoff): per DaemonSet uid, generation and node.
  const backoff = createFailedPodBackoff(clock, backoffInitial, backoffMax);
  const failedBackoff = (ds: DaemonSet) => (nodeName: string) => {
    backoff.gc();
    return backoff.next(`${ds.metadata?.uid ?? ''}/${ds.status?.observedGeneration ?? 0}/${nodeName}`);
  };

  /** The key of the DaemonSet a controller reference points to, if it is in the cache with that uid. */
  const resolveRef = (namespace: string, ref: { kind: string; name: string; uid: string } | undefined): string | undefined => {
    if (!ref || ref.kind !== KIND) return undefined;
    const key = `${namespace}/${ref.name}`;
    return dsInformer.store.get(key)?.metadata?.uid === ref.uid ? key : undefined;
  };
  const podGone = (pod: Pod): void => {
    const key = resolveRef(pod.metadata?.namespace ?? '', controllerOf(pod));
    if (key) expectations.deletionObserved(key, podKey(pod));
  };
  podInformer.addEventHandler({
    onAdd(pod) {
      if (pod.metadata?.deletionTimestamp) return podGone(pod);
      const key = resolveRef(pod.metadata?.namespace ?? '', controllerOf(pod));
      if (key) expectations.creationObserved(key);
    },
    onUpdate(old, pod) {
      if (pod.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp) podGone(pod);
    },
    onDelete: podGone,
  });
  dsInformer.addEventHandler({
    onDelete(ds) {
      expectations.delete(keyOf(ds));
      ownWrites.forget(keyOf(ds));
    },
  });

  /** DaemonSets of a namespace whose selector matches an orphan's labels. */
  const selecting = (obj: KubeObject): Array<{ namespace: string; name: string }> => {
    const ns = obj.metadata?.namespace ?? '';
    const out: Array<{ namespace: string; name: string }> = [];
    for (const ds of dsInformer.store.byIndex(NAMESPACE_INDEX, ns)) {
      const sel = selectorOf(ds);
      if (sel && !sel.empty && sel.matches(obj.metadata?.labels)) out.push({ namespace: ns, name: ds.metadata?.name ?? '' });
    }
    return out;
  };
  const ownerOrSelecting = (obj: KubeObject): Array<{ namespace: string; name: string }> => {
    const ref = controllerOf(obj);
    if (ref) return ref.kind === KIND && ref.apiVersion.startsWith('apps/') ? [{ namespace: obj.metadata?.namespace ?? '', name: ref.name }] : [];
    return obj.metadata?.deletionTimestamp ? [] : selecting(obj);
  };
  const allDaemonSets = (): Array<{ namespace: string; name: string }> =>
    dsInformer.store.list().map((ds) => ({ namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '' }));
  // A node update matters when its labels or (effective) taints change (shouldIgnoreNodeUpdate):
  // a node turning Ready loses its inferred not-ready taint.
  const nodeChanged = (c: { type: string; old?: Node; object: Node }): boolean =>
    c.type !== 'update' ||
    JSON.stringify(c.old?.metadata?.labels ?? {}) !== JSON.stringify(c.object.metadata?.labels ?? {}) ||
    JSON.stringify(effectiveTaints(c.old ?? {})) !== JSON.stringify(effectiveTaints(c.object));

  /** The pods a DaemonSet controls in the cache (terminating ones included), after adopting orphans and releasing mismatches. */
  const claimPods = async (ds: DaemonSet, selector: LabelSelector): Promise<Pod[]> => {
    const ns = ds.metadata?.namespace ?? '';
    const owned: Pod[] = [];
    const toClaim: Pod[] = [];
    for (const p of podInformer.store.byIndex(CONTROLLER_OWNER_INDEX, ds.metadata?.uid ?? '')) {
      if ((p.metadata?.namespace ?? '') !== ns) continue;
      if (selector.matches(p.metadata?.labels)) owned.push(p);
      else toClaim.push(p);
    }
    for (const p of podInformer.store.byIndex(ORPHAN_POD_INDEX, ns)) if (!p.metadata?.deletionTimestamp && selector.matches(p.metadata?.labels)) toClaim.push(p);
    if (toClaim.length === 0) return owned;
    const claimed = await claimObjects<Pod>({
      owner: ds,
      ownerApiVersion: API_VERSION,
      ownerKind: KIND,
      objects: toClaim,
      match: (p) => selector.matches(p.metadata?.labels),
      api: podApi,
      recheckOwner: recheckOwnerWith(dsApi, ds, KIND),
    });
    return owned.concat(claimed);
  };

  /** getNodesToDaemonPods: pods by the node they are for (deleted terminal pods only when asked). */
  const byNode = (pods: readonly Pod[], includeDeletedTerminal: boolean): Map<string, Pod[]> => {
    const map = new Map<string, Pod[]>();
    for (const pod of pods) {
      if (!includeDeletedTerminal && pod.metadata?.deletionTimestamp && isPodTerminal(pod)) continue;
      const node = targetNodeName(pod);
      if (node === undefined) continue;
      const list = map.get(node);
      if (list) list.push(pod);
      else map.set(node, [pod]);
    }
    return map;
  };

  const createPod = async (ds: DaemonSet, template: ReturnType<typeof createPodTemplate>, nodeName: string): Promise<void> => {
    const spec = structuredClone(template.spec ?? { containers: [] });
    pinToNode(spec, nodeName);
    const tmeta = template.metadata ?? {};
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${ds.metadata?.name ?? ''}-`,
        ...(tmeta.labels ? { labels: { ...tmeta.labels } } : {}),
        ...(tmeta.annotations ? { annotations: { ...tmeta.annotations } } : {}),
        ...(tmeta.finalizers ? { finalizers: [...tmeta.finalizers] } : {}),
        ownerReferences: [controllerRefTo(ds as KubeObject, API_VERSION, KIND)],
      },
      spec,
    };
    try {
      const created = await podApi.create(pod, { namespace: ds.metadata?.namespace });
      event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
    } catch (err) {
      event(ds, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      throw err;
    }
  };

  /**
   * syncNodes: deletes the pods and creates pods on the nodes (at most `burst` of each), with
   * expectations set first.
   */
  const syncNodes = async (key: string, ds: DaemonSet, podsToDelete: string[], nodesNeeding: string[], hash: string): Promise<void> => {
    const ns = ds.metadata?.namespace ?? '';
    const creates = nodesNeeding.slice(0, burst);
    const deletes = podsToDelete.slice(0, burst);
    if (creates.length === 0 && deletes.length === 0) return;
    expectations.expectCreationsAndDeletions(key, creates.length, deletes.map((n) => `${ns}/${n}`));
    const errors: unknown[] = [];
    if (creates.length > 0) {
      const template = createPodTemplate(ds, hash);
      let next = 0;
      const result = await slowStartBatch(creates.length, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        const node = creates[next++]!;
        try {
          await createPod(ds, template, node);
        } catch (err) {
          expectations.creationObserved(key);
          if (namespaceTerminating(err)) return; // every later create fails the same way
          throw err;
        }
      });
      // Creations never attempted will never be observed.
      for (let i = next; i < creates.length; i++) expectations.creationObserved(key);
      if (result.error !== undefined) errors.push(result.error);
    }
    await Promise.all(
      deletes.map(async (name) => {
        try {
          await podApi.delete(name, { namespace: ns });
          event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        } catch (err) {
          expectations.deletionObserved(key, `${ns}/${name}`);
          if (err instanceof ApiError && err.code === 404) return;
          event(ds, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
          errors.push(err);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  };

  /** storeDaemonSetStatus: writes the counts (and observedGeneration when asked) unless nothing changed. */
  const writeStatus = async (key: string, ds: DaemonSet, c: DaemonSetCounts, updateObservedGen: boolean): Promise<void> => {
    const cur = ds.status;
    const same =
      (cur?.desiredNumberScheduled ?? 0) === c.desiredNumberScheduled &&
      (cur?.currentNumberScheduled ?? 0) === c.currentNumberScheduled &&
      (cur?.numberMisscheduled ?? 0) === c.numberMisscheduled &&
      (cur?.numberReady ?? 0) === c.numberReady &&
      (cur?.updatedNumberScheduled ?? 0) === c.updatedNumberScheduled &&
      (cur?.numberAvailable ?? 0) === c.numberAvailable &&
      (cur?.numberUnavailable ?? 0) === c.numberUnavailable &&
      (cur?.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0);
    if (same) return;
    const build = (base: DaemonSet): DaemonSet => {
      const status: DaemonSetStatus = { ...(base.status ?? {}), ...c } as DaemonSetStatus;
      if (updateObservedGen) status.observedGeneration = base.metadata?.generation;
      // Go's omitempty: these counters are left out when zero.
      for (const k of ['observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'] as const) if (!status[k]) delete status[k];
      return { ...structuredClone(base), status };
    };
    let base = ds.metadata?.resourceVersion;
    let written: DaemonSet;
    try {
      written = await dsApi.updateStatus(build(ds), { namespace: ds.metadata?.namespace });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      // One retry on a fresh copy (StatusUpdateRetries).
      const fresh = await dsApi.get(ds.metadata?.name ?? '', { namespace: ds.metadata?.namespace });
      base = fresh.metadata?.resourceVersion;
      written = await dsApi.updateStatus(build(fresh), { namespace: ds.metadata?.namespace });
    }
    ownWrites.wrote(key, base, deepFreeze(written));
  };

  const syncDaemonSet = async (req: Request): Promise<Action | void> => {
    const cached = dsInformer.store.get(req.key);
    if (!cached) {
      expectations.delete(req.key);
      ownWrites.forget(req.key);
      return;
    }
    const ds = structuredClone(ownWrites.latest(req.key, cached)) as DaemonSet;
    const selector = selectorOf(ds);
    if (!selector) throw new TerminalError(`daemon set ${req.key} has an invalid selector`);
    if (selector.empty) {
      event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    // A DaemonSet being deleted: its pods and revisions go with it; its status is not kept.
    if (ds.metadata?.deletionTimestamp) return;
    const ns = ds.metadata?.namespace ?? '';
    for (const k of expectations.pending(req.key)?.deleting ?? []) {
      const p = podInformer.store.get(k);
      if (!p || p.metadata?.deletionTimestamp) expectations.deletionObserved(req.key, k);
    }
    let pods = await claimPods(ds, selector);
    const { cur, old } = await constructHistory(historyDeps, ds, selector, revInformer.store.byIndex(NAMESPACE_INDEX, ns), () => pods);
    const hash = cur.metadata?.labels?.[DAEMONSET_HASH_LABEL] ?? '';
    const nodes = nodeInformer.store.list();
    const probe = daemonPodForPredicates(ds);
    const placements = new Map<string, NodePlacement>();
    for (const n of nodes) placements.set(n.metadata?.name ?? '', nodeShouldRunDaemonPod(n, probe));
    const minReady = ds.spec?.minReadySeconds ?? 0;

    const status = async (updateObservedGen: boolean): Promise<Action | void> => {
      const counts = statusCounts(ds, nodes, placements, byNode(pods, false), hash, clock.now());
      await writeStatus(req.key, ds, counts, updateObservedGen);
      // Come back when ready pods may have become available.
      if (minReady > 0 && counts.numberReady !== counts.numberAvailable) return Action.requeue(minReady * 1000);
    };
    if (!expectations.satisfied(req.key)) return status(false);

    let syncError: unknown;
    let requeueMs: number | undefined;
    try {
      // manage: one pod per node that should run one.
      const nodeToPods = byNode(pods, false);
      const needing: string[] = [];
      const toDelete: string[] = [];
      const events: PlanEvent[] = [];
      const now = clock.now();
      for (const node of nodes) {
        const name = node.metadata?.name ?? '';
        const plan = podsShouldBeOnNode(node, placements.get(name)!, nodeToPods.get(name), ds, hash, now, failedBackoff(ds));
        if (plan.create) needing.push(name);
        for (const p of plan.deletePods) toDelete.push(p.metadata?.name ?? '');
        events.push(...plan.events);
        if (plan.requeueMs !== undefined) requeueMs = Math.min(requeueMs ?? Infinity, plan.requeueMs);
      }
      // getUnscheduledPodsWithoutNode: pods meant for a node that no longer exists and never
      // bound to it will never be scheduled; bound ones are the pod garbage collector's.
      for (const [name, list] of nodeToPods) {
        if (placements.has(name)) continue;
        for (const p of list) {
          if (p.metadata?.deletionTimestamp || p.spec?.nodeName) continue;
          toDelete.push(p.metadata?.name ?? '');
        }
      }
      for (const e of events) event(ds, e.type, e.reason, e.message);
      await syncNodes(req.key, ds, toDelete, needing, hash);
      if (expectations.satisfied(req.key) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        const current = byNode(podInformer.store.byIndex(CONTROLLER_OWNER_INDEX, ds.metadata?.uid ?? '').filter((p) => (p.metadata?.namespace ?? '') === ns), false);
        let desired = 0;
        for (const [name, placement] of placements) {
          if (!placement.shouldRun) continue;
          desired++;
          if (!current.has(name)) current.set(name, []);
        }
        const plan = rollingUpdatePlan(ds, current, desired, hash, clock.now(), (name) => placements.get(name)?.shouldRun === true);
        await syncNodes(req.key, ds, plan.deletePods, plan.createOnNodes, hash);
      }
      await cleanupHistory(historyDeps, ds, old, [...byNode(pods, true).values()].flat());
    } catch (err) {
      syncError = err;
    }
    pods = podInformer.store.byIndex(CONTROLLER_OWNER_INDEX, ds.metadata?.uid ?? '').filter((p) => (p.metadata?.namespace ?? '') === ns && selector.matches(p.metadata?.labels));
    const after = await status(true);
    if (syncError !== undefined) throw syncError;
    if (requeueMs !== undefined) return Action.requeue(requeueMs);
    return after ?? Action.awaitChange();
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    try {
      return await syncDaemonSet(req);
    } catch (err) {
      // A write based on a cache one event behind: try again once the cache caught up.
      if (isStaleCacheError(err, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
      throw err;
    }
  };

  const controller = manager
    .controller()
    .named(options.name ?? 'daemonset')
    // A status this controller wrote comes back as an update of the DaemonSet: nothing to do for it.
    .for<DaemonSet>(DaemonSets, { predicates: [(c) => c.type !== 'update' || !ownWrites.isOwn(objectKey(c.object), c.object)] })
    .watches<Pod>(Pods, ownerOrSelecting, { batchWindowMs: window })
    .watches<Node>(Nodes, allDaemonSets, { batchWindowMs: window, predicates: [nodeChanged] })
    .watches<ControllerRevision>(ControllerRevisions, ownerOrSelecting)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 2 })
    .complete(reconcile);
  return Object.assign(controller, { expectations });
}
