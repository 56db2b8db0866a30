/**
 * The admission an API server wires from the cluster's own objects: the namespaces as their
 * watch cache last showed them (NamespaceLifecycle), the webhook configurations, the
 * Validating- and MutatingAdmissionPolicies and their bindings, the ResourceQuotas, LimitRanges
 * and PriorityClasses, each listed then followed by a watch so that a write reads them from memory, and the chain of every step, instrumented.
 */
import type { KubeObject } from '@kplane/api';
import { ApiError, forbidden, notFound } from '@kplane/api';
import { builtinAdmissionSteps, createAdmissionChain, equivalentResources, followedList, type AdmissionChain, type AdmissionObjects, type AdmissionOptions, type WebhookSource } from '../admission/index.js';
import { instrumentChain, instrumentSteps } from '../admission/metrics.js';
import { startPolicyStatus, type PolicyStatusLoop } from '../admission/policy/status.js';
import type { Authorizer } from '../auth/types.js';
import type { Registry } from '../registry/registry.js';
import type { ApiServerMetrics } from './metrics.js';

/** What createDynamicAdmission needs of its server. */
export interface DynamicAdmissionDeps {
  /** The server's registry (created after the chain, so read on use). */
  registry: () => Registry;
  /** The authorizer policies' `authorizer` variable asks. */
  authorizer: Authorizer;
  metrics: ApiServerMetrics;
  /** The server's own admission options (default toleration seconds, quotas...). */
  options?: Omit<AdmissionOptions, 'objects' | 'webhooks' | 'validatingPolicies'>;
}

/** The dynamic admission of one API server. */
export interface DynamicAdmission {
  /** The instrumented chain, built-in steps and dynamic ones in kube's order. */
  readonly chain: AdmissionChain;
  /** How the steps read the cluster. */
  readonly objects: AdmissionObjects;
  /** NamespaceLifecycle's check on a create: 404 for a missing namespace, 403 for a terminating one. */
  checkNamespace(namespace: string, group: string, resource: string, name: string): Promise<void>;
  /** Follows the namespaces, the webhook configurations and the policies (once they are served). */
  start(): Promise<void>;
  /** Starts the ValidatingAdmissionPolicies' status.typeChecking loop (after the CRDs are served). */
  startPolicyStatus(): Promise<void>;
  /** Stops every watch. */
  stop(): void;
}

const ADMISSION_GROUP = 'admissionregistration.k8s.io';

/** Creates the admission of an API server whose registry is not made yet. */
export function createDynamicAdmission(deps: DynamicAdmissionDeps): DynamicAdmission {
  const registry = deps.registry;
  // Namespaces as the namespaces watch cache last showed them: the lifecycle check reads this
  // first and storage only on a miss, as kube-apiserver's NamespaceLifecycle admission does.
  const namespaceCache = new Map<string, KubeObject>();
  const stop = new AbortController();
  const namespace = async (name: string): Promise<KubeObject | undefined> =>
    namespaceCache.get(name) ?? (await registry().get('', 'v1', 'namespaces')?.get(undefined, name).catch(() => undefined));

  async function followNamespaces(): Promise<void> {
    const store = registry().get('', 'v1', 'namespaces');
    if (!store) return;
    const list = await store.list(undefined);
    for (const ns of list.items) namespaceCache.set(ns.metadata!.name!, ns);
    void (async () => {
      try {
        for await (const e of store.cache.watch(Number(list.metadata.resourceVersion), stop.signal)) {
          if (e.type === 'DELETED') namespaceCache.delete(e.object.metadata!.name!);
          else namespaceCache.set(e.object.metadata!.name!, e.object);
        }
      } catch {
        namespaceCache.clear(); // a too-old cache: fall back to storage reads
      }
    })();
  }

  async function checkNamespace(ns: string, group: string, resource: string, name: string): Promise<void> {
    const store = registry().get('', 'v1', 'namespaces');
    if (!store) return;
    let obj = namespaceCache.get(ns);
    if (!obj) {
      try {
        obj = await store.get(undefined, ns);
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) throw notFound('', 'namespaces', ns);
        throw err;
      }
    }
    const phase = (obj.status as { phase?: string } | undefined)?.phase;
    if (obj.metadata?.deletionTimestamp || phase === 'Terminating') {
      const e = forbidden(group, resource, name, `unable to create new content in namespace ${ns} because it is being terminated`);
      throw new ApiError(e.code, e.reason, e.message, {
        ...e.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  // The lists followed by a watch: a write reads them from memory.
  const lists = {
    mutatingwebhookconfigurations: followedList(),
    validatingwebhookconfigurations: followedList(),
    validatingadmissionpolicies: followedList(),
    validatingadmissionpolicybindings: followedList(),
    mutatingadmissionpolicies: followedList(),
    mutatingadmissionpolicybindings: followedList(),
  };
  // What LimitRanger, Priority and ResourceQuota read on every create, followed by a watch (kube's
  // plugins read informers): a pod create reads memory, not storage (a round trip each on etcd).
  const readLists = new Map([
    ['/v1/resourcequotas', followedList()],
    ['/v1/limitranges', followedList()],
    ['scheduling.k8s.io/v1/priorityclasses', followedList()],
  ]);
  const fromStorage = async (group: string, version: string, resource: string, ns: string) => (await registry().get(group, version, resource)?.list(ns || undefined))?.items ?? [];
  // The other steps that read the cluster (the storage steps) read storage through the registry.
  const objects: AdmissionObjects = {
    list: async (group, version, resource, ns, options) => {
      const followed = readLists.get(`${group}/${version}/${resource}`);
      if (!followed?.started || options?.fresh) return fromStorage(group, version, resource, ns);
      return ns ? followed.items().filter((o) => o.metadata?.namespace === ns) : [...followed.items()];
    },
    updateStatus: async (group, version, resource, obj) => {
      // A copy: what callers change comes from the watch cache's objects, which are frozen, and the write fills in the object it is given.
      const written = await registry().get(group, version, resource)!.update(obj.metadata?.namespace, obj.metadata?.name ?? '', structuredClone(obj), { subresource: 'status' });
      // The next create reads what this one charged, not its watch event's way behind.
      readLists.get(`${group}/${version}/${resource}`)?.observe(written);
      return written;
    },
    kindResource: (group, version, kind) => {
      const t = registry().byKind(group, version, kind)?.type;
      return t ? { resource: t.resource, namespaced: t.namespaced } : undefined;
    },
    schema: (group, version, resource) => {
      const store = registry().get(group, version, resource);
      return store ? { schema: store.schema(), definitions: store.definitions } : undefined;
    },
    defaults: (group, version, resource, obj) => registry().get(group, version, resource)?.type.strategy.defaults?.(obj),
    mutatingPolicies: { policies: lists.mutatingadmissionpolicies.items, bindings: lists.mutatingadmissionpolicybindings.items },
    namespace,
  };
  const webhooks: WebhookSource = {
    metrics: deps.metrics,
    equivalents: equivalentResources({ all: () => registry().all(), onChange: (fn) => registry().onChange(fn) }),
    mutating: lists.mutatingwebhookconfigurations.items,
    validating: lists.validatingwebhookconfigurations.items,
    namespace,
    objects,
  };
  const validatingPolicies = {
    source: { policies: lists.validatingadmissionpolicies.items, bindings: lists.validatingadmissionpolicybindings.items },
    namespace,
    authorizer: deps.authorizer,
    // A params kind is followed by a watch once a policy needs it (not the never-stored review and metrics kinds).
    paramStore: (group: string, version: string, resource: string) => {
      const store = registry().get(group, version, resource);
      return store && !store.type.review && !store.type.read ? store : undefined;
    },
    signal: stop.signal,
  };
  const chain = instrumentChain(createAdmissionChain(instrumentSteps(builtinAdmissionSteps({ objects, webhooks, validatingPolicies, ...deps.options }), deps.metrics)), deps.metrics);
  let statusLoop: PolicyStatusLoop | undefined;

  return {
    chain,
    objects,
    checkNamespace,
    async start() {
      await followNamespaces();
      for (const [resource, list] of Object.entries(lists)) {
        const version = resource.startsWith('mutatingadmissionpolic') ? 'v1alpha1' : 'v1';
        const store = registry().get(ADMISSION_GROUP, version, resource);
        if (store) await list.start(store);
      }
      for (const [key, list] of readLists) {
        const [group, version, resource] = key.split('/') as [string, string, string];
        const store = registry().get(group, version, resource);
        if (store) await list.start(store);
      }
    },
    async startPolicyStatus() {
      // status.typeChecking of ValidatingAdmissionPolicies (kube's policy status controller).
      const r = registry();
      const policyStore = r.get(ADMISSION_GROUP, 'v1', 'validatingadmissionpolicies');
      if (!policyStore) return;
      const kindOf = (t: { group: string; version: string; kind: string; schemaName: string } | undefined) => (t ? { group: t.group, version: t.version, kind: t.kind, schemaName: t.schemaName } : undefined);
      statusLoop = await startPolicyStatus({
        store: policyStore,
        types: {
          kindOf: (g, v, res) => kindOf(r.get(g, v, res)?.type),
          paramKind: (g, v, k) => kindOf(r.byKind(g, v, k)?.type),
          definitions: () => r.definitions,
        },
        updateStatus: (obj) => objects.updateStatus(ADMISSION_GROUP, 'v1', 'validatingadmissionpolicies', obj),
        onError: (err) => console.error('kplane: ValidatingAdmissionPolicy status:', err),
      });
    },
    stop() {
      stop.abort();
      for (const list of [...Object.values(lists), ...readLists.values()]) list.stop();
      statusLoop?.stop();
    },
  };
}
