/**
 * Conversion of a decoded protobufjs message into the JSON object Kubernetes' JSON encoding
 * would produce for the same Go value, driven by the model (see model/proto.ts).
 *
 * Go's protobuf decoder fills a Go struct; Go's JSON encoder then writes it. So, per field:
 * - present on the wire: a Go pointer (`ptr`) keeps its value even when zero (`replicas: 0`,
 *   `immutable: false`); otherwise a zero scalar or an empty list or map is dropped unless the
 *   json tag lacks omitempty (`always`);
 * - absent: a pointer is dropped (`null` when `always`); a non-pointer `always` field gets its
 *   zero value (`""`, `0`, `false`, `null` for a nil list or map);
 * - a non-pointer struct is always written, as Go's omitempty never drops a struct: an absent
 *   one as its zero value (`status: {}`, `creationTimestamp: null`, `targetPort: 0`).
 * Embedded structs are merged into their parent. Special types get their JSON form: Time →
 * RFC 3339, MicroTime → RFC 3339 with microseconds, Duration → Go duration string,
 * IntOrString → number or string, Quantity → string, RawExtension / FieldsV1 / JSON → parsed
 * JSON, the JSONSchemaPropsOr… unions → schema, list or boolean; bytes → base64, int64 → number.
 */
import type protobuf from 'protobufjs';
import { protobufjs } from './lib.js';
import { parseTypeRef, type FieldModel, type SpecialKind } from '../model/index.js';
import type { ProtoModel } from '../model/proto.js';
import { badRequest } from '../errors.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Message = Record<string, unknown>;

/**
 * Whether a field was on the wire. protobufjs gives every decoded message its own empty list or
 * map for repeated and map fields, so those count as present only with entries (Go's nil).
 */
function own(m: Message, key: string): boolean {
  if (!Object.prototype.hasOwnProperty.call(m, key)) return false;
  const v = m[key];
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  // decoded messages are class instances; a plain object is a map
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.keys(v).length > 0;
  return true;
}

/** Converts a decoded message of `type` into its Kubernetes JSON object. */
export function messageToJson(pm: ProtoModel, type: protobuf.Type, message: Message): Record<string, Json> {
  const value = messageJson(pm, type, message);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}

function messageJson(pm: ProtoModel, type: protobuf.Type, m: Message): Json {
  if (pm.wrapper(type)) {
    const items = type.fieldsById[1]!; // repeated items = 1
    return own(m, items.name) ? (m[items.name] as unknown[]).map((v) => valueJson(pm, items, v)) : null;
  }
  const special = pm.modelOf(type)?.type.special;
  if (special) return specialJson(pm, special, type, m);
  return objectJson(pm, type, m);
}

function objectJson(pm: ProtoModel, type: protobuf.Type, m: Message): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const field of type.fieldsArray) {
    if (!pm.embedded(field)) continue;
    const inner = own(m, field.name) ? (m[field.name] as Message) : {};
    Object.assign(out, objectJson(pm, field.resolvedType as protobuf.Type, inner));
  }
  const fields = pm.modelOf(type)?.type.fields ?? {};
  for (const [name, f] of Object.entries(fields)) {
    if (f.proto === undefined) continue;
    const pf = type.fieldsById[f.proto];
    if (!pf) continue;
    const struct = parseTypeRef(f.type).kind === 'named';
    if (own(m, pf.name)) {
      const value = fieldJson(pm, pf, m[pf.name]);
      if (f.ptr || f.always || struct || !isEmpty(value)) out[name] = value;
    } else if (f.ptr) {
      if (f.always) out[name] = null;
    } else if (f.always || struct) {
      out[name] = zeroJson(pm, f, pf);
    }
  }
  return out;
}

function fieldJson(pm: ProtoModel, pf: protobuf.Field, raw: unknown): Json {
  if (pf.map) {
    const entries = Object.entries(raw as Record<string, unknown>);
    return Object.fromEntries(entries.map(([k, v]) => [k, valueJson(pm, pf, v)]));
  }
  if (pf.repeated) return (raw as unknown[]).map((v) => valueJson(pm, pf, v));
  return valueJson(pm, pf, raw);
}

function valueJson(pm: ProtoModel, pf: protobuf.Field, v: unknown): Json {
  const rt = pf.resolvedType;
  if (rt instanceof protobufjs().Type) return messageJson(pm, rt, (v ?? {}) as Message);
  return scalar(pf.type, v);
}

/** The JSON Go writes for a field it holds at its zero value. */
function zeroJson(pm: ProtoModel, f: FieldModel, pf: protobuf.Field): Json {
  const ref = parseTypeRef(f.type);
  if (ref.kind === 'list' || ref.kind === 'map') return null; // a nil slice or map
  if (ref.kind === 'scalar') {
    if (ref.scalar === 'string') return '';
    if (ref.scalar === 'boolean') return false;
    if (ref.scalar === 'byte') return null; // a nil []byte
    return 0;
  }
  const rt = pf.resolvedType;
  return rt instanceof protobufjs().Type ? messageJson(pm, rt, {}) : scalar(pf.type, pf.typeDefault);
}

function scalar(type: string, v: unknown): Json {
  switch (type) {
    case 'bytes':
      return Buffer.from((v ?? new Uint8Array()) as Uint8Array).toString('base64');
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return toNumber(v);
    default:
      return v as Json;
  }
}

/** int64 values arrive as Long objects (or numbers when long.js is absent). */
function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'low' in v && 'high' in v) {
    const l = v as { low: number; high: number; unsigned?: boolean };
    return new (protobufjs().util.LongBits)(l.low >>> 0, l.high >>> 0).toNumber(l.unsigned ?? false);
  }
  return Number(v ?? 0);
}

/** The protobuf fields of special types, by number (names vary in case: `raw`, `Raw`). */
function specialJson(pm: ProtoModel, special: SpecialKind, type: protobuf.Type, m: Message): Json {
  const name = (id: number): string => type.fieldsById[id]?.name ?? '';
  const has = (id: number): boolean => own(m, name(id));
  const get = (id: number): unknown => m[name(id)];
  const sub = (id: number): Json => fieldJson(pm, type.fieldsById[id]!, get(id));
  switch (special) {
    case 'time':
    case 'micro-time':
      return has(1) || has(2) ? timeString(get(1), get(2), special === 'micro-time') : null;
    case 'duration':
      return goDuration(toNumber(get(1)));
    case 'int-or-string':
      return toNumber(get(1)) === 1 ? String(get(3) ?? '') : Number(get(2) ?? 0);
    case 'quantity':
      return has(1) ? String(get(1)) : '0';
    case 'raw-extension':
    case 'fields-v1':
    case 'json':
      return rawJson(get(1) as Uint8Array | undefined, type.name);
    case 'json-schema-props-or-array': // schema = 1, jSONSchemas = 2
      return has(2) ? sub(2) : has(1) ? sub(1) : null;
    case 'json-schema-props-or-bool': // allows = 1, schema = 2
      return has(2) ? sub(2) : get(1) === true;
    case 'json-schema-props-or-string-array': // schema = 1, property = 2
      return has(2) ? sub(2) : has(1) ? sub(1) : null;
  }
}

/** Time and MicroTime: an empty message is the zero time (JSON null); Time drops the nanos. */
function timeString(secondsValue: unknown, nanosValue: unknown, micro: boolean): string {
  const seconds = toNumber(secondsValue);
  const nanos = Number(nanosValue ?? 0);
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(d.getTime()) || year < 0 || year > 9999 || nanos < 0 || nanos > 999_999_999) {
    throw badRequest(`Time.MarshalJSON: year outside of range [0,9999]`);
  }
  const base = d.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function rawJson(raw: Uint8Array | undefined, what: string): Json {
  if (!raw || raw.length === 0) return null;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as Json;
  } catch {
    throw badRequest(`${what} does not hold valid JSON`);
  }
}

/** Go's omitempty: false, 0, "", nil, and empty lists and maps (structs never reach here). */
function isEmpty(v: Json): boolean {
  if (v === '' || v === 0 || v === false || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

const UNITS: Array<[string, number]> = [
  ['h', 3600e9],
  ['m', 60e9],
];

/** Formats nanoseconds the way Go's time.Duration.String does ("1h0m0s", "1.5s", "300ms"). */
export function goDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let n = Math.abs(nanos);
  if (n < 1e9) {
    const [unit, div] = n < 1e3 ? ['ns', 1] : n < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimFraction(n / div)}${unit}`;
  }
  let out = '';
  for (const [unit, size] of UNITS) {
    const whole = Math.floor(n / size);
    if (whole > 0 || out) out += `${whole}${unit}`;
    n -= whole * size;
  }
  return `${sign}${out}${trimFraction(n / 1e9)}s`;
}

function trimFraction(x: number): string {
  return String(Number(x.toFixed(9)));
}
