/**
 * The garbage collector (kube-controller-manager's `garbagecollector`): watches every
 * deletable resource, keeps the owner graph, deletes objects whose owners are all gone,
 * finishes Foreground deletions and orphans the dependents of Orphan deletions.
 */
import type { KubeObject, ObjectMeta, OwnerReference } from '@kplane/api';
import type { Client } from '@kplane/client';
import {
  createEventRecorder,
  createWorkqueue,
  realClock,
  type Clock,
  type EventRecorder,
  type InformerFactory,
  type Manager,
  type Runnable,
  type RuntimeMetrics,
  type Workqueue,
} from '@kplane/runtime';
import { createRestMapper, discoverResources, resourceId, type DiscoveryResult, type ResourceInfo, type RestMapper } from './discovery.js';
import { GraphBuilder } from './graph-builder.js';
import { AbsentOwnerCache, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, identityString, type GraphNode, type Identity } from './graph.js';
import { metadataClient, startInformerMonitor, startMonitor, type Monitor } from './monitor.js';
import { Operations, isNotFound, type PropagationPolicy } from './operations.js';

/** Options of createGarbageCollector. */
export interface GarbageCollectorOptions {
  /** The API client (default: the manager's). */
  client?: Client;
  /** A manager to take the client, clock and metrics from. */
  manager?: Pick<Manager, 'client' | 'clock' | 'metrics'>;
  clock?: Clock;
  /** Where the work queues report (default: the manager's metrics, else none). */
  metrics?: RuntimeMetrics;
  /** Records the OwnerRefInvalidNamespace events (default: a recorder for "garbage-collector-controller"). */
  recorder?: EventRecorder;
  /** How often discovery runs again to pick up new or removed resources (default 30 s). */
  resyncDiscoveryMs?: number;
  /** Concurrent workers of each queue (default 20, as --concurrent-gc-syncs). */
  workers?: number;
  /** How long to wait for the first list of every resource before starting work anyway (default 30 s). */
  syncTimeoutMs?: number;
  /** Told about failures that will be retried (default: console.error). */
  onError?(err: unknown, context: string): void;
  /**
   * Informers run anyway (the controller manager's shared factory): a resource one of them
   * caches whole is followed through it rather than by a watch of its own (default: none,
   * every resource watched on its own, metadata only).
   */
  informers?: Pick<InformerFactory, 'existing'>;
}

/** The garbage collector, run by a manager (only while it leads). */
export interface GarbageCollector extends Runnable {
  readonly needLeaderElection: true;
  /** Runs until `signal` aborts; the graph is rebuilt from lists on every start. */
  start(signal: AbortSignal): Promise<void>;
  /** True once every watched resource has been listed since the last start. */
  synced(): boolean;
  /** The resources currently watched ("group/version/resource"). */
  watchedResources(): string[];
  /** Whether the graph holds a node for `uid` (for tests and debugging). */
  graphHas(uid: string): boolean;
}

const DEFAULT_WORKERS = 20;
const ORPHAN_CONCURRENCY = 50;
/** A virtual node was found absent and removed from the graph: nothing to retry. */
const VIRTUAL_DELETED = Symbol('enqueued virtual delete event');
/** A cluster-scoped object names a namespaced owner: retrying cannot help. */
const NAMESPACED_OWNER_OF_CLUSTER_SCOPED = Symbol('cluster-scoped objects cannot refer to namespaced owners');

type Action = 'forget' | 'requeue';

/**
 * Creates the garbage collector.
 *
 * Guarantees:
 * - Level-driven: every start lists every resource again and rebuilds the graph, so work left
 *   by deletions made while it was stopped (dependents of owners already gone, owners waiting
 *   on `foregroundDeletion` or `orphan`) is found again.
 * - A dependent is deleted only after a live GET of each owner by name found nothing or an
 *   object with another uid; the delete carries uid and resourceVersion preconditions.
 * - An owner's `foregroundDeletion` finalizer is removed only once no dependent with
 *   `blockOwnerDeletion: true` remains in the graph; `orphan` only after every dependent's
 *   reference to it was removed.
 * Errors: failed calls are retried per item with the workqueue's exponential backoff.
 */
export function createGarbageCollector(options: GarbageCollectorOptions): GarbageCollector {
  const client = options.client ?? options.manager?.client;
  if (!client) throw new Error('createGarbageCollector: a client (or a manager) is required');
  const clock = options.clock ?? options.manager?.clock ?? realClock;
  const metrics = options.metrics ?? options.manager?.metrics;
  const recorder = options.recorder ?? createEventRecorder({ client, component: 'garbage-collector-controller', clock });
  const resyncMs = options.resyncDiscoveryMs ?? 30_000;
  const workers = Math.max(1, options.workers ?? DEFAULT_WORKERS);
  const syncTimeoutMs = options.syncTimeoutMs ?? 30_000;
  const onError = options.onError ?? ((err: unknown, context: string) => console.error(`garbage collector: ${context}:`, err));
  const listClient = metadataClient(client, 'list');
  const getClient = metadataClient(client, 'object');

  let mapper: RestMapper = createRestMapper([]);
  let monitors = new Map<string, Monitor>();
  let builder: GraphBuilder | undefined;
  let wakeDiscovery: (() => void) | undefined;
  let lastMissAt = -Infinity;

  const ops = new Operations(client, getClient, () => mapper, () => {
    // A kind not yet discovered (a CRD created a moment ago): discover again soon.
    if (clock.now() - lastMissAt < 1000) return;
    lastMissAt = clock.now();
    wakeDiscovery?.();
  });

  const reportInvalidNamespace = (dep: GraphNode, ref: OwnerReference): void => {
    const d = dep.identity;
    const owner: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: d.namespace };
    const involved: KubeObject = { apiVersion: d.apiVersion, kind: d.kind, metadata: { name: d.name, uid: d.uid, ...(d.namespace ? { namespace: d.namespace } : {}) } };
    void recorder.event(involved, 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${identityString(owner)} does not exist in namespace ${JSON.stringify(d.namespace)}`);
  };

  /** Starts monitors for new resources and stops those no longer served. */
  const syncMonitors = async (found: DiscoveryResult, b: GraphBuilder): Promise<void> => {
    const wanted = new Map(found.deletable.map((r) => [resourceId(r), r]));
    const next = new Map<string, Monitor>();
    const stopping: Promise<void>[] = [];
    for (const [id, m] of monitors) {
      // Resources of a group whose discovery failed are kept as they are.
      if (wanted.has(id) || found.failedGroups.includes(m.resource.group)) next.set(id, m);
      else stopping.push(m.stop());
    }
    for (const [id, r] of wanted) {
      if (next.has(id)) continue;
      const informer = options.informers?.existing({ group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced });
      next.set(id, informer ? startInformerMonitor({ resource: r, informer, builder: b }) : startMonitor({ resource: r, client: listClient, builder: b, clock, onError: (res, err) => onError(err, `list/watch ${res}`) }));
    }
    monitors = next;
    await Promise.all(stopping);
  };

  /**
   * Whether `ref` points at nothing: known absent, or a live GET (in the dependent's namespace
   * for namespaced kinds) finds no object or one with another uid. Returns the owner otherwise.
   */
  async function isDangling(ref: OwnerReference, item: Identity, absent: AbsentOwnerCache): Promise<{ dangling: boolean; owner?: ObjectMeta }> {
    const key: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: '' };
    if (absent.has(key)) return { dangling: true };
    key.namespace = item.namespace;
    if (absent.has(key)) return { dangling: true };
    const r: ResourceInfo = ops.resolve(ref.apiVersion, ref.kind);
    if (!r.namespaced) key.namespace = '';
    if (!item.namespace && r.namespaced) throw NAMESPACED_OWNER_OF_CLUSTER_SCOPED;
    let owner: ObjectMeta;
    try {
      owner = await ops.getMeta({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: r.namespaced ? item.namespace : '' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      absent.add(key);
      return { dangling: true };
    }
    if (owner.uid !== ref.uid) {
      absent.add(key);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  /** Decides about one node: delete it, unlink dead owners, or finish its foreground deletion. */
  async function attemptToDeleteItem(node: GraphNode, b: GraphBuilder, absent: AbsentOwnerCache, deleteQueue: Workqueue): Promise<void> {
    // Deleting without waiting on dependents: nothing to do until it is gone.
    if (node.beingDeleted && !node.deletingDependents) return;
    const id = node.identity;
    let latest: ObjectMeta;
    try {
      latest = await ops.getMeta(id);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      b.virtualDelete(id);
      throw VIRTUAL_DELETED;
    }
    if (latest.uid !== id.uid) {
      b.virtualDelete(id);
      throw VIRTUAL_DELETED;
    }
    if (node.deletingDependents) {
      const blocking = node.blockingDependents();
      if (blocking.length === 0) return ops.removeFinalizer(id, FOREGROUND_FINALIZER);
      for (const dep of blocking) if (!dep.deletingDependents) deleteQueue.add(dep.identity.uid);
      return;
    }
    const refs = latest.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const r = await isDangling(ref, id, absent);
      if (r.dangling) dangling.push(ref);
      else if (r.owner?.deletionTimestamp && r.owner.finalizers?.includes(FOREGROUND_FINALIZER)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Keep the live owners; drop the dead ones and those waiting on this object (or they would wait forever).
      return ops.removeOwnerRefs(id, [...dangling, ...waiting].map((ref) => ref.uid));
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      for (const dep of node.dependents) {
        if (dep.deletingDependents) {
          // A possible cycle: stop blocking the owners, then delete in foreground.
          await ops.unblockOwnerRefs(id, refs);
          break;
        }
      }
      return deleteOrVirtual(b, id, latest, 'Foreground');
    }
    const policy: PropagationPolicy = latest.finalizers?.includes(ORPHAN_FINALIZER)
      ? 'Orphan'
      : latest.finalizers?.includes(FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    return deleteOrVirtual(b, id, latest, policy);
  }

  async function deleteOrVirtual(b: GraphBuilder, id: Identity, latest: ObjectMeta, policy: PropagationPolicy): Promise<void> {
    try {
      await ops.delete(id, latest.resourceVersion, latest.ownerReferences, policy);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      b.virtualDelete(id);
      throw VIRTUAL_DELETED;
    }
  }

  async function attemptToDelete(uid: string, b: GraphBuilder, absent: AbsentOwnerCache, queue: Workqueue): Promise<Action> {
    const node = b.nodes.get(uid);
    if (!node) return 'forget';
    try {
      await attemptToDeleteItem(node, b, absent, queue);
    } catch (err) {
      if (err === VIRTUAL_DELETED || err === NAMESPACED_OWNER_OF_CLUSTER_SCOPED) return 'forget';
      onError(err, `error syncing item ${identityString(node.identity)}`);
      return 'requeue';
    }
    // A virtual node whose object exists: wait until a watch shows it.
    return node.virtual ? 'requeue' : 'forget';
  }

  async function attemptToOrphan(uid: string, b: GraphBuilder): Promise<Action> {
    const owner = b.nodes.get(uid);
    if (!owner) return 'forget';
    const id = owner.identity;
    const dependents = [...owner.dependents];
    const failures: string[] = [];
    for (let i = 0; i < dependents.length; i += ORPHAN_CONCURRENCY) {
      await Promise.all(
        dependents.slice(i, i + ORPHAN_CONCURRENCY).map(async (dep) => {
          try {
            await ops.removeOwnerRefs(dep.identity, [id.uid]);
          } catch (err) {
            if (!isNotFound(err)) failures.push(`orphaning ${identityString(dep.identity)} failed, ${(err as Error).message}`);
          }
        }),
      );
    }
    if (failures.length > 0) {
      onError(new Error(`failed to orphan dependents of owner ${identityString(id)}, got errors: ${failures.join(', ')}`), 'orphanDependents');
      return 'requeue';
    }
    try {
      await ops.removeFinalizer(id, ORPHAN_FINALIZER);
    } catch (err) {
      onError(err, `removeOrphanFinalizer for ${identityString(id)} failed`);
      return 'requeue';
    }
    return 'forget';
  }

  async function runWorker(queue: Workqueue, signal: AbortSignal, work: (key: string) => Promise<Action>): Promise<void> {
    for (;;) {
      // No signal here: shutDown() releases every waiting get at once.
      const { key, shutdown } = await queue.get();
      if (shutdown) return;
      if (signal.aborted) {
        queue.done(key);
        return;
      }
      try {
        if ((await work(key)) === 'requeue') queue.addRateLimited(key);
        else queue.forget(key);
      } catch (err) {
        onError(err, `worker ${queue.name}`);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  /** Sleeps `ms` unless woken or aborted; resolves false on abort. */
  const nap = (ms: number, signal: AbortSignal): Promise<boolean> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const finish = (v: boolean): void => {
        clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        wakeDiscovery = undefined;
        resolve(v);
      };
      const onAbort = (): void => finish(false);
      const timer = clock.setTimeout(() => finish(true), ms);
      wakeDiscovery = () => finish(true);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  const discover = async (signal: AbortSignal): Promise<DiscoveryResult | undefined> => {
    try {
      const found = await discoverResources(client, signal);
      mapper = createRestMapper(found.all);
      return found;
    } catch (err) {
      if (!signal.aborted) onError(err, 'discovery');
      return undefined;
    }
  };

  return {
    needLeaderElection: true,
    synced: () => monitors.size > 0 && [...monitors.values()].every((m) => m.synced()),
    watchedResources: () => [...monitors.keys()],
    graphHas: (uid) => builder?.nodes.has(uid) ?? false,
    async start(signal) {
      const deleteQueue = createWorkqueue({ name: 'garbage_collector_attempt_to_delete', clock, metrics });
      const orphanQueue = createWorkqueue({ name: 'garbage_collector_attempt_to_orphan', clock, metrics });
      const absent = new AbsentOwnerCache(500);
      const b = new GraphBuilder({ attemptToDelete: deleteQueue, attemptToOrphan: orphanQueue, absentOwnerCache: absent, onInvalidNamespace: reportInvalidNamespace });
      builder = b;
      monitors = new Map();
      const tasks: Promise<void>[] = [];
      try {
        // First discovery: retry until it works.
        let found = await discover(signal);
        while (!found && !signal.aborted) {
          if (!(await nap(1000, signal))) break;
          found = await discover(signal);
        }
        if (!found || signal.aborted) return;
        await syncMonitors(found, b);
        // Wait (bounded) for the first lists, so owners are in the graph before decisions.
        const deadline = clock.now() + syncTimeoutMs;
        while (!signal.aborted && clock.now() < deadline && ![...monitors.values()].every((m) => m.synced())) {
          await nap(20, signal);
        }
        if (signal.aborted) return;
        for (let i = 0; i < workers; i++) {
          tasks.push(runWorker(deleteQueue, signal, (uid) => attemptToDelete(uid, b, absent, deleteQueue)));
          tasks.push(runWorker(orphanQueue, signal, (uid) => attemptToOrphan(uid, b)));
        }
        // Discovery resync: pick up resources added or removed (CRDs) while running.
        let known = found.deletable.map(resourceId).sort().join(',');
        while (await nap(resyncMs, signal)) {
          const again = await discover(signal);
          if (!again || signal.aborted) continue;
          const ids = again.deletable.map(resourceId).sort().join(',');
          if (ids === known) continue;
          known = ids;
          await syncMonitors(again, b);
        }
      } finally {
        deleteQueue.shutDown();
        orphanQueue.shutDown();
        await Promise.all([...monitors.values()].map((m) => m.stop()));
        await Promise.all(tasks);
        monitors = new Map();
        if (builder === b) builder = undefined;
      }
    },
  };
}
