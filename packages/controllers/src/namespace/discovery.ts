/**
 * Discovery of the namespaced resources a namespace can hold, in their preferred version
 * (client-go's ServerPreferredNamespacedResources): aggregated discovery (two requests) with a
 * fallback to the legacy per-group-version documents when the server does not serve it.
 */
import type { Client } from '@kplane/client';
import { DiscoveryError } from './conditions.js';

/** One namespaced resource, in the preferred version of its group. */
export interface NamespacedResource {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural name, e.g. "configmaps". */
  resource: string;
  kind: string;
  verbs: ReadonlySet<string>;
}

/** What discovery found: the resources, and what failed (discovery is not all-or-nothing). */
export interface DiscoveryResult {
  resources: NamespacedResource[];
  /** Set when some or all groups could not be discovered. */
  error?: DiscoveryError | Error;
  /** Set when a group/version string could not be parsed (then `resources` is empty). */
  groupVersionError?: Error;
}

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface AggregatedResource {
  resource: string;
  responseKind?: { kind?: string };
  scope?: string;
  verbs?: string[];
}
interface AggregatedList {
  kind?: string;
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: AggregatedResource[]; freshness?: string }[] }[];
}
interface LegacyResourceList {
  groupVersion: string;
  resources?: { name: string; namespaced?: boolean; kind?: string; verbs?: string[] }[];
}

/** One group/version's resources before filtering. */
interface GroupVersionResources {
  groupVersion: string;
  resources: { name: string; namespaced: boolean; kind: string; verbs: string[] }[];
}

/** Parses "group/version" or "version" as apimachinery's ParseGroupVersion does. */
export function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new Error(`unexpected GroupVersion string: ${gv}`);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Aggregated discovery of /api and /apis; undefined when the server answers in the legacy format. */
async function aggregated(client: Client, signal?: AbortSignal): Promise<{ lists: GroupVersionResources[]; failed: Map<string, string> } | undefined> {
  const lists: GroupVersionResources[] = [];
  const failed = new Map<string, string>();
  for (const path of ['/api', '/apis']) {
    const doc = await client.request<AggregatedList>({ path, headers: { accept: AGGREGATED }, signal });
    if (doc?.kind !== 'APIGroupDiscoveryList') return undefined;
    for (const g of doc.items ?? []) {
      const group = g.metadata?.name ?? '';
      for (const v of g.versions ?? []) {
        const groupVersion = group ? `${group}/${v.version}` : v.version;
        if (v.freshness === 'Stale') {
          failed.set(groupVersion, `stale GroupVersion discovery: ${groupVersion}`);
          continue;
        }
        lists.push({
          groupVersion,
          resources: (v.resources ?? []).map((r) => ({ name: r.resource, namespaced: r.scope === 'Namespaced', kind: r.responseKind?.kind ?? '', verbs: r.verbs ?? [] })),
        });
      }
    }
  }
  return { lists, failed };
}

/** Legacy discovery: /api, /api/v1, /apis and every /apis/<group>/<version>. */
async function legacy(client: Client, signal?: AbortSignal): Promise<{ lists: GroupVersionResources[]; failed: Map<string, string> }> {
  const failed = new Map<string, string>();
  const gvs: string[] = [];
  const core = await client.request<{ versions?: string[] }>({ path: '/api', signal });
  gvs.push(...(core.versions ?? []));
  const groups = await client.request<{ groups?: { versions?: { groupVersion: string }[] }[] }>({ path: '/apis', signal });
  for (const g of groups.groups ?? []) for (const v of g.versions ?? []) gvs.push(v.groupVersion);
  const lists = await Promise.all(
    gvs.map(async (gv): Promise<GroupVersionResources | undefined> => {
      try {
        const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
        const doc = await client.request<LegacyResourceList>({ path, signal });
        return {
          groupVersion: doc.groupVersion ?? gv,
          resources: (doc.resources ?? []).map((r) => ({ name: r.name, namespaced: r.namespaced === true, kind: r.kind ?? '', verbs: r.verbs ?? [] })),
        };
      } catch (err) {
        failed.set(gv, errorText(err));
        return undefined;
      }
    }),
  );
  return { lists: lists.filter((l): l is GroupVersionResources => l !== undefined), failed };
}

/**
 * Discovers every namespaced resource that supports `delete`, once per group and resource, in
 * the first (preferred) version that serves it. Never throws: failures are reported in the
 * result, with whatever could be discovered.
 */
export async function discoverDeletableNamespacedResources(client: Client, signal?: AbortSignal): Promise<DiscoveryResult> {
  let found: { lists: GroupVersionResources[]; failed: Map<string, string> };
  try {
    found = (await aggregated(client, signal)) ?? (await legacy(client, signal));
  } catch (err) {
    return { resources: [], error: err instanceof Error ? err : new Error(String(err)) };
  }
  const result: DiscoveryResult = { resources: [] };
  if (found.failed.size > 0) result.error = new DiscoveryError(found.failed);
  const seen = new Set<string>();
  const resources: NamespacedResource[] = [];
  for (const list of found.lists) {
    let gv: { group: string; version: string };
    try {
      gv = parseGroupVersion(list.groupVersion);
    } catch (err) {
      // As client-go's GroupVersionResources: one unparsable group/version voids the whole set.
      result.groupVersionError = err as Error;
      return result;
    }
    for (const r of list.resources) {
      if (!r.namespaced || r.name.includes('/') || !r.verbs.includes('delete')) continue;
      const id = `${gv.group}/${r.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      resources.push({ group: gv.group, version: gv.version, resource: r.name, kind: r.kind, verbs: new Set(r.verbs) });
    }
  }
  result.resources = resources;
  return result;
}
