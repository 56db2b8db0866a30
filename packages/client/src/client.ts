import { ApiError, type KubeList, type KubeObject, type RawRequest, type RawResponse, type Status, type Transport, type WatchEvent } from '@kplane/api';
import { resourcePath } from './paths.js';
import { errorFromResponse, isStatus, responseBytes, tryParseJson, type ErrorTarget } from './response.js';
import { decodeWatchEventBatches } from './watch-stream.js';

/** The reason of this module's aborts, made once: a DOMException per abort (its stack captured each time) costs more than the abort. */
const ABORTED = new DOMException('This operation was aborted', 'AbortError');

/** Which resource a ResourceClient talks to. */
export interface ResourceDescriptor {
  group: string;
  version: string;
  /** Plural lower-case name ("deployments"). */
  resource: string;
  namespaced: boolean;
  /** Used to fill in `kind` on objects sent without one. */
  kind?: string;
}

/** Options of createClient. */
export interface ClientOptions {
  transport: Transport;
  /** Namespace used when a call names none (default "default"). */
  defaultNamespace?: string;
  /** Extra headers on every request (lower-case names), e.g. a user-agent. */
  headers?: Record<string, string>;
}

/** Namespace selection. Absent: the client's default namespace. */
export interface NamespaceOption {
  namespace?: string;
}

/** Options of get. */
export interface GetOptions extends NamespaceOption {
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** Label/field selection shared by list, watch and deleteCollection. */
export interface SelectorOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** Options of list. `namespace: ''` lists across all namespaces. */
export interface ListOptions extends NamespaceOption, SelectorOptions {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/** Options of create, update and the subresource writes. */
export interface WriteOptions extends NamespaceOption {
  /** Sends dryRun=All. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  signal?: AbortSignal;
}

/** Patch formats: RFC 6902, RFC 7386, strategic merge, server-side apply. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** Options of patch. */
export interface PatchOptions extends WriteOptions {
  subresource?: string;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean;
}

/** Every field optional, at every depth: the shape of an applied configuration. */
export type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/**
 * A server-side apply configuration of T: only the fields the manager means to own, with the
 * object's name (and namespace, for namespaced kinds, unless given in the options).
 */
export type ApplyConfiguration<T extends KubeObject = KubeObject> = DeepPartial<T> & { metadata: { name: string; namespace?: string } };

/** Options of apply. */
export interface ApplyOptions extends NamespaceOption {
  /** The manager that owns the applied fields (required, as kube-apiserver requires it). */
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a 409 conflict. */
  force?: boolean;
  /** Sends dryRun=All. */
  dryRun?: boolean;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Apply to the "status" subresource. */
  subresource?: 'status';
  signal?: AbortSignal;
}

/** Options of delete (sent as a meta/v1 DeleteOptions body). */
export interface DeleteOptions extends NamespaceOption {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** Options of deleteCollection. `namespace: ''` deletes across all namespaces. */
export interface DeleteCollectionOptions extends DeleteOptions, SelectorOptions {}

/** Options of watch. `namespace: ''` watches all namespaces. */
export interface WatchOptions extends NamespaceOption, SelectorOptions {
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /**
   * Take the events' objects read-only: an in-process API server then sends the objects its
   * watch cache holds, deep-frozen and shared with its other in-process watchers, instead of
   * encoding them for this watch to parse again (RawRequest.objects). Changing one throws. Over
   * HTTPS (or another thread) it changes nothing: the objects are parsed from the stream, and
   * are the caller's own. Default false.
   */
  sharedObjects?: boolean;
  /** Aborting ends the iteration quietly and closes the stream. */
  signal?: AbortSignal;
}

/** A JSON request to an arbitrary path. */
export interface JsonRequest {
  method?: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Serialized as JSON unless already bytes or a string. */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

/** Typed operations on one resource, in the spirit of kube-rs's `Api<K>`. */
export interface ResourceClient<T extends KubeObject = KubeObject> {
  readonly descriptor: ResourceDescriptor;
  /** GET one object. */
  get(name: string, options?: GetOptions): Promise<T>;
  /** GET the collection (one page when `limit` is set). */
  list(options?: ListOptions): Promise<KubeList<T>>;
  /** Lists every page, following `continue` (page size `limit`, default 500). */
  listAll(options?: Omit<ListOptions, 'continue'>): Promise<KubeList<T>>;
  /** POST a new object; the namespace comes from options, then the object, then the default. */
  create(obj: T, options?: WriteOptions): Promise<T>;
  /** PUT the object (name and namespace from its metadata). */
  update(obj: T, options?: WriteOptions): Promise<T>;
  /** PUT the object's status subresource. */
  updateStatus(obj: T, options?: WriteOptions): Promise<T>;
  /** PATCH an object (or a subresource of it). */
  patch(name: string, patch: unknown, type: PatchType, options?: PatchOptions): Promise<T>;
  /**
   * Server-side apply (`application/apply-patch+yaml`): creates the object or merges the
   * configuration into it; the manager owns exactly the fields it applies, and fields it applied
   * before and leaves out are removed unless another manager owns them. apiVersion and kind are
   * filled in from the resource. Errors: 409 Conflict (one `details.causes` entry per field)
   * when another manager owns a field with another value and `force` is not set.
   */
  apply(config: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  /** DELETE one object: returns the object (while finalizers run) or a Success Status. */
  delete(name: string, options?: DeleteOptions): Promise<T | Status>;
  /** DELETE the collection (selected by labels/fields): returns the deleted list or a Status. */
  deleteCollection(options?: DeleteCollectionOptions): Promise<KubeList<T> | Status>;
  /** GET a subresource such as "scale" or "status". */
  getSubresource<S extends KubeObject = KubeObject>(name: string, subresource: string, options?: GetOptions): Promise<S>;
  /** PUT a subresource such as "scale" or "status". */
  updateSubresource<S extends KubeObject = KubeObject>(name: string, subresource: string, obj: S, options?: WriteOptions): Promise<S>;
  /** POST to a subresource such as "binding" or "eviction". */
  createSubresource<S extends KubeObject = KubeObject, R = unknown>(name: string, subresource: string, obj: S, options?: WriteOptions): Promise<R>;
  /**
   * Watches the collection. Events arrive in server order; ERROR events (e.g. a 410 Expired
   * Status) are yielded as they come, not thrown. The iteration ends when the server closes
   * the stream, the signal aborts, or the loop breaks (which closes the stream).
   * Errors: a non-2xx response throws ApiError before the first event.
   */
  watch(options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /**
   * watch(), with the events grouped as they arrived: each array holds the events of one
   * network read (never empty). For consumers that handle many events (an informer's initial
   * list) and pay a cost per step.
   */
  watchBatches(options?: WatchOptions): AsyncIterable<WatchEvent<T>[]>;
}

/** A Kubernetes REST client over any Transport. */
export interface Client {
  readonly transport: Transport;
  readonly defaultNamespace: string;
  /** Operations on one resource. */
  resource<T extends KubeObject = KubeObject>(desc: ResourceDescriptor): ResourceClient<T>;
  /** Sends a request as is; a non-2xx response throws ApiError (its body read in full). */
  raw(req: RawRequest): Promise<RawResponse>;
  /** Sends a JSON request and parses the JSON answer; errors as raw(). */
  request<R = unknown>(req: JsonRequest): Promise<R>;
}

const CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const encoder = new TextEncoder();

function isAbortError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

function encodeBody(body: unknown): Uint8Array | undefined {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  return encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Creates a client. Every call goes through `options.transport`, so the same code works over
 * HTTPS and in-process. Responses that are not 2xx throw ApiError: with the code, reason,
 * message and details of a Status body, or worded as client-go words them otherwise.
 */
export function createClient(options: ClientOptions): Client {
  const transport = options.transport;
  const defaultNamespace = options.defaultNamespace || 'default';
  const baseHeaders = options.headers ?? {};

  const raw = async (req: RawRequest, target?: ErrorTarget): Promise<RawResponse> => {
    const res = await transport({ ...req, headers: { ...baseHeaders, ...req.headers } });
    if (res.status < 200 || res.status > 299) {
      throw errorFromResponse(res, await responseBytes(res), req.method, target);
    }
    return res;
  };

  const request = async <R>(req: JsonRequest, target?: ErrorTarget): Promise<R> => {
    const method = req.method ?? 'GET';
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    const body = encodeBody(req.body);
    if (body) headers['content-type'] = req.contentType ?? 'application/json';
    const res = await raw({ method, path: req.path, query: req.query, headers, body, signal: req.signal }, target);
    const bytes = await responseBytes(res);
    if (bytes.byteLength === 0) return undefined as R;
    const parsed = tryParseJson(bytes);
    if (parsed === undefined) {
      throw new ApiError(500, 'InternalError', `unable to decode the response from ${method} ${req.path} as JSON`);
    }
    if (isStatus(parsed) && parsed.status === 'Failure') throw errorFromResponse(res, bytes, method, target);
    return parsed as R;
  };

  const client: Client = {
    transport,
    defaultNamespace,
    raw: (req) => raw(req),
    request: (req) => request(req),
    resource: <T extends KubeObject>(desc: ResourceDescriptor) => createResourceClient<T>(desc, defaultNamespace, raw, request),
  };
  return client;
}

type RawFn = (req: RawRequest, target?: ErrorTarget) => Promise<RawResponse>;
type RequestFn = <R>(req: JsonRequest, target?: ErrorTarget) => Promise<R>;

function createResourceClient<T extends KubeObject>(
  desc: ResourceDescriptor,
  defaultNamespace: string,
  raw: RawFn,
  request: RequestFn,
): ResourceClient<T> {
  const { group, version, resource } = desc;

  /** Namespace for one object: explicit option, then the object's, then the default. */
  const objectNs = (opt?: string, obj?: KubeObject): string | undefined =>
    desc.namespaced ? opt || obj?.metadata?.namespace || defaultNamespace : undefined;
  /** Namespace for a collection: '' means all namespaces. */
  const collectionNs = (opt?: string): string | undefined =>
    desc.namespaced ? (opt === undefined ? defaultNamespace : opt) : undefined;

  const requireName = (name: string | undefined): string => {
    if (!name) throw new Error('resource name may not be empty');
    return name;
  };
  const target = (name?: string): ErrorTarget => ({ group, resource, name });
  const path = (namespace: string | undefined, name?: string, subresource?: string): string =>
    resourcePath({ group, version, resource, namespace, name, subresource });
  const withKind = <O extends KubeObject>(obj: O): O => {
    if (!desc.kind || (obj.kind && obj.apiVersion)) return obj;
    const apiVersion = group ? `${group}/${version}` : version;
    return { ...obj, kind: obj.kind ?? desc.kind, apiVersion: obj.apiVersion ?? apiVersion };
  };

  const listQuery = (o: ListOptions & WatchOptions): Record<string, string> => {
    const q: Record<string, string> = {};
    if (o.labelSelector) q['labelSelector'] = o.labelSelector;
    if (o.fieldSelector) q['fieldSelector'] = o.fieldSelector;
    if (o.limit !== undefined && o.limit > 0) q['limit'] = String(o.limit);
    if (o.continue) q['continue'] = o.continue;
    if (o.resourceVersion !== undefined) q['resourceVersion'] = o.resourceVersion;
    if (o.resourceVersionMatch) q['resourceVersionMatch'] = o.resourceVersionMatch;
    if (o.timeoutSeconds !== undefined) q['timeoutSeconds'] = String(o.timeoutSeconds);
    if (o.allowWatchBookmarks) q['allowWatchBookmarks'] = 'true';
    if (o.sendInitialEvents !== undefined) q['sendInitialEvents'] = String(o.sendInitialEvents);
    return q;
  };
  const writeQuery = (o: WriteOptions & { force?: boolean }): Record<string, string> => {
    const q: Record<string, string> = {};
    if (o.dryRun) q['dryRun'] = 'All';
    if (o.fieldManager) q['fieldManager'] = o.fieldManager;
    if (o.fieldValidation) q['fieldValidation'] = o.fieldValidation;
    if (o.force !== undefined) q['force'] = String(o.force);
    return q;
  };
  const deleteBody = (o: DeleteOptions): Record<string, unknown> | undefined => {
    const b: Record<string, unknown> = {};
    if (o.propagationPolicy) b['propagationPolicy'] = o.propagationPolicy;
    if (o.preconditions) b['preconditions'] = o.preconditions;
    if (o.gracePeriodSeconds !== undefined) b['gracePeriodSeconds'] = o.gracePeriodSeconds;
    if (o.dryRun) b['dryRun'] = ['All'];
    return Object.keys(b).length > 0 ? { kind: 'DeleteOptions', apiVersion: 'v1', ...b } : undefined;
  };
  const normalizeList = (l: KubeList<T>): KubeList<T> => {
    if (!Array.isArray(l.items)) l.items = [];
    if (!l.metadata) l.metadata = {};
    return l;
  };

  const list = async (o: ListOptions = {}): Promise<KubeList<T>> =>
    normalizeList(await request<KubeList<T>>({ path: path(collectionNs(o.namespace)), query: listQuery(o), signal: o.signal }, target()));

  const rc: ResourceClient<T> = {
    descriptor: desc,

    get: async (name, o = {}) => {
      const q: Record<string, string> = {};
      if (o.resourceVersion !== undefined) q['resourceVersion'] = o.resourceVersion;
      return request<T>({ path: path(objectNs(o.namespace), requireName(name)), query: q, signal: o.signal }, target(name));
    },

    list,

    listAll: async (o = {}) => {
      const limit = o.limit && o.limit > 0 ? o.limit : 500;
      let page = await list({ ...o, limit });
      const items = [...page.items];
      while (page.metadata.continue) {
        try {
          page = await list({ ...o, limit, continue: page.metadata.continue, resourceVersion: undefined, resourceVersionMatch: undefined });
        } catch (err) {
          // As client-go's pager: an expired continue token falls back to one full list.
          if (err instanceof ApiError && err.reason === 'Expired') return list({ ...o, limit: undefined });
          throw err;
        }
        items.push(...page.items);
      }
      return { ...page, metadata: { ...page.metadata, continue: undefined }, items };
    },

    create: async (obj, o = {}) =>
      request<T>({ method: 'POST', path: path(objectNs(o.namespace, obj)), query: writeQuery(o), body: withKind(obj), signal: o.signal }, target(obj.metadata?.name)),

    update: async (obj, o = {}) => {
      const name = requireName(obj.metadata?.name);
      return request<T>({ method: 'PUT', path: path(objectNs(o.namespace, obj), name), query: writeQuery(o), body: withKind(obj), signal: o.signal }, target(name));
    },

    updateStatus: async (obj, o = {}) => {
      const name = requireName(obj.metadata?.name);
      return request<T>({ method: 'PUT', path: path(objectNs(o.namespace, obj), name, 'status'), query: writeQuery(o), body: withKind(obj), signal: o.signal }, target(name));
    },

    patch: async (name, patch, type, o = {}) => {
      const contentType = CONTENT_TYPES[type];
      if (!contentType) throw new Error(`unknown patch type: ${String(type)}`);
      if (type === 'apply' && !o.fieldManager) throw new Error('fieldManager is required for apply patch');
      return request<T>({
        method: 'PATCH',
        path: path(objectNs(o.namespace), requireName(name), o.subresource),
        query: writeQuery(o),
        body: patch,
        contentType,
        signal: o.signal,
      }, target(name));
    },

    apply: async (config, o) => {
      if (!o?.fieldManager) throw new Error('fieldManager is required for apply patch');
      const name = requireName(config.metadata?.name);
      const body = withKind(config as unknown as KubeObject);
      return request<T>({
        method: 'PATCH',
        path: path(objectNs(o.namespace, body), name, o.subresource),
        query: writeQuery(o),
        body,
        contentType: CONTENT_TYPES.apply,
        signal: o.signal,
      }, target(name));
    },

    delete: async (name, o = {}) =>
      request<T | Status>({ method: 'DELETE', path: path(objectNs(o.namespace), requireName(name)), body: deleteBody(o), signal: o.signal }, target(name)),

    deleteCollection: async (o = {}) =>
      request<KubeList<T> | Status>({ method: 'DELETE', path: path(collectionNs(o.namespace)), query: listQuery(o), body: deleteBody(o), signal: o.signal }, target()),

    getSubresource: async <S extends KubeObject>(name: string, subresource: string, o: GetOptions = {}) =>
      request<S>({ path: path(objectNs(o.namespace), requireName(name), subresource), signal: o.signal }, target(name)),

    updateSubresource: async <S extends KubeObject>(name: string, subresource: string, obj: S, o: WriteOptions = {}) =>
      request<S>({ method: 'PUT', path: path(objectNs(o.namespace, obj), requireName(name), subresource), query: writeQuery(o), body: obj, signal: o.signal }, target(name)),

    createSubresource: async <S extends KubeObject, R>(name: string, subresource: string, obj: S, o: WriteOptions = {}) =>
      request<R>({ method: 'POST', path: path(objectNs(o.namespace, obj), requireName(name), subresource), query: writeQuery(o), body: obj, signal: o.signal }, target(name)),

    watch: (o = {}) => eachEvent(watchStream<T>(raw, path(collectionNs(o.namespace)), { ...listQuery(o), watch: 'true' }, o.signal, target(), o.sharedObjects === true)),
    watchBatches: (o = {}) => watchStream<T>(raw, path(collectionNs(o.namespace)), { ...listQuery(o), watch: 'true' }, o.signal, target(), o.sharedObjects === true),
  };
  return rc;
}

/**
 * Resolves with `pending`'s outcome, or with 'aborted' once `signal` aborts, whichever comes
 * first. Unlike Promise.race against one long-lived promise, it leaves nothing behind on the
 * signal once settled (a watch reads thousands of times).
 */
function untilAborted<V>(pending: Promise<V>, signal: AbortSignal): Promise<V | 'aborted'> {
  if (signal.aborted) {
    pending.catch(() => undefined); // a rejection after abort won the race is not an error
    return Promise.resolve('aborted');
  }
  return new Promise<V | 'aborted'>((resolve, reject) => {
    const onAbort = (): void => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** The events of a batched watch, one at a time. */
async function* eachEvent<T>(batches: AsyncIterable<WatchEvent<T>[]>): AsyncGenerator<WatchEvent<T>> {
  for await (const batch of batches) yield* batch;
}

/**
 * Opens a watch and yields its events, in batches. The transport gets its own AbortController (linked to
 * the caller's signal) so that breaking out of the loop also closes the stream. A pending read
 * is raced against the abort, so abort ends the loop even if the transport's stream ignores it.
 */
async function* watchStream<T>(
  raw: RawFn,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal | undefined,
  target: ErrorTarget,
  objects: boolean,
): AsyncGenerator<WatchEvent<T>[]> {
  if (signal?.aborted) return;
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let iterator: AsyncIterator<WatchEvent<T>[]> | undefined;
  try {
    let res: RawResponse | 'aborted';
    try {
      const req: RawRequest = { method: 'GET', path, query, headers: { accept: 'application/json' }, signal: ctl.signal };
      if (objects) req.objects = true;
      res = await untilAborted(raw(req, target), ctl.signal);
    } catch (err) {
      if (ctl.signal.aborted && isAbortError(err)) return;
      throw err;
    }
    if (res === 'aborted') return;
    if (res.events) {
      // Already objects (an in-process server, asked for them): no bytes to decode.
      iterator = (res.events as AsyncIterable<WatchEvent<T>[]>)[Symbol.asyncIterator]();
    } else {
      const chunks: AsyncIterable<Uint8Array> = res.stream ?? (async function* () {
        if (res.body) yield res.body;
      })();
      iterator = decodeWatchEventBatches<T>(chunks)[Symbol.asyncIterator]();
    }
    for (;;) {
      let next: IteratorResult<WatchEvent<T>[]> | 'aborted';
      try {
        next = await untilAborted(iterator.next(), ctl.signal);
      } catch (err) {
        if (ctl.signal.aborted) return;
        throw err;
      }
      if (next === 'aborted' || next.done) return;
      if (next.value.length > 0) yield next.value;
      if (ctl.signal.aborted) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    ctl.abort(ABORTED);
    // Do not wait: a stuck stream must not block the caller's loop from ending.
    iterator?.return?.(undefined).catch(() => undefined);
  }
}

/** Reads a streamed or buffered response body as text (e.g. pod logs). */
export async function responseText(res: RawResponse): Promise<string> {
  return new TextDecoder().decode(await responseBytes(res));
}
