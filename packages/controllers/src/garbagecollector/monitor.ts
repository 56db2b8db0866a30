/**
 * A monitor: lists and watches one resource (metadata only) and feeds every change to the
 * graph builder. It keeps its own small cache of metadata by key, so that a relist after a
 * broken watch reports the objects that disappeared meanwhile as deletions.
 */
import type { KubeObject, ObjectMeta } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import { type Clock, type Informer } from '@kplane/runtime';
import { watcher } from '@kplane/runtime/internal';
import { apiVersionOf, resourceId, type ResourceInfo } from './discovery.js';
import type { GraphBuilder, ObservedKind } from './graph-builder.js';

/** The reason of this module's aborts, made once: a DOMException per abort (its stack captured each time) costs more than the abort. */
const ABORTED = new DOMException('This operation was aborted', 'AbortError');

/** A running monitor of one resource. */
export interface Monitor {
  readonly resource: ResourceInfo;
  /** True once the first full list has been applied to the graph. */
  synced(): boolean;
  /** Stops the watch; resolves when it has ended. */
  stop(): Promise<void>;
}

const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * A client over the same transport that asks for PartialObjectMetadata(List) on every GET, as
 * client-go's metadata client: `list` selects the list form (lists and watches), `object` the
 * single-object form. Other requests pass unchanged.
 */
export function metadataClient(client: Client, form: 'list' | 'object'): Client {
  const accept = form === 'list' ? METADATA_LIST : METADATA_OBJECT;
  return createClient({
    transport: (req) => client.transport(req.method === 'GET' ? { ...req, headers: { ...req.headers, accept } } : req),
    defaultNamespace: client.defaultNamespace,
  });
}

/** Options of startMonitor. */
export interface MonitorOptions {
  resource: ResourceInfo;
  /** A metadata-only list client (see metadataClient). */
  client: Client;
  builder: GraphBuilder;
  clock: Clock;
  /** Told about list/watch failures (they are retried with backoff). */
  onError?(resource: string, err: unknown): void;
}

/** The fields the graph needs (annotations, labels and managedFields are not kept). */
function slim(m: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
  if (m.namespace) out.namespace = m.namespace;
  if (m.ownerReferences?.length) out.ownerReferences = m.ownerReferences;
  if (m.finalizers?.length) out.finalizers = m.finalizers;
  if (m.deletionTimestamp) out.deletionTimestamp = m.deletionTimestamp;
  return out;
}

const keyOf = (m: ObjectMeta): string => (m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? ''));

/** Per key, the last metadata of one kind given to the graph, and the calls that keep the graph in step. */
interface ObservedObjects {
  /** Key → metadata; a relist replaces it whole. */
  cache: Map<string, ObjectMeta>;
  /** An add or update: an object replaced under its key (another uid) is a deletion then an addition; an unchanged resourceVersion is nothing. */
  apply(m: ObjectMeta): void;
  /** A deletion: only of the object of that uid still under its key. */
  remove(m: ObjectMeta): void;
}

function observedObjects(kind: ObservedKind, builder: GraphBuilder): ObservedObjects {
  const self: ObservedObjects = {
    cache: new Map(),
    apply(m) {
      const key = keyOf(m);
      const old = self.cache.get(key);
      if (old && old.uid !== m.uid) {
        self.cache.delete(key);
        builder.observeDelete(old);
        self.cache.set(key, m);
        builder.observe(kind, m, undefined);
        return;
      }
      if (old && old.resourceVersion === m.resourceVersion) return;
      self.cache.set(key, m);
      builder.observe(kind, m, old);
    },
    remove(m) {
      const key = keyOf(m);
      const old = self.cache.get(key);
      if (!old || old.uid !== m.uid) return;
      self.cache.delete(key);
      builder.observeDelete(m);
    },
  };
  return self;
}

/**
 * Starts watching `options.resource`.
 *
 * Guarantees: the builder sees, per key, the object's history in order; after a relist,
 * objects no longer listed are reported deleted, and an object replaced under the same key
 * (another uid) as a deletion then an addition.
 */
export function startMonitor(options: MonitorOptions): Monitor {
  const { resource, builder } = options;
  const kind: ObservedKind = { apiVersion: apiVersionOf(resource), kind: resource.kind };
  const api = options.client.resource<KubeObject>({ group: resource.group, version: resource.version, resource: resource.resource, namespaced: resource.namespaced });
  const controller = new AbortController();
  const objects = observedObjects(kind, builder);
  let pending: Map<string, ObjectMeta> | undefined;
  let synced = false;

  const finishRelist = (listed: Map<string, ObjectMeta>): void => {
    for (const [key, old] of objects.cache) {
      const now = listed.get(key);
      if (!now || now.uid !== old.uid) builder.observeDelete(old);
    }
    const previous = objects.cache;
    objects.cache = listed;
    for (const [key, m] of listed) {
      const old = previous.get(key);
      if (old && old.uid === m.uid && old.resourceVersion === m.resourceVersion) continue;
      builder.observe(kind, m, old && old.uid === m.uid ? old : undefined);
    }
  };

  const run = (async () => {
    const events = watcher(api, {
      clock: options.clock,
      signal: controller.signal,
      onError: (err) => options.onError?.(resourceId(resource), err),
    });
    for await (const ev of events) {
      switch (ev.type) {
        case 'init':
          pending = new Map();
          break;
        case 'initApply': {
          const m = ev.object.metadata;
          if (m) (pending ??= new Map()).set(keyOf(m), slim(m));
          break;
        }
        case 'initDone':
          finishRelist(pending ?? new Map());
          pending = undefined;
          synced = true;
          break;
        case 'apply':
          if (ev.object.metadata) objects.apply(slim(ev.object.metadata));
          break;
        case 'delete':
          if (ev.object.metadata) objects.remove(ev.object.metadata);
          break;
      }
    }
  })();

  return {
    resource,
    synced: () => synced,
    async stop() {
      controller.abort(ABORTED);
      await run.catch(() => undefined);
    },
  };
}

/**
 * Follows `resource` through an informer others run already (a typed cache of the controller
 * manager), instead of a watch of its own: kube-controller-manager's garbage collector reads
 * the shared informers the same way where they exist. The informer gives, per key, add,
 * updates and delete (deletions missed while its watch was broken come at its relist); an
 * object replaced under the same key (another uid) reaches the graph as a deletion then an
 * addition, as with a monitor's own watch.
 */
export function startInformerMonitor(options: { resource: ResourceInfo; informer: Informer<KubeObject>; builder: GraphBuilder }): Monitor {
  const { resource, builder } = options;
  const kind: ObservedKind = { apiVersion: apiVersionOf(resource), kind: resource.kind };
  const objects = observedObjects(kind, builder);
  const apply = (obj: KubeObject): void => {
    if (obj.metadata) objects.apply(slim(obj.metadata));
  };
  // Every object the informer holds now comes at once, as adds; then its changes as they come.
  const registration = options.informer.addEventHandler({
    onAdd: apply,
    onUpdate: (_old, obj) => apply(obj),
    onDelete: (obj) => {
      if (obj.metadata) objects.remove(obj.metadata);
    },
  });
  return {
    resource,
    synced: () => options.informer.hasSynced(),
    async stop() {
      registration.remove();
    },
  };
}
