import { badRequest, goQuote } from '@kplane/api';
import { parseBoolParam, type RequestClass } from './limits.js';

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

/** The core group's namespace subresources: /api/v1/namespaces/<name>/status and /finalize. */
export function isNamespaceSubresource(group: string, version: string, seg: string): boolean {
  return group === '' && version === 'v1' && (seg === 'status' || seg === 'finalize');
}

/**
 * The segments of a URL path. As kube-apiserver reads Go's decoded URL path, the whole path is
 * percent-decoded first and then split at `/` (so `%2F` separates segments like `/`). The path
 * is never normalised: no `.` / `..` resolution, and an empty segment inside the path makes it
 * match nothing (null). Leading and trailing slashes are ignored, as kube-apiserver's
 * request-info parser does. A malformed escape throws a 400.
 */
export function pathSegments(path: string): string[] | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Go's words: the first escape that is not two hex digits.
    throw badRequest(`invalid URL escape ${goQuote(/%(?![0-9a-fA-F]{2}).{0,2}/s.exec(path)?.[0] ?? path)}`);
  }
  const trimmed = decoded.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return [];
  const segs = trimmed.split('/');
  return segs.some((s) => s === '') ? null : segs;
}

/**
 * Why a name cannot be a path segment (kube's IsValidPathSegmentName): `.` and `..` are refused,
 * as are names containing `/` or `%`. Empty when the name is fine.
 */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/** Throws kube-apiserver's 400 (`Name parameter invalid: ...`) for a name that cannot be a path segment. */
export function checkPathSegmentName(what: 'Name' | 'Namespace', value: string): void {
  const errs = pathSegmentNameErrors(value);
  if (errs.length) throw badRequest(`${what} parameter invalid: ${goQuote(value)}: ${errs.join(';')}`);
}

/**
 * Parses /api/v1/..., /apis/<group>/<version>/... paths (percent-encoded, as received).
 * `isNamespaceSub` tells whether /api/v1/namespaces/<name>/<x> names a subresource of the
 * namespace (status, finalize) rather than a namespaced resource. A malformed percent escape
 * throws a 400.
 */
export function parsePath(path: string, isNamespaceSub: (group: string, version: string, seg: string) => boolean = isNamespaceSubresource): ParsedPath {
  if (isNamespaceSub !== isNamespaceSubresource) return parseUncached(path, isNamespaceSub);
  let parsed = parsedPaths.get(path);
  if (parsed === undefined) {
    parsed = freezeParsed(parseUncached(path, isNamespaceSub));
    if (parsedPaths.size >= PARSED_PATHS_MAX) parsedPaths.clear();
    parsedPaths.set(path, parsed);
  }
  return parsed;
}

/**
 * Parsed paths by path (with the core namespace subresources): clients send the same few paths
 * over and over, and a request's path is parsed several times (its class, authorization,
 * routing, audit, metrics). Frozen, as they are shared; bounded, dropped whole when full. A path
 * that does not parse throws each time.
 */
const parsedPaths = new Map<string, ParsedPath>();
const PARSED_PATHS_MAX = 4096;

function freezeParsed(parsed: ParsedPath): ParsedPath {
  if (parsed.kind === 'resource') Object.freeze(parsed.info);
  else if (parsed.kind === 'discovery') Object.freeze(parsed.req);
  return Object.freeze(parsed);
}

function parseUncached(path: string, isNamespaceSub: (group: string, version: string, seg: string) => boolean): ParsedPath {
  const segs = pathSegments(path);
  if (segs === null || segs.length === 0) return { kind: 'other' };
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
    if (rest.length === 0) return { kind: 'other' };
  }
  const info: ResourceRequestInfo = { group, version, resource: '', watchPath };
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && isNamespaceSub(group, version, rest[2]!))) {
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

/**
 * Classifies a request for the in-flight bound and the request timeout, as kube-apiserver's
 * filters do from its verb: watches and GETs of the log, exec, attach, portforward and proxy
 * subresources are long-running; get and list are read-only; anything else
 * (create, update, patch, delete, deletecollection, connect, unknown) is mutating.
 */
export function classifyRequest(method: string, path: string, query: Record<string, string> | undefined): RequestClass {
  const m = method.toUpperCase();
  if (m !== 'GET' && m !== 'HEAD') return 'mutating';
  let parsed: ParsedPath;
  try {
    parsed = parsePath(path);
  } catch {
    return 'read-only';
  }
  if (parsed.kind !== 'resource') return 'read-only';
  const info = parsed.info;
  // As kube-apiserver's long-running subresources: logs and streams are not bounded by the request timeout.
  if (info.subresource !== undefined && ['log', 'exec', 'attach', 'portforward', 'proxy'].includes(info.subresource)) return 'long-running';
  if (m === 'GET' && (info.watchPath || (info.name === undefined && query?.watch !== undefined && parseBoolParam(query.watch)))) return 'long-running';
  return 'read-only';
}
