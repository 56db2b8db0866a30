/**
 * What the patch functions remember about the objects they return, so that the checks a write
 * makes later (types, unknown and duplicate fields) can answer as Kubernetes does for a patch:
 * 422 Invalid on the `patch` field rather than the 400 of a request body.
 */
import { duplicateFields } from '../decode.js';

/** The patch media types, by the name kplane gives them. */
export type PatchKind = 'json' | 'merge' | 'strategic';

/** How an object was made by a patch. */
export interface PatchResultInfo {
  kind: PatchKind;
  /** The patch document as decoded. */
  patch: unknown;
  /** Duplicate keys of the patch document (see duplicateFields). */
  duplicates: string[];
}

const results = new WeakMap<object, PatchResultInfo>();

/** Remembers that `result` was produced by applying `patch`; returns `result`. */
export function recordPatchResult<T>(result: T, kind: PatchKind, patch: unknown): T {
  if (result !== null && typeof result === 'object') results.set(result, { kind, patch, duplicates: duplicateFields(patch) });
  return result;
}

/** How `obj` was made by a patch function, or undefined when it was not returned by one. */
export function patchResultInfo(obj: unknown): PatchResultInfo | undefined {
  return obj !== null && typeof obj === 'object' ? results.get(obj) : undefined;
}
