/**
 * Structural defaulting of custom resources: every absent field (or null field that is not
 * nullable) whose schema has a `default` gets a copy of it, top down, on write and on read.
 */
import { getOwn, setOwn, type SchemaObject } from '@kplane/api';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const hasDefaultsCache = new WeakMap<SchemaObject, boolean>();

/** Does the schema (or anything below it) declare a default? */
export function schemaHasDefaults(schema: SchemaObject | undefined): boolean {
  if (!schema) return false;
  const cached = hasDefaultsCache.get(schema);
  if (cached !== undefined) return cached;
  let found = schema.default !== undefined;
  if (!found) {
    const children: (SchemaObject | undefined)[] = [
      ...Object.values(schema.properties ?? {}),
      schema.items,
      isObj(schema.additionalProperties) ? (schema.additionalProperties as SchemaObject) : undefined,
    ];
    found = children.some((c) => schemaHasDefaults(c));
  }
  hasDefaultsCache.set(schema, found);
  return found;
}

/** A defaulter compiled for one schema: visits only the branches that hold defaults. */
export type Defaulter = (value: unknown) => void;

/** Compiles the defaulting of a schema; undefined when it has no defaults. */
export function compileDefaulter(schema: SchemaObject | undefined): Defaulter | undefined {
  if (!schema || !schemaHasDefaults(schema)) return undefined;
  const props: [string, SchemaObject, Defaulter | undefined][] = [];
  for (const [k, s] of Object.entries(schema.properties ?? {})) if (schemaHasDefaults(s)) props.push([k, s, compileDefaulter(s)]);
  const items = compileDefaulter(schema.items);
  const additional = isObj(schema.additionalProperties) ? (schema.additionalProperties as SchemaObject) : undefined;
  const ap = additional && schemaHasDefaults(additional) ? additional : undefined;
  return (value) => {
    if (Array.isArray(value)) {
      if (items) for (const item of value) items(item);
      return;
    }
    if (!isObj(value)) return;
    for (const [k, s, d] of props) {
      const v = getOwn(value, k);
      if (s.default !== undefined && (v === undefined || (v === null && !s.nullable))) setOwn(value, k, structuredClone(s.default));
      if (d && getOwn(value, k) !== undefined) d(value[k]);
    }
    if (ap) applyDefaults(value, { properties: schema.properties, additionalProperties: ap });
  };
}

/**
 * Applies the schema's defaults to `value` in place (objects and arrays are walked; scalars
 * are left alone). Defaults are deep-copied, so stored schemas are never aliased.
 */
export function applyDefaults(value: unknown, schema: SchemaObject | undefined): void {
  if (!schema || !schemaHasDefaults(schema)) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  if (!isObj(value)) return;
  const props = schema.properties;
  if (props) {
    for (const [k, s] of Object.entries(props)) {
      const v = getOwn(value, k);
      if (s.default !== undefined && (v === undefined || (v === null && !s.nullable))) {
        setOwn(value, k, structuredClone(s.default));
      }
      if (getOwn(value, k) !== undefined) applyDefaults(value[k], s);
    }
  }
  const additional = schema.additionalProperties;
  if (isObj(additional)) {
    for (const [k, v] of Object.entries(value)) {
      if (getOwn(props, k)) continue;
      if (v === null && (additional as SchemaObject).default !== undefined && !(additional as SchemaObject).nullable) {
        setOwn(value, k, structuredClone((additional as SchemaObject).default));
      }
      applyDefaults(value[k], additional as SchemaObject);
    }
  }
}
