/** Stage 1: the facts of the OpenAPI v2 document (swagger.json), descriptions left out. */
import type { ListType, MapType, PatchStrategy } from '@kplane/api/model';
import type { DraftField, DraftType } from './draft.js';
import { Problems } from './draft.js';

/** The parts of a swagger schema the importer reads. */
export interface SwaggerSchema {
  readonly type?: string;
  readonly format?: string;
  readonly $ref?: string;
  readonly items?: SwaggerSchema;
  readonly additionalProperties?: SwaggerSchema | boolean;
  readonly properties?: Readonly<Record<string, SwaggerSchema>>;
  readonly required?: readonly string[];
  readonly [extension: `x-${string}`]: unknown;
}

/** The parts of a swagger document the importer reads. */
export interface SwaggerDocument {
  readonly definitions: Readonly<Record<string, SwaggerSchema>>;
}

const REF_PREFIX = '#/definitions/';
const LIST_TYPES: readonly ListType[] = ['atomic', 'set', 'map'];
const MAP_TYPES: readonly MapType[] = ['atomic', 'granular'];
const PATCH_STRATEGIES: readonly PatchStrategy[] = ['merge', 'replace', 'retainKeys', 'merge,retainKeys'];
/** The schema keys the importer understands; any other key fails the import. */
const TYPE_KEYS = new Set([
  'description', 'properties', 'required', 'type', 'format',
  'x-kubernetes-map-type', 'x-kubernetes-group-version-kind', 'x-kubernetes-unions',
]);
const PROPERTY_KEYS = new Set([
  'description', 'type', 'format', 'items', '$ref', 'additionalProperties',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-map-type',
]);

/** The TypeRef of a swagger property schema (see TypeRef in the model's types). */
export function typeRefOf(schema: SwaggerSchema, where: string, problems: Problems): string {
  if (schema.$ref !== undefined) {
    if (!schema.$ref.startsWith(REF_PREFIX)) problems.add(`${where}: $ref ${schema.$ref} is not a definition`);
    return schema.$ref.slice(REF_PREFIX.length);
  }
  switch (schema.type) {
    case 'string':
      if (schema.format === 'byte') return 'byte';
      if (schema.format === undefined) return 'string';
      break;
    case 'boolean':
      if (schema.format === undefined) return 'boolean';
      break;
    case 'integer':
      if (schema.format === 'int32' || schema.format === 'int64') return schema.format;
      break;
    case 'number':
      if (schema.format === 'double') return 'double';
      break;
    case 'array':
      if (schema.items) return '[]' + typeRefOf(schema.items, `${where}[]`, problems);
      break;
    case 'object':
      if (typeof schema.additionalProperties === 'object') {
        return 'map[string]' + typeRefOf(schema.additionalProperties, `${where}{}`, problems);
      }
      break;
  }
  problems.add(`${where}: unsupported schema type ${schema.type ?? '-'}/${schema.format ?? '-'}`);
  return 'string';
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string, problems: Problems): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  problems.add(`${where}: unexpected value ${JSON.stringify(value)}`);
  return undefined;
}

function stringList(value: unknown, where: string, problems: Problems): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return [...value];
  problems.add(`${where}: expected a list of strings`);
  return undefined;
}

/** The field facts of one swagger property. */
export function fieldOf(schema: SwaggerSchema, required: boolean, where: string, problems: Problems): DraftField {
  for (const key of Object.keys(schema)) {
    if (!PROPERTY_KEYS.has(key)) problems.add(`${where}: unknown schema key ${key}`);
  }
  const field: DraftField = { type: typeRefOf(schema, where, problems) };
  if (required) field.required = true;
  const listType = oneOf(schema['x-kubernetes-list-type'], LIST_TYPES, `${where} list-type`, problems);
  if (listType) field.listType = listType;
  const keys = stringList(schema['x-kubernetes-list-map-keys'], `${where} list-map-keys`, problems);
  if (keys) field.listMapKeys = keys;
  const mapType = oneOf(schema['x-kubernetes-map-type'], MAP_TYPES, `${where} map-type`, problems);
  if (mapType) field.mapType = mapType;
  const strategy = oneOf(schema['x-kubernetes-patch-strategy'], PATCH_STRATEGIES, `${where} patch-strategy`, problems);
  if (strategy) field.patchStrategy = strategy;
  const mergeKey = schema['x-kubernetes-patch-merge-key'];
  if (mergeKey !== undefined) {
    if (typeof mergeKey === 'string') field.patchMergeKey = mergeKey;
    else problems.add(`${where}: patch-merge-key is not a string`);
  }
  return field;
}

/** The type facts of one swagger definition (fields are left out for types with no properties). */
export function typeOf(name: string, schema: SwaggerSchema, problems: Problems): DraftType {
  for (const key of Object.keys(schema)) {
    if (!TYPE_KEYS.has(key)) problems.add(`${name}: unknown schema key ${key}`);
  }
  const type: DraftType = {};
  const required = new Set(schema.required ?? []);
  if (schema.properties || schema.type === 'object') {
    const fields: Record<string, DraftField> = {};
    for (const prop of Object.keys(schema.properties ?? {}).sort(compareNames)) {
      fields[prop] = fieldOf(schema.properties![prop]!, required.delete(prop), `${name}.${prop}`, problems);
    }
    type.fields = fields;
  }
  for (const missing of required) problems.add(`${name}: required ${missing} is not a property`);
  const gvk = schema['x-kubernetes-group-version-kind'];
  if (gvk !== undefined) {
    if (!Array.isArray(gvk)) problems.add(`${name}: group-version-kind is not a list`);
    else {
      type.gvk = gvk.map((g: Record<string, unknown>) => {
        const { group, version, kind } = g;
        if (typeof group !== 'string' || typeof version !== 'string' || typeof kind !== 'string') {
          problems.add(`${name}: malformed group-version-kind`);
        }
        return { group: String(group), version: String(version), kind: String(kind) };
      });
    }
  }
  const mapType = oneOf(schema['x-kubernetes-map-type'], MAP_TYPES, `${name} map-type`, problems);
  if (mapType) type.mapType = mapType;
  const unions = schema['x-kubernetes-unions'];
  if (unions !== undefined) {
    if (Array.isArray(unions)) type.unions = structuredClone(unions);
    else problems.add(`${name}: unions is not a list`);
  }
  return type;
}

/** Byte-order comparison of names (the order Go's sort gives the published documents). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every named type a TypeRef mentions (its innermost named type, if any). */
export function namedTypeOf(ref: string): string | undefined {
  let inner = ref;
  for (;;) {
    if (inner.startsWith('[]')) inner = inner.slice(2);
    else if (inner.startsWith('map[string]')) inner = inner.slice('map[string]'.length);
    else break;
  }
  return ['string', 'boolean', 'int32', 'int64', 'double', 'byte'].includes(inner) ? undefined : inner;
}
