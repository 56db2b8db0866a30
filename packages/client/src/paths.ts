/** URL building for Kubernetes REST paths. */

/** Which resource a path addresses. */
export interface ResourcePathParts {
  group: string;
  version: string;
  resource: string;
  /** Absent or empty: cluster scope (or all namespaces for a namespaced collection). */
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** The group/version prefix: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
}

/**
 * Builds `/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]` (or the `/apis/...`
 * form), percent-encoding every segment.
 */
export function resourcePath(parts: ResourcePathParts): string {
  let p = groupVersionPath(parts.group, parts.version);
  if (parts.namespace) p += `/namespaces/${encodeURIComponent(parts.namespace)}`;
  p += `/${encodeURIComponent(parts.resource)}`;
  if (parts.name !== undefined) {
    p += `/${encodeURIComponent(parts.name)}`;
    if (parts.subresource) p += `/${encodeURIComponent(parts.subresource)}`;
  } else if (parts.subresource) {
    throw new Error('a subresource needs a resource name');
  }
  return p;
}
