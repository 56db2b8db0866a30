import { createHash } from 'node:crypto';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/resource.js';
import type { Store } from '../registry/store.js';

/**
 * kube-apiserver's storageVersionHash of a kind stored as group/version/kind: the first 8 bytes
 * of the SHA-256 of "<group>/<version>/<kind>", in standard base64 ("/v1/ConfigMap" gives
 * "qFsyl6wFWjQ=").
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  if (!kind) return '';
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** The storageVersionHash discovery shows for a resource (from the version it is stored as). */
function hashOf(t: ResourceType): string {
  const sv = t.storageVersion ?? { group: t.group, version: t.version, kind: t.kind };
  return storageVersionHash(sv.group, sv.version, sv.kind);
}

const SUB_VERBS = ['get', 'patch', 'update'];

function subresources(s: Store): { name: string; kind: string; group?: string; version?: string; verbs: string[] }[] {
  const t = s.type;
  const out: { name: string; kind: string; group?: string; version?: string; verbs: string[] }[] = [];
  if (t.group === '' && t.resource === 'pods') {
    const connect = ['create', 'get'];
    out.push({ name: 'attach', kind: 'PodAttachOptions', verbs: connect }, { name: 'binding', kind: 'Binding', verbs: ['create'] }, { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] }, { name: 'exec', kind: 'PodExecOptions', verbs: connect }, { name: 'log', kind: 'Pod', verbs: ['get'] }, { name: 'portforward', kind: 'PodPortForwardOptions', verbs: connect });
  }
  if (t.group === '' && t.resource === 'serviceaccounts') out.push({ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] });
  if (t.resource === 'namespaces') out.push({ name: 'finalize', kind: t.kind, verbs: ['update'] });
  if (t.subresources?.scale) out.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUB_VERBS });
  if (t.subresources?.status) out.push({ name: 'status', kind: t.kind, verbs: SUB_VERBS });
  for (const name of t.subresources?.extra ?? []) out.push({ name, kind: t.kind, verbs: SUB_VERBS });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** /api/v1 or /apis/<g>/<v>: the legacy APIResourceList. */
export function apiResourceList(registry: Registry, group: string, version: string): object | undefined {
  const stores = registry.groupVersion(group, version);
  if (stores.length === 0) return undefined;
  const resources: object[] = [];
  for (const s of stores.sort((a, b) => a.type.resource.localeCompare(b.type.resource))) {
    const t = s.type;
    resources.push({
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
      ...(t.shortNames?.length ? { shortNames: t.shortNames } : {}),
      ...(t.categories?.length ? { categories: t.categories } : {}),
      storageVersionHash: hashOf(t),
    });
    for (const sub of subresources(s)) {
      resources.push({
        name: `${t.resource}/${sub.name}`,
        singularName: '',
        namespaced: t.namespaced,
        ...(sub.group !== undefined ? { group: sub.group, version: sub.version } : {}),
        kind: sub.kind,
        verbs: sub.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

/** /api: APIVersions. */
export function apiVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupInfo(registry: Registry, group: string): object {
  const versions = registry.versions(group).map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** /apis: APIGroupList. */
export function apiGroupList(registry: Registry): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.groups().filter((g) => g !== '').map((g) => groupInfo(registry, g)) };
}

/** /apis/<g>: APIGroup, or undefined when the group is not served. */
export function apiGroup(registry: Registry, group: string): object | undefined {
  if (!registry.groups().includes(group) || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupInfo(registry, group) };
}

function discoveryGroup(registry: Registry, group: string): object {
  return {
    metadata: { name: group, creationTimestamp: null },
    versions: registry.versions(group).map((version) => ({
      version,
      resources: registry
        .groupVersion(group, version)
        .sort((a, b) => a.type.resource.localeCompare(b.type.resource))
        .map((s) => {
          const t = s.type;
          return {
            resource: t.resource,
            responseKind: { group: t.group, version: t.version, kind: t.kind },
            scope: t.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: t.singular,
            verbs: t.verbs,
            ...(t.shortNames?.length ? { shortNames: t.shortNames } : {}),
            ...(t.categories?.length ? { categories: t.categories } : {}),
            ...(subresources(s).length
              ? {
                  subresources: subresources(s).map((sub) => ({
                    subresource: sub.name,
                    responseKind: { group: sub.group ?? t.group, version: sub.version ?? t.version, kind: sub.kind },
                    verbs: sub.verbs,
                  })),
                }
              : {}),
          };
        }),
      freshness: 'Current',
    })),
  };
}

/** Media type of aggregated discovery documents. */
export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
/** The v2beta1 media type some clients still ask for. */
export const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** Aggregated discovery (apidiscovery.k8s.io/v2) for /api (core) or /apis (every other group). */
export function aggregatedDiscovery(registry: Registry, core: boolean, version = 'v2'): object {
  const groups = registry.groups().filter((g) => (core ? g === '' : g !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => discoveryGroup(registry, g)),
  };
}
