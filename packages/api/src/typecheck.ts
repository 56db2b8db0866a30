/**
 * Type checking of an object against its kind's OpenAPI schema, the way decoding a body into
 * Kubernetes' Go types fails: a JSON value of the wrong type anywhere (a string where a list
 * is expected, a number outside int32, a map for a string) is reported with Go's message, e.g.
 * `json: cannot unmarshal array into Go struct field ObjectMeta.metadata.name of type string`.
 *
 * The walk also bounds nesting depth (MAX_NESTING_DEPTH) over the whole object, and replaces
 * JSON nulls the way Go's decoder does: a null struct field is dropped, a null map value or list
 * item becomes the zero value of its type. Fields the schema does not describe are left to
 * pruning.
 */
import { resolveSchema, schemaRefName } from './schema.js';
import type { SchemaDefinitions, SchemaObject } from './schema.js';
import { depthExceeded, MAX_NESTING_DEPTH } from './json-scan.js';
import { getOwn } from './own.js';

/** How a type error is worded: Go's JSON decoder, or apimachinery's unstructured converter (strategic merge patch). */
export type TypeErrorStyle = 'json' | 'unstructured';

/** One type error: enough to word it either way. */
export interface TypeCheckError {
  /** Dotted path of the field, without indexes or map keys, as Go reports it (`spec.template.spec.containers.name`). */
  field: string;
  /** Name of the Go struct holding the field (`ObjectMeta`). */
  struct: string;
  /** The Go type expected (`string`, `[]v1.OwnerReference`, `map[string]string`, `int32`). */
  goType: string;
  /** The offending JSON value. */
  value: unknown;
  /** The message of a type with its own decoder (Time, IntOrString, Quantity, base64 bytes). */
  custom?: string;
}

const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eEinumkKMGTP]*[-+]?\d*)$/;
const QUANTITY_SUFFIX = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?\d+)$/;
const BASE64_CHAR = /[A-Za-z0-9+/]/;
/** IntOrString and Quantity, published by Kubernetes as a oneOf of two JSON types. */
const INT_OR_STRING_TYPES = /(^|\.)(IntOrString|Quantity)$/;
/** Types whose values are arbitrary JSON. */
const FREE_FORM = /(^|\.)(FieldsV1|RawExtension|JSON|JSONSchemaPropsOrArray|JSONSchemaPropsOrBool|JSONSchemaPropsOrStringArray)$/;

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const refName = schemaRefName;

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`, as Go prints a named type. */
function goName(schemaName: string): string {
  const parts = schemaName.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : schemaName;
}

function shortName(schemaName: string): string {
  return schemaName.slice(schemaName.lastIndexOf('.') + 1);
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Errors only on depth: the value is free-form JSON. */
function checkDepth(v: unknown, depth: number): void {
  if (v === null || typeof v !== 'object') return;
  if (depth > MAX_NESTING_DEPTH) throw depthExceeded();
  if (Array.isArray(v)) for (const x of v) checkDepth(x, depth + 1);
  else for (const k in v) checkDepth((v as Record<string, unknown>)[k], depth + 1);
}

/** The first invalid byte of a base64 string (Go's StdEncoding), or -1 when it is valid. */
export function base64ErrorAt(s: string): number {
  let end = s.length;
  while (end > 0 && (s[end - 1] === '\r' || s[end - 1] === '\n')) end--;
  let i = 0;
  let n = 0;
  for (; i < end; i++) {
    const ch = s[i]!;
    if (ch === '\r' || ch === '\n') continue;
    if (ch === '=') break;
    if (!BASE64_CHAR.test(ch)) return i;
    n++;
  }
  if (i < end) {
    // Padding: only where the quantum needs it, and nothing after it.
    const need = n % 4 === 2 ? 2 : n % 4 === 3 ? 1 : 0;
    if (need === 0) return i;
    let pad = 0;
    for (; i < end; i++) {
      const ch = s[i]!;
      if (ch === '\r' || ch === '\n') continue;
      if (ch !== '=' || pad === need) return i;
      pad++;
    }
    return pad === need ? -1 : end;
  }
  // A quantum cut short without padding: Go reports the offset where that quantum starts.
  return n % 4 === 0 ? -1 : end - (n % 4);
}

function goKindJson(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (isMap(v)) return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** What the checks need to know of a named type, worked out once per name. */
interface NameInfo {
  /** The CRD schema's union types: the JSONSchemaProps name and `Array` or `Bool`. */
  union?: [string, 'Array' | 'Bool'];
  freeForm: boolean;
  time: boolean;
  intOrString: boolean;
  quantity: boolean;
}

const nameInfos = new Map<string, NameInfo>();

function nameInfo(name: string): NameInfo {
  let info = nameInfos.get(name);
  if (!info) {
    const m = /^(.*JSONSchemaProps)Or(Array|Bool)$/.exec(name);
    info = {
      ...(m ? { union: [m[1]!, m[2] as 'Array' | 'Bool'] as [string, 'Array' | 'Bool'] } : {}),
      freeForm: FREE_FORM.test(name),
      time: /(^|\.)(Time|MicroTime)$/.test(name),
      intOrString: INT_OR_STRING_TYPES.test(name),
      quantity: /(^|\.)Quantity$/.test(name),
    };
    nameInfos.set(name, info);
  }
  return info;
}

class Checker {
  constructor(private readonly defs: SchemaDefinitions) {}

  /** The error of `v` at `field`; its Go type (`goType`, or the schema's) is worked out only now. */
  private fail(v: unknown, raw: SchemaObject | undefined, s: SchemaObject | undefined, field: string, struct: string, key: string, goType?: string, custom?: string): TypeCheckError {
    return { field, struct, goType: goType ?? this.goType(raw, s, key), value: v, custom };
  }

  /** Checks `v` (not null) against `raw`; returns the first error. */
  check(v: unknown, raw: SchemaObject | undefined, field: string, struct: string, depth: number, key: string): TypeCheckError | undefined {
    if (depth > MAX_NESTING_DEPTH && v !== null && typeof v === 'object') throw depthExceeded();
    const name = refName(raw);
    const info = name !== undefined ? nameInfo(name) : undefined;
    if (info?.union) {
      const union = this.union(v, name!, info.union, field, struct, depth, key);
      if (union !== null) return union;
    }
    if (info?.freeForm) return checkDepth(v, depth), undefined;
    const s = resolveSchema(raw, this.defs);
    if (!s) return checkDepth(v, depth), undefined;
    if (info?.time) {
      return typeof v === 'string' ? undefined : this.fail(v, raw, s, field, struct, key, goName(name!), `json: cannot unmarshal ${goKindJson(v)} into Go value of type string`);
    }
    if (s['x-kubernetes-int-or-string'] || info?.intOrString) {
      if (info?.quantity) {
        const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
        if (text === undefined || !QUANTITY.test(text)) return this.fail(v, raw, s, field, struct, key, goName(name!), QUANTITY_MESSAGE);
        if (!QUANTITY_SUFFIX.test(text)) return this.fail(v, raw, s, field, struct, key, goName(name!), "unable to parse quantity's suffix");
        return undefined;
      }
      if (typeof v === 'string') return undefined;
      if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return undefined;
      const what = typeof v === 'number' ? `number ${v}` : goKindJson(v);
      return this.fail(v, raw, s, field, struct, key, name ? goName(name) : 'intstr.IntOrString', `json: cannot unmarshal ${what} into Go value of type int32`);
    }
    switch (s.type) {
      case 'object':
        return this.object(v, raw, s, field, struct, depth, key, name);
      case 'array': {
        if (!Array.isArray(v)) return this.fail(v, raw, s, field, struct, key);
        for (let i = 0; i < v.length; i++) {
          if (v[i] === null) {
            v[i] = this.zero(s.items);
            continue;
          }
          const e = this.check(v[i], s.items, field, struct, depth + 1, key);
          if (e) return e;
        }
        return undefined;
      }
      case 'string':
        if (typeof v !== 'string') return this.fail(v, raw, s, field, struct, key);
        if (s.format === 'byte') {
          const at = base64ErrorAt(v);
          if (at >= 0) return this.fail(v, raw, s, field, struct, key, undefined, `illegal base64 data at input byte ${at}`);
        }
        return undefined;
      case 'integer': {
        if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(v, raw, s, field, struct, key);
        const [min, max] = s.format === 'int32' ? [-(2 ** 31), 2 ** 31] : [-(2 ** 63), 2 ** 63];
        return v >= min && v < max ? undefined : this.fail(v, raw, s, field, struct, key);
      }
      case 'number':
        return typeof v === 'number' ? undefined : this.fail(v, raw, s, field, struct, key);
      case 'boolean':
        return typeof v === 'boolean' ? undefined : this.fail(v, raw, s, field, struct, key);
      default:
        checkDepth(v, depth);
        return undefined;
    }
  }

  private object(v: unknown, raw: SchemaObject | undefined, s: SchemaObject, field: string, struct: string, depth: number, key: string, name: string | undefined): TypeCheckError | undefined {
    if (!isMap(v)) return this.fail(v, raw, s, field, struct, key);
    const additional = s.additionalProperties;
    if (!s.properties && isMap(additional)) {
      for (const k of Object.keys(v)) {
        if (v[k] === null) {
          v[k] = this.zero(additional);
          continue;
        }
        const e = this.check(v[k], additional, field, struct, depth + 1, key);
        if (e) return e;
      }
      return undefined;
    }
    const own = name ? shortName(name) : capitalize(key);
    for (const k of Object.keys(v)) {
      const prop = getOwn(s.properties, k);
      if (!prop) {
        checkDepth(v[k], depth + 1);
        continue;
      }
      if (v[k] === null) {
        delete v[k];
        continue;
      }
      const e = this.check(v[k], prop, join(field, k), own, depth + 1, k);
      if (e) return e;
    }
    return undefined;
  }

  /**
   * The CRD schema's union types: JSONSchemaPropsOrArray (a schema or a list of schemas) and
   * JSONSchemaPropsOrBool (a schema or a boolean). Null when `name` is neither.
   */
  private union(v: unknown, name: string, m: [string, 'Array' | 'Bool'], field: string, struct: string, depth: number, key: string): TypeCheckError | undefined | null {
    if (!this.defs[m[0]]) return null;
    const props: SchemaObject = { $ref: `#/components/schemas/${m[0]}` };
    if (isMap(v)) return this.check(v, props, field, struct, depth, key);
    if (m[1] === 'Bool') {
      return typeof v === 'boolean' ? undefined : { field, struct, goType: goName(name), value: v, custom: 'boolean or JSON schema expected' };
    }
    if (!Array.isArray(v)) return { field, struct, goType: goName(name), value: v, custom: `json: cannot unmarshal ${goKindJson(v)} into Go value of type ${goName(m[0])}` };
    for (const item of v) {
      if (item === null) continue;
      if (!isMap(item)) return { field, struct, goType: goName(name), value: v, custom: `json: cannot unmarshal ${goKindJson(item)} into Go value of type ${goName(m[0])}` };
      const e = this.check(item, props, field, struct, depth + 1, key);
      if (e) return e;
    }
    return undefined;
  }

  /** What Go's decoder leaves for a null of this type. */
  private zero(raw: SchemaObject | undefined): unknown {
    const s = resolveSchema(raw, this.defs);
    if (!s) return null;
    const name = refName(raw);
    const info = name !== undefined ? nameInfo(name) : undefined;
    if (s['x-kubernetes-int-or-string'] || info?.intOrString) return info?.quantity ? '0' : 0;
    switch (s.type) {
      case 'string':
        return info?.time ? null : '';
      case 'integer':
      case 'number':
        return 0;
      case 'boolean':
        return false;
      case 'object':
        return {};
      default:
        return null;
    }
  }

  /** The Go type a schema stands for, as Go prints it. */
  goType(raw: SchemaObject | undefined, s: SchemaObject | undefined, key: string): string {
    const name = refName(raw);
    if (name) return goName(name);
    if (!s) return 'interface {}';
    if (s['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
    switch (s.type) {
      case 'string':
        return s.format === 'byte' ? '[]uint8' : 'string';
      case 'integer':
        return s.format === 'int32' ? 'int32' : s.format === 'int64' ? 'int64' : 'int';
      case 'number':
        return 'float64';
      case 'boolean':
        return 'bool';
      case 'array':
        return `[]${this.goType(s.items, resolveSchema(s.items, this.defs), key)}`;
      case 'object': {
        const add = s.additionalProperties;
        if (!s.properties && isMap(add)) return `map[string]${this.goType(add, resolveSchema(add, this.defs), key)}`;
        return `v1.${capitalize(key)}`;
      }
      default:
        return 'interface {}';
    }
  }
}

/** The Go reflect kind of a JSON value in an unstructured map. */
function goKindUnstructured(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isMap(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Words a type error as Go's JSON decoder (`json`) or the unstructured converter (`unstructured`) would. */
export function typeErrorMessage(e: TypeCheckError, style: TypeErrorStyle = 'json'): string {
  if (e.custom) return e.custom;
  const t = e.goType;
  if (style === 'json') {
    const numeric = /^(u?int\d*|float\d+)$/.test(t);
    const what = typeof e.value === 'number' && numeric ? `number ${e.value}` : goKindJson(e.value);
    return `json: cannot unmarshal ${what} into Go struct field ${e.struct}.${e.field} of type ${t}`;
  }
  const k = goKindUnstructured(e.value);
  if (t.startsWith('[]')) return `cannot restore slice from ${k}`;
  if (t.startsWith('map[')) return `cannot restore map from ${k}`;
  if (/^(string|bool|u?int\d*|float\d+)$/.test(t)) {
    if ((k === 'int64' || k === 'float64') && t !== 'bool') return `cannot convert ${k} to ${t}`;
    return `unrecognized type: ${t}`;
  }
  return `cannot restore struct from: ${k}`;
}

/**
 * Checks `obj` against `schema` (a kind's schema; `metadata` always against `metaSchema` when
 * given, whatever the kind's schema says of it) and returns the first type error, or undefined.
 * With `metadataOnly` (custom resources, whose schemas are checked by their own validation) only
 * metadata is type-checked; the rest is checked for depth alone. Nulls are replaced as Go's
 * decoder does (see the module comment), so `obj` may change. Throws ApiError 400 when the
 * object nests deeper than MAX_NESTING_DEPTH.
 */
export function checkObjectTypes(
  obj: Record<string, unknown>,
  schema: SchemaObject | undefined,
  defs: SchemaDefinitions,
  options: { kind: string; metaSchema?: SchemaObject; metadataOnly?: boolean },
): TypeCheckError | undefined {
  const checker = new Checker(defs);
  const root = resolveSchema(schema, defs);
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (k === 'metadata') {
      if (v === null) {
        delete obj[k];
        continue;
      }
      const meta = options.metaSchema ?? getOwn(root?.properties, 'metadata');
      const e = checker.check(v, meta, 'metadata', options.kind, 2, 'metadata');
      if (e) return e;
      continue;
    }
    if (options.metadataOnly || k === 'apiVersion' || k === 'kind') {
      checkDepth(v, 2);
      continue;
    }
    const prop = getOwn(root?.properties, k);
    if (!prop) {
      checkDepth(v, 2);
      continue;
    }
    if (v === null) {
      delete obj[k];
      continue;
    }
    const e = checker.check(v, prop, k, options.kind, 2, k);
    if (e) return e;
  }
  return undefined;
}
