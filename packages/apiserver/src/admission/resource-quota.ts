import {
  addResources, ApiError, compareQuantities, subtractResources, exceededResources, forbidden, maskResources, objectCountNames, objectUsage, podConstraintError, prettyPrintResources, quotaMatches,
  type KubeObject, type QuotaSpecLike, type ResourceList,
} from '@kplane/api';
import type { AdmissionObjects } from './objects.js';
import type { AdmissionAttributes, ValidatingStep } from './types.js';

interface Quota extends KubeObject {
  spec?: QuotaSpecLike;
  status?: { hard?: ResourceList; used?: ResourceList };
}

/** How often a conflicting quota status write is retried with fresh quotas. */
const MAX_ATTEMPTS = 5;

/** The resource names of a hard list an object of `resource` in `group` can count against (MatchingResources). */
export function matchingResources(resource: string, group: string, names: string[]): string[] {
  const counts = new Set(objectCountNames(resource, group));
  return names.filter((n) => {
    if (counts.has(n)) return true;
    if (group !== '') return false;
    if (resource === 'pods') return ['cpu', 'memory', 'ephemeral-storage'].includes(n) || n.startsWith('requests.') || n.startsWith('limits.') || n.startsWith('hugepages-');
    if (resource === 'services') return n === 'services.nodeports' || n === 'services.loadbalancers';
    if (resource === 'persistentvolumeclaims') return n === 'requests.storage' || n.includes('.storageclass.storage.k8s.io/');
    return false;
  });
}

/**
 * The ResourceQuota admission plugin (kube's quota evaluator): on the creation of an object in a
 * namespace (and the update of a service or claim, charged its growth only), every quota of that namespace whose status.hard tracks it (and whose scopes match
 * it) is checked. A pod that lacks a request a quota tracks answers "failed quota: NAME: must
 * specify ..."; a quota whose status lacks usage answers "status unknown for quota"; one the
 * object would exceed answers "exceeded quota: NAME, requested: ..., used: ..., limited: ...".
 * Otherwise the usage is charged to each quota's status.used by conditional writes (the quotas
 * read from the server's watch-kept copy; after a conflict from storage, and a quota already
 * charged is not charged again). Dry-run requests are checked, never charged.
 */
export function resourceQuotaAdmission(objects: AdmissionObjects): ValidatingStep {
  /**
   * One try: true when every quota is charged. `charged` holds the quotas charged by earlier
   * tries (not charged twice); after a conflict the quotas are read from storage (`fresh`).
   */
  async function attempt(attrs: AdmissionAttributes, fresh: boolean, done: Set<string>): Promise<boolean> {
    const { group, resource } = attrs.resource;
    const obj = attrs.object;
    const quotas = ((await objects.list('', 'v1', 'resourcequotas', attrs.namespace, { fresh })) as Quota[]).filter((q) => !done.has(q.metadata?.name ?? ''));
    // Most namespaces have no quota: nothing to weigh the object against.
    if (quotas.length === 0) return true;
    let usage = objectUsage(resource, group, obj);
    // An update is charged its growth only (quota.SubtractWithNonNegativeResult); zeros are dropped.
    if (attrs.operation === 'UPDATE' && attrs.oldObject) {
      const prev = objectUsage(resource, group, attrs.oldObject);
      usage = Object.fromEntries(Object.entries(subtractResources(usage, maskResources(prev, Object.keys(usage)))).map(([k, v]) => [k, compareQuantities(v, '0') < 0 ? '0' : v]));
    }
    usage = Object.fromEntries(Object.entries(usage).filter(([, v]) => compareQuantities(v, '0') !== 0));
    const charged: Quota[] = [];
    for (const q of quotas) {
      const hard = q.status?.hard ?? {};
      const restricted = matchingResources(resource, group, Object.keys(hard));
      if (!restricted.length || !quotaMatches(q.spec, resource, group, obj)) continue;
      const name = q.metadata?.name ?? '';
      if (group === '' && resource === 'pods') {
        const err = podConstraintError(obj as never, restricted);
        if (err) throw forbidden(group, resource, attrs.name, `failed quota: ${name}: ${err}`);
      }
      const used = q.status?.used ?? {};
      const unknown = restricted.filter((r) => used[r] === undefined);
      if (unknown.length) throw forbidden(group, resource, attrs.name, `status unknown for quota: ${name}, resources: ${unknown.sort().join(',')}`);
      const requested = maskResources(usage, restricted);
      if (!Object.keys(requested).length) continue;
      const exceeded = exceededResources(hard, used, requested);
      if (exceeded.length) {
        throw forbidden(group, resource, attrs.name,
          `exceeded quota: ${name}, requested: ${prettyPrintResources(maskResources(requested, exceeded))}, used: ${prettyPrintResources(maskResources(used, exceeded))}, limited: ${prettyPrintResources(maskResources(hard, exceeded))}`);
      }
      charged.push({ ...q, status: { ...q.status, used: addResources(used, requested) } });
    }
    if (attrs.dryRun) return true;
    for (const q of charged) {
      try {
        await objects.updateStatus('', 'v1', 'resourcequotas', q);
        done.add(q.metadata?.name ?? '');
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return false;
        throw err;
      }
    }
    return true;
  }
  return {
    name: 'ResourceQuota',
    operations: ['CREATE', 'UPDATE'],
    async validate(attrs) {
      if (!attrs.namespace || attrs.subresource !== '' || !attrs.object) return;
      const { group, resource } = attrs.resource;
      if (group === '' && resource === 'resourcequotas') return;
      // Of updates, kube's evaluators charge those of services and claims (their type, ports, storage may grow).
      if (attrs.operation === 'UPDATE' && !(group === '' && (resource === 'services' || resource === 'persistentvolumeclaims'))) return;
      const done = new Set<string>();
      for (let i = 0; i < MAX_ATTEMPTS; i++) if (await attempt(attrs, i > 0, done)) return;
      throw forbidden(attrs.resource.group, attrs.resource.resource, attrs.name, 'status unknown for quota: too many conflicting updates');
    },
  };
}
