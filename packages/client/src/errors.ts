/**
 * Error helpers in the style of apimachinery's `k8s.io/apimachinery/pkg/api/errors`: every
 * failed call of the client throws an `ApiError` (the Status the server sent, or one chosen by
 * HTTP code), and these functions tell what kind of failure it was.
 */
import { ApiError } from '@kplane/api';

export { ApiError, type ApiErrorDetails } from '@kplane/api';

/** Every Status reason Kubernetes defines; a reason outside this list lets the code decide. */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/**
 * The reason and code of an error: of an `ApiError`, of anything shaped like one or like a
 * meta/v1 Status (a watch's ERROR object, an ApiError from another copy of the package), or of
 * the first such error in its `cause` chain. `undefined` when there is none.
 */
export function statusOf(err: unknown): { reason: string; code: number } | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (typeof e === 'object' && e !== null && !seen.has(e)) {
    seen.add(e);
    if (e instanceof ApiError) return { reason: e.reason, code: e.code };
    const o = e as { reason?: unknown; code?: unknown; cause?: unknown };
    if (typeof o.code === 'number' && (typeof o.reason === 'string' || o.reason === undefined) && ((e as { kind?: unknown }).kind === 'Status' || (e as Error).name === 'ApiError')) {
      return { reason: (o.reason as string | undefined) ?? '', code: o.code };
    }
    e = o.cause;
  }
  return undefined;
}

/** The Status reason of an error ('' when it carries none, like apimachinery's ReasonForError). */
export function reasonForError(err: unknown): string {
  return statusOf(err)?.reason ?? '';
}

/** True when the reason is `reason`, or when the reason is unknown and the code is `code`. */
function is(err: unknown, reason: string, code: number): boolean {
  const s = statusOf(err);
  if (!s) return false;
  if (s.reason === reason) return true;
  return !KNOWN_REASONS.has(s.reason) && s.code === code;
}

/** 404 NotFound: the object (or the resource) does not exist. */
export function isNotFound(err: unknown): boolean {
  return is(err, 'NotFound', 404);
}

/** 409 AlreadyExists: a create named an object that exists (the reason only, as apimachinery). */
export function isAlreadyExists(err: unknown): boolean {
  return reasonForError(err) === 'AlreadyExists';
}

/** 409 Conflict: a stale resourceVersion, a failed precondition, or an apply conflict. */
export function isConflict(err: unknown): boolean {
  return is(err, 'Conflict', 409);
}

/** 422 Invalid: the object failed validation (`details.causes` name the fields). */
export function isInvalid(err: unknown): boolean {
  return is(err, 'Invalid', 422);
}

/** 410 Gone. A too-old resourceVersion is reason `Expired` instead: see {@link isResourceExpired}. */
export function isGone(err: unknown): boolean {
  return is(err, 'Gone', 410);
}

/** 410 Expired: a resourceVersion or continue token too old to serve (relist). */
export function isResourceExpired(err: unknown): boolean {
  return reasonForError(err) === 'Expired';
}

/** 429 TooManyRequests, whatever the reason (as apimachinery): retry after `details.retryAfterSeconds`. */
export function isTooManyRequests(err: unknown): boolean {
  const s = statusOf(err);
  return s !== undefined && (s.reason === 'TooManyRequests' || s.code === 429);
}

/** 403 Forbidden: the user may not do this (RBAC, admission, a terminating namespace). */
export function isForbidden(err: unknown): boolean {
  return is(err, 'Forbidden', 403);
}

/** 401 Unauthorized: the credentials were refused. */
export function isUnauthorized(err: unknown): boolean {
  return is(err, 'Unauthorized', 401);
}

/** 400 BadRequest. */
export function isBadRequest(err: unknown): boolean {
  return is(err, 'BadRequest', 400);
}

/** 405 MethodNotAllowed: the resource does not support the verb. */
export function isMethodNotSupported(err: unknown): boolean {
  return is(err, 'MethodNotAllowed', 405);
}

/** 504 Timeout: the server gave up waiting (the operation may still complete). */
export function isTimeout(err: unknown): boolean {
  return is(err, 'Timeout', 504);
}

/** ServerTimeout (reason only): the server asks the client to retry. */
export function isServerTimeout(err: unknown): boolean {
  return reasonForError(err) === 'ServerTimeout';
}

/** 500 InternalError. */
export function isInternalError(err: unknown): boolean {
  return is(err, 'InternalError', 500);
}

/** 503 ServiceUnavailable. */
export function isServiceUnavailable(err: unknown): boolean {
  return is(err, 'ServiceUnavailable', 503);
}
