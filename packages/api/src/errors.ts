import type { Status, StatusCause } from './types.js';
import { goQuote } from './field-errors.js';

/** Details carried by an ApiError into its Status. */
export interface ApiErrorDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/**
 * An error that reaches clients as a Kubernetes Status with the given HTTP code and reason.
 * Every package raises these (or its own family, translated at the edge).
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: ApiErrorDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The meta/v1 Status object for this error. */
  toStatus(): Status {
    // Fields in the order kube-apiserver's JSON serializer writes them (meta/v1 Status's
    // declaration order): details comes before code, and details' own fields in theirs.
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      // An empty reason (kube's StatusReasonUnknown, a plain error's) is omitted, as Go's omitempty does.
      ...(this.reason ? { reason: this.reason } : {}),
    } as Status;
    if (this.details && Object.keys(this.details).length > 0) s.details = orderedDetails(this.details);
    s.code = this.code;
    return s;
  }
}

/** Status details with their fields in meta/v1 StatusDetails' declaration order. */
function orderedDetails(d: ApiErrorDetails): NonNullable<Status['details']> {
  const out: NonNullable<Status['details']> = {};
  if (d.name !== undefined) out.name = d.name;
  if (d.group !== undefined) out.group = d.group;
  if (d.kind !== undefined) out.kind = d.kind;
  if (d.uid !== undefined) out.uid = d.uid;
  if (d.causes !== undefined) out.causes = d.causes.map((c) => ({ ...(c.reason !== undefined ? { reason: c.reason } : {}), ...(c.message !== undefined ? { message: c.message } : {}), ...(c.field !== undefined ? { field: c.field } : {}) }));
  if (d.retryAfterSeconds !== undefined) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

/** Formats a group-qualified resource the way kube-apiserver's messages do: "deployments.apps". */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** 404 `configmaps "x" not found`. */
export function notFound(group: string, resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, clean({
    name,
    group: group || undefined,
    kind: resource,
  }));
}

/** 409 `configmaps "x" already exists`. */
export function alreadyExists(group: string, resource: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, clean({
    name,
    group: group || undefined,
    kind: resource,
  }));
}

/** 409 Conflict on a stale resourceVersion (or another optimistic-concurrency failure). */
export function conflict(group: string, resource: string, name: string, why?: string): ApiError {
  const msg = why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${msg}`, clean({
    name,
    group: group || undefined,
    kind: resource,
  }));
}

/** 422 Invalid: `Kind "name" is invalid: [cause, cause]`. */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): ApiError {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : String(c.message)));
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const qkind = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qkind} "${name}" is invalid: ${joined}`, clean({
    name,
    group: group || undefined,
    kind,
    causes,
  }));
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 403 Forbidden. */
export function forbidden(group: string, resource: string, name: string, message: string): ApiError {
  const target = name ? `${qualifiedResource(group, resource)} "${name}"` : qualifiedResource(group, resource);
  return new ApiError(403, 'Forbidden', `${target} is forbidden: ${message}`, clean({
    name: name || undefined,
    group: group || undefined,
    kind: resource,
  }));
}

/** 401 Unauthorized. */
export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

/** 410 Gone / Expired for a too-old resourceVersion. */
export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** 413 RequestEntityTooLarge. */
export function requestEntityTooLarge(message = 'request entity too large'): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', message);
}

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got ${contentType}`);
}

/** 406 NotAcceptable. */
export function notAcceptable(message: string): ApiError {
  return new ApiError(406, 'NotAcceptable', message);
}

/** 500 InternalError (a server bug, never a client error). */
export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`);
}

/** Turns anything thrown into an ApiError. */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : internalError(err);
}

function clean(d: Record<string, unknown>): ApiErrorDetails {
  for (const k of Object.keys(d)) if (d[k] === undefined) delete d[k];
  return d as ApiErrorDetails;
}

/** 429 TooManyRequests, with the seconds a client should wait before retrying. */
export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

/** 504 Timeout: the request did not complete in time (`Timeout: <message>`), with empty details as kube-apiserver sends it. */
export function timeoutError(message: string): ApiError {
  return new EmptyDetailsApiError(504, 'Timeout', `Timeout: ${message}`);
}

/**
 * 405 MethodNotAllowed as kube-apiserver's router answers a method a path does not serve
 * (its Status carries an empty `details` object).
 */
export function routeMethodNotAllowed(): ApiError {
  return new EmptyDetailsApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

/** An ApiError whose Status has `details: {}` even when it carries no detail. */
class EmptyDetailsApiError extends ApiError {
  override toStatus(): Status {
    const s = super.toStatus();
    return { kind: s.kind, apiVersion: s.apiVersion, metadata: s.metadata, status: s.status, message: s.message, reason: s.reason, details: s.details ?? {}, code: s.code };
  }
}

/**
 * 400 BadRequest for a body that does not decode into its kind:
 * `ConfigMap in version "v1" cannot be handled as a ConfigMap: <detail>`.
 */
export function cannotBeHandled(kind: string, version: string, detail: string): ApiError {
  return new ApiError(400, 'BadRequest', `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${detail}`);
}

/**
 * 422 Invalid for a patch whose result does not decode into the kind (or breaks strict field
 * validation), as kube-apiserver words it: ` "" is invalid: patch: Invalid value: "<value>": <detail>`.
 * `value` is the patched object's JSON (JSON and merge patches) or the patch map in Go's `%v`
 * (strategic merge patches).
 */
export function patchInvalid(value: string, detail: string): ApiError {
  const cause: StatusCause = { reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${goQuote(value)}: ${detail}` };
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${cause.message}`, { causes: [cause] });
}

