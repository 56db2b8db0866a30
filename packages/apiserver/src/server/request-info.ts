/** What a resource request addresses, parsed from its path (like k8s.io/apiserver's RequestInfo). */
export interface ResourceRequestInfo {
  group: string;
  version: string;
  /** Plural resource name. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The legacy /watch/ path prefix was used. */
  watchPath: boolean;
}

/** A request for discovery rather than for a resource. */
export type DiscoveryRequest =
  | { kind: 'apis-root' }
  | { kind: 'api-root' }
  | { kind: 'group'; group: string }
  | { kind: 'group-version'; group: string; version: string };

/** Parsed path. */
export type ParsedPath = { kind: 'resource'; info: ResourceRequestInfo } | { kind: 'discovery'; req: DiscoveryRequest } | { kind: 'other' };

/**
 * Parses /api/v1/..., /apis/<group>/<version>/... paths. `isNamespaceSubresource` tells whether
 * /api/v1/namespaces/<name>/<x> names a subresource of the namespace (status, finalize) rather
 * than a namespaced resource.
 */
export function parsePath(path: string, isNamespaceSubresource: (group: string, version: string, seg: string) => boolean): ParsedPath {
  const raw = path.split('/').filter((s, i) => i > 0 && s !== '');
  let segs: string[];
  try {
    segs = raw.map((s) => decodeURIComponent(s));
  } catch {
    return { kind: 'other' };
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api') {
    if (segs.length === 1) return { kind: 'discovery', req: { kind: 'api-root' } };
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis') {
    if (segs.length === 1) return { kind: 'discovery', req: { kind: 'apis-root' } };
    if (segs.length === 2) return { kind: 'discovery', req: { kind: 'group', group: segs[1]! } };
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else {
    return { kind: 'other' };
  }
  if (rest.length === 0) return { kind: 'discovery', req: { kind: 'group-version', group, version } };
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  const info: ResourceRequestInfo = { group, version, resource: '', watchPath };
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && isNamespaceSubresource(group, version, rest[2]!))) {
    info.namespace = rest[1];
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces' && rest.length >= 2) {
    // /api/v1/namespaces/<name>[/status|/finalize]
    info.resource = 'namespaces';
    info.name = rest[1];
    info.subresource = rest[2];
    if (rest.length > 3) return { kind: 'other' };
    return { kind: 'resource', info };
  }
  if (rest.length < 1 || rest.length > 3) return { kind: 'other' };
  info.resource = rest[0]!;
  info.name = rest[1];
  info.subresource = rest[2];
  return { kind: 'resource', info };
}
