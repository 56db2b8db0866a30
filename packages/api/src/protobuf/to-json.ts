/**
 * Conversion of a decoded protobufjs message into the JSON object Kubernetes' JSON encoding
 * would produce for the same Go value.
 *
 * Go's protobuf encoder writes non-pointer scalars even when zero but pointers only when set;
 * Go's JSON encoder drops zero `omitempty` fields. So a field is dropped when its converted value
 * is zero ("" / 0 / false / empty list, map or message) unless the schema marks it `(ptr)`, in
 * which case presence on the wire decides. Special types get their JSON form: Time → RFC 3339,
 * MicroTime → RFC 3339 with microseconds, Duration → Go duration string, IntOrString → number or
 * string, Quantity → string, RawExtension / FieldsV1 → parsed JSON, bytes → base64, int64 → number.
 */
import protobuf from 'protobufjs';
import { badRequest } from '../errors.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Message = Record<string, unknown>;

const PTR = '(ptr)';
const INLINE = '(inline)';

/** Converts a decoded message of `type` into its Kubernetes JSON object. */
export function messageToJson(type: protobuf.Type, message: Message): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const field of type.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(message, field.name)) continue;
    const raw = message[field.name];
    if (raw === null || raw === undefined) continue;
    let value: Json | undefined;
    if (field.map) {
      const entries = Object.entries(raw as Record<string, unknown>);
      value = Object.fromEntries(entries.map(([k, v]) => [k, fieldValue(field, v) ?? null]));
    } else if (field.repeated) {
      value = (raw as unknown[]).map((v) => fieldValue(field, v) ?? null);
    } else {
      value = fieldValue(field, raw);
    }
    if (value === undefined) continue;
    if (field.options?.[INLINE] === true) {
      if (isObject(value)) Object.assign(out, value);
      continue;
    }
    if (field.options?.[PTR] !== true && isZero(value)) continue;
    out[field.name] = value;
  }
  return out;
}

function fieldValue(field: protobuf.Field, v: unknown): Json | undefined {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Type) return messageValue(rt, v as Message);
  if (rt instanceof protobuf.Enum) return typeof v === 'number' ? v : String(v);
  return scalar(field.type, v);
}

function scalar(type: string, v: unknown): Json {
  switch (type) {
    case 'bytes':
      return Buffer.from(v as Uint8Array).toString('base64');
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
    return new protobuf.util.LongBits(l.low >>> 0, l.high >>> 0).toNumber(l.unsigned ?? false);
  }
  return Number(v);
}

function messageValue(type: protobuf.Type, m: Message): Json | undefined {
  switch (type.fullName) {
    case '.meta.v1.Time':
      return timeString(m, false);
    case '.meta.v1.MicroTime':
      return timeString(m, true);
    case '.meta.v1.Duration':
      return goDuration(toNumber(m.duration ?? 0));
    case '.intstr.IntOrString':
      return toNumber(m.type ?? 0) === 1 ? String(m.strVal ?? '') : Number(m.intVal ?? 0);
    case '.resource.Quantity':
      return String(m.string ?? '');
    case '.meta.v1.FieldsV1':
    case '.runtime.RawExtension':
      return rawJson(m.raw as Uint8Array | undefined, type.name);
    default:
      return messageToJson(type, m);
  }
}

function timeString(m: Message, micro: boolean): string | undefined {
  const seconds = toNumber(m.seconds ?? 0);
  const nanos = Number(m.nanos ?? 0);
  if (seconds === 0 && nanos === 0) return undefined; // the zero Time: JSON null, omitted here
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(d.getTime()) || year < 0 || year > 9999 || nanos < 0 || nanos > 999_999_999) {
    throw badRequest(`Time.MarshalJSON: year outside of range [0,9999]`);
  }
  const base = d.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function rawJson(raw: Uint8Array | undefined, what: string): Json | undefined {
  if (!raw || raw.length === 0) return undefined;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as Json;
  } catch {
    throw badRequest(`${what} does not hold valid JSON`);
  }
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

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isZero(v: Json): boolean {
  if (v === '' || v === 0 || v === false || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}
