/**
 * OpenAPI v3 value validation of custom resources against their structural schema, with the
 * messages kube-apiserver's schema validator produces (`spec.replicas in body should be less
 * than or equal to 10`) and validation ratcheting: a value equal to its correlated old value
 * is not validated again, so a tightened schema does not break untouched fields.
 */
import type { SchemaObject, StatusCause } from '@kplane/api';
import { CauseType, fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTooMany, goQuote } from '@kplane/api';
import { isDeepStrictEqual } from 'node:util';
import { checkFormat } from './formats.js';
import { regexTest } from './regex.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The JSON type name of a value as OpenAPI validation reports it. */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'object';
}

/** The old value a node is compared with (ratcheting); absent when nothing correlates. */
export interface Correlated {
  value: unknown;
}

function inBody(path: string, detail: string): string {
  return `${path} in body ${detail}`;
}

function typeInvalid(path: string, value: unknown, detail: string): StatusCause {
  return { ...fieldInvalid(path, value, detail), reason: CauseType.TypeInvalid };
}

/** %v of a Go float64 bound (1, 1.5, 1e+21). */
function goNumber(n: number): string {
  if (Math.abs(n) >= 1e21) return n.toExponential().replace(/e\+?/, 'e+');
  return String(n);
}

function typeMatches(value: unknown, type: string | undefined): boolean {
  switch (type) {
    case 'object':
      return isObj(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return true;
  }
}

/** A list item's map keys, rendered as Go prints a map[string]interface{}. */
function mapKeysValue(item: Obj, keys: string[]): string {
  const sorted = [...keys].sort();
  const parts = sorted.map((k) => `${goQuote(k)}:${typeof item[k] === 'string' ? goQuote(item[k] as string) : String(item[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

function findCorrelatedItem(item: unknown, oldList: unknown[], schema: SchemaObject): Correlated | undefined {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'map' && isObj(item)) {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const match = oldList.find((o) => isObj(o) && keys.every((k) => isDeepStrictEqual(o[k], item[k])));
    return match === undefined ? undefined : { value: match };
  }
  if (listType === 'set') {
    const match = oldList.find((o) => isDeepStrictEqual(o, item));
    return match === undefined ? undefined : { value: match };
  }
  return undefined;
}

/**
 * Validates `value` (found at `path`) against `schema`; returns one cause per violation.
 * With `old`, a value equal to its correlated old value is accepted as it is (ratcheting).
 */
export function validateValue(value: unknown, schema: SchemaObject, path: string, old?: Correlated): StatusCause[] {
  if (old && isDeepStrictEqual(value, old.value)) return [];
  const out: StatusCause[] = [];
  if (value === null || value === undefined) {
    if (schema.nullable || (!schema.type && !schema['x-kubernetes-int-or-string'])) return out;
    const t = schema['x-kubernetes-int-or-string'] ? 'integer,string' : schema.type!;
    out.push(typeInvalid(path, 'null', inBody(path, `must be of type ${t}: "null"`)));
    return out;
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      const actual = jsonTypeOf(value);
      out.push(typeInvalid(path, actual, inBody(path, `must be of type integer,string: ${goQuote(actual)}`)));
      return out;
    }
  } else if (schema.type && !typeMatches(value, schema.type)) {
    const actual = jsonTypeOf(value);
    out.push(typeInvalid(path, actual, inBody(path, `must be of type ${schema.type}: ${goQuote(actual)}`)));
    return out;
  }
  if (schema.enum && !schema.enum.some((e) => isDeepStrictEqual(e, value))) {
    out.push(fieldNotSupported(path, value, schema.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof value === 'string') out.push(...validateString(value, schema, path));
  else if (typeof value === 'number') out.push(...validateNumber(value, schema, path));
  else if (Array.isArray(value)) out.push(...validateArray(value, schema, path, old));
  else if (isObj(value)) out.push(...validateObject(value, schema, path, old));
  out.push(...validateJunctors(value, schema, path));
  return out;
}

function validateString(value: string, schema: SchemaObject, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) out.push(fieldTooLong(path, schema.maxLength));
  if (schema.minLength !== undefined && length < schema.minLength) {
    out.push(fieldInvalid(path, value, inBody(path, `should be at least ${schema.minLength} chars long`)));
  }
  if (schema.pattern !== undefined && !patternMatches(schema.pattern, value)) {
    out.push(fieldInvalid(path, value, inBody(path, `should match '${schema.pattern}'`)));
  }
  if (schema.format && !checkFormat(schema.format, value)) {
    out.push(typeInvalid(path, value, inBody(path, `must be of type ${schema.format}: ${goQuote(value)}`)));
  }
  return out;
}

/**
 * Does a string satisfy a schema pattern? Patterns are Go (RE2) expressions, searched for
 * anywhere in the value and matched in linear time; a pattern that is not valid RE2 (refused
 * when the CRD is written, so only in objects stored before) matches nothing.
 */
export function patternMatches(pattern: string, value: string): boolean {
  try {
    return regexTest(pattern, value);
  } catch {
    return false;
  }
}

function validateNumber(value: number, schema: SchemaObject, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum) {
      const how = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
      out.push(fieldInvalid(path, value, inBody(path, `should be ${how} ${goNumber(schema.maximum)}`)));
    }
  }
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum) {
      const how = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      out.push(fieldInvalid(path, value, inBody(path, `should be ${how} ${goNumber(schema.minimum)}`)));
    }
  }
  const multipleOf = (schema as { multipleOf?: number }).multipleOf;
  if (multipleOf !== undefined && multipleOf > 0) {
    const q = value / multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(fieldInvalid(path, value, inBody(path, `should be a multiple of ${goNumber(multipleOf)}`)));
  }
  return out;
}

function validateArray(value: unknown[], schema: SchemaObject, path: string, old?: Correlated): StatusCause[] {
  const out: StatusCause[] = [];
  if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(fieldTooMany(path, value.length, schema.maxItems));
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    out.push(fieldInvalid(path, value.length, inBody(path, `should have at least ${schema.minItems} items`)));
  }
  const items = schema.items;
  const oldList = old && Array.isArray(old.value) ? old.value : undefined;
  if (items) {
    value.forEach((item, i) => {
      const corr = oldList ? findCorrelatedItem(item, oldList, schema) : undefined;
      out.push(...validateValue(item, items, `${path}[${i}]`, corr));
    });
  }
  out.push(...validateListType(value, schema, path));
  return out;
}

/** x-kubernetes-list-type set and map: no duplicate items (set) or item keys (map). */
function validateListType(value: unknown[], schema: SchemaObject, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    value.forEach((item, i) => {
      if (value.findIndex((x) => isDeepStrictEqual(x, item)) < i) out.push(fieldDuplicate(`${path}[${i}]`, item));
    });
  } else if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObj(item)) return;
      const id = JSON.stringify(keys.map((k) => item[k] ?? null));
      if (seen.has(id)) {
        out.push({ reason: CauseType.Duplicate, field: `${path}[${i}]`, message: `Duplicate value: ${mapKeysValue(item, keys)}` });
      }
      seen.add(id);
    });
  }
  return out;
}

function validateObject(value: Obj, schema: SchemaObject, path: string, old?: Correlated): StatusCause[] {
  const out: StatusCause[] = [];
  const join = (k: string) => (path ? `${path}.${k}` : k);
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) out.push(fieldTooMany(path, count, schema.maxProperties));
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    out.push(fieldInvalid(path, count, inBody(path, `should have at least ${schema.minProperties} properties`)));
  }
  for (const r of schema.required ?? []) if (value[r] === undefined) out.push(fieldRequired(join(r)));
  const oldObj = old && isObj(old.value) && schema['x-kubernetes-map-type'] !== 'atomic' ? old.value : undefined;
  const props = schema.properties ?? {};
  const additional = schema.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    const s = props[k] ?? (isObj(additional) ? (additional as SchemaObject) : undefined);
    if (!s) continue;
    const corr = oldObj && Object.prototype.hasOwnProperty.call(oldObj, k) ? { value: oldObj[k] } : undefined;
    out.push(...validateValue(v, s, join(k), corr));
  }
  if (schema['x-kubernetes-embedded-resource']) out.push(...validateEmbedded(value, path));
  return out;
}

/** The TypeMeta of an x-kubernetes-embedded-resource object. */
function validateEmbedded(value: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const join = (k: string) => (path ? `${path}.${k}` : k);
  if (typeof value.kind !== 'string' || value.kind === '') out.push(fieldRequired(join('kind'), 'must not be empty'));
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '') out.push(fieldRequired(join('apiVersion'), 'must not be empty'));
  return out;
}

function validateJunctors(value: unknown, schema: SchemaObject, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const valid = (s: SchemaObject) => validateValue(value, { ...s, type: s.type }, path).length === 0;
  for (const s of schema.allOf ?? []) out.push(...validateValue(value, s, path));
  if (schema.anyOf && schema.anyOf.length > 0 && !schema.anyOf.some(valid)) {
    out.push(fieldInvalid(path, value, inBody(path, 'must validate at least one schema (anyOf)')));
  }
  if (schema.oneOf && schema.oneOf.length > 0 && schema.oneOf.filter(valid).length !== 1) {
    out.push(fieldInvalid(path, value, inBody(path, 'must validate one and only one schema (oneOf)')));
  }
  if (schema.not && valid(schema.not)) out.push(fieldInvalid(path, value, inBody(path, 'must not validate the schema (not)')));
  return out;
}
