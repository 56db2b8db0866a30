/**
 * RFC 6902 JSON Patch (application/json-patch+json) with kube-apiserver's error mapping:
 * a body that is not a list of operations is 400 BadRequest, more than 10000 operations is
 * 413, and an operation that does not apply (failed `test`, missing path, unknown op) is
 * 422 Invalid with the generic "the server rejected our request due to an error in our request".
 */
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { ApiError, badRequest } from '../errors.js';
import { recordPatchResult } from './patch-info.js';

/** Kubernetes' limit on the number of operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

function goKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/**
 * Applies a JSON patch to a copy of `doc` and returns the result (`doc` is not modified).
 * Throws ApiError: 400 for a malformed operation list, 413 for too many operations, 422 when
 * an operation fails; the library's error is kept as the ApiError's `cause`.
 */
export function applyJsonPatch<T = unknown>(doc: T, ops: unknown): T {
  if (!Array.isArray(ops)) {
    throw badRequest(`json: cannot unmarshal ${goKind(ops)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of ops) {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) {
      throw badRequest(`json: cannot unmarshal ${goKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  try {
    const copy = structuredClone(doc);
    const result = jsonpatch.applyPatch(copy, structuredClone(ops) as Operation[], true, true, true);
    return recordPatchResult(result.newDocument as T, 'json', ops);
  } catch (e) {
    const err = new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
    err.cause = e;
    throw err;
  }
}
