/** The answers an injected fault gives: kube-apiserver's Status bodies and connection errors. */
import { ApiError, conflict, gone, internalError, timeoutError, tooManyRequests, type RawResponse } from '@kplane/api';
import type { RequestInfo } from './request-info.js';

/** The HTTP errors a rule can inject. */
export type InjectedErrorCode = 409 | 410 | 429 | 500 | 503 | 504;

const encoder = new TextEncoder();

/** A Status response for `err`, with Retry-After when the Status says when to retry (as kube-apiserver sends it). */
export function statusResponse(err: ApiError): RawResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const retry = err.details?.retryAfterSeconds;
  if (retry) headers['retry-after'] = String(retry);
  return { status: err.code, headers, body: encoder.encode(JSON.stringify(err.toStatus()) + '\n') };
}

/**
 * `err` as kube-apiserver's HTTP filters answer (Go's http.Error): its message as plain text,
 * with Retry-After when it has one — the max-in-flight and priority-and-fairness filters'
 * 429 is such an answer, not a Status.
 */
export function plainTextResponse(err: ApiError): RawResponse {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };
  const retry = err.details?.retryAfterSeconds;
  if (retry) headers['retry-after'] = String(retry);
  return { status: err.code, headers, body: encoder.encode(err.message + '\n') };
}

/** The resourceVersion a 410 says is too old, and the oldest one the "server" still has. */
function tooOld(info: RequestInfo): string {
  const rv = Number(info.resourceVersion);
  const from = Number.isSafeInteger(rv) && rv > 0 ? rv : 1;
  return `too old resource version: ${from} (${from + 1})`;
}

/**
 * The error kube-apiserver answers with for `code`, worded for the request: 409 Conflict on a
 * stale resourceVersion, 410 Expired (too old resource version), 429 TooManyRequests (the
 * max-in-flight filter's, Retry-After `retryAfterSeconds`, default 1), 500 InternalError,
 * 503 ServiceUnavailable, 504 Timeout (the request deadline's).
 */
export function injectedError(code: InjectedErrorCode, info: RequestInfo, options: { message?: string; retryAfterSeconds?: number } = {}): ApiError {
  switch (code) {
    case 409:
      return conflict(info.group, info.resource, info.name, options.message);
    case 410:
      return gone(options.message ?? tooOld(info));
    case 429:
      return tooManyRequests(options.message ?? 'Too many requests, please try again later.', options.retryAfterSeconds ?? 1);
    case 500:
      return internalError(new Error(options.message ?? 'injected fault'));
    case 503:
      return new ApiError(503, 'ServiceUnavailable', options.message ?? 'the server is currently unable to handle the request', options.retryAfterSeconds ? { retryAfterSeconds: options.retryAfterSeconds } : undefined);
    case 504:
      return timeoutError(options.message ?? 'request did not complete within requested timeout - context deadline exceeded');
  }
}

/** The ERROR event a compacted server sends on a watch resumed from a resourceVersion it no longer has. */
export function expiredWatchResponse(info: RequestInfo): RawResponse {
  const status = gone(tooOld(info)).toStatus();
  return { status: 200, headers: { 'content-type': 'application/json' }, body: encoder.encode(JSON.stringify({ type: 'ERROR', object: status }) + '\n') };
}

/** A connection-level failure, as Node's HTTP client reports one (`code` ECONNREFUSED or ECONNRESET). */
export function connectionError(code: 'ECONNREFUSED' | 'ECONNRESET'): Error {
  const err = new Error(code === 'ECONNREFUSED' ? 'connect ECONNREFUSED' : 'read ECONNRESET') as Error & { code: string };
  err.code = code;
  return err;
}
