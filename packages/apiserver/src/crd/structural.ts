/**
 * Validation of a CRD version's openAPIV3Schema with Kubernetes' messages: the structural
 * schema rules (a type everywhere, allOf/anyOf/oneOf/not only restating what is specified
 * outside, metadata restricted to name and generateName), the OpenAPI keywords CRDs may use,
 * list and map types, defaults (valid and pruned), and x-kubernetes-validations (compilation
 * and estimated cost, per rule and in total).
 */
import type { SchemaObject, StatusCause } from '@kplane/api';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, omitValue, pruneUnknownFields } from '@kplane/api';
import { child, key } from './crd-types.js';
import { regexSyntaxError } from './regex.js';
import { validateValue } from './schema-values.js';
import { compileRules, type ValidationRule } from './cel/rules.js';
import { costErrorMessage, MAX_COST, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cel/cost.js';
import { unboundedCardinality } from './cel/decl.js';

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const ROOT_FIELDS_WITH_STATUS = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];
const GO_FIELD: Record<string, string> = {
  description: 'Description', type: 'Type', format: 'Format', title: 'Title', maximum: 'Maximum', exclusiveMaximum: 'ExclusiveMaximum',
  minimum: 'Minimum', exclusiveMinimum: 'ExclusiveMinimum', maxLength: 'MaxLength', minLength: 'MinLength', pattern: 'Pattern',
  maxItems: 'MaxItems', minItems: 'MinItems', uniqueItems: 'UniqueItems', multipleOf: 'MultipleOf', required: 'Required', items: 'Items',
  properties: 'Properties', externalDocs: 'ExternalDocs', example: 'Example', 'x-kubernetes-preserve-unknown-fields': 'XPreserveUnknownFields',
  'x-kubernetes-validations': 'XValidations',
};
const EXTENSIONS = ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations'];
/** Value validation keywords (allowed in allOf/anyOf/oneOf/not). */
const ROOT_VALUE_RENDER = 'apiextensions.JSONSchemaProps{...}';

function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
}

/** Go's %#v of a ValidationRule, as Kubernetes prints a rule in a compile error. */
export function goValidationRule(r: ValidationRule): string {
  const reason = r.reason ? `(*apiextensions.FieldValueErrorReason)(${goQuote(r.reason)})` : '(*apiextensions.FieldValueErrorReason)(nil)';
  const oos = r.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${r.optionalOldSelf})`;
  return `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${oos}}`;
}

function rendered(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` };
}

// ---- structural schema (k8s.io/apiextensions-apiserver/pkg/apiserver/schema ValidateStructural)

type Level = 'root' | 'item' | 'field';

function structuralInvariants(s: Raw, lvl: Level, path: string, out: StatusCause[]): void {
  const type = typeof s.type === 'string' ? s.type : '';
  if (type === 'array' && s.items === undefined) out.push(fieldRequired(child(path, 'items'), 'must be specified'));
  if (isObj(s.items)) structuralInvariants(s.items, 'item', child(path, 'items'), out);
  for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) if (isObj(v)) structuralInvariants(v, 'field', key(child(path, 'properties'), k), out);
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') out.push(fieldForbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObj(s.additionalProperties)) structuralInvariants(s.additionalProperties, 'field', child(path, 'additionalProperties'), out);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) out.push(fieldInvalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) out.push(fieldInvalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  const anyOfIntOrString = (list: unknown) => Array.isArray(list) && list.length === 2 && isObj(list[0]) && isObj(list[1]) && JSON.stringify(list) === JSON.stringify([{ type: 'integer' }, { type: 'string' }]);
  const skipAnyOf = anyOfIntOrString(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && isObj(s.allOf[0]) && anyOfIntOrString((s.allOf[0] as Raw).anyOf);
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, out);
  if (embedded && type !== 'object') {
    if (!type) out.push(fieldRequired(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else out.push(fieldInvalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!type && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    out.push(fieldRequired(child(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined) out.push(fieldForbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type && type !== 'object') out.push(fieldInvalid(child(path, 'type'), type, 'must be object at the root'));
  const props = isObj(s.properties) ? s.properties : {};
  const checkMeta = lvl === 'root' || embedded;
  for (const f of ['kind', 'apiVersion']) {
    const p = props[f];
    if (checkMeta && isObj(p) && p.type !== 'string') out.push(fieldInvalid(child(key(child(path, 'properties'), f), 'type'), p.type ?? '', 'must be string'));
  }
  const meta = props.metadata;
  if (isObj(meta)) {
    const mpath = key(child(path, 'properties'), 'metadata');
    if (checkMeta && meta.type !== 'object') out.push(fieldInvalid(child(mpath, 'type'), meta.type ?? '', 'must be object'));
    if (lvl === 'root') {
      const names = Object.keys(isObj(meta.properties) ? meta.properties : {});
      const others = Object.entries(meta).filter(([k, v]) => k !== 'type' && k !== 'default' && k !== 'properties' && !isZero(v));
      if (names.some((n) => n !== 'name' && n !== 'generateName') || others.length > 0) {
        out.push(fieldForbidden(mpath, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
      }
    }
  }
  if (embedded && !preserve && Object.keys(props).length === 0) {
    out.push(fieldRequired(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

function valueValidation(v: Raw, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, out: StatusCause[]): void {
  const list = (name: string) => (Array.isArray(v[name]) ? (v[name] as unknown[]) : []);
  if (!skipAnyOf) list('anyOf').forEach((x, i) => nested(x, false, lvl, key(child(path, 'anyOf'), i), out, false));
  list('allOf').forEach((x, i) => nested(x, skipFirstAllOfAnyOf && i === 0, lvl, key(child(path, 'allOf'), i), out, true));
  list('oneOf').forEach((x, i) => nested(x, false, lvl, key(child(path, 'oneOf'), i), out, false));
  if (v.not !== undefined) nested(v.not, false, lvl, child(path, 'not'), out, false);
  if (typeof v.pattern === 'string') {
    const error = regexSyntaxError(v.pattern);
    if (error !== undefined) out.push(fieldInvalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${error}`));
  }
}

function nested(x: unknown, skipAnyOf: boolean, lvl: Level, path: string, out: StatusCause[], allowCEL: boolean): void {
  if (!isObj(x)) return;
  valueValidation(x, skipAnyOf, false, lvl, path, out);
  if (isObj(x.items)) nested(x.items, false, lvl, child(path, 'items'), out, allowCEL);
  for (const [k, f] of Object.entries(isObj(x.properties) ? x.properties : {})) nested(f, false, 'field', key(child(path, 'properties'), k), out, allowCEL);
  if (typeof x.type === 'string' && x.type) out.push(fieldForbidden(child(path, 'type'), 'must be empty to be structural'));
  if (x.additionalProperties !== undefined) out.push(fieldForbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (x.default !== undefined) out.push(fieldForbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (typeof x.title === 'string' && x.title) out.push(fieldForbidden(child(path, 'title'), 'must be empty to be structural'));
  if (typeof x.description === 'string' && x.description) out.push(fieldForbidden(child(path, 'description'), 'must be empty to be structural'));
  if (x.nullable === true) out.push(fieldForbidden(child(path, 'nullable'), 'must be false to be structural'));
  for (const ext of EXTENSIONS) {
    const v = x[ext];
    if (ext === 'x-kubernetes-validations') {
      if (Array.isArray(v) && v.length > 0) out.push(fieldForbidden(child(path, ext), 'must be empty to be structural'));
      continue;
    }
    if (v === true) out.push(fieldForbidden(child(path, ext), 'must be false to be structural'));
    else if (ext === 'x-kubernetes-list-map-keys' && Array.isArray(v) && v.length) out.push(fieldForbidden(child(path, ext), 'must be empty to be structural'));
    else if ((ext === 'x-kubernetes-list-type' || ext === 'x-kubernetes-map-type') && v !== undefined && v !== null) out.push(fieldForbidden(child(path, ext), 'must be undefined to be structural'));
  }
  if (isObj(x.properties) && x.properties.metadata !== undefined) out.push(fieldForbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
}

/** Every field allOf/anyOf/oneOf/not specify must also be specified outside of them. */
function completeness(s: Raw | undefined, v: Raw, sPath: string, vPath: string, out: StatusCause[]): void {
  for (const [name, list] of [['allOf', v.allOf], ['anyOf', v.anyOf], ['oneOf', v.oneOf]] as const) {
    if (Array.isArray(list)) list.forEach((x, i) => isObj(x) && nestedCompleteness(s, x, sPath, key(child(vPath, name), i), out));
  }
  if (isObj(v.not)) nestedCompleteness(s, v.not, sPath, child(vPath, 'not'), out);
}

function nestedCompleteness(s: Raw | undefined, v: Raw, sPath: string, vPath: string, out: StatusCause[]): void {
  if (!s) {
    out.push(fieldRequired(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(s, v, sPath, vPath, out);
  if (isObj(v.items)) nestedCompleteness(isObj(s.items) ? s.items : undefined, v.items, child(sPath, 'items'), child(vPath, 'items'), out);
  const sProps = isObj(s.properties) ? s.properties : {};
  for (const [k, f] of Object.entries(isObj(v.properties) ? v.properties : {})) {
    if (!isObj(f)) continue;
    const sf = sProps[k];
    if (!isObj(sf)) out.push(fieldRequired(key(child(sPath, 'properties'), k), `because it is defined in ${key(child(vPath, 'properties'), k)}`));
    else nestedCompleteness(sf, f, key(child(sPath, 'properties'), k), key(child(vPath, 'properties'), k), out);
  }
}

function walkCompleteness(s: Raw, path: string, out: StatusCause[]): void {
  completeness(s, s, path, path, out);
  if (isObj(s.items)) walkCompleteness(s.items, child(path, 'items'), out);
  for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) if (isObj(v)) walkCompleteness(v, key(child(path, 'properties'), k), out);
  if (isObj(s.additionalProperties)) walkCompleteness(s.additionalProperties, child(path, 'additionalProperties'), out);
}

/** The structural schema violations of a schema, sorted as Kubernetes sorts them. */
export function validateStructural(schema: SchemaObject, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  structuralInvariants(schema as Raw, 'root', path, out);
  walkCompleteness(schema as Raw, path, out);
  const text = (c: StatusCause) => `${c.field}: ${c.message}`;
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

// ---- defaults (structural defaulting's ValidateDefaults)

function validateDefaults(s: Raw, path: string, valuePath: string, out: StatusCause[]): void {
  if (s.default !== undefined) {
    const dpath = child(path, 'default');
    const errs = validateValue(s.default, s as SchemaObject, valuePath || dpath);
    for (const e of errs) out.push({ ...e, field: dpath });
    if (isObj(s.default) || Array.isArray(s.default)) {
      const copy = structuredClone({ v: s.default });
      const pruned = pruneUnknownFields(copy, { type: 'object', properties: { v: s as SchemaObject } }, {});
      if (pruned.length) out.push(fieldInvalid(dpath, s.default, 'must not have unknown fields'));
    }
  }
  if (isObj(s.items)) validateDefaults(s.items, child(path, 'items'), `${valuePath}[0]`, out);
  for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) if (isObj(v)) validateDefaults(v, key(child(path, 'properties'), k), child(valuePath, k), out);
  if (isObj(s.additionalProperties)) validateDefaults(s.additionalProperties, child(path, 'additionalProperties'), `${valuePath}[key]`, out);
}

// ---- the OpenAPI keyword walk (ValidateCustomResourceDefinitionOpenAPISchema)

interface WalkState {
  allowDefaults: boolean;
  defaultsReason?: string;
  insideMeta: boolean;
  /** Path of the first ancestor oldSelf cannot correlate through, if any. */
  uncorrelatable?: string;
  /** Times the node can occur in one object (for rule costs); undefined: some ancestor is unbounded. */
  cardinality: number | undefined;
}

/** One expression's estimated cost, for the CRD total. */
interface CostEntry {
  path: string;
  cost: number;
}

/** The cardinality of a list's items or a map's values: bounded while every ancestor is. */
function bounded(parent: number | undefined, max: unknown): number | undefined {
  return parent === undefined || typeof max !== 'number' ? undefined : parent * Math.max(0, max);
}

function walkSchema(s: Raw, path: string, st: WalkState, isRoot: boolean, cel: boolean, costs: CostEntry[]): { schema: StatusCause[]; cel: StatusCause[] } {
  const errs: StatusCause[] = [];
  const celErrs: StatusCause[] = [];
  const type = typeof s.type === 'string' ? s.type : '';
  if (type && !OPENAPI_TYPES.includes(type)) errs.push(fieldNotSupported(child(path, 'type'), type, OPENAPI_TYPES));
  if (s.default !== undefined && !st.allowDefaults) errs.push(fieldForbidden(child(path, 'default'), `must not be set${st.defaultsReason ? ` ${st.defaultsReason}` : ''}`));
  if (typeof s.id === 'string' && s.id) errs.push(fieldForbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(fieldForbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length) errs.push(fieldForbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (isObj(s.definitions) && Object.keys(s.definitions).length) errs.push(fieldForbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(fieldForbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(fieldForbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null') errs.push(fieldForbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items)) errs.push(fieldForbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (st.insideMeta && s['x-kubernetes-embedded-resource'] === true) errs.push(fieldForbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  if (s.uniqueItems === true) errs.push(fieldForbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const props = isObj(s.properties) ? s.properties : {};
  const sub = (x: { schema: StatusCause[]; cel: StatusCause[] }) => {
    errs.push(...x.schema);
    celErrs.push(...x.cel);
  };
  if (s.additionalProperties !== undefined) {
    if (Object.keys(props).length && (s.additionalProperties === false || isObj(s.additionalProperties))) {
      errs.push(fieldForbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (isObj(s.additionalProperties)) {
      const next: WalkState = { ...st, cardinality: bounded(st.cardinality, s.maxProperties) };
      if (st.insideMeta) Object.assign(next, { allowDefaults: false, defaultsReason: 'inside additionalProperties applying to object metadata' });
      if (s['x-kubernetes-map-type'] === 'atomic') next.uncorrelatable ??= path;
      sub(walkSchema(s.additionalProperties, child(path, 'additionalProperties'), next, false, cel, costs));
    }
  }
  for (const [k, v] of Object.entries(props)) {
    if (!isObj(v)) continue;
    const next: WalkState = { ...st };
    if (s['x-kubernetes-map-type'] === 'atomic') next.uncorrelatable ??= path;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && ['metadata', 'kind', 'apiVersion'].includes(k)) {
      next.insideMeta = true;
      if (isRoot) Object.assign(next, { allowDefaults: false, defaultsReason: `in top-level ${k}` });
    }
    sub(walkSchema(v, key(child(path, 'properties'), k), next, false, cel, costs));
  }
  const noCel = (x: unknown, p: string) => isObj(x) && sub({ schema: walkSchema(x, p, st, false, false, costs).schema, cel: [] });
  if (s.not !== undefined) noCel(s.not, child(path, 'not'));
  for (const name of ['allOf', 'oneOf', 'anyOf']) if (Array.isArray(s[name])) (s[name] as unknown[]).forEach((x, i) => noCel(x, key(child(path, name), i)));
  if (isObj(s.items)) {
    const next: WalkState = { ...st, cardinality: bounded(st.cardinality, s.maxItems) };
    if (s['x-kubernetes-list-type'] !== 'map') next.uncorrelatable ??= path;
    sub(walkSchema(s.items, child(path, 'items'), next, false, cel, costs));
  }
  errs.push(...extensionChecks(s, path, type));
  const rules = Array.isArray(s['x-kubernetes-validations']) ? (s['x-kubernetes-validations'] as ValidationRule[]) : [];
  errs.push(...ruleShapeChecks(rules, path));
  if (rules.length && errs.length === 0 && cel) celErrs.push(...celChecks(s as SchemaObject, rules, path, st, costs, isRoot || s['x-kubernetes-embedded-resource'] === true));
  return { schema: errs, cel: celErrs };
}

function extensionChecks(s: Raw, path: string, type: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldInvalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && type !== 'object') {
    if (!type) errs.push(fieldRequired(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(fieldInvalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldNotSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && type !== 'array') {
    if (!type) errs.push(fieldRequired(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldInvalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(fieldInvalid(child(child(path, 'items'), 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldInvalid(child(child(path, 'items'), 'x-kubernetes-map-type'), omitValue, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType as string)) errs.push(fieldNotSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(fieldRequired(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldInvalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(fieldRequired(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) errs.push(fieldRequired(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object') errs.push(fieldInvalid(child(child(path, 'items'), 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const itemProps = isObj(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      const required = Array.isArray(items.required) ? (items.required as string[]) : [];
      for (const k of mapKeys) {
        const p = itemProps[k];
        if (isObj(p)) {
          if (p.type === 'array' || p.type === 'object') errs.push(fieldInvalid(child(key(child(child(path, 'items'), 'properties'), k), 'type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          if (!required.includes(k) && p.default === undefined) errs.push(fieldRequired(child(key(child(child(path, 'items'), 'properties'), k), 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
          if (p.nullable === true) errs.push(fieldForbidden(child(key(child(child(path, 'items'), 'properties'), k), 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
        } else errs.push(fieldInvalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        if (seen.has(k)) errs.push(fieldInvalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
    errs.push(fieldForbidden(child(child(path, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  }
  return errs;
}

function ruleShapeChecks(rules: ValidationRule[], path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  rules.forEach((r, i) => {
    const p = key(child(path, 'x-kubernetes-validations'), i);
    const rule = (r.rule ?? '').trim();
    const msg = (r.message ?? '').trim();
    if (!rule) errs.push(fieldRequired(child(p, 'rule'), 'rule is not specified'));
    else if (r.message && !msg) errs.push(fieldInvalid(child(p, 'message'), r.message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg)) errs.push(fieldInvalid(child(p, 'message'), r.message, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(rule) && !msg) errs.push(fieldRequired(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    if (r.messageExpression !== undefined && r.messageExpression.length > 0 && !r.messageExpression.trim()) {
      errs.push(fieldRequired(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (r.reason !== undefined && !REASONS.includes(r.reason)) errs.push(fieldNotSupported(child(p, 'reason'), r.reason, REASONS));
    if (r.fieldPath !== undefined && r.fieldPath.length > 0 && !r.fieldPath.trim()) errs.push(fieldInvalid(child(p, 'fieldPath'), r.fieldPath, 'fieldPath must be non-empty if specified'));
    if (r.fieldPath && /[\n\r]/.test(r.fieldPath)) errs.push(fieldInvalid(child(p, 'fieldPath'), r.fieldPath, 'fieldPath must not contain line breaks'));
  });
  return errs;
}

function celChecks(schema: SchemaObject, rules: ValidationRule[], path: string, st: WalkState, costs: CostEntry[], resourceRoot: boolean): StatusCause[] {
  const errs: StatusCause[] = [];
  compileRules(schema, resourceRoot).forEach((cr, i) => {
    const p = key(child(path, 'x-kubernetes-validations'), i);
    const r = rules[i]!;
    if (r.fieldPath && r.fieldPath.trim() && cr.fieldPath === undefined) errs.push(fieldInvalid(child(p, 'fieldPath'), r.fieldPath, 'fieldPath must be a valid path'));
    // As Kubernetes: the rule's cost times how often it can run (bounded by the ancestors'
    // maxItems/maxProperties, or else by how many of the node fit in a request).
    const cardinality = st.cardinality ?? unboundedCardinality(schema, resourceRoot);
    const cost = cr.maxCost === 0 ? 0 : Math.min(cr.maxCost * cardinality, MAX_COST);
    if (cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(fieldForbidden(child(p, 'rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    costs.push({ path: child(p, 'rule'), cost });
    if (cr.error) {
      if (cr.errorRequired) errs.push(fieldRequired(child(p, 'rule'), cr.error));
      else errs.push(rendered(child(p, 'rule'), goValidationRule(r), cr.error));
    }
    if (cr.messageError) errs.push(rendered(child(p, 'messageExpression'), goValidationRule(r), cr.messageError));
    else if (cr.messageProgram) {
      if (cr.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
        errs.push(fieldForbidden(child(p, 'messageExpression'), costErrorMessage('estimated messageExpression cost', cr.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      costs.push({ path: child(p, 'messageExpression'), cost: cr.messageMaxCost });
    }
    if (cr.usesOldSelf && st.uncorrelatable !== undefined) {
      errs.push(fieldInvalid(child(p, 'rule'), r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${st.uncorrelatable}`));
    } else if (!cr.usesOldSelf && r.optionalOldSelf !== undefined && !cr.error) {
      errs.push(fieldInvalid(child(p, 'optionalOldSelf'), r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

/**
 * Validates one openAPIV3Schema of a CRD (`path` ends in `.openAPIV3Schema`'s parent, e.g.
 * `spec.validation` or `spec.versions[0].schema`), as validateCustomResourceDefinitionValidation.
 */
export function validateCRDSchema(schema: unknown, statusEnabled: boolean, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!isObj(schema)) return errs;
  const root = child(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (isZero(v) && typeof v !== 'number') continue;
      if (k === 'type') {
        if (v !== 'object') {
          errs.push(fieldInvalid(`${path}.openAPIV3Schema.type`, v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ROOT_FIELDS_WITH_STATUS.includes(GO_FIELD[k] ?? k)) {
        errs.push(rendered(root, ROOT_VALUE_RENDER, `only [${ROOT_FIELDS_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(fieldForbidden(`${path}.openAPIV3Schema.nullable`, 'nullable cannot be true at the root'));
  let cel = false;
  const structural = validateStructural(schema as SchemaObject, root);
  if (structural.length) errs.push(...structural);
  else {
    const defaults: StatusCause[] = [];
    validateDefaults(schema, root, '', defaults);
    if (defaults.length) errs.push(...defaults);
    else cel = true;
  }
  const costs: CostEntry[] = [];
  const walked = walkSchema(schema, root, { allowDefaults: true, insideMeta: false, cardinality: 1 }, true, cel, costs);
  errs.push(...walked.schema, ...walked.cel);
  if (cel) {
    const total = costs.reduce((s, c) => s + c.cost, 0);
    if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
      // The (at most four) most expensive expressions that take 1% of the limit or more.
      const expensive = costs.filter((c) => c.cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100);
      for (const c of expensive.sort((a, b) => b.cost - a.cost).slice(0, 4)) {
        errs.push(fieldForbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
      }
      errs.push(fieldForbidden(root, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
    }
  }
  return errs;
}
