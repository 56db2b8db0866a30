import type { StatusCause } from '@kplane/api';
import { ApiError, badRequest, fieldForbidden, fieldNotSupported, invalid } from '@kplane/api';
import type { ListOptions } from './store.js';

/** kube-apiserver's checks of resourceVersionMatch on a list: 422 Invalid ListOptions. */
export function validateListOptions(opts: ListOptions): void {
  const match = opts.resourceVersionMatch;
  if (!match) return;
  const causes: StatusCause[] = [];
  const field = 'resourceVersionMatch';
  if (!opts.resourceVersion) causes.push(fieldForbidden(field, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
  if (opts.continue) causes.push(fieldForbidden(field, 'resourceVersionMatch is forbidden when continue is provided'));
  if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(fieldNotSupported(field, match, ['Exact', 'NotOlderThan', '']));
  if (match === 'Exact' && opts.resourceVersion === '0') causes.push(fieldForbidden(field, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  if (causes.length) throw listOptionsInvalid(causes);
}

/** 422 `ListOptions.meta.k8s.io "" is invalid: …`, kube-apiserver's answer to bad list and watch options. */
export function listOptionsInvalid(causes: StatusCause[]): ApiError {
  const err = invalid('meta.k8s.io', 'ListOptions', '', causes);
  delete err.details?.name; // an empty name is omitted, as Kubernetes encodes it
  return err;
}

/** The number in a resourceVersion parameter; 0 for none ("" or "0"); 400 when it is not one. */
export function parseResourceVersion(resourceVersion: string | undefined): number {
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') return 0;
  const rv = Number(resourceVersion);
  if (!/^\d+$/.test(resourceVersion) || !Number.isSafeInteger(rv)) throw badRequest(`invalid resource version: ${resourceVersion}`);
  return rv;
}

/** kube-apiserver's checks of sendInitialEvents and resourceVersionMatch on a watch (422 Invalid ListOptions). */
export function validateWatchOptions(q: Record<string, string>): void {
  const causes: StatusCause[] = [];
  const match = q.resourceVersionMatch;
  const field = 'resourceVersionMatch';
  if (q.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(fieldForbidden(field, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (q.sendInitialEvents === undefined) causes.push(fieldForbidden(field, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(fieldNotSupported(field, match, ['NotOlderThan']));
    if (q.continue) causes.push(fieldForbidden(field, 'resourceVersionMatch is forbidden when using continue'));
  }
  if (causes.length) throw listOptionsInvalid(causes);
}

/** What a continue token carries: the list's snapshot revision and the key to start after. */
export interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/** A continue token for the next page of a list at revision `rv`, after the key `start`. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start } satisfies ContinueToken)).toString('base64url');
}

/** Reads a continue token; 400 for one that is not one of ours. */
export function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || !Number.isSafeInteger(t.rv) || t.rv < 0 || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}
