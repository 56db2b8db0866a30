/**
 * What a request addresses, read from its method, path and query the way kube-apiserver's
 * RequestInfo reads them: the verb (get, list, watch, create, update, patch, delete,
 * deletecollection) and the group, version, resource, subresource, namespace and name.
 */
import type { RawRequest } from '@kplane/api';

/** The verbs of a resource request, as Kubernetes' authorization names them. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The verbs that change state. */
export const WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** A request, read as kube-apiserver reads it. Non-resource paths (discovery, /healthz) have `resource: ''`. */
export interface RequestInfo {
  verb: Verb | string;
  group: string;
  version: string;
  /** Plural resource name, '' for a non-resource path. */
  resource: string;
  /** '' when the request addresses the main resource. */
  subresource: string;
  /** '' for cluster-scoped resources and all-namespace collections. */
  namespace: string;
  /** '' for collections. */
  name: string;
  /** The path as sent. */
  path: string;
  /** The resourceVersion the request names, '' when none. */
  resourceVersion: string;
}

function segments(path: string): string[] {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    /* keep it as sent */
  }
  return decoded.split('/').filter((s) => s !== '');
}

const truthy = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== 'false' && v !== '0';

/** Reads the verb and the resource a request addresses from its method, path and query. */
export function describeRequest(req: RawRequest): RequestInfo {
  const segs = segments(req.path);
  const q = req.query ?? {};
  const info: RequestInfo = { verb: req.method.toLowerCase(), group: '', version: '', resource: '', subresource: '', namespace: '', name: '', path: req.path, resourceVersion: q['resourceVersion'] ?? '' };
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    info.version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    info.group = segs[1]!;
    info.version = segs[2]!;
    rest = segs.slice(3);
  } else {
    return info;
  }
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  // /namespaces/<ns>/<resource>... names a namespaced resource, except the namespace's own
  // subresources (/api/v1/namespaces/<name>/status, /finalize).
  const nsSub = info.group === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !nsSub) {
    info.namespace = rest[1]!;
    rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest.slice(2).join('/');
  if (info.resource === 'namespaces' && info.name) info.namespace = info.name;
  const m = req.method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') {
    if (watchPath || (!info.name && truthy(q['watch']))) info.verb = 'watch';
    else info.verb = info.name ? 'get' : 'list';
  } else if (m === 'POST') info.verb = 'create';
  else if (m === 'PUT') info.verb = 'update';
  else if (m === 'PATCH') info.verb = 'patch';
  else if (m === 'DELETE') info.verb = info.name ? 'delete' : 'deletecollection';
  return info;
}

/** `update configmaps/status default/x`, `list pods (all namespaces)`: one line for logs and action lists. */
export function formatRequest(info: RequestInfo): string {
  if (!info.resource) return `${info.verb} ${info.path}`;
  const res = (info.group ? `${info.resource}.${info.group}` : info.resource) + (info.subresource ? `/${info.subresource}` : '');
  const target = info.name ? (info.namespace && info.resource !== 'namespaces' ? `${info.namespace}/${info.name}` : info.name) : info.namespace ? `-n ${info.namespace}` : '';
  return target ? `${info.verb} ${res} ${target}` : `${info.verb} ${res}`;
}
