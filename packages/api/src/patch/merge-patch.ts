/**
 * RFC 7386 JSON Merge Patch (application/merge-patch+json): objects merge recursively, `null`
 * removes a key, anything else (including arrays) replaces.
 */
import { badRequest } from '../errors.js';
import { getOwn, setOwn } from '../own.js';
import { recordPatchResult } from './patch-info.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, merge(getOwn(out, k), v));
  }
  return out;
}

/**
 * Applies a merge patch to `doc` and returns the result (`doc` is not modified).
 * Kubernetes requires the patch to be a JSON object: anything else is 400 BadRequest
 * ("Invalid JSON Patch", as kube-apiserver answers).
 */
export function applyMergePatch<T = unknown>(doc: T, patch: unknown): T {
  if (!isObject(patch)) throw badRequest('Invalid JSON Patch');
  return recordPatchResult(merge(structuredClone(doc), patch) as T, 'merge', patch);
}
