import type { AddressInfo } from 'node:net';
import type { Server } from 'node:https';
import type { RawRequest, RawResponse, UserInfo } from '@kplane/api';
import { createRequestAuthenticator, type RequestAuthenticator } from '../auth/authenticator.js';
import { generateServiceAccountKeys, type ServiceAccountKeys } from '../auth/keys.js';
import { serviceAccountTokenAuthenticator, type ObjectLookup } from '../auth/serviceaccount.js';
import { staticTokenAuthenticator } from '../auth/token-file.js';
import { issueTokenRequest, oidcDiscovery, selfSubjectReview, tokenReview, type ServiceAccountIssuing } from './authentication.js';
import { registerReview } from './reviews.js';
import { ApiError, transportAs } from '@kplane/api';
import { BackendClosedError, DEFAULT_COMPACTION_INTERVAL_MS, runPeriodically, startCompactor, startExpirySweeper, systemClock, type Backend, type Clock, type Periodic } from '@kplane/storage';
import { createCrdController } from '../crd/controller.js';
import { builtinKinds, copyDefinitions } from '../kinds/index.js';
import { systemPriorityClasses } from '../kinds/priorityclass.js';
import { buildOpenAPIV3Document, buildSwaggerV2, openAPIV3Root, servedDocument, swaggerSpec, type ServedDocument, type SwaggerSpec } from '../openapi/index.js';
import { Registry } from '../registry/registry.js';
import type { KindBundle, StrategyContext } from '../registry/resource.js';
import type { StoreDeps } from '../registry/store.js';
import { createIfMissing } from '../registry/create-if-missing.js';
import type { Timers } from '../registry/timers.js';
import { auditRefusal, withAudit, type AuditSink } from '../auth/audit.js';
import { createHandler, type OpenAPIProvider } from './handler.js';
import { createAutoRegistration } from './autoregister.js';
import { RbacAuthorizer } from '../auth/rbac/authorizer.js';
import { NodeAuthorizer, unionAuthorizer } from '../auth/node/authorizer.js';
import { NodeGraph, startNodeGraphFeed, type NodeGraphFeed } from '../auth/node/graph.js';
import type { AuthorizationAttributes, Authorizer } from '../auth/types.js';
import { createNodeRestriction } from './node-restriction.js';
import { ensureBootstrapPolicy, type BootstrapPolicy } from '../auth/rbac/bootstrap.js';
import { startRbacFeed, type RbacFeed, type RbacResource } from '../auth/rbac/feed.js';
import { accessReviews } from '../auth/rbac/reviews.js';
import { createNodeConnections, type NodeConnections } from './nodes.js';
import { createKubeletClient, type KubeletClient, type KubeletClientConfig } from './kubelet-client.js';
import { createAggregator } from './aggregator.js';

/** How often APIServices that name a service are checked (their Available condition). */
const AVAILABILITY_CHECK_MS = 2000;
/** kube-apiserver's ClusterIP and NodePort repair loops run every 3 minutes. */
export const DEFAULT_SERVICE_REPAIR_INTERVAL_MS = 3 * 60_000;
import { createResourceMetrics, type ResourceMetrics } from './resource-metrics.js';
import { metricsKinds } from '../kinds/metrics.js';
import { createStreamUpgrade, type LocalStreams } from './pod-stream.js';
import { createHttpsServer } from './http.js';
import { ensureDefaultStorageClass } from '../kinds/storageclass.js';
import { createServiceAllocator } from './ip-allocator.js';
import { advertiseAddress, reconcileKubernetesService, repairServiceAllocations } from './kubernetes-service.js';
import { createIdentityLease, IDENTITY_LEASE_GC_PERIOD_MS, IDENTITY_LEASE_RENEW_INTERVAL_MS, type IdentityLease } from './identity-lease.js';
import { createLeaseEndpointReconciler, DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS, type ApiServerEndpoint } from './endpoint-reconciler.js';
import type { ServerLimits } from './limits.js';
import type { AdmissionOptions } from '../admission/index.js';
import { createDynamicAdmission } from './dynamic-admission.js';
import { createApiServerMetrics, type ApiServerMetrics } from './metrics.js';
import { parsedPath } from './authorize.js';

export type { ServerLimits } from './limits.js';
export type { Timers } from '../registry/timers.js';

/** The Kubernetes version kplane speaks. */
export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-kplane' };

/** Namespaces that exist from the start, as in every cluster. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Options of createApiServer. */
export interface ApiServerOptions {
  backend: Backend;
  /** Clock (tests inject one). */
  now?: () => Date;
  /** Service ClusterIP range (default 10.96.0.0/12, kube-apiserver's --service-cluster-ip-range). */
  serviceCIDR?: string;
  /** Service NodePort range (default 30000-32767, kube-apiserver's --service-node-port-range). */
  serviceNodePortRange?: string;
  /** Extra kinds to serve beside the built-in ones. */
  kinds?: KindBundle[];
  /** BOOKMARK interval for watches (ms). */
  bookmarkIntervalMs?: number;
  /** Events each resource's watch cache keeps (default 100 000). */
  watchCacheCapacity?: number;
  /** How long an Event lives after its last write, in seconds (default 3600, kube-apiserver's --event-ttl). */
  eventTTLSeconds?: number;
  /** Time between storage compactions (default 5 minutes, as kube-apiserver); 0: never compact. */
  compactionIntervalMs?: number;
  /** Clock of the compaction, TTL-expiry and Service-allocation repair schedules (tests inject a virtual one). */
  clock?: Clock;
  /** Time between repairs of the ClusterIP and NodePort allocations after the one at start (default 3 minutes, as kube-apiserver's repair loops); 0: only at start. */
  serviceRepairIntervalMs?: number;
  /** Body size, in-flight and request-timeout limits (kube-apiserver's defaults otherwise). */
  limits?: Partial<ServerLimits>;
  /** Bounds of the watch caches and of each watcher (bytes and events). */
  watchCache?: StoreDeps['watchCache'];
  /** Timers of request timeouts, watches and freshness waits (tests inject virtual ones). */
  timers?: Timers;
  /**
   * kube-apiserver's --authorization-mode: a comma-separated list of `Node`, `RBAC` and
   * `AlwaysAllow`, asked in order (the first that allows decides), default `Node,RBAC`;
   * `AlwaysAllow` alone lets every user do everything. With `Node`, the NodeRestriction
   * admission runs too.
   */
  authorizationMode?: string;
  /** ClusterRoles and ClusterRoleBindings created or reconciled at start beside the bootstrap policy (kplane's own components). */
  bootstrapPolicy?: Partial<BootstrapPolicy>;
  /**
   * Storage already holds what this same configuration's start writes (it is a copy of a
   * store such a server bootstrapped, as a test control plane's boot image): the post-start
   * hooks that only create or reconcile those objects (the system namespaces and priority
   * classes, the default StorageClass, the bootstrap RBAC policy) are skipped. The allocators'
   * repair, the `kubernetes` Service and every cache start as always.
   */
  bootstrapped?: boolean;
  /** What pods/exec and pods/portforward do for simulated containers (default: a clear error). */
  localStreams?: LocalStreams;
  /**
   * Credentials towards kubelets in other processes (kube-apiserver's --kubelet-client-certificate,
   * --kubelet-client-key, --kubelet-certificate-authority): pods/log, exec, attach and portforward
   * of their pods are proxied to them. Without: only in-process kubelets are reached.
   */
  kubeletClient?: KubeletClientConfig;
  /** The client certificate presented to APIService backends (kube-apiserver's --proxy-client-cert-file, --proxy-client-key-file). */
  proxyClient?: { cert: string; key: string };
  /** Where the audit event of every request goes (in-process requests included); absent: no audit. */
  audit?: AuditSink;
  /** Who may come in: tokens, ServiceAccount keys, issuer and audiences. */
  authentication?: AuthenticationOptions;
  /** Settings of the admission chain's steps (see src/admission). */
  admission?: AdmissionOptions;
  /**
   * kube-apiserver's --endpoint-reconciler-type: `lease` (default) publishes every live API
   * server over this storage in the `kubernetes` Service's Endpoints and EndpointSlice once
   * listening; `none` publishes none.
   */
  endpointReconcilerType?: 'lease' | 'none';
  /** kube-apiserver's --advertise-address: the address published for this server (default: the bind address, or the first external IPv4 for 0.0.0.0). */
  advertiseAddress?: string;
}

/** The ServiceAccount issuer when none is given (kubeadm's). */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** Authentication settings, as kube-apiserver's flags. */
export interface AuthenticationOptions {
  /** Static bearer tokens (`--token-auth-file`): token → user. */
  tokens?: ReadonlyMap<string, UserInfo>;
  /**
   * The keys that sign and verify ServiceAccount tokens (`--service-account-signing-key-file`,
   * `--service-account-key-file`); default: a key made in memory at creation.
   */
  serviceAccountKeys?: ServiceAccountKeys;
  /** `--service-account-issuer`: the first signs, all are accepted (default kubeadm's issuer). */
  serviceAccountIssuers?: readonly string[];
  /** `--api-audiences` (default: the first issuer). */
  apiAudiences?: readonly string[];
  /** `--service-account-max-token-expiration` in seconds (default 0: no limit). */
  serviceAccountMaxTokenExpirationSeconds?: number;
}

/** TLS and credentials for listen(). */
export interface ListenOptions {
  host?: string;
  port: number;
  cert: string;
  key: string;
  clientCa: string;
  /** More static bearer tokens (token → user), besides those of the authentication options. */
  tokens?: ReadonlyMap<string, UserInfo>;
  /** Credentials towards kubelets in other processes (as the `kubeletClient` option; the last given wins). */
  kubeletClient?: KubeletClientConfig;
  /** The client certificate presented to APIService backends (as the `proxyClient` option). */
  proxyClient?: { cert: string; key: string };
}

/** A running API server. */
export interface ApiServer {
  readonly registry: Registry;
  /** The kubelets that serve `pods/log`: a simulated kubelet in this process registers its nodes here. */
  readonly nodes: NodeConnections;
  /** The sources metrics.k8s.io reads: a simulated kubelet in this process registers itself here. */
  readonly metrics: ResourceMetrics;
  /** The Prometheus metrics this server serves at /metrics (requests, admission, webhooks). */
  readonly serverMetrics: ApiServerMetrics;
  /** The request handler: the in-process transport of @kplane/client uses it directly. */
  readonly handle: (req: RawRequest) => Promise<RawResponse>;
  /** Creates the system namespaces and starts the watch caches. */
  start(): Promise<void>;
  /** Serves HTTPS; resolves with the bound port. */
  listen(options: ListenOptions): Promise<number>;
  /** Stops serving and the caches (the backend is the caller's to close). */
  close(): Promise<void>;
  /** The RBAC authorizer (absent when the authorization modes do not name RBAC). */
  readonly rbac?: RbacAuthorizer;
  /** Resolves once the RBAC index has applied `resource`'s changes up to `resourceVersion`. */
  rbacSynced(resource: RbacResource, resourceVersion: string | number): Promise<void>;
  /** This server's identity Lease in kube-system (`apiserver-<hash>`), once listening. */
  readonly identity?: IdentityLease;
  /** The request authenticator of the HTTPS server (certificates, static and ServiceAccount tokens). */
  readonly authenticator: RequestAuthenticator;
  /** The keys that sign ServiceAccount tokens (the token controller signs legacy tokens with them). */
  readonly serviceAccountKeys: ServiceAccountKeys;
  /** The issuer of bound ServiceAccount tokens. */
  readonly serviceAccountIssuer: string;
  /** The API audiences (a token's default audiences). */
  readonly apiAudiences: readonly string[];
  /**
   * An in-process transport that acts as `user` (a controller's ServiceAccount, a node): the
   * handler sees it as if it had authenticated as that user.
   */
  transportAs(user: UserInfo): (req: RawRequest) => Promise<RawResponse>;
  /**
   * What the server is busy with right now, for tests that wait until a control plane is idle:
   * requests being served (a watch counts until its response starts), watchers with changes
   * of a watch cache left to read, and watch events encoded and not yet read by their client.
   */
  activity(): ApiServerActivity;
}

/** See `ApiServer.activity`. */
export interface ApiServerActivity {
  inFlight: number;
  unreadWatchers: number;
  queuedWatchEvents: number;
}

/** The identity under which AlwaysAllow's decisions are remembered (they never change). */
const ALLOW_ALL_IDENTITY = {};

/** The authorizer of authorizationMode AlwaysAllow. */
const allowAll = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => ({ rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], errors: [] }),
};

/** The authorization modes kplane knows, as kube-apiserver spells them. */
export const AUTHORIZATION_MODES = ['Node', 'RBAC', 'AlwaysAllow'] as const;

/** Parses --authorization-mode (`Node,RBAC`): the modes in order; throws for an unknown or repeated one, or none. */
export function parseAuthorizationModes(value: string): (typeof AUTHORIZATION_MODES)[number][] {
  const modes = value.split(',').map((m) => m.trim());
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode "${m}" is not a valid mode (valid: ${AUTHORIZATION_MODES.join(', ')})`);
  }
  if (new Set(modes).size !== modes.length) throw new Error(`authorization-mode "${value}" has mode specified more than once`);
  return modes as (typeof AUTHORIZATION_MODES)[number][];
}

/** Creates an API server over a storage backend. */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const now = options.now ?? (() => new Date());
  const modes = parseAuthorizationModes(options.authorizationMode ?? 'Node,RBAC');
  const rbac = modes.includes('RBAC') ? new RbacAuthorizer() : undefined;
  const nodeGraph = modes.includes('Node') ? new NodeGraph() : undefined;
  let nodeGraphFeed: NodeGraphFeed | undefined;
  // kube's union: each mode in order; AlwaysAllow alone is no authorization at all.
  const members = modes.map((m): Authorizer => (m === 'Node' ? new NodeAuthorizer(nodeGraph!) : m === 'RBAC' ? rbac! : { authorize: allowAll.authorize, identity: () => ALLOW_ALL_IDENTITY }));
  const authorizer: Authorizer | undefined = modes.length === 1 && modes[0] === 'AlwaysAllow' ? undefined : members.length === 1 ? members[0] : unionAuthorizer(members);
  const reviewAuthorizer = authorizer ? { authorize: (a: AuthorizationAttributes) => authorizer.authorize(a), rulesFor: rbac ? rbac.rulesFor.bind(rbac) : allowAll.rulesFor } : allowAll;
  let rbacFeed: RbacFeed | undefined;
  const resourceMetrics = createResourceMetrics();
  const bundles = [builtinKinds(), metricsKinds(resourceMetrics.read), ...(options.kinds ?? [])];
  const definitions = copyDefinitions(...bundles.map((b) => b.definitions));
  let registry!: Registry;
  // The bitmaps live in storage, shared with every API server over it.
  const allocator = createServiceAllocator({ cidr: options.serviceCIDR, portRange: options.serviceNodePortRange, backend: options.backend });
  const context: StrategyContext = {
    serviceAllocator: allocator,
    eventTTLSeconds: options.eventTTLSeconds ?? 3600,
    policy: rbac,
  };
  // Storage upkeep, as kube-apiserver's compactor and etcd's lease expiry: started with the server.
  const maintenance: Periodic[] = [];
  const startMaintenance = (): void => {
    const clock = options.clock ?? systemClock;
    const compactionIntervalMs = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (compactionIntervalMs > 0) maintenance.push(startCompactor({ backend: options.backend, clock, intervalMs: compactionIntervalMs }));
    maintenance.push(startExpirySweeper({ backend: options.backend, clock }));
    maintenance.push(runPeriodically(clock, AVAILABILITY_CHECK_MS, () => aggregator.checkAvailability(), (err) => console.error('kplane: APIService availability:', err)));
    // The allocators' repair loops: leaked values freed, duplicates reported again.
    const repairMs = options.serviceRepairIntervalMs ?? DEFAULT_SERVICE_REPAIR_INTERVAL_MS;
    if (repairMs > 0) maintenance.push(runPeriodically(clock, repairMs, () => repairServiceAllocations(registry, allocator, now), (err) => console.error('kplane: service allocation repair:', err)));
  };

  const serverMetrics = createApiServerMetrics({ served: (group, version, resource) => registry.get(group, version, resource)?.type });
  const dynamic = createDynamicAdmission({ registry: () => registry, authorizer: authorizer ?? allowAll, metrics: serverMetrics, options: options.admission });
  const { chain: admission, objects: admissionObjects, checkNamespace } = dynamic;
  registry = new Registry({ backend: options.backend, definitions, context, now, checkNamespace, admission, watchCacheCapacity: options.watchCacheCapacity, watchCache: options.watchCache, timers: options.timers });
  for (const b of bundles) for (const r of b.resources) registry.add(r);
  const endpointReconciler = (options.endpointReconcilerType ?? 'lease') === 'lease' ? createLeaseEndpointReconciler({ backend: options.backend, registry }) : undefined;

  // Custom resources: a CRD becomes served ResourceTypes (and leaves again) at run time.
  const crdController = createCrdController({ registry, backend: options.backend, now, timers: options.timers, objects: admissionObjects });
  // One Local APIService per served group/version, as kube-apiserver's autoregister controller.
  const autoRegistration = createAutoRegistration(registry, (err) => console.error('kplane: APIService auto-registration:', err));

  // The OpenAPI documents, built on first use and again after the served resources change.
  let openapiCache: { docs: Map<string, object>; served: Map<string, ServedDocument>; root: ServedDocument } | undefined;
  let swaggerCache: SwaggerSpec | undefined;
  registry.onChange(() => {
    openapiCache = undefined;
    swaggerCache = undefined;
  });
  const openapiDocs = () => {
    if (openapiCache) return openapiCache;
    const built = now();
    const docs = new Map<string, object>();
    for (const g of registry.groups()) {
      for (const v of registry.versions(g)) {
        const key = g === '' ? `api/${v}` : `apis/${g}/${v}`;
        docs.set(key, buildOpenAPIV3Document(g, v, registry.groupVersion(g, v).map((s) => s.type), registry.definitions));
      }
    }
    const served = new Map([...docs].map(([key, doc]) => [key, servedDocument(doc, built)]));
    openapiCache = { docs, served, root: servedDocument(openAPIV3Root(docs), built) };
    return openapiCache;
  };
  const openapi: OpenAPIProvider = {
    root: () => openapiDocs().root,
    document: (path) => openapiDocs().served.get(path),
    v2: () => {
      if (!swaggerCache) {
        const doc = buildSwaggerV2(openapiDocs().docs.values(), registry.all().map((s) => s.type), {
          version: KUBERNETES_VERSION.gitVersion.split('-')[0]!,
          definitions: registry.definitions,
        });
        swaggerCache = swaggerSpec(doc, now());
      }
      return swaggerCache;
    },
  };

  const nodes = createNodeConnections();
  let kubelets: KubeletClient | undefined;
  const useKubeletClient = (c: KubeletClientConfig) => (kubelets = createKubeletClient(c, () => registry.get('', 'v1', 'nodes')));
  if (options.kubeletClient) useKubeletClient(options.kubeletClient);
  nodes.remote = async (node) => kubelets?.containers(node);
  // Authentication: static tokens, then ServiceAccount tokens (x509 comes first in the union).
  const auth = options.authentication ?? {};
  const saKeys = auth.serviceAccountKeys ?? generateServiceAccountKeys();
  const issuers = auth.serviceAccountIssuers?.length ? auth.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = auth.apiAudiences?.length ? auth.apiAudiences : [issuers[0]!];
  const lookup: ObjectLookup = async (resource, namespace, name) => {
    const store = registry.get('', 'v1', resource);
    if (!store) return undefined;
    try {
      return await store.get(namespace, name);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  };
  const saAuthenticator = serviceAccountTokenAuthenticator({ keys: () => saKeys, issuers, apiAudiences, lookup, now });
  let staticTokens = new Map(auth.tokens ?? []);
  const makeAuthenticator = () => createRequestAuthenticator({ tokens: [staticTokenAuthenticator(staticTokens, apiAudiences), saAuthenticator] });
  let authenticator = makeAuthenticator();
  const issuing: ServiceAccountIssuing = {
    keys: () => saKeys,
    issuer: issuers[0]!,
    apiAudiences,
    maxExpirationSeconds: auth.serviceAccountMaxTokenExpirationSeconds ?? 0,
    lookup,
    now,
  };
  registerReview(registry, tokenReview(() => authenticator));
  registerReview(registry, selfSubjectReview(now));
  for (const review of accessReviews(reviewAuthorizer)) registerReview(registry, review);

  let ready = false;
  let address = '127.0.0.1:6443';
  let proxyClient: { cert: string; key: string } | undefined = options.proxyClient;
  const watchDeliveries = { queued: 0 };
  const aggregator = createAggregator({ registry, now, proxyClient: () => proxyClient });
  const handleRequest = createHandler({
    aggregated: (req, group, version) => aggregator.serve(req, group, version),
    aggregatedDiscovery: { legacy: () => aggregator.legacyGroups(), aggregated: () => aggregator.aggregatedGroups(), group: (g) => aggregator.apiGroup(g) },
    registry,
    openapi,
    now,
    version: {
      ...KUBERNETES_VERSION,
      gitCommit: '0000000000000000000000000000000000000000',
      gitTreeState: 'clean',
      buildDate: '2026-01-01T00:00:00Z',
      goVersion: `node${process.versions.node}`,
      compiler: 'kplane',
      platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    },
    serverAddress: () => address,
    ready: () => ready,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    limits: options.limits,
    timers: options.timers,
    watchDeliveries,
    authorizer,
    admitNode: nodeGraph ? createNodeRestriction(registry, nodeGraph) : undefined,
    nodes,
    tokenRequest: (namespace, name, body, ctx) => issueTokenRequest(issuing, namespace, name, body, ctx.warnings),
    paths: { ...oidcDiscovery(issuing, () => `https://${address}`), '/metrics': (method) => serverMetrics.serve(method) },
  });
  const audited = options.audit ? withAudit(handleRequest, { sink: options.audit, now }) : handleRequest;
  let inFlight = 0;
  const handle = (req: RawRequest): Promise<RawResponse> => {
    inFlight++;
    const started = performance.now();
    let settled: Promise<RawResponse>;
    try {
      settled = audited(req);
    } catch (err) {
      inFlight--;
      throw err;
    }
    return settled.then(
      (res) => {
        inFlight--;
        serverMetrics.observeRequest(req, parsedPath(req.path), res.status, (performance.now() - started) / 1000);
        return res;
      },
      (err) => {
        inFlight--;
        throw err;
      },
    );
  };

  const servers: Server[] = [];
  // What the `kubernetes` Service and its endpoints point at (the address once listening).
  let kubernetesEndpoint: { port: number; address?: string } = { port: 6443 };
  let identity: IdentityLease | undefined;
  const self = (): ApiServerEndpoint | undefined => (kubernetesEndpoint.address ? { address: kubernetesEndpoint.address, port: kubernetesEndpoint.port } : undefined);
  // This server's record and the endpoints of every live one, then the Service (kube's
  // kubernetes Service controller, every 10 s).
  const reconcileKubernetes = async (): Promise<void> => {
    const me = self();
    const live = me && endpointReconciler ? await endpointReconciler.reconcile(me) : [];
    await reconcileKubernetesService(registry, allocator, kubernetesEndpoint.port, live.map((e) => e.port));
  };


  return {
    registry,
    handle,
    rbac,
    async rbacSynced(resource, resourceVersion) {
      await rbacFeed?.waitFor(resource, Number(resourceVersion));
    },
    nodes,
    metrics: resourceMetrics,
    serverMetrics,
    get authenticator() {
      return authenticator;
    },
    get identity() {
      return identity;
    },
    serviceAccountKeys: saKeys,
    serviceAccountIssuer: issuers[0]!,
    apiAudiences,
    transportAs: (user) => transportAs(handle, user),
    activity() {
      let unreadWatchers = 0;
      for (const store of registry.all()) unreadWatchers += store.cache.unreadWatchers;
      return { inFlight, unreadWatchers, queuedWatchEvents: watchDeliveries.queued };
    },
    async start() {
      await registry.start();
      const namespaces = registry.get('', 'v1', 'namespaces')!;
      const bootstrap = !options.bootstrapped;
      for (const name of bootstrap ? SYSTEM_NAMESPACES : []) await createIfMissing(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await dynamic.start();
      // kube-apiserver's scheduling/bootstrap-system-priority-classes post-start hook.
      const priorityClasses = registry.get('scheduling.k8s.io', 'v1', 'priorityclasses');
      for (const pc of priorityClasses && bootstrap ? systemPriorityClasses() : []) await createIfMissing(priorityClasses!, pc);
      if (bootstrap) await ensureDefaultStorageClass(registry);
      // The allocators' repair, then the `kubernetes` Service (kube-apiserver's post-start hooks).
      await repairServiceAllocations(registry, allocator, now, { retries: 20 });
      // Another API server over this storage may serve already: its target port stays.
      const live = endpointReconciler ? await endpointReconciler.live() : [];
      await reconcileKubernetesService(registry, allocator, kubernetesEndpoint.port, live.map((e) => e.port));
      // Recreated or repaired every 10 s, as kube-apiserver's kubernetes Service controller does.
      maintenance.push(runPeriodically(options.clock ?? systemClock, DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS, reconcileKubernetes, () => undefined));
      // kube-apiserver's rbac/bootstrap-roles post-start hook, then the index follows the RBAC objects.
      if (bootstrap) await ensureBootstrapPolicy(registry, options.bootstrapPolicy);
      if (rbac) rbacFeed = await startRbacFeed(registry, rbac);
      if (nodeGraph) nodeGraphFeed = await startNodeGraphFeed(registry, nodeGraph);
      await crdController.start();
      await autoRegistration.start();
      await dynamic.startPolicyStatus();
      startMaintenance();
      ready = true;
    },
    async listen(l) {
      if (l.kubeletClient) useKubeletClient(l.kubeletClient);
      if (l.proxyClient) proxyClient = l.proxyClient;
      if (l.tokens?.size) {
        staticTokens = new Map([...staticTokens, ...l.tokens]);
        authenticator = makeAuthenticator();
      }
      const server = createHttpsServer({ handler: handle, refused: options.audit ? auditRefusal({ sink: options.audit, now }) : undefined, cert: l.cert, key: l.key, clientCa: l.clientCa, authenticator: { authenticate: (r) => authenticator.authenticate(r) }, limits: options.limits, upgrade: createStreamUpgrade({
          handler: handle,
          pods: () => registry.get('', 'v1', 'pods'),
          local: options.localStreams,
          remote: async (node, t, req, socket, head) => !nodes.get(node) && !!kubelets && (await kubelets.proxyUpgrade(node, t, req, socket, head)),
        }),
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(l.port, l.host ?? '127.0.0.1', () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      address = `${l.host ?? '127.0.0.1'}:${port}`;
      kubernetesEndpoint = { port, address: options.advertiseAddress ?? advertiseAddress(l.host ?? '127.0.0.1') };
      await reconcileKubernetes();
      if (!identity) {
        // kube-apiserver's identity Lease, renewed every 10 s; expired ones collected every hour.
        const lease = (identity = createIdentityLease({ registry, port, now }));
        const clock = options.clock ?? systemClock;
        await lease.renew();
        await lease.collect().catch((err) => console.error('kplane: collecting expired API server identity leases:', err));
        maintenance.push(runPeriodically(clock, IDENTITY_LEASE_RENEW_INTERVAL_MS, () => lease.renew(), (err) => console.error('kplane: renewing the API server identity lease:', err)));
        maintenance.push(runPeriodically(clock, IDENTITY_LEASE_GC_PERIOD_MS, () => lease.collect(), (err) => console.error('kplane: collecting expired API server identity leases:', err)));
      }
      return port;
    },
    async close() {
      ready = false;
      await Promise.all(maintenance.splice(0).map((m) => m.stop()));
      // A clean stop takes this server out of the `kubernetes` endpoints at once (kube's RemoveEndpoints).
      const me = self();
      if (me && endpointReconciler) await endpointReconciler.remove(me).catch((err) => {
        if (!(err instanceof BackendClosedError)) console.error('kplane: removing this API server from the kubernetes endpoints:', err);
      });
      rbacFeed?.stop();
      dynamic.stop();
      nodeGraphFeed?.stop();
      crdController.stop();
      autoRegistration.stop();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      registry.stop();
    },
  };
}
