import { NODES_GROUP, nodeUsername, type KubeObject, type RawRequest, type RawResponse, type Status, type UserInfo } from '@kplane/api';
import type { AuthorizationAttributes, Authorizer } from '../auth/types.js';
import { decideRequest, impersonate, wantsImpersonation } from './authorize.js';
import { forbiddenError } from '../auth/rbac/rules.js';
import { addAuditAnnotation, recordAuthorizationDecision, recordImpersonatedUser } from '../auth/audit.js';
import {
  ApiError,
  badRequest,
  decodeBody,
  resolveSchema,
  routeMethodNotAllowed,
  timeoutError,
} from '@kplane/api';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF_MEDIA_TYPE } from '@kplane/api/protobuf';
import { unstructuredList, unstructuredObject } from '../crd/unstructured.js';
import type { Registry } from '../registry/registry.js';
import type { Store } from '../registry/store.js';
import { takeWrittenJson } from '../registry/written-json.js';
import { bindPod } from './binding.js';
import { evictPod } from './eviction.js';
import { fieldManager, isApplyPatch } from './field-manager.js';
import { createNodeConnections, type NodeConnections } from './nodes.js';
import { servePodLog } from './pod-log.js';
import { checkStreamTarget, STREAM_SUBRESOURCES } from './pod-stream.js';
import { serveReview } from './reviews.js';
import { readObjects } from './resource-metrics.js';
import { requestUser } from '../auth/identity.js';
import { DEFAULT_LIMITS, parseBoolParam, type ServerLimits } from './limits.js';
import { deleteOptions, listOptions, typedListQuery, writeOptions } from './options.js';
import { checkPathSegmentName, classifyRequest, isNamespaceSubresource, parsePath, type ResourceRequestInfo } from './request-info.js';
import { AGGREGATED_V2, AGGREGATED_V2BETA1, aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { toTable, type IncludeObject } from './table.js';
import { streamTableList } from './list-table.js';
import { serveWatch, type WatchDeliveries } from './watch.js';
import { realTimers, type Timers } from '../registry/timers.js';
import { serveOpenAPIV2, serveOpenAPIV3Document, serveOpenAPIV3Root, type ServedDocument, type SwaggerSpec } from '../openapi/serve.js';
import { JSON_TYPE, errorResponse, jsonResponse, negotiate, parseAccept, statusResponse, text, textJson, warningHeaders, type Representation } from './responses.js';
import { requestTimeoutMs, routeVerb } from './route.js';
import { admitEvictionBody, admitSubresourceBody, asObject, finalizeNamespace, patchCurrent } from './write-bodies.js';

export { errorResponse, jsonResponse, statusResponse } from './responses.js';
export { requestTimeoutMs, routeVerb } from './route.js';

/** A sink for the audit annotations admission adds to the request's event. */
function auditAnnotator(req: RawRequest): (key: string, value: string) => void {
  return (key, value) => addAuditAnnotation(req, key, value);
}

/** Serves the OpenAPI documents. */
export interface OpenAPIProvider {
  /** /openapi/v3 */
  root(): ServedDocument;
  /** /openapi/v3/<path> where path is "api/v1" or "apis/<g>/<v>". */
  document(path: string): ServedDocument | undefined;
  /** /openapi/v2 (built on first use, cached until the served resources change). */
  v2(): SwaggerSpec;
}

/** Options of createHandler. */
export interface HandlerOptions {
  registry: Registry;
  openapi: OpenAPIProvider;
  now(): Date;
  /** Body of /version. */
  version: object;
  /** host:port the server is reached at, for /api's serverAddressByClientCIDRs. */
  serverAddress(): string;
  /** Is the server ready (storage open, caches started)? */
  ready(): boolean;
  /** How often watches with allowWatchBookmarks get a BOOKMARK (ms). */
  bookmarkIntervalMs?: number;
  /** Longest watch when the client gives no timeoutSeconds (s). */
  defaultWatchTimeoutSeconds?: number;
  /** Request limits (the request timeout is enforced here); kube-apiserver's defaults otherwise. */
  limits?: Partial<ServerLimits>;
  /** Timers of the request timeout and of watches (tests inject virtual ones). */
  timers?: Timers;
  /** Counts watch events encoded for a client and not yet read by it (see `ApiServer.activity`). */
  watchDeliveries?: WatchDeliveries;
  /** The kubelets that serve `pods/log` (none: logs answer 500). */
  nodes?: NodeConnections;
  /**
   * Decides every request that carries a user (RawRequest.user) after impersonation; absent:
   * no authorization. A request without a user is in-process trusted code.
   */
  authorizer?: Authorizer;
  /**
   * Admission of authorized requests of node identities (NodeRestriction): rejects with an
   * ApiError what a node may not write. Absent: none.
   */
  admitNode?: (req: RawRequest, attrs: AuthorizationAttributes) => Promise<void>;
  /**
   * POST serviceaccounts/NAME/token (TokenRequest): issues a token for the body (already
   * type-checked); absent, the subresource is not served.
   */
  tokenRequest?(namespace: string, name: string, body: KubeObject, ctx: { user: UserInfo; dryRun: boolean; warnings: string[] }): Promise<KubeObject>;
  /** A request under /apis/<group>/<version> that no local resource serves: an APIService's backend (aggregator.ts), or undefined. */
  aggregated?: (req: RawRequest, group: string, version: string) => Promise<RawResponse | undefined>;
  /** Discovery entries of aggregated groups (APIGroup for /apis, APIGroupDiscovery for aggregated /apis). */
  aggregatedDiscovery?: { legacy(): object[]; aggregated(): object[]; group(name: string): object | undefined };
  /** Non-resource paths served besides the built-in ones (the OIDC discovery documents), by exact path. */
  paths?: Record<string, (method: string) => RawResponse | Promise<RawResponse>>;
}

/** The user names of node identities start with it (`system:node:`). */
const NODE_USER_PREFIX = nodeUsername('');

/**
 * Creates the API server's request handler: one function from a RawRequest to a RawResponse,
 * used by the HTTPS server and, unchanged, by in-process clients.
 */
export function createHandler(options: HandlerOptions): (req: RawRequest) => Promise<RawResponse> {
  const { registry } = options;

  const isNamespaceSub = isNamespaceSubresource;
  const timeoutMaxMs = options.limits?.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs;
  const timers = options.timers ?? realTimers;
  const nodes = options.nodes ?? createNodeConnections();
  // The group/versions served here, rebuilt when resources come or go (CRDs).
  let served: Set<string> | undefined;
  if (options.aggregated) registry.onChange(() => (served = undefined));
  // The aggregated discovery documents, as JSON, until the set of resources changes (every
  // informer start and garbage collector asks for them; building them walks every resource).
  const discoveryJson = new Map<string, string>();
  registry.onChange(() => discoveryJson.clear());
  const aggregatedJson = (core: boolean, v: 'v2' | 'v2beta1'): string => {
    const key = `${core ? 'api' : 'apis'}/${v}`;
    let json = discoveryJson.get(key);
    if (json === undefined) discoveryJson.set(key, (json = JSON.stringify(aggregatedDiscovery(registry, core, v))));
    return json;
  };
  const servedGroupVersions = () => (served ??= new Set(registry.all().map((s) => `${s.type.group}/${s.type.version}`)));

  function render(store: Store, rep: Representation, obj: KubeObject, q: Record<string, string>, status = 200, headers: Record<string, string> = {}): RawResponse {
    if (rep === 'table') {
      return jsonResponse(status, toTable(store.type.strategy.table, [obj], { resourceVersion: obj.metadata?.resourceVersion }, { include: includeObject(q), now: options.now() }), headers);
    }
    if (rep === 'metadata') {
      return jsonResponse(status, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} }, headers);
    }
    if (store.type.customResource) return jsonResponse(status, unstructuredObject(obj), headers);
    const written = takeWrittenJson(obj);
    if (written !== undefined) return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: Buffer.from(written) };
    return jsonResponse(status, obj, headers);
  }

  function includeObject(q: Record<string, string>): IncludeObject {
    const v = q.includeObject;
    if (v === undefined || v === '') return 'Metadata';
    if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
    throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
  }

  async function serveResource(req: RawRequest, info: ResourceRequestInfo): Promise<RawResponse> {
    const store = registry.get(info.group, info.version, info.resource);
    if (!store) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const t = store.type;
    const method = req.method.toUpperCase();
    if (!t.namespaced && info.namespace !== undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    // A namespaced resource has no object paths outside a namespace.
    if (t.namespaced && info.namespace === undefined && info.name !== undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const sub = info.subresource ?? '';
    if (sub && !['status', 'scale', 'finalize', 'binding', 'eviction', 'token', 'log', ...STREAM_SUBRESOURCES].includes(sub) && !t.subresources?.extra?.includes(sub)) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'token' && !(t.group === '' && t.resource === 'serviceaccounts' && options.tokenRequest)) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if ((sub === 'binding' || sub === 'eviction' || sub === 'log' || STREAM_SUBRESOURCES.includes(sub)) && !(t.group === '' && t.resource === 'pods')) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'status' && !t.subresources?.status) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'scale' && !t.subresources?.scale) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'finalize' && t.resource !== 'namespaces') throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (info.watchPath && sub) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const verb = routeVerb(method, info, t.namespaced, req.query ?? {});
    if (!sub && !t.verbs.includes(verb)) throw routeMethodNotAllowed();
    if (info.namespace !== undefined) checkPathSegmentName('Namespace', info.namespace);
    if (info.name !== undefined) checkPathSegmentName('Name', info.name);
    const q = verb === 'list' || verb === 'watch' || verb === 'deletecollection' ? typedListQuery(req.query ?? {}) : (req.query ?? {});
    const ns = t.namespaced ? info.namespace : undefined;
    const rep = negotiate(req.headers?.accept);
    const body = (expected = { apiVersion: store.apiVersion, kind: t.kind }) => {
      const contentType = req.headers?.['content-type'] ?? JSON_TYPE;
      const bytes = req.body ?? new Uint8Array();
      // kubectl's typed clients (kubectl create <kind>) send protobuf bodies.
      if (contentType.split(';')[0]!.trim().toLowerCase() === KUBERNETES_PROTOBUF_MEDIA_TYPE) {
        return decodeKubernetesProtobuf(bytes, expected);
      }
      return decodeBody(bytes, contentType);
    };

    // Create-only, never-stored kinds (TokenReview, SubjectAccessReview, ...): see reviews.ts.
    if (t.review) {
      const opts = writeOptions(q);
      const { object, status } = await serveReview(store, registry.definitions, body(), { user: requestUser(req), namespace: ns, opts });
      return jsonResponse(status, object, warningHeaders(opts));
    }

    // Read-only, never-stored kinds (metrics.k8s.io): see resource-metrics.ts.
    if (t.read) {
      if (method !== 'GET' || sub || info.watchPath || verb === 'watch') throw routeMethodNotAllowed();
      const answer = readObjects(t, ns, info.name, q);
      const items = info.name === undefined ? ((answer as { items?: KubeObject[] }).items ?? []) : [answer];
      if (rep === 'table') return jsonResponse(200, toTable(t.strategy.table, items, {}, { include: includeObject(q), now: options.now() }));
      return jsonResponse(200, answer);
    }

    // Collection requests.
    if (info.name === undefined) {
      if (method === 'GET') {
        if (verb === 'watch') {
          return serveWatch(store, ns, q, rep, req.signal, {
            now: options.now,
            bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
            defaultTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? 1800,
            include: rep === 'table' ? includeObject(q) : 'Object',
            timers: options.timers,
            deliveries: options.watchDeliveries,
            objects: req.objects,
          });
        }
        if ((rep === 'object' && !t.customResource) || rep === 'metadata') {
          // Stored JSON is served as it is (objects, or their metadata), written to the client
          // as storage is read.
          const raw = await store.listJsonStream(ns, listOptions(q), undefined, rep);
          return 'body' in raw ? textJson(200, raw.body) : { status: 200, headers: { 'content-type': JSON_TYPE }, stream: raw.stream };
        }
        const listOpts = listOptions(q);
        if (rep === 'table') {
          // Rows written as storage is read.
          return streamTableList(store, ns, listOpts, { include: includeObject(q), now: options.now() });
        }
        const list = await store.list(ns, listOpts);
        return jsonResponse(200, t.customResource ? unstructuredList(list) : list);
      }
      if (method === 'POST') {
        const opts = { ...writeOptions(q), user: req.user, audit: auditAnnotator(req), fieldManager: fieldManager(req, 'CreateOptions') };
        const created = await store.create(ns, asObject(body()), opts);
        return render(store, rep, created, q, 201, warningHeaders(opts));
      }
      if (method === 'DELETE') {
        const b = req.body && req.body.length ? body() : undefined;
        const list = await store.deleteCollection(ns, listOptions(q), { ...deleteOptions(b, q), user: req.user, audit: auditAnnotator(req) });
        return jsonResponse(200, list);
      }
      throw routeMethodNotAllowed();
    }

    const name = info.name;
    if (info.watchPath) {
      return serveWatch(store, ns, { ...q, fieldSelector: [q.fieldSelector, `metadata.name=${name}`].filter(Boolean).join(',') }, rep, req.signal, {
        now: options.now,
        bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
        defaultTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? 1800,
        include: rep === 'table' ? includeObject(q) : 'Object',
        timers: options.timers,
        deliveries: options.watchDeliveries,
        objects: req.objects,
      });
    }
    if (sub === 'log') return servePodLog(store, ns!, name, q, req.signal, nodes, options.now().getTime());
    // pods/exec, attach and portforward are served on protocol upgrades (pod-stream.ts).
    if (STREAM_SUBRESOURCES.includes(sub)) return checkStreamTarget(store, ns!, name, sub, q);
    if (sub === 'binding') {
      if (method !== 'POST') throw routeMethodNotAllowed();
      await bindPod(store, ns!, name, body(), options.now, writeOptions(q).dryRun === true, req.user);
      return statusResponse(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    }
    if (sub === 'eviction') {
      if (method !== 'POST') throw routeMethodNotAllowed();
      const opts = writeOptions(q);
      const eviction = admitEvictionBody(body({ apiVersion: 'policy/v1', kind: 'Eviction' }), opts, registry);
      const delOpts = deleteOptions(eviction.deleteOptions ?? undefined, {});
      const status = await evictPod(ns!, name, eviction, delOpts, { registry, now: options.now, dryRun: opts.dryRun === true });
      return statusResponse(status.code ?? 201, status);
    }
    if (sub === 'token') {
      if (method !== 'POST') throw routeMethodNotAllowed();
      const opts = writeOptions(q);
      const request = admitSubresourceBody(body({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' }), 'authentication.k8s.io/v1', 'TokenRequest', 'io.k8s.api.authentication.v1.TokenRequest', opts, registry);
      const out = await options.tokenRequest!(ns!, name, request, { user: requestUser(req), dryRun: opts.dryRun === true, warnings: opts.warnings! });
      return jsonResponse(201, out, warningHeaders(opts));
    }
    if (sub === 'scale') {
      if (method === 'GET') return jsonResponse(200, store.toScale(await store.get(ns, name, q.resourceVersion)));
      if (method === 'PUT') {
        const opts = { ...writeOptions(q), user: req.user, audit: auditAnnotator(req), fieldManager: fieldManager(req, 'UpdateOptions') };
        const incoming = asObject(body());
        const scale = await store.updateScale(ns, name, () => structuredClone(incoming), opts);
        return jsonResponse(200, scale, warningHeaders(opts));
      }
      if (method === 'PATCH') {
        const apply = isApplyPatch(req);
        const opts = { ...writeOptions(q), user: req.user, audit: auditAnnotator(req), fieldManager: fieldManager(req, 'PatchOptions', apply) };
        const patch = body();
        if (apply) return jsonResponse(200, await store.applyScale(ns, name, asObject(patch), { ...opts, force: q.force !== undefined && parseBoolParam(q.force) }), warningHeaders(opts));
        const schema = resolveSchema({ $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' }, registry.definitions);
        const scale = await store.updateScale(ns, name, (s) => patchCurrent(req.headers?.['content-type'] ?? '', s, patch, schema, registry), opts);
        return jsonResponse(200, scale, warningHeaders(opts));
      }
      throw routeMethodNotAllowed();
    }
    if (method === 'GET') {
      if (rep === 'object' && !t.customResource && !sub) return textJson(200, await store.getJson(ns, name, q.resourceVersion));
      return render(store, rep, await store.get(ns, name, q.resourceVersion), q);
    }
    if (method === 'PUT') {
      const opts = { ...writeOptions(q), user: req.user, audit: auditAnnotator(req), fieldManager: fieldManager(req, 'UpdateOptions') };
      const obj = asObject(body());
      const updated =
        sub === 'finalize'
          ? await finalizeNamespace(store, name, obj, opts)
          : await store.update(ns, name, obj, { ...opts, subresource: sub });
      return render(store, rep, updated, q, 200, warningHeaders(opts));
    }
    if (method === 'PATCH') {
      if (sub === 'finalize') throw routeMethodNotAllowed();
      if (t.customResource && (req.headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/strategic-merge-patch+json') {
        // kube-apiserver has no strategic merge patch for custom resources.
        throw new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
      }
      const apply = isApplyPatch(req);
      const opts = { ...writeOptions(q), user: req.user, audit: auditAnnotator(req), fieldManager: fieldManager(req, 'PatchOptions', apply) };
      const patch = body();
      if (apply) {
        const r = await store.apply(ns, name, asObject(patch), { ...opts, force: q.force !== undefined && parseBoolParam(q.force), subresource: sub === 'status' ? 'status' : '' });
        return render(store, rep, r.object, q, r.created ? 201 : 200, warningHeaders(opts));
      }
      const schema = resolveSchema({ $ref: `#/components/schemas/${t.schemaName}` }, registry.definitions);
      const updated = await store.guaranteedUpdate(ns, name, (current) => patchCurrent(req.headers?.['content-type'] ?? '', current, patch, schema, registry), {
        ...opts,
        subresource: sub,
      });
      return render(store, rep, updated, q, 200, warningHeaders(opts));
    }
    if (method === 'DELETE') {
      if (sub) throw routeMethodNotAllowed();
      const b = req.body && req.body.length ? body() : undefined;
      const delOpts = { ...deleteOptions(b, q), user: req.user, audit: auditAnnotator(req) };
      const result = await store.delete(ns, name, delOpts);
      // An object left in place (finalizers, a grace period) is answered with 200, as
      // kube-apiserver does, unless the client asked orphanDependents=false: 202.
      if (!result.deleted) return render(store, rep, result.object, q, delOpts.orphanDependents === false ? 202 : 200);
      if (t.strategy.returnDeletedObject) return render(store, rep, result.object, q, 200);
      return statusResponse(200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name, ...(t.group ? { group: t.group } : {}), kind: t.resource, uid: result.object.metadata?.uid },
      } as Status);
    }
    throw routeMethodNotAllowed();
  }

  async function handle(req: RawRequest): Promise<RawResponse> {
    const path = req.path;
    const method = req.method.toUpperCase();
    if (path === '/healthz' || path === '/livez' || path === '/readyz' || path.startsWith('/healthz/') || path.startsWith('/livez/') || path.startsWith('/readyz/')) {
      if (path.startsWith('/readyz') && !options.ready()) return text(500, '[-]readyz failed: not ready\nreadyz check failed');
      return text(200, 'ok');
    }
    if (path === '/version' || path === '/version/') return jsonResponse(200, options.version);
    if (options.paths && Object.hasOwn(options.paths, path)) return options.paths[path]!(method);
    if (path === '/openapi/v2') return serveOpenAPIV2(req, options.openapi.v2);
    if (path === '/openapi/v3' || path === '/openapi/v3/') return serveOpenAPIV3Root(req, options.openapi.root());
    if (path.startsWith('/openapi/v3/')) {
      const key = path.slice('/openapi/v3/'.length);
      const doc = options.openapi.document(key);
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return serveOpenAPIV3Document(req, key, doc, options.now());
    }
    const gv = options.aggregated && /^\/apis\/([^/]+)\/([^/]+)(\/|$)/.exec(path);
    if (gv && !servedGroupVersions().has(`${gv[1]}/${gv[2]}`)) {
      const proxied = await options.aggregated!(req, gv[1]!, gv[2]!);
      if (proxied) return proxied;
    }
    const parsed = parsePath(path, isNamespaceSub);
    if (parsed.kind === 'other') {
      if (path === '/' ) return jsonResponse(200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/metrics', '/openapi/v2', '/openapi/v3', '/readyz', '/version'] });
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (parsed.kind === 'discovery') {
      if (method !== 'GET') throw routeMethodNotAllowed();
      const r = parsed.req;
      const accept = parseAccept(req.headers?.accept);
      const wantsAggregated = (v: 'v2' | 'v2beta1') => accept.some((m) => m.params.g === 'apidiscovery.k8s.io' && m.params.v === v && m.params.as === 'APIGroupDiscoveryList');
      if (r.kind === 'api-root' || r.kind === 'apis-root') {
        const core = r.kind === 'api-root';
        const extra = core ? undefined : options.aggregatedDiscovery;
        const withItems = (doc: object, key: 'items' | 'groups', more: object[] | undefined) => (more?.length ? { ...doc, [key]: [...(doc as Record<string, object[]>)[key]!, ...more] } : doc);
        for (const [v, type] of [['v2', AGGREGATED_V2], ['v2beta1', AGGREGATED_V2BETA1]] as const) {
          if (!wantsAggregated(v)) continue;
          const more = extra?.aggregated();
          if (more?.length) return jsonResponse(200, withItems(aggregatedDiscovery(registry, core, v), 'items', more), {}, type);
          return { status: 200, headers: { 'content-type': type }, body: Buffer.from(aggregatedJson(core, v)) };
        }
        return jsonResponse(200, core ? apiVersions(options.serverAddress()) : withItems(apiGroupList(registry), 'groups', extra?.legacy()));
      }
      if (r.kind === 'group') {
        const g = apiGroup(registry, r.group) ?? (r.group ? options.aggregatedDiscovery?.group(r.group) : undefined);
        if (!g) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        return jsonResponse(200, g);
      }
      const list = apiResourceList(registry, r.group, r.version);
      if (!list) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return jsonResponse(200, list);
    }
    return serveResource(req, parsed.info);
  }

  /**
   * Runs a non-watch request under its deadline: past it the client gets kube-apiserver's 504
   * Timeout Status (the work itself goes on to its end, as in kube-apiserver).
   */
  function withDeadline(req: RawRequest): Promise<RawResponse> {
    if (classifyRequest(req.method, req.path, req.query) === 'long-running') return handle(req);
    const ms = requestTimeoutMs(req.query, timeoutMaxMs);
    return new Promise<RawResponse>((resolve, reject) => {
      let done = false;
      const timer = timers.setTimeout(() => {
        if (done) return;
        done = true;
        resolve(errorResponse(timeoutError('request did not complete within requested timeout - context deadline exceeded')));
      }, ms);
      handle(req).then(
        (r) => {
          if (done) return;
          done = true;
          timers.clearTimeout(timer);
          resolve(r);
        },
        (err) => {
          if (done) {
            if (!(err instanceof ApiError)) console.error('kplane: internal error serving (after its timeout)', req.method, req.path, err);
            return;
          }
          done = true;
          timers.clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /**
   * Impersonation, then authorization of the request's attributes (403 when refused); the
   * impersonated user and the decision go on the request's audit event.
   */
  function authorize(req: RawRequest): RawRequest | Promise<RawRequest> {
    const authorizer = options.authorizer;
    if (!authorizer) return req;
    if (wantsImpersonation(req.headers)) {
      const requester = req.user;
      req = impersonate(req, requester, authorizer);
      if (req.user !== requester && req.user) recordImpersonatedUser(req, req.user);
    }
    if (req.user) {
      const { attrs, decision } = decideRequest(authorizer, req, req.user);
      recordAuthorizationDecision(req, decision.allowed, decision.reason);
      if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
      if (options.admitNode && req.user.username.startsWith(NODE_USER_PREFIX) && req.user.groups.includes(NODES_GROUP)) {
        const admitted = req;
        return options.admitNode(admitted, attrs).then(() => admitted);
      }
    }
    return req;
  }

  return async (req) => {
    try {
      const authorized = authorize(req);
      return await withDeadline(authorized instanceof Promise ? await authorized : authorized);
    } catch (err) {
      if (!(err instanceof ApiError)) console.error('kplane: internal error serving', req.method, req.path, err);
      return errorResponse(err);
    }
  };
}
