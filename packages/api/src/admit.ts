/**
 * Admission of a decoded object into its kind, as kube-apiserver's decoding does it: types
 * checked against the kind's schema, unknown fields pruned, unknown and duplicate fields
 * treated per fieldValidation. A body answers 400; an object produced by a patch answers 422 on
 * the `patch` field, as kube-apiserver's patch handler does.
 */
import { cannotBeHandled, patchInvalid } from './errors.js';
import { duplicateFields } from './decode.js';
import { patchResultInfo, type PatchResultInfo } from './patch/patch-info.js';
import { goPrint } from './patch/strategic-merge-patch.js';
import { pruneUnknownFields, unknownFieldMessage } from './prune.js';
import { resolveSchema } from './schema.js';
import type { SchemaDefinitions, SchemaObject } from './schema.js';
import { checkObjectTypes, typeErrorMessage } from './typecheck.js';

/** Options of admitObject. */
export interface AdmitOptions {
  /** The kind and version the object is decoded as (for messages). */
  kind: string;
  version: string;
  /** The fieldValidation directive (default Warn, as kube-apiserver). */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Collects `Warning` header texts under Warn. */
  warnings?: string[];
  /** A custom resource: only metadata is type-checked (its schema validation covers the rest). */
  customResource?: boolean;
}

/** The ObjectMeta schema among the definitions (by its usual OpenAPI names). */
export function objectMetaSchema(defs: SchemaDefinitions): SchemaObject | undefined {
  const name = defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'] ? 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' : defs.ObjectMeta ? 'ObjectMeta' : Object.keys(defs).find((k) => k.endsWith('.ObjectMeta'));
  return name ? { $ref: `#/components/schemas/${name}` } : undefined;
}

function patchValue(info: PatchResultInfo, obj: unknown): string {
  return info.kind === 'strategic' ? goPrint(info.patch) : JSON.stringify(obj);
}

/**
 * Admits `obj` (a request body, or the result of a patch function) as an object of a kind with
 * `schema`: throws ApiError 400 (body) or 422 (patch result) when a field has the wrong JSON
 * type, 400 when it nests deeper than MAX_NESTING_DEPTH; prunes unknown fields in place and,
 * with the duplicate keys of the body or patch, rejects them (Strict), warns about them (Warn)
 * or ignores them. Nulls are normalised as Go's decoder does (see checkObjectTypes).
 */
export function admitObject(obj: Record<string, unknown>, schema: SchemaObject | undefined, defs: SchemaDefinitions, options: AdmitOptions): void {
  const patch = patchResultInfo(obj);
  const root = resolveSchema(schema, defs);
  if (!root) return;
  const typeError = checkObjectTypes(obj, root, defs, { kind: options.kind, metaSchema: objectMetaSchema(defs), metadataOnly: options.customResource });
  if (typeError) {
    if (patch) throw patchInvalid(patchValue(patch, obj), typeErrorMessage(typeError, patch.kind === 'strategic' ? 'unstructured' : 'json'));
    throw cannotBeHandled(options.kind, options.version, typeErrorMessage(typeError, 'json'));
  }
  const unknown = pruneUnknownFields(obj, root, defs);
  const duplicates = patch ? patch.duplicates : duplicateFields(obj);
  if (unknown.length === 0 && duplicates.length === 0) return;
  const mode = options.fieldValidation ?? 'Warn';
  if (mode === 'Ignore') return;
  const prefix = patch?.kind === 'json' ? 'json patch ' : '';
  const messages = [...duplicates.map((p) => `${prefix}duplicate field ${JSON.stringify(p)}`), ...unknown.map(unknownFieldMessage)];
  if (mode === 'Warn') {
    options.warnings?.push(...messages);
    return;
  }
  const detail = `strict decoding error: ${messages.join(', ')}`;
  if (patch) throw patchInvalid(patchValue(patch, obj), detail);
  throw cannotBeHandled(options.kind, options.version, detail);
}
