/**
 * TypeBox (JSON Schema) to Kubernetes structural schema, and a checker for the structural
 * rules apiextensions.k8s.io/v1 enforces on a CRD's openAPIV3Schema.
 */
import type { SchemaObject } from '@kplane/api';
import { createRequire } from 'node:module';
import type { TSchema, TUnsafe, SchemaOptions } from '@sinclair/typebox';

/** TypeBox's kind marker (a registered symbol, the same in every copy of TypeBox). */
const Kind: unique symbol = Symbol.for('TypeBox.Kind') as never;

let typebox: typeof import('@sinclair/typebox') | undefined;
/**
 * TypeBox's builders, loaded on first use: the converter reads schemas without them, and a
 * process that defines no kind (a control plane, a test) does not pay their import (about 200
 * modules). TypeBox marks its schemas with registered symbols, so these are the same as the
 * user's own `Type`.
 */
function builders(): typeof import('@sinclair/typebox').Type {
  typebox ??= createRequire(import.meta.url)('@sinclair/typebox') as typeof import('@sinclair/typebox');
  return typebox.Type;
}

type Json = Record<string, unknown>;

/** Keywords copied as they are (Kubernetes' JSONSchemaProps has them with the same meaning). */
const PASSTHROUGH = new Set([
  'title', 'description', 'default', 'format', 'pattern', 'minimum', 'maximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties',
  'nullable', 'example', 'enum', 'externalDocs',
]);

/** JSON-Schema annotations Kubernetes does not know; dropped without loss of validation. */
const DROPPED = new Set(['$id', '$schema', '$comment', 'examples', 'readOnly', 'writeOnly', 'deprecated']);

/** Keywords handled by the converter itself. */
const STRUCTURE = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'patternProperties', 'items', 'anyOf', 'allOf', 'const',
  'exclusiveMinimum', 'exclusiveMaximum',
]);

/** TypeBox's pattern for `Type.Record(Type.String(), …)` keys. */
const ANY_KEY = '^(.*)$';

/** An error in a schema handed to defineKind / toStructuralSchema, naming the offending path. */
export class SchemaConversionError extends Error {
  override readonly name = 'SchemaConversionError';
  /** Where in the schema, e.g. "spec.replicas". */
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path || '<root>'}: ${message}`);
    this.path = path;
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/**
 * Converts a TypeBox schema (or any plain JSON Schema using the same keywords) into the
 * structural subset Kubernetes accepts: optional/required from TypeBox's `required`, literal
 * unions and `Type.Enum` → `enum`, `X | null` → `nullable`, `integer | string` →
 * `x-kubernetes-int-or-string`, `Type.Record` → `additionalProperties`, `Type.Intersect` of
 * objects merged, `Type.Any`/`Type.Unknown` → `x-kubernetes-preserve-unknown-fields`, numeric
 * `exclusiveMinimum/Maximum` → OpenAPI v3.0 booleans. `x-*` extensions are kept verbatim;
 * `$id`, `additionalProperties: false` and TypeBox's symbols are dropped.
 * Errors: SchemaConversionError for what has no structural equivalent ($ref, tuples, object unions…).
 */
export function toStructuralSchema(schema: TSchema | Json, path = ''): SchemaObject {
  return convert(schema as Json, path);
}

function convert(s: Json, path: string): SchemaObject {
  if (!isObject(s)) throw new SchemaConversionError(path, 'not a schema');
  if (Array.isArray(s.anyOf)) return convertUnion(s, path);
  if (Array.isArray(s.allOf)) return convertIntersect(s, path);

  const out: Json = {};
  const type = s.type;
  if (Array.isArray(type)) throw new SchemaConversionError(path, 'a list of types is not structural; use a union with Type.Null() for nullable');
  if (type === 'null') throw new SchemaConversionError(path, 'a null-only type has no structural equivalent');
  if (type !== undefined) out.type = type;
  const kind = (s as { [Kind]?: string })[Kind];
  const anyValue = type === undefined && s['x-kubernetes-int-or-string'] !== true && (kind === 'Any' || kind === 'Unknown' || isUntyped(s));
  if (anyValue) out['x-kubernetes-preserve-unknown-fields'] = true;

  for (const [key, value] of Object.entries(s)) {
    if (PASSTHROUGH.has(key) || key.startsWith('x-')) out[key] = value;
    else if (DROPPED.has(key) || STRUCTURE.has(key)) continue;
    else throw new SchemaConversionError(path, `unsupported schema keyword "${key}"`);
  }
  if ('const' in s) {
    out.enum = [s.const];
    if (out.type === undefined) out.type = jsonType(s.const, path);
  } else if (out.type === undefined && Array.isArray(s.enum) && s.enum.length > 0) {
    out.type = jsonType(s.enum[0], path);
  }
  convertExclusive(s, out, 'exclusiveMinimum', 'minimum');
  convertExclusive(s, out, 'exclusiveMaximum', 'maximum');

  if (isObject(s.properties)) {
    const properties: Record<string, SchemaObject> = {};
    for (const [name, prop] of Object.entries(s.properties)) properties[name] = convert(prop as Json, join(path, name));
    out.properties = properties;
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string' && r in properties) : [];
    if (required.length > 0) out.required = required;
  }
  if (isObject(s.patternProperties)) {
    const keys = Object.keys(s.patternProperties);
    if (keys.length !== 1 || keys[0] !== ANY_KEY) {
      throw new SchemaConversionError(path, 'patternProperties other than Type.Record(Type.String(), …) are not structural');
    }
    if (out.properties) throw new SchemaConversionError(path, 'properties and a record of additional properties cannot be combined');
    out.additionalProperties = convert(s.patternProperties[ANY_KEY] as Json, join(path, '*'));
  } else if (isObject(s.additionalProperties)) {
    if (out.properties) throw new SchemaConversionError(path, 'properties and additionalProperties are mutually exclusive');
    out.additionalProperties = convert(s.additionalProperties, join(path, '*'));
  } else if (s.additionalProperties === true && !out.properties) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (s.items !== undefined) {
    if (!isObject(s.items)) throw new SchemaConversionError(path, 'tuples are not structural; use Type.Array');
    out.items = convert(s.items, join(path, '[]'));
  }
  return ordered(out);
}

/** True when a node says nothing about the value's shape (TypeBox's Any/Unknown emit `{}`). */
function isUntyped(s: Json): boolean {
  return !('const' in s) && !s.properties && !s.items && !s.patternProperties && !s.enum;
}

function convertExclusive(s: Json, out: Json, key: 'exclusiveMinimum' | 'exclusiveMaximum', bound: 'minimum' | 'maximum'): void {
  const v = s[key];
  if (typeof v === 'number') {
    out[bound] = v;
    out[key] = true;
  } else if (typeof v === 'boolean') out[key] = v;
}

function jsonType(value: unknown, path: string): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  throw new SchemaConversionError(path, `literal ${JSON.stringify(value)} has no structural type`);
}

/** The annotations of a union/intersection node itself (description, default, x-*…). */
function ownAnnotations(s: Json, path: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'anyOf' || key === 'allOf' || DROPPED.has(key)) continue;
    if (key === 'type' || key === 'properties' || key === 'required') continue; // an intersection's own object frame
    if (PASSTHROUGH.has(key) || key.startsWith('x-')) out[key] = value;
    else throw new SchemaConversionError(path, `unsupported schema keyword "${key}" on a union or intersection`);
  }
  return out;
}

function convertUnion(s: Json, path: string): SchemaObject {
  const members = (s.anyOf as unknown[]).filter(isObject);
  const nonNull = members.filter((m) => m.type !== 'null');
  const annotations = ownAnnotations(s, path);
  if (nonNull.length < members.length) annotations.nullable = true;
  if (nonNull.length === 0) throw new SchemaConversionError(path, 'a null-only union has no structural equivalent');

  if (nonNull.length === 1) {
    const inner = convert(nonNull[0]!, path);
    return ordered({ ...inner, ...annotations });
  }
  if (nonNull.every((m) => 'const' in m)) {
    const values = nonNull.map((m) => m.const);
    const types = new Set(values.map((v) => jsonType(v, path)));
    if (types.has('integer') && types.has('number')) types.delete('integer');
    if (types.size !== 1) throw new SchemaConversionError(path, 'an enum must have values of one type');
    return ordered({ type: [...types][0], ...annotations, enum: values });
  }
  const types = new Set(nonNull.map((m) => m.type));
  if (nonNull.length === 2 && types.has('string') && (types.has('integer') || types.has('number'))) {
    return ordered({
      ...annotations,
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
  }
  throw new SchemaConversionError(path, 'unions other than literal enums, X | null and integer | string are not structural');
}

function convertIntersect(s: Json, path: string): SchemaObject {
  const members = (s.allOf as unknown[]).filter(isObject).map((m) => convert(m, path));
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const m of members) {
    if (m.type !== 'object' || !m.properties || m.additionalProperties) {
      throw new SchemaConversionError(path, 'only intersections of Type.Object are supported (or use Type.Composite)');
    }
    for (const [name, prop] of Object.entries(m.properties)) {
      if (name in properties) throw new SchemaConversionError(join(path, name), 'property declared twice in an intersection');
      properties[name] = prop;
    }
    for (const r of m.required ?? []) if (!required.includes(r)) required.push(r);
  }
  const out: Json = { type: 'object', ...ownAnnotations(s, path), properties };
  if (required.length > 0) out.required = required;
  return ordered(out);
}

/** Puts type/format/description first, as Kubernetes prints schemas; the rest keep their order. */
function ordered(s: Json): SchemaObject {
  const out: Json = {};
  for (const key of ['type', 'format', 'description']) if (key in s) out[key] = s[key];
  for (const [key, value] of Object.entries(s)) if (!(key in out)) out[key] = value;
  return out as SchemaObject;
}

/**
 * The structural-schema violations of a CRD version's openAPIV3Schema, worded after
 * apiextensions-apiserver's messages (empty when the schema is structural): every node has a
 * type (except int-or-string and preserve-unknown-fields nodes), properties and
 * additionalProperties exclude each other, no $ref, junctors carry no type/description/
 * default/additionalProperties/nullable, the root is an object whose apiVersion and kind are
 * strings and whose metadata is `{type: object}` (at most name and generateName below it, no
 * description), list-map keys are required or defaulted.
 */
export function structuralSchemaErrors(schema: SchemaObject): string[] {
  const errors: string[] = [];
  if (schema.type !== 'object') errors.push('type: Required value: must be object at the root');
  checkNode(schema, 'openAPIV3Schema', errors);
  const root = schema.properties ?? {};
  for (const key of ['apiVersion', 'kind'] as const) {
    const t = root[key]?.type;
    if (root[key] && t !== 'string') errors.push(`openAPIV3Schema.properties[${key}].type: Invalid value: "${t ?? ''}": must be string`);
  }
  const metadata = root.metadata;
  if (metadata) {
    if (metadata.type !== 'object') errors.push(`openAPIV3Schema.properties[metadata].type: Invalid value: "${metadata.type ?? ''}": must be object`);
    // As apiextensions: only {type: object} and properties name/generateName; a description counts too.
    const { type: _t, default: _d, properties, ...rest } = metadata;
    const names = Object.keys(properties ?? {});
    if (Object.keys(rest).length > 0 || names.some((n) => n !== 'name' && n !== 'generateName')) {
      errors.push('openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified');
    }
  }
  return errors;
}

function checkNode(s: SchemaObject, path: string, errors: string[]): void {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (!s.type && !intOrString && preserve !== true) errors.push(`${path}.type: Required value: must not be empty for specified object fields`);
  if (preserve === false) errors.push(`${path}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`);
  if (s.$ref) errors.push(`${path}.$ref: Forbidden: $ref is not supported`);
  if (s.properties && s.additionalProperties !== undefined) {
    errors.push(`${path}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`);
  }
  if (s.additionalProperties !== undefined && typeof s.additionalProperties !== 'object') {
    errors.push(`${path}.additionalProperties: Forbidden: must be a schema`);
  }
  if (s.type === 'array' && !s.items) errors.push(`${path}.items: Required value: must be specified`);
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[junctor];
    if (!list) continue;
    const intOrStringPattern = intOrString && junctor === 'anyOf' && list.length === 2 && list[0]?.type === 'integer' && list[1]?.type === 'string';
    list.forEach((m, i) => {
      if (intOrStringPattern) return;
      for (const key of ['type', 'description', 'default', 'additionalProperties', 'nullable'] as const) {
        if (m[key] !== undefined) errors.push(`${path}.${junctor}[${i}].${key}: Forbidden: must not be specified in a junctor`);
      }
    });
  }
  if (s['x-kubernetes-list-map-keys'] && s['x-kubernetes-list-type'] !== 'map') {
    errors.push(`${path}.x-kubernetes-list-map-keys: Forbidden: must be empty if x-kubernetes-list-type is not map`);
  }
  if (s['x-kubernetes-list-type'] === 'map') {
    const item = s.items;
    for (const key of s['x-kubernetes-list-map-keys'] ?? []) {
      const prop = item?.properties?.[key];
      if (!prop) errors.push(`${path}.x-kubernetes-list-map-keys: Invalid value: "${key}": entries must all be names of item properties`);
      else if (!(item?.required ?? []).includes(key) && prop.default === undefined) {
        errors.push(`${path}.items.properties[${key}]: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`);
      }
    }
  }
  for (const [name, prop] of Object.entries(s.properties ?? {})) checkNode(prop, `${path}.properties[${name}]`, errors);
  if (typeof s.additionalProperties === 'object') checkNode(s.additionalProperties, `${path}.additionalProperties`, errors);
  if (s.items) checkNode(s.items, `${path}.items`, errors);
}

/**
 * TypeBox builders for schema shapes Kubernetes spells with its own conventions. Each returns
 * a TypeBox schema, so `Static<>` gives the right TypeScript type.
 */
export const KubeType = {
  /** An integer with format int32. */
  Int32: (options: SchemaOptions = {}) => builders().Integer({ format: 'int32', ...options }),
  /** An integer with format int64. */
  Int64: (options: SchemaOptions = {}) => builders().Integer({ format: 'int64', ...options }),
  /** A meta/v1 Time: string, format date-time. */
  Time: (options: SchemaOptions = {}) => builders().String({ format: 'date-time', ...options }),
  /** A port number or name, a count or a percentage (`x-kubernetes-int-or-string`). */
  IntOrString: (options: SchemaOptions = {}): TUnsafe<number | string> =>
    builders().Unsafe<number | string>({ ...options, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
  /** A free-form object whose fields are all kept (`x-kubernetes-preserve-unknown-fields`). */
  Unstructured: <T = Record<string, unknown>>(options: SchemaOptions = {}): TUnsafe<T> =>
    builders().Unsafe<T>({ type: 'object', ...options, 'x-kubernetes-preserve-unknown-fields': true }),
  /** An array merged by key: `x-kubernetes-list-type: map` with the given keys. */
  ListMap: <T extends TSchema>(items: T, keys: string[], options: SchemaOptions = {}) =>
    builders().Array(items, { ...options, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys }),
  /**
   * A status's `conditions`: a list of meta/v1 Conditions keyed by `type`, validated as
   * Kubernetes validates `[]metav1.Condition` in a CRD. Its objects are what the condition
   * helpers (`setStatusCondition`, `findStatusCondition`…) take, as for a built-in kind's.
   */
  Conditions: (options: SchemaOptions = {}) =>
    builders().Array(conditionSchema(), { ...options, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
} as const;

/** meta/v1 Condition with the validation Kubernetes generates for it. */
function conditionSchema() {
  const Type = builders();
  return Type.Object({
    type: Type.String({ maxLength: 316, pattern: CONDITION_TYPE_PATTERN, description: 'Type of condition in CamelCase or in foo.example.com/CamelCase.' }),
    status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], { description: 'Status of the condition, one of True, False, Unknown.' }),
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0, description: 'The .metadata.generation the condition was set based upon.' })),
    lastTransitionTime: Type.String({ format: 'date-time', description: 'When the condition last changed from one status to another.' }),
    reason: Type.String({ minLength: 1, maxLength: 1024, pattern: CONDITION_REASON_PATTERN, description: "A programmatic identifier of the condition's last transition, in CamelCase." }),
    message: Type.String({ maxLength: 32768, description: 'A human readable message about the transition.' }),
  });
}

const CONDITION_TYPE_PATTERN = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
const CONDITION_REASON_PATTERN = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';
