/**
 * The OpenAPI v3 schemas of the model, as kube-apiserver 1.32 publishes them in
 * `/openapi/v3/<group-version>` (`components.schemas`): one definition per type, fields as
 * properties, a `$ref` wrapped in a one-element `allOf` when the field has anything beside it
 * (description, default, extensions), `default` and `enum` (v3 only; of list items and map
 * values too), `required`, every `x-kubernetes-*` extension of the model, the
 * group/version/kinds of the kinds, and the v3 forms of the types with their own JSON form
 * (IntOrString, Quantity, Time, ...). kplane's own descriptions come from `descriptions.ts`.
 */
import type { SchemaDefinitions, SchemaObject } from '../schema.js';
import { DESCRIPTIONS, fieldDescription, typeDescription, type Descriptions } from './descriptions.js';
import { MODEL_PACKAGES, parseTypeRef } from './index.js';
import type { ApiPackageModel, FieldModel, ItemModel, ScalarType, SpecialKind, TypeModel, TypeRef } from './types.js';

const REF_PREFIX = '#/components/schemas/';

/** The v3 schemas of the special types, as kube-openapi publishes them (without description). */
const SPECIAL_V3: Readonly<Record<SpecialKind, SchemaObject>> = {
  time: { type: 'string', format: 'date-time' },
  'micro-time': { type: 'string', format: 'date-time' },
  duration: { type: 'string' },
  // kube-openapi's OpenAPIV3OneOfTypes of resource.Quantity and intstr.IntOrString.
  quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  'int-or-string': { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
  'raw-extension': { type: 'object' },
  'fields-v1': { type: 'object' },
  // Any JSON value: no type at all.
  json: {},
  'json-schema-props-or-array': {},
  'json-schema-props-or-bool': {},
  'json-schema-props-or-string-array': {},
};

const SCALARS: Readonly<Record<ScalarType, SchemaObject>> = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  double: { type: 'number', format: 'double' },
  byte: { type: 'string', format: 'byte' },
};

/** A copy of a JSON value of the model, so that the schemas share nothing with it. */
function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/** An object with its keys in sorted order, as kube-apiserver writes its documents. */
function sorted(schema: SchemaObject): SchemaObject {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort()) {
    const v = (schema as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as SchemaObject;
}

/**
 * `base` with `extra` beside it; a `$ref` with anything beside it is moved into a one-element
 * allOf (a JSON reference ignores its siblings).
 */
function withSiblings(base: SchemaObject, extra: SchemaObject): SchemaObject {
  const hasExtra = Object.values(extra).some((v) => v !== undefined);
  if (!hasExtra) return base;
  if (base.$ref) return sorted({ allOf: [{ $ref: base.$ref }], ...extra });
  return sorted({ ...base, ...extra });
}

/**
 * The schema of a value of type `ref`, without description or default; `items` holds the
 * model's facts of its list items or map values.
 */
function valueSchema(ref: TypeRef, items: ItemModel | undefined): SchemaObject {
  const parsed = parseTypeRef(ref);
  switch (parsed.kind) {
    case 'scalar':
      return { ...SCALARS[parsed.scalar] };
    case 'named':
      return { $ref: REF_PREFIX + parsed.name };
    case 'list':
      return { items: elementSchema(parsed.item, items), type: 'array' };
    case 'map':
      return { additionalProperties: elementSchema(parsed.value, items), type: 'object' };
  }
}

/** The schema of a list item or map value: its type with the model's default and enum. */
function elementSchema(ref: TypeRef, facts: ItemModel | undefined): SchemaObject {
  return withSiblings(valueSchema(ref, facts?.items), { default: copy(facts?.default), enum: facts?.enum ? [...facts.enum] : undefined });
}

/** The property schema of one field. */
function fieldSchema(field: FieldModel, description: string | undefined): SchemaObject {
  return withSiblings(valueSchema(field.type, field.items), {
    default: copy(field.default),
    description,
    enum: field.enum ? [...field.enum] : undefined,
    'x-kubernetes-list-map-keys': field.listMapKeys ? [...field.listMapKeys] : undefined,
    'x-kubernetes-list-type': field.listType,
    'x-kubernetes-map-type': field.mapType,
    'x-kubernetes-patch-merge-key': field.patchMergeKey,
    'x-kubernetes-patch-strategy': field.patchStrategy,
  });
}

/** The definition of one type (`name` is its full schema name). */
function typeSchema(name: string, type: TypeModel, descriptions: Descriptions): SchemaObject {
  const description = typeDescription(name, type, descriptions);
  if (type.special) return sorted({ ...copy(SPECIAL_V3[type.special]), description });
  const fields = Object.entries(type.fields ?? {});
  const properties: Record<string, SchemaObject> = {};
  for (const [fieldName, field] of fields) {
    properties[fieldName] = fieldSchema(field, fieldDescription(name, type, fieldName, field, descriptions));
  }
  const required = fields.filter(([, f]) => f.required).map(([n]) => n);
  return sorted({
    description,
    properties: fields.length ? properties : undefined,
    required: required.length ? required : undefined,
    type: 'object',
    'x-kubernetes-group-version-kind': type.gvk?.map((g) => ({ group: g.group, kind: g.kind, version: g.version })),
    'x-kubernetes-map-type': type.mapType,
    'x-kubernetes-unions': copy(type.unions),
  });
}

/**
 * The OpenAPI v3 definitions of every type of `packages` (the model by default) that the
 * documents have (protobuf-only types are left out), keyed by schema name, with kplane's
 * descriptions. Pure: each call builds a new map.
 */
export function toOpenApiV3(
  packages: readonly ApiPackageModel[] = MODEL_PACKAGES,
  descriptions: Descriptions = DESCRIPTIONS,
): SchemaDefinitions {
  const out: SchemaDefinitions = {};
  for (const pkg of packages) {
    for (const [shortName, type] of Object.entries(pkg.types)) {
      if (type.protoOnly) continue; // a protobuf message only, not in the documents
      const name = pkg.schemaPrefix + shortName;
      out[name] = typeSchema(name, type, descriptions);
    }
  }
  return out;
}

/**
 * The names of the definitions toOpenApiV3 makes, each with the function that builds its
 * schema (the same value toOpenApiV3 holds under that name): a server that reads few of them
 * builds only those.
 */
export function openApiV3Builders(
  packages: readonly ApiPackageModel[] = MODEL_PACKAGES,
  descriptions: Descriptions = DESCRIPTIONS,
): Map<string, () => SchemaObject> {
  const out = new Map<string, () => SchemaObject>();
  for (const pkg of packages) {
    for (const [shortName, type] of Object.entries(pkg.types)) {
      if (type.protoOnly) continue;
      const name = pkg.schemaPrefix + shortName;
      out.set(name, () => typeSchema(name, type, descriptions));
    }
  }
  return out;
}
