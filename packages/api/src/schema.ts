/**
 * OpenAPI v3 / JSON-Schema shapes as Kubernetes uses them (the subset kplane reads), including
 * the x-kubernetes-* extensions that drive strategic merge patch, pruning and list semantics.
 */
export interface SchemaObject {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, SchemaObject>;
  additionalProperties?: SchemaObject | boolean;
  items?: SchemaObject;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  /** A reference to a named schema: "#/components/schemas/<name>". */
  $ref?: string;
  allOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  not?: SchemaObject;
  'x-kubernetes-patch-merge-key'?: string;
  /** "merge", "replace", "retainKeys", or "merge,retainKeys". */
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }[];
  [extension: `x-${string}`]: unknown;
}

/** Named schemas (OpenAPI `components.schemas`). */
export type SchemaDefinitions = Record<string, SchemaObject>;

/**
 * Resolves `$ref` and single-element `allOf: [{$ref}]` wrappers against a set of definitions,
 * returning the referenced schema merged with the wrapper's own description and extensions.
 * The result is cached per schema object and set of definitions: never change either.
 */
export function resolveSchema(schema: SchemaObject | undefined, defs: SchemaDefinitions): SchemaObject | undefined {
  if (!schema || (!schema.$ref && !schema.allOf)) return schema;
  // Schemas are static: each wrapper is resolved once per set of definitions (writes resolve
  // the same few hundred schemas over and over when pruning and merging).
  let byDefs = resolved.get(defs);
  if (!byDefs) resolved.set(defs, (byDefs = new WeakMap()));
  const known = byDefs.get(schema);
  if (known !== undefined) return known ?? undefined;
  const out = resolveUncached(schema, defs);
  byDefs.set(schema, out ?? null);
  return out;
}

const resolved = new WeakMap<SchemaDefinitions, WeakMap<SchemaObject, SchemaObject | null>>();

const refNames = new WeakMap<SchemaObject, string | null>();

/**
 * The definition a schema refers to (`{ $ref }`, or `{ allOf: [{ $ref }] }`), without the
 * `#/components/schemas/` or `#/definitions/` prefix; cached per schema object.
 */
export function schemaRefName(schema: SchemaObject | undefined): string | undefined {
  if (!schema || (!schema.$ref && !schema.allOf)) return undefined;
  let name = refNames.get(schema);
  if (name === undefined) {
    const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]!.$ref : undefined);
    name = ref === undefined ? null : ref.replace(/^#\/(components\/schemas|definitions)\//, '');
    refNames.set(schema, name);
  }
  return name ?? undefined;
}

/** Forgets what resolveSchema cached for `defs`: call it after adding, replacing or removing definitions. */
export function definitionsChanged(defs: SchemaDefinitions): void {
  resolved.delete(defs);
}

function resolveUncached(schema: SchemaObject | undefined, defs: SchemaDefinitions): SchemaObject | undefined {
  let s = schema;
  for (let depth = 0; s && depth < 16; depth++) {
    if (s.$ref) {
      const name = s.$ref.replace(/^#\/(components\/schemas|definitions)\//, '');
      const { $ref: _r, ...rest } = s;
      const target = defs[name];
      if (!target) return rest;
      s = { ...target, ...rest };
      continue;
    }
    if (s.allOf && s.allOf.length === 1 && !s.type && !s.properties) {
      const { allOf, ...rest } = s;
      s = { ...allOf[0], ...rest };
      continue;
    }
    return s;
  }
  return s;
}
