/**
 * The declared CEL types of a CRD schema as Kubernetes builds them for its cost estimates
 * (k8s.io/apiserver/pkg/cel/common SchemaDeclType): each type's largest size (`maxElements`:
 * items, properties, or bytes of a string — four per character of `maxLength`) and smallest
 * JSON encoding, which bounds lists and maps without `maxItems` / `maxProperties` and how
 * often a rule can run.
 */
import type { SchemaObject } from '@kplane/api';
import { celEscape } from './escaping.js';

/** Largest request body kube-apiserver accepts. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** A declared type: its CEL kind, its bounds and its parts. */
export interface Decl {
  /** int, double, bool, string, bytes, duration, timestamp, list, map, object or dyn. */
  type: string;
  maxElements: number;
  minSerializedSize: number;
  /** Object fields by their CEL (escaped) names. */
  fields?: Map<string, Decl>;
  /** List items / map values. */
  elem?: Decl;
  /** Map keys. */
  key?: Decl;
}

const STRING_KEY: Decl = { type: 'string', maxElements: 0, minSerializedSize: 2 };
const cache = new WeakMap<SchemaObject, { plain?: Decl | null; root?: Decl | null }>();

function maxStringLength(s: SchemaObject): number {
  if (s['x-kubernetes-int-or-string']) return MAX_REQUEST_BYTES - 2;
  if (s.format === 'duration' || s.format === 'date-time') return 32;
  if (s.format === 'date') return 12;
  return MAX_REQUEST_BYTES - 2;
}

/** The schema a rule at a resource's root sees: with apiVersion, kind and metadata (name, generateName). */
function withTypeAndObjectMeta(s: SchemaObject): SchemaObject {
  const p = s.properties ?? {};
  const meta = p.metadata;
  if (p.kind?.type === 'string' && p.apiVersion?.type === 'string' && meta?.type === 'object' && meta.properties?.name?.type === 'string' && meta.properties.generateName?.type === 'string') return s;
  const str: SchemaObject = { type: 'string' };
  return { ...s, properties: { ...p, kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } } } };
}

/** The declared type of a schema (undefined when Kubernetes declares none, e.g. no type). */
export function decl(s: SchemaObject | undefined, resourceRoot = false): Decl | undefined {
  if (!s) return undefined;
  let entry = cache.get(s);
  if (!entry) cache.set(s, (entry = {}));
  const k = resourceRoot ? 'root' : 'plain';
  if (entry[k] === undefined) entry[k] = build(s, resourceRoot) ?? null;
  return entry[k] ?? undefined;
}

function build(schema: SchemaObject, resourceRoot: boolean): Decl | undefined {
  if (schema['x-kubernetes-int-or-string']) return { type: 'dyn', maxElements: MAX_REQUEST_BYTES - 2, minSerializedSize: 1 };
  const s = resourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = decl(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      const maxItems = s.maxItems !== undefined ? Math.max(0, s.maxItems) : Math.floor((MAX_REQUEST_BYTES - 2) / (elem.minSerializedSize + 1));
      return { type: 'list', maxElements: maxItems, minSerializedSize: 2, elem };
    }
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const elem = decl(s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true);
        if (!elem) return undefined;
        const maxProps = s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : Math.floor((MAX_REQUEST_BYTES - 2) / (elem.minSerializedSize + 6));
        return { type: 'map', maxElements: maxProps, minSerializedSize: 2, elem, key: STRING_KEY };
      }
      const fields = new Map<string, Decl>();
      const required = new Set(s.required ?? []);
      let min = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = decl(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (!t) continue;
        const escaped = celEscape(name);
        if (escaped !== undefined) fields.set(escaped, t);
        if (required.has(name) && prop.default === undefined) min += name.length + t.minSerializedSize + 4;
      }
      return { type: 'object', maxElements: 0, minSerializedSize: min, fields };
    }
    case 'string': {
      if (s.format === 'byte') return { type: 'bytes', maxElements: s.maxLength !== undefined ? Math.max(0, s.maxLength) : maxStringLength(s), minSerializedSize: 2 };
      if (s.format === 'duration') return { type: 'duration', maxElements: maxStringLength(s), minSerializedSize: 3 };
      if (s.format === 'date') return { type: 'timestamp', maxElements: maxStringLength(s), minSerializedSize: 12 };
      if (s.format === 'date-time') return { type: 'timestamp', maxElements: maxStringLength(s), minSerializedSize: 21 };
      let max: number;
      if (s.maxLength !== undefined) max = Math.max(0, s.maxLength) * 4;
      else if (Array.isArray(s.enum) && s.enum.length > 0) max = Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
      else max = maxStringLength(s);
      return { type: 'string', maxElements: max, minSerializedSize: 2 };
    }
    case 'boolean':
      return { type: 'bool', maxElements: 0, minSerializedSize: 4 };
    case 'number':
      return { type: 'double', maxElements: 0, minSerializedSize: 1 };
    case 'integer':
      return { type: 'int', maxElements: 0, minSerializedSize: 1 };
    default:
      return undefined;
  }
}

/** Largest element count of a list or map schema (as its declared type bounds it). */
export function maxElements(s: SchemaObject): number {
  return decl(s)?.maxElements ?? 0;
}

/**
 * How many times a rule on a node can run when some ancestor is unbounded: the largest number
 * of its smallest encoding a request can hold (Kubernetes' maxCardinality).
 */
export function unboundedCardinality(s: SchemaObject, resourceRoot: boolean): number {
  const min = decl(s, resourceRoot)?.minSerializedSize ?? 1;
  return Math.floor(MAX_REQUEST_BYTES / (min + 1));
}
