/**
 * The resource quota controller (kube-controller-manager's pkg/controller/resourcequota): keeps
 * each ResourceQuota's status.hard equal to its spec.hard and its status.used equal to what the
 * namespace holds (pods, services, claims, config maps, secrets, object counts of any served kind
 * listed as `count/<resource>.<group>`), after every change of the quota or of a counted object,
 * and again each resync period on the injected clock.
 */
import { isDeepStrictEqual } from 'node:util';
import { addResources, ApiError, formatQuantity, maskResources, objectUsage, parseQuantityExact, quotaMatches, type KubeObject, type ResourceList } from '@kplane/api';
import {
  Action, ConfigMaps, PersistentVolumeClaims, Pods, ResourceQuotas, Secrets, Services, builtinDescriptors,
  type Clock, type Controller, type KindDescriptor, type Manager, type Request, type ResourceQuota,
} from '@kplane/runtime';

/** Options of createResourceQuotaController. */
export interface ResourceQuotaControllerOptions {
  /** Controller and workqueue name (default "resourcequota_primary", as kube's queue). */
  name?: string;
  /** Quotas synced at once (default 5, --concurrent-resource-quota-syncs). */
  workers?: number;
  /** Full recalculation period in ms (default 5 minutes, --resource-quota-sync-period). */
  resyncMs?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
}

/** The kinds whose changes are followed by informers (others are counted by listing at each sync). */
const WATCHED: readonly KindDescriptor[] = [Pods, Services, PersistentVolumeClaims, ConfigMaps, Secrets];

/** Resource quota usage as the quota's hard list names it: every hard resource, "0" when nothing counts. */
export function quotaUsage(quota: ResourceQuota, objects: (resource: string, group: string) => KubeObject[] | undefined): ResourceList {
  const hard = (quota.spec?.hard ?? {}) as ResourceList;
  const names = Object.keys(hard);
  let used: ResourceList = {};
  for (const n of names) used[n] = '0';
  const kinds = new Map<string, { resource: string; group: string }>();
  for (const n of names) {
    const m = /^count\/([^.]+)(?:\.(.+))?$/.exec(n);
    if (m) kinds.set(`${m[1]}.${m[2] ?? ''}`, { resource: m[1]!, group: m[2] ?? '' });
  }
  for (const r of ['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets']) kinds.set(`${r}.`, { resource: r, group: '' });
  let sum: ResourceList = {};
  for (const { resource, group } of kinds.values()) {
    for (const obj of objects(resource, group) ?? []) {
      if (!quotaMatches(quota.spec as never, resource, group, obj)) continue;
      sum = addResources(sum, maskResources(objectUsage(resource, group, obj), names));
    }
  }
  used = { ...used, ...sum };
  // Canonical forms, so an unchanged usage is not rewritten.
  for (const [k, v] of Object.entries(used)) {
    const q = parseQuantityExact(v);
    if (q) used[k] = formatQuantity(q);
  }
  return used;
}

/** Registers the resource quota controller on `manager`. */
export function createResourceQuotaController(manager: Manager, options: ResourceQuotaControllerOptions = {}): Controller {
  const resyncMs = options.resyncMs ?? 5 * 60_000;
  const quotas = manager.factory.informerFor<ResourceQuota>(ResourceQuotas);
  const watched = new Map(WATCHED.map((d) => [`${d.resource}.${d.group}`, manager.factory.informerFor(d)]));
  const api = manager.client.resource<ResourceQuota>(ResourceQuotas);

  const reconcile = async (req: Request, { signal }: { signal: AbortSignal }): Promise<Action | void> => {
    const quota = quotas.store.get(req.key);
    if (!quota || quota.metadata?.deletionTimestamp) return;
    const ns = quota.metadata?.namespace ?? '';
    const listed = new Map<string, KubeObject[]>();
    for (const n of Object.keys(quota.spec?.hard ?? {})) {
      const m = /^count\/([^.]+)(?:\.(.+))?$/.exec(n);
      if (!m || watched.has(`${m[1]}.${m[2] ?? ''}`)) continue;
      const desc = builtinDescriptors.find((d) => d.resource === m[1] && d.group === (m[2] ?? '') && d.namespaced);
      if (!desc) continue;
      const list = await manager.client.resource(desc).list({ namespace: ns, signal });
      listed.set(`${m[1]}.${m[2] ?? ''}`, list.items);
    }
    const used = quotaUsage(quota, (resource, group) => {
      const key = `${resource}.${group}`;
      const inf = watched.get(key);
      return inf ? inf.store.byIndex('byNamespace', ns) : listed.get(key);
    });
    const hard = { ...(quota.spec?.hard ?? {}) } as ResourceList;
    if (!isDeepStrictEqual(quota.status?.hard ?? {}, hard) || !isDeepStrictEqual(quota.status?.used ?? {}, used)) {
      try {
        await api.updateStatus({ ...quota, status: { hard, used } }, { namespace: ns, signal });
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return;
        throw err;
      }
    }
    return Action.requeue(resyncMs);
  };

  const quotasOf = (obj: KubeObject) => {
    const ns = obj.metadata?.namespace;
    if (!ns) return [];
    return quotas.store.byIndex('byNamespace', ns).map((q) => ({ namespace: ns, name: q.metadata?.name ?? '' }));
  };
  let builder = manager
    .controller()
    .named(options.name ?? 'resourcequota_primary')
    .for<ResourceQuota>(ResourceQuotas)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 });
  for (const d of WATCHED) builder = builder.watches(d, quotasOf);
  return builder.complete(reconcile);
}
