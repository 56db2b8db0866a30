/**
 * OpenAPI v3 schemas (as the /openapi/v3 documents serve them) turned into the Swagger 2.0
 * definitions kube-apiserver publishes at /openapi/v2.
 *
 * Built-in kinds: references become `#/definitions/<name>`, a reference wrapped in a one-element
 * allOf becomes a plain `$ref` beside its siblings, and what only v3 documents carry is left out
 * (enum, default, nullable, oneOf/anyOf/not, x-kubernetes-preserve-unknown-fields,
 * -int-or-string, -embedded-resource). A schema that is one of several scalar types
 * (IntOrString, Quantity) is a `string`, as in Kubernetes' v2 document.
 *
 * Custom resources follow apiextensions-apiserver's v2 conversion of a structural schema: only
 * the structural keywords are kept, allOf/oneOf/anyOf/not are dropped, a nullable value loses
 * its type, items and properties (and leaves its parent's required list), a value that preserves
 * unknown fields loses its items and properties (and its type when it is an object), an array
 * without items loses its type; enum, default and x-kubernetes-validations stay. A root that
 * preserves unknown fields is published as a bare object.
 */
import type { SchemaObject } from '@kplane/api';

const V3_PREFIX = '#/components/schemas/';
const V2_PREFIX = '#/definitions/';
const OBJECT_META_REF = `${V2_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords the v2 document of a built-in kind never carries. */
const V3_ONLY = new Set([
  'enum',
  'default',
  'nullable',
  'oneOf',
  'anyOf',
  'not',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
]);

/** The keywords of a structural schema (what a CRD's published schema can hold). */
const STRUCTURAL = new Set([
  'type', 'format', 'description', 'title', 'default', 'nullable', 'items', 'properties', 'additionalProperties',
  'enum', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'maxProperties', 'minProperties', 'required',
  'allOf', 'oneOf', 'anyOf', 'not',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);

/** Junctors apiextensions-apiserver drops from v2 schemas. */
const JUNCTORS = ['allOf', 'oneOf', 'anyOf', 'not'];

/** `#/components/schemas/X` → `#/definitions/X`. */
export function v2Ref(ref: string): string {
  return ref.startsWith(V3_PREFIX) ? V2_PREFIX + ref.slice(V3_PREFIX.length) : ref;
}

/** A one-element allOf around a reference, merged into a plain `$ref` with the siblings. */
function unwrapRef(s: Obj): Obj {
  const all = s.allOf;
  if (!Array.isArray(all) || all.length !== 1 || !isObj(all[0]) || typeof all[0].$ref !== 'string') return s;
  const { allOf: _allOf, ...rest } = s;
  return { $ref: all[0].$ref, ...rest };
}

function isScalarUnion(s: Obj): boolean {
  if (s.type !== undefined || !Array.isArray(s.oneOf) || s.oneOf.length < 2) return false;
  return s.oneOf.every((m) => isObj(m) && Object.keys(m).length === 1 && ['string', 'integer', 'number', 'boolean'].includes(m.type as string));
}

/** The v2 form of a built-in kind's schema (or any schema inside it). */
export function builtinSchemaV2(schema: SchemaObject | Obj): Obj {
  const s = unwrapRef(schema as Obj);
  const out: Obj = {};
  if (isScalarUnion(s)) out.type = 'string';
  for (const [k, v] of Object.entries(s)) {
    if (V3_ONLY.has(k) || k === 'allOf') continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v2Ref(v);
    else if ((k === 'items' || k === 'additionalProperties') && isObj(v)) out[k] = builtinSchemaV2(v);
    else if (k === 'properties' && isObj(v)) out[k] = mapValues(v, (p) => (isObj(p) ? builtinSchemaV2(p) : p));
    else out[k] = v;
  }
  // Beside a reference, kubectl's reader refuses a type or properties (Kubernetes never has them).
  if (out.$ref !== undefined) {
    delete out.type;
    delete out.properties;
  }
  return out;
}

function mapValues(o: Obj, f: (v: unknown) => unknown): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}

/** apiextensions-apiserver's ToStructuralOpenAPIV2 on one node, then on its children. */
function structuralV2(schema: Obj): Obj {
  const s: Obj = {};
  for (const [k, v] of Object.entries(schema)) if (STRUCTURAL.has(k) && !JUNCTORS.includes(k)) s[k] = v;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.nullable === true) {
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  delete s.nullable;
  if (preserve) {
    delete s.items;
    delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (preserve && s.type === 'object') delete s.type;
  if (isObj(s.properties) && Array.isArray(s.required)) {
    const props = s.properties;
    const required = s.required.filter((name) => !(isObj(props[name as string]) && (props[name as string] as Obj).nullable === true));
    if (required.length) s.required = required;
    else delete s.required;
  }
  if (isObj(s.additionalProperties) && s.additionalProperties.nullable === true) delete s.required;
  if (isObj(s.items)) s.items = structuralV2(s.items);
  if (isObj(s.properties)) s.properties = mapValues(s.properties, (p) => (isObj(p) ? structuralV2(p) : p));
  if (isObj(s.additionalProperties)) s.additionalProperties = structuralV2(s.additionalProperties);
  return s;
}

const TYPE_META = {
  apiVersion: { type: 'string', description: 'The versioned schema of this object, e.g. "v1" or "apps/v1".' },
  kind: { type: 'string', description: 'The REST kind this object represents, in CamelCase.' },
};

/**
 * Adds apiVersion, kind and metadata to every x-kubernetes-embedded-resource value (kind and
 * apiVersion required), as apiextensions-apiserver publishes them.
 */
function addEmbedded(s: Obj): void {
  if (isObj(s.properties)) for (const p of Object.values(s.properties)) if (isObj(p)) addEmbedded(p);
  if (isObj(s.items)) addEmbedded(s.items);
  if (isObj(s.additionalProperties)) addEmbedded(s.additionalProperties);
  if (s['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-embedded-resource'] !== true) return;
  s.properties = { ...(isObj(s.properties) ? s.properties : {}), ...TYPE_META, metadata: { $ref: OBJECT_META_REF } };
  const required = Array.isArray(s.required) ? [...(s.required as string[])] : [];
  if (!required.includes('kind')) required.push('kind');
  if (!required.includes('apiVersion')) required.push('apiVersion');
  s.required = required;
}

/**
 * The v2 form of a custom resource's definition (its version's schema plus apiVersion, kind,
 * metadata and the group/version/kind, as the v3 documents hold it). `selectableFields` are the
 * version's selectable field paths.
 */
export function customResourceSchemaV2(schema: SchemaObject | Obj, selectableFields: string[] = []): Obj {
  const def = schema as Obj;
  const gvk = def['x-kubernetes-group-version-kind'];
  const selectable = selectableFields.length ? { 'x-kubernetes-selectable-fields': selectableFields.map((fieldPath) => ({ fieldPath })) } : {};
  if (def['x-kubernetes-preserve-unknown-fields'] === true) return { type: 'object', 'x-kubernetes-group-version-kind': gvk, ...selectable };
  const props = isObj(def.properties) ? def.properties : {};
  const { metadata, apiVersion, kind, ...own } = props;
  const out = structuralV2({ ...def, properties: own });
  const meta = isObj(metadata) ? unwrapRef(metadata) : { $ref: OBJECT_META_REF };
  out.properties = {
    ...(isObj(out.properties) ? out.properties : {}),
    apiVersion: isObj(apiVersion) ? structuralV2(apiVersion) : TYPE_META.apiVersion,
    kind: isObj(kind) ? structuralV2(kind) : TYPE_META.kind,
    metadata: { ...meta, $ref: v2Ref(String(meta.$ref ?? OBJECT_META_REF)) },
  };
  addEmbedded(out);
  out['x-kubernetes-group-version-kind'] = gvk;
  Object.assign(out, selectable);
  return out;
}
