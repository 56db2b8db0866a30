/**
 * Discovery for the garbage collector: which resources it must watch (every preferred
 * resource supporting list, watch and delete, built-in and custom) and a REST mapper turning an
 * ownerReference's apiVersion + kind into a resource to GET.
 */
import type { Client } from '@kplane/client';

/** One served resource as discovery describes it. */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural lower-case name ("configmaps"). */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** What one discovery pass found. */
export interface DiscoveryResult {
  /** Preferred version of every resource the collector watches (list + watch + delete, events excluded). */
  deletable: ResourceInfo[];
  /** Every resource of every served version, for mapping owner references. */
  all: ResourceInfo[];
  /** Groups whose discovery failed (their resources are missing from the lists above). */
  failedGroups: string[];
}

/** Maps apiVersion + kind to a served resource. */
export interface RestMapper {
  /** The resource serving `kind` in `apiVersion`, else in the group's preferred version; undefined when unknown. */
  resolve(apiVersion: string, kind: string): ResourceInfo | undefined;
}

/** Resources the collector never watches, as kube-controller-manager's defaults. */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

/** Splits "apps/v1" into group and version ("v1" is the core group). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** "apps/v1" or "v1". */
export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** A stable id of a group/version/resource. */
export function resourceId(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[] }[] }[];
  }[];
}

interface LegacyResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** Groups in preference order, each with its versions in preference order. */
type Found = Map<string, { version: string; resources: ResourceInfo[] }[]>;

async function aggregated(client: Client, path: string, signal?: AbortSignal): Promise<Found | undefined> {
  const doc = await client.request<AggregatedList>({ path, headers: { accept: AGGREGATED }, signal });
  if (doc?.kind !== 'APIGroupDiscoveryList') return undefined;
  const found: Found = new Map();
  for (const g of doc.items ?? []) {
    const group = g.metadata?.name ?? '';
    found.set(
      group,
      (g.versions ?? []).map((v) => ({
        version: v.version,
        resources: (v.resources ?? []).map((r) => ({
          group,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? '',
          namespaced: r.scope === 'Namespaced',
          verbs: r.verbs ?? [],
        })),
      })),
    );
  }
  return found;
}

async function legacyVersion(client: Client, group: string, version: string, signal?: AbortSignal): Promise<ResourceInfo[]> {
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const list = await client.request<LegacyResourceList>({ path, signal });
  return (list.resources ?? [])
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] }));
}

async function legacy(client: Client, core: boolean, failed: string[], signal?: AbortSignal): Promise<Found> {
  const found: Found = new Map();
  const groups: { name: string; versions: string[] }[] = [];
  if (core) {
    const doc = await client.request<{ versions?: string[] }>({ path: '/api', signal });
    groups.push({ name: '', versions: doc.versions ?? [] });
  } else {
    const doc = await client.request<{ groups?: { name: string; versions?: { version: string }[]; preferredVersion?: { version: string } }[] }>({ path: '/apis', signal });
    for (const g of doc.groups ?? []) {
      const versions = (g.versions ?? []).map((v) => v.version);
      const preferred = g.preferredVersion?.version;
      if (preferred && versions.includes(preferred)) versions.splice(versions.indexOf(preferred), 1), versions.unshift(preferred);
      groups.push({ name: g.name, versions });
    }
  }
  await Promise.all(
    groups.map(async (g) => {
      try {
        const versions = await Promise.all(g.versions.map(async (version) => ({ version, resources: await legacyVersion(client, g.name, version, signal) })));
        found.set(g.name, versions);
      } catch {
        failed.push(g.name);
      }
    }),
  );
  return found;
}

/**
 * Asks the API server what it serves: aggregated discovery (apidiscovery.k8s.io/v2) on `/api`
 * and `/apis`, falling back to the legacy documents when the server does not offer it.
 * Errors: a failure to read `/api` or `/apis` themselves is thrown; a failing group version
 * (legacy discovery) only leaves that group out and is listed in `failedGroups`.
 */
export async function discoverResources(client: Client, signal?: AbortSignal): Promise<DiscoveryResult> {
  const failedGroups: string[] = [];
  const found: Found = new Map();
  for (const [path, core] of [['/api', true], ['/apis', false]] as const) {
    const part = (await aggregated(client, path, signal)) ?? (await legacy(client, core, failedGroups, signal));
    for (const [g, v] of part) found.set(g, v);
  }
  const deletable: ResourceInfo[] = [];
  const all: ResourceInfo[] = [];
  for (const versions of found.values()) {
    const seen = new Set<string>();
    for (const v of versions) {
      for (const r of v.resources) {
        all.push(r);
        // The preferred version of a resource is the first version of its group serving it.
        if (seen.has(r.resource)) continue;
        seen.add(r.resource);
        if (IGNORED.has(`${r.group}/${r.resource}`)) continue;
        if (['list', 'watch', 'delete'].every((verb) => r.verbs.includes(verb))) deletable.push(r);
      }
    }
  }
  return { deletable, all, failedGroups };
}

/** Builds a REST mapper over every resource of a discovery result. */
export function createRestMapper(all: ResourceInfo[]): RestMapper {
  const exact = new Map<string, ResourceInfo>();
  const preferred = new Map<string, ResourceInfo>();
  for (const r of all) {
    const key = `${r.group}/${r.version}/${r.kind}`;
    if (!exact.has(key)) exact.set(key, r);
    const gk = `${r.group}/${r.kind}`;
    if (!preferred.has(gk)) preferred.set(gk, r);
  }
  return {
    resolve(apiVersion, kind) {
      const { group, version } = parseApiVersion(apiVersion);
      return exact.get(`${group}/${version}/${kind}`) ?? preferred.get(`${group}/${kind}`);
    },
  };
}
