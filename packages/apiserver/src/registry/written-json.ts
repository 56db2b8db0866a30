/**
 * The JSON a store wrote for an object it returns from a create, kept for the handler to answer
 * with: the stored text with the resourceVersion spliced in (as a GET serves it), rather than
 * the object encoded a second time.
 */
import { withResourceVersion } from './json-writer.js';

const written = new WeakMap<object, { json: string; revision: number }>();

/** Remembers that `obj` was written as `json` (its stored form) at `revision`. */
export function rememberWritten(obj: object, json: string, revision: number): void {
  written.set(obj, { json, revision });
}

/**
 * The JSON of `obj` as served, when it was remembered by rememberWritten and the stored text
 * has the layout withResourceVersion splices into; undefined otherwise. Taken once: an object
 * changed after its answer must not be answered with what was written before.
 */
export function takeWrittenJson(obj: object): string | undefined {
  const w = written.get(obj);
  if (!w) return undefined;
  written.delete(obj);
  return withResourceVersion(w.json, w.revision);
}
