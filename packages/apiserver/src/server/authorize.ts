/**
 * Authorization of a request, as kube-apiserver's WithImpersonation and WithAuthorization
 * filters: the request's attributes (its RequestInfo: verb, group, resource, subresource,
 * namespace, name, or a non-resource path), the switch to an impersonated user, and the 403
 * when the authorizer refuses.
 */
import type { RawRequest, UserInfo } from '@kplane/api';
import { ApiError, parseFieldSelector } from '@kplane/api';
import { forbiddenError, serviceAccountUsername, splitServiceAccountUsername } from '../auth/rbac/rules.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, SERVICE_ACCOUNTS_GROUP, UNAUTHENTICATED_GROUP, type AuthorizationAttributes, type AuthorizationDecision, type Authorizer } from '../auth/types.js';
import { parseBoolParam } from './limits.js';
import { isNamespaceSubresource, parsePath, pathSegmentNameErrors, type ParsedPath } from './request-info.js';

const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** parsePath (remembered there); undefined for a path that does not parse (400 later, in routing). */
export function parsedPath(path: string): ParsedPath | undefined {
  try {
    return parsePath(path, isNamespaceSubresource);
  } catch {
    return undefined;
  }
}

/** The name an exact `metadata.name` term of a field selector names (kube's RequiresExactMatch), if any. */
function fieldSelectorName(selector: string | undefined): string | undefined {
  if (!selector) return undefined;
  try {
    const term = parseFieldSelector(selector).requirements.find((r) => r.field === 'metadata.name' && r.operator !== '!=');
    return term && pathSegmentNameErrors(term.value).length === 0 ? term.value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The attributes kube-apiserver authorizes a request with, from its method and path alone
 * (before routing: a request for an unknown resource is authorized first). Resource paths get
 * the verb from the method (a GET without a name is list or watch, a DELETE without one
 * deletecollection; an exact `metadata.name` field selector names the object); other paths
 * (discovery, /healthz, /version, /openapi) are non-resource requests with the lower-case method.
 */
export function requestAttributes(req: RawRequest, user: UserInfo): AuthorizationAttributes {
  const method = req.method.toUpperCase();
  const parsed = parsedPath(req.path);
  if (!parsed || parsed.kind !== 'resource') return { user, verb: method.toLowerCase(), resourceRequest: false, path: req.path };
  const info = parsed.info;
  const q = req.query ?? {};
  let verb = info.watchPath ? 'watch' : (METHOD_VERBS[method] ?? '');
  let name = info.name;
  let fieldSelector: string | undefined;
  if (name === undefined && verb === 'get') {
    verb = q.watch !== undefined && safeBool(q.watch) ? 'watch' : 'list';
    name = fieldSelectorName(q.fieldSelector);
    fieldSelector = q.fieldSelector || undefined;
  }
  if (verb === 'watch' && info.watchPath) fieldSelector = q.fieldSelector || undefined;
  if (name === undefined && verb === 'delete') verb = 'deletecollection';
  // The namespace of a namespace's own paths is the namespace itself.
  const namespace = info.namespace ?? (info.resource === 'namespaces' && info.name !== undefined ? info.name : undefined);
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace,
    name,
    ...(fieldSelector !== undefined ? { fieldSelector } : {}),
  };
}

function safeBool(v: string): boolean {
  try {
    return parseBoolParam(v);
  } catch {
    return v.toLowerCase() !== 'false' && v !== '0';
  }
}

/** A request's attributes and the decision on them. */
export interface Decided {
  readonly attrs: AuthorizationAttributes;
  readonly decision: AuthorizationDecision;
}

/** Decisions remembered per path, per method, per user identity (see Authorizer.identity). */
const decisions = new WeakMap<object, Map<string, Map<string, Decided>>>();
/** Paths remembered per method and identity (all dropped past it). */
const PATHS_PER_IDENTITY = 1024;

/**
 * The authorizer's decision on a request as `user`, as kube-apiserver's WithAuthorization
 * takes it (with kube 1.32's extra `create` check of a websocket GET of exec, attach and
 * portforward). Decisions are remembered under the authorizer's identity of the user, by
 * method and path (requests whose attributes depend on the query — watch, field selectors —
 * are decided each time): a repeated request allocates nothing and builds no string.
 */
export function decideRequest(authorizer: Authorizer, req: RawRequest, user: UserInfo): Decided {
  const q = req.query;
  const remember = q === undefined || (q.watch === undefined && q.fieldSelector === undefined);
  const id = remember && authorizer.identity ? authorizer.identity(user) : undefined;
  let byPath: Map<string, Decided> | undefined;
  if (id) {
    let byMethod = decisions.get(id);
    if (byMethod === undefined) decisions.set(id, (byMethod = new Map()));
    byPath = byMethod.get(req.method);
    if (byPath === undefined) byMethod.set(req.method, (byPath = new Map()));
    const hit = byPath.get(req.path);
    if (hit !== undefined) return hit;
  }
  const attrs = requestAttributes(req, user);
  let decided: Decided = { attrs, decision: authorizer.authorize(attrs) };
  // As kube-apiserver 1.32 (AuthorizePodWebsocketUpgradeCreatePermission): a websocket GET of
  // exec, attach or portforward also needs create, the verb of the same call over POST.
  if (decided.decision.allowed && attrs.verb === 'get' && attrs.resource === 'pods' && attrs.apiGroup === '' && (attrs.subresource === 'exec' || attrs.subresource === 'attach' || attrs.subresource === 'portforward')) {
    const create = { ...attrs, verb: 'create' };
    const d = authorizer.authorize(create);
    if (!d.allowed) decided = { attrs: create, decision: d };
  }
  if (byPath !== undefined) {
    if (byPath.size >= PATHS_PER_IDENTITY) byPath.clear();
    byPath.set(req.path, decided);
  }
  return decided;
}

/** Throws kube-apiserver's 403 unless the authorizer allows the attributes. */
export function authorizeOrThrow(authorizer: Authorizer, attrs: AuthorizationAttributes): void {
  const d = authorizer.authorize(attrs);
  if (!d.allowed) throw forbiddenError(attrs, d.reason);
}

/** The impersonation headers. */
const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

function headerValues(v: string | undefined): string[] {
  // Repeated headers arrive joined by ", " (node:http); kubectl sends one group per header.
  if (v === undefined || v === '') return [];
  return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Is the request asking to act as someone else? */
export function wantsImpersonation(headers: Record<string, string> | undefined): boolean {
  if (!headers) return false;
  for (const k in headers) if (k.startsWith('impersonate-')) return true;
  return false;
}

/**
 * kube-apiserver's impersonation: every requested identity (user or ServiceAccount, each
 * group, the uid, each extra value) is authorized with the `impersonate` verb for the
 * requester (users, serviceaccounts, groups; uids and userextras/<key> in
 * authentication.k8s.io); then the request runs as the impersonated user, with
 * system:authenticated added (system:unauthenticated for system:anonymous) and a
 * ServiceAccount's groups when no group was asked for. `requester` undefined is in-process
 * trusted code, allowed everything. Returns the request without the impersonation headers.
 */
export function impersonate(req: RawRequest, requester: UserInfo | undefined, authorizer: Authorizer | undefined): RawRequest {
  const headers = req.headers ?? {};
  const requestedUser = headers[USER_HEADER] ?? '';
  const groupsAsked = headerValues(headers[GROUP_HEADER]);
  const uid = headers[UID_HEADER] ?? '';
  const extras: [string, string[]][] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (!k.startsWith(EXTRA_PREFIX)) continue;
    let key = k.slice(EXTRA_PREFIX.length);
    try {
      key = decodeURIComponent(key);
    } catch {
      /* kept as sent */
    }
    extras.push([key, headerValues(v)]);
  }
  if (!requestedUser) {
    if (groupsAsked.length || extras.length || uid) {
      throw new ApiError(500, 'InternalError', 'Internal error occurred: requested impersonation of groups, uid or extra without impersonating a user');
    }
    return req;
  }
  const check = (attrs: Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest'>) => {
    if (!requester || !authorizer) return;
    authorizeOrThrow(authorizer, { user: requester, verb: 'impersonate', resourceRequest: true, ...attrs });
  };
  let username: string;
  let groups: string[] = [];
  const sa = splitServiceAccountUsername(requestedUser);
  if (sa) {
    check({ apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
    username = serviceAccountUsername(sa.namespace, sa.name);
    if (groupsAsked.length === 0) groups = [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${sa.namespace}`];
  } else {
    check({ apiGroup: '', resource: 'users', name: requestedUser });
    username = requestedUser;
  }
  for (const g of groupsAsked) {
    check({ apiGroup: '', resource: 'groups', name: g });
    groups.push(g);
  }
  const extra: Record<string, string[]> = {};
  for (const [key, values] of extras) {
    for (const v of values) {
      check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
      (extra[key] ??= []).push(v);
    }
  }
  if (uid) check({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });
  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  const user: UserInfo = { username, groups, ...(uid ? { uid } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('impersonate-')));
  return { ...req, headers: rest, user };
}
