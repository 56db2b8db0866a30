/**
 * A JSON value as a Go client re-encodes it after decoding it into the built-in API's Go
 * structs (what kubectl does before it compares a DaemonSet with a ControllerRevision): unknown
 * fields dropped, fields whose json tag has omitempty left out when empty (false, 0, "", null,
 * [] or {}), fields without omitempty and non-pointer struct fields always written (their zero
 * value when absent: `creationTimestamp: null`, `resources: {}`). Driven by the model of the
 * built-in API (`@kplane/api/model`).
 */
import { modelType, parseTypeRef, type FieldModel, type TypeRef } from '@kplane/api/model';

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's omitempty test on a decoded JSON value. */
function isEmpty(v: Json): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** Is the type a Go struct (a named type, not a scalar, list or map)? */
function isStruct(ref: TypeRef): boolean {
  return parseTypeRef(ref).kind === 'named';
}

/** The zero value of a type as Go writes it (absent fields of structs included). */
function zero(ref: TypeRef): Json {
  const parsed = parseTypeRef(ref);
  if (parsed.kind === 'list' || parsed.kind === 'map') return null;
  if (parsed.kind === 'scalar') return parsed.scalar === 'string' || parsed.scalar === 'byte' ? '' : parsed.scalar === 'boolean' ? false : 0;
  const type = modelType(parsed.name)?.type;
  if (!type) return null;
  switch (type.special) {
    case 'time':
    case 'micro-time':
    case 'raw-extension':
    case 'json':
    case 'fields-v1':
      return null;
    case 'quantity':
    case 'int-or-string':
      return 0;
    case 'duration':
      return '0s';
    case undefined:
      break;
    default:
      return null;
  }
  return renderStruct({}, type.fields ?? {});
}

function renderStruct(obj: Record<string, Json>, fields: Readonly<Record<string, FieldModel>>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [name, field] of Object.entries(fields)) {
    const has = Object.prototype.hasOwnProperty.call(obj, name) && obj[name] !== undefined;
    const v = has ? obj[name] : undefined;
    if (field.ptr) {
      if (v !== undefined && v !== null) out[name] = goJsonValue(v, field.type);
      continue;
    }
    if (v === undefined || v === null) {
      if (field.always || isStruct(field.type)) out[name] = zero(field.type);
      continue;
    }
    const rendered = goJsonValue(v, field.type);
    if (field.always || isStruct(field.type) || !isEmpty(rendered)) out[name] = rendered;
  }
  return out;
}

/**
 * `value` (decoded JSON) as Go writes it back once decoded into type `ref`; keys are not
 * sorted here (goJsonMarshal sorts them, as encoding a Go map does).
 */
export function goJsonValue(value: Json, ref: TypeRef): Json {
  const parsed = parseTypeRef(ref);
  if (parsed.kind === 'scalar') return value;
  if (parsed.kind === 'list') return Array.isArray(value) ? value.map((item) => goJsonValue(item, parsed.item)) : value;
  if (parsed.kind === 'map') {
    if (!isObject(value)) return value;
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) out[k] = goJsonValue(v, parsed.value);
    return out;
  }
  const type = modelType(parsed.name)?.type;
  if (!type || type.special || !isObject(value)) return value;
  return renderStruct(value, type.fields ?? {});
}
