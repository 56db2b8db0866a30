/** How kube-apiserver routes a resource request to a verb, and the deadline of a request. */
import { badRequest, routeMethodNotAllowed } from '@kplane/api';
import { parseBoolParam, parseGoDuration } from './limits.js';
import type { ResourceRequestInfo } from './request-info.js';

/** The verb of each method on an object path, by subresource ('' for the object itself). */
const OBJECT_VERBS: Record<string, Record<string, string>> = {
  '': { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' },
  status: { GET: 'get', PUT: 'update', PATCH: 'patch' },
  approval: { GET: 'get', PUT: 'update', PATCH: 'patch' },
  scale: { GET: 'get', PUT: 'update', PATCH: 'patch' },
  finalize: { PUT: 'update' },
  binding: { POST: 'create' },
  eviction: { POST: 'create' },
  log: { GET: 'get' },
  exec: { GET: 'create', POST: 'create' },
  attach: { GET: 'create', POST: 'create' },
  portforward: { GET: 'create', POST: 'create' },
  token: { POST: 'create' },
};

/**
 * The Kubernetes verb a resource request asks for, routed as kube-apiserver's installer routes
 * it: collection paths of the resource's own scope serve list, watch, create and
 * deletecollection; the cluster-wide path of a namespaced resource serves list and watch only;
 * /watch/ paths serve GET only; object paths serve get, update, patch and delete; subresources
 * their own verbs (log GET; exec, attach and portforward GET and POST, served on upgrades). Anything
 * else (CONNECT included) is 405.
 */
export function routeVerb(method: string, info: ResourceRequestInfo, namespaced: boolean, q: Record<string, string>): string {
  const m = method.toUpperCase();
  if (info.watchPath) {
    if (m === 'GET') return 'watch';
    throw routeMethodNotAllowed();
  }
  if (info.name === undefined) {
    if (m === 'GET') return q.watch !== undefined && parseBoolParam(q.watch) ? 'watch' : 'list';
    const ownScope = !namespaced || info.namespace !== undefined;
    if (ownScope && m === 'POST') return 'create';
    if (ownScope && m === 'DELETE') return 'deletecollection';
    throw routeMethodNotAllowed();
  }
  const verb = OBJECT_VERBS[info.subresource ?? '']?.[m];
  if (!verb) throw routeMethodNotAllowed();
  return verb;
}

/** The deadline of a non-watch request: the `timeout` parameter (a Go duration) when shorter than the server's limit. */
export function requestTimeoutMs(q: Record<string, string> | undefined, maximumMs: number): number {
  const v = q?.timeout;
  if (v === undefined || v === '') return maximumMs;
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (err) {
    throw badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return ms > 0 && ms < maximumMs ? ms : maximumMs;
}
