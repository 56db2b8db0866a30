/**
 * Field-level validation errors shaped like Kubernetes' `field.Error`, turned into Status causes.
 * A cause's `message` is what apimachinery calls the error body ("Invalid value: \"x\": detail");
 * its `field` is the dotted path ("metadata.labels", "spec.containers[0].name").
 */
import type { StatusCause } from './types.js';

/** Cause types, as Kubernetes' metav1.CauseType strings. */
export const CauseType = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Internal: 'InternalError',
  TypeInvalid: 'FieldValueTypeInvalid',
} as const;

const typeText: Record<string, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Quotes a string the way Go's %q does (printable characters kept, others escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/**
 * Renders a bad value approximately as Go's `%#v` would for the JSON-shaped values kplane
 * handles: strings quoted, string arrays as `[]string{"a", "b"}`, maps as `map[string]...`.
 */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => goQuote(x as string)).join(', ')}}`;
    return `[]interface {}{${v.map(goValue).join(', ')}}`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const allStrings = entries.every(([, x]) => typeof x === 'string');
    const head = allStrings ? 'map[string]string' : 'map[string]interface {}';
    return `${head}{${entries.map(([k, x]) => `${goQuote(k)}:${goValue(x)}`).join(', ')}}`;
  }
  return String(v);
}

/** Marker for "print no value" (Go's omitValue). */
export const omitValue: unique symbol = Symbol('omitValue');

/** Builds the error body Kubernetes prints for a field error of this type. */
export function errorBody(type: string, value: unknown, detail: string): string {
  const t = typeText[type] ?? type;
  let s: string;
  if (type === CauseType.Required || type === CauseType.Forbidden || type === CauseType.TooLong || type === CauseType.Internal || value === omitValue) {
    s = t;
  } else {
    s = `${t}: ${goValue(value)}`;
  }
  return detail ? `${s}: ${detail}` : s;
}

function cause(type: string, field: string, value: unknown, detail: string): StatusCause {
  return { reason: type, message: errorBody(type, value, detail), field };
}

/** `Invalid value: <value>: <detail>`. */
export function fieldInvalid(field: string, value: unknown, detail: string): StatusCause {
  return cause(CauseType.Invalid, field, value, detail);
}

/** `Required value[: <detail>]`. */
export function fieldRequired(field: string, detail = ''): StatusCause {
  return cause(CauseType.Required, field, '', detail);
}

/** `Forbidden: <detail>`. */
export function fieldForbidden(field: string, detail: string): StatusCause {
  return cause(CauseType.Forbidden, field, '', detail);
}

/** `Too long: must have at most <max> bytes`. */
export function fieldTooLong(field: string, maxBytes: number): StatusCause {
  return cause(CauseType.TooLong, field, '', `must have at most ${maxBytes} bytes`);
}

/** `Duplicate value: <value>`. */
export function fieldDuplicate(field: string, value: unknown): StatusCause {
  return cause(CauseType.Duplicate, field, value, '');
}

/** `Unsupported value: <value>: supported values: "a", "b"`. */
export function fieldNotSupported(field: string, value: unknown, validValues: string[]): StatusCause {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return cause(CauseType.NotSupported, field, value, detail);
}

/** `Too many: <actual>: must have at most <max> items`. */
export function fieldTooMany(field: string, actual: number, max: number): StatusCause {
  return cause(CauseType.TooMany, field, actual, `must have at most ${max} items`);
}

/** `Internal error: <detail>`. */
export function fieldInternal(field: string, detail: string): StatusCause {
  return cause(CauseType.Internal, field, null, detail);
}

/** Appends `.child` or `[index]` to a field path as Kubernetes prints it. */
export function fieldPath(base: string, ...parts: (string | number)[]): string {
  let p = base;
  for (const part of parts) {
    if (typeof part === 'number') p += `[${part}]`;
    else p = p ? `${p}.${part}` : part;
  }
  return p;
}
