/**
 * Unknown-field pruning: removes the fields an object's schema does not describe and reports
 * them the way kube-apiserver's strict decoding does, so the server can answer
 * fieldValidation=Strict with `strict decoding error: unknown field "spec.replica"` and
 * fieldValidation=Warn with one `unknown field "..."` warning per field.
 */
import { ApiError, badRequest } from './errors.js';
import { getOwn } from './own.js';
import { resolveSchema, schemaRefName } from './schema.js';
import type { SchemaDefinitions, SchemaObject } from './schema.js';

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Finds the ObjectMeta schema among the definitions (by its usual OpenAPI names). */
function objectMetaSchema(defs: SchemaDefinitions): SchemaObject | undefined {
  if (defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']) return defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  if (defs.ObjectMeta) return defs.ObjectMeta;
  const name = Object.keys(defs).find((k) => k.endsWith('.ObjectMeta'));
  return name ? defs[name] : undefined;
}

/**
 * Kubernetes types that hold arbitrary JSON although their published schema is a bare
 * `type: object` (or has no type): they are never pruned.
 */
const FREE_FORM_TYPES = /(^|\.)(FieldsV1|RawExtension|JSON|JSONSchemaPropsOrArray|JSONSchemaPropsOrBool|JSONSchemaPropsOrStringArray)$/;

const refName = schemaRefName;

const freeForm = new Map<string, boolean>();

/** Is the named type free-form (FREE_FORM_TYPES), remembered per name. */
function isFreeForm(name: string): boolean {
  let free = freeForm.get(name);
  if (free === undefined) freeForm.set(name, (free = FREE_FORM_TYPES.test(name)));
  return free;
}

function walk(value: unknown, schema: SchemaObject | undefined, defs: SchemaDefinitions, path: string, out: string[], meta: SchemaObject | undefined): void {
  const ref = refName(schema);
  if (ref && isFreeForm(ref)) return;
  const s = resolveSchema(schema, defs);
  if (!s) return;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => walk(item, s.items, defs, `${path}[${i}]`, out, meta));
    return;
  }
  if (!isMap(value)) return;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const props = s.properties;
  const additional = s.additionalProperties;
  if (!props && additional === undefined) {
    // A schema that says nothing about an object's fields: free-form only when it says so, or
    // when it is not an object schema at all (e.g. an unresolved reference).
    if (preserve || s.type !== 'object') {
      if (embedded) walkEmbedded(value, defs, path, out, meta);
      return;
    }
  }
  for (const key of Object.keys(value)) {
    const child = join(path, key);
    if (embedded && (key === 'apiVersion' || key === 'kind')) continue;
    if (embedded && key === 'metadata' && !props?.metadata) {
      walk(value[key], meta, defs, child, out, meta);
      continue;
    }
    const prop = getOwn(props, key);
    if (prop) walk(value[key], prop, defs, child, out, meta);
    else if (isMap(additional)) walk(value[key], additional, defs, child, out, meta);
    else if (additional === true || preserve) continue;
    else {
      delete value[key];
      out.push(child);
    }
  }
}

function walkEmbedded(value: Record<string, unknown>, defs: SchemaDefinitions, path: string, out: string[], meta: SchemaObject | undefined): void {
  if (Object.prototype.hasOwnProperty.call(value, 'metadata')) walk(value.metadata, meta, defs, join(path, 'metadata'), out, meta);
}

/**
 * Removes from `obj` (in place) every field its schema does not describe and returns their
 * paths in document order, formatted as Kubernetes prints them (`spec.replica`,
 * `spec.containers[0].imagee`). Top-level apiVersion and kind are always known; metadata is
 * checked against the ObjectMeta schema from `defs` (whatever the kind's schema says about it).
 * Fields under `x-kubernetes-preserve-unknown-fields` or `additionalProperties: true` are kept;
 * an object schema with neither properties nor additionalProperties keeps nothing unless it
 * preserves unknown fields. With no schema, nothing is pruned.
 */
export function pruneUnknownFields(obj: unknown, schema: SchemaObject | undefined, defs: SchemaDefinitions): string[] {
  const out: string[] = [];
  const root = resolveSchema(schema, defs);
  if (!root || !isMap(obj)) return out;
  const meta = objectMetaSchema(defs);
  const rootProps: Record<string, SchemaObject> = { ...(root.properties ?? {}) };
  delete rootProps.apiVersion;
  delete rootProps.kind;
  delete rootProps.metadata;
  const preserve = root['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(obj)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      walk(obj.metadata, meta ?? root.properties?.metadata, defs, 'metadata', out, meta);
      continue;
    }
    const prop = getOwn(rootProps, key);
    if (prop) walk(obj[key], prop, defs, key, out, meta);
    else if (isMap(root.additionalProperties)) walk(obj[key], root.additionalProperties, defs, key, out, meta);
    else if (root.additionalProperties === true || preserve || (!root.properties && root.type !== 'object')) continue;
    else {
      delete obj[key];
      out.push(key);
    }
  }
  return out;
}

/** The text of one unknown-field error or warning: `unknown field "spec.replica"`. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** Warnings for fieldValidation=Warn: one `unknown field "..."` per path. */
export function unknownFieldWarnings(paths: string[]): string[] {
  return paths.map(unknownFieldMessage);
}

/**
 * The 400 BadRequest kube-apiserver returns for fieldValidation=Strict:
 * `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error:
 * unknown field "spec.replica", unknown field "spec.foo"`.
 */
export function strictDecodingError(kind: string, version: string, paths: string[]): ApiError {
  return badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${paths.map(unknownFieldMessage).join(', ')}`);
}
