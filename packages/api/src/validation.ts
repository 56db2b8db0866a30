/**
 * Name, label and ObjectMeta validation with Kubernetes' exact messages
 * (k8s.io/apimachinery/pkg/util/validation and pkg/api/validation, as of Kubernetes 1.32).
 */
import type { ObjectMeta, OwnerReference, StatusCause } from './types.js';
import { CauseType, fieldForbidden, fieldInvalid, fieldPath, fieldRequired, fieldTooLong, goQuote } from './field-errors.js';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

/** Maximum total size in bytes of an object's annotations (keys plus values). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
/** Message of an immutable field that changed. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** Finalizer names accepted without a domain prefix on built-in kinds. */
export const STANDARD_FINALIZERS: readonly string[] = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** Kubernetes' RegexError text: `msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Checks an RFC 1123 label (at most 63 characters); returns error texts, empty when valid. */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(v)) {
    if (dns1123SubdomainRe.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** Checks an RFC 1123 subdomain (at most 253 characters); returns error texts, empty when valid. */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(v)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** Checks an RFC 1035 label (Service names); returns error texts, empty when valid. */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(v)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** Checks a qualified name (`[prefix/]name`, label keys, finalizers); returns error texts. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Checks a label value (empty allowed, at most 63 characters); returns error texts. */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(v)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** A name validator: `prefix` is true when checking a generateName. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** generateName is checked with a trailing '-' masked, since random characters follow it. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** Name rule of most kinds: a DNS subdomain. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** Name rule of Namespaces (and other label-named kinds): a DNS label. */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
/** Name rule of Services: a DNS-1035 label. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Name rule of kinds that only need a safe URL path segment (e.g. RBAC objects). */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push("may not contain '/'");
  if (name.includes('%')) errs.push("may not contain '%'");
  return errs;
};

/** Options of validateObjectMeta. */
export interface ValidateObjectMetaOptions {
  /** The kind is namespaced: namespace is required (else forbidden). */
  namespaced: boolean;
  /** Names must be DNS labels rather than subdomains (e.g. Namespace). */
  nameIsDNSLabel?: boolean;
  /** A custom name rule; overrides nameIsDNSLabel. */
  nameValidator?: NameValidator;
  /**
   * A create: a missing name is accepted when generateName is set (the server generates it
   * after validation). On update a name is always required.
   */
  isCreate: boolean;
  /**
   * A custom resource: finalizer names without a domain prefix are accepted (Kubernetes only
   * warns; see finalizerWarnings). Built-in kinds refuse them.
   */
  customResource?: boolean;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** `v` when it is a list, else none: metadata of the wrong type (a stored object from before type checks) never throws. */
function list<T>(v: T[] | undefined): T[] {
  return Array.isArray(v) ? v : [];
}

/** `v` when it is a map, else none. */
function record<T>(v: Record<string, T> | undefined): Record<string, T> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** Validates labels: keys are qualified names, values valid label values. */
export function validateLabels(labels: Record<string, string> | undefined, path = 'metadata.labels'): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries(record(labels))) {
    for (const m of isQualifiedName(k)) out.push(fieldInvalid(path, k, m));
    for (const m of isValidLabelValue(str(v))) out.push(fieldInvalid(path, str(v), m));
  }
  return out;
}

/** Validates annotations: keys are (case-insensitive) qualified names; total size ≤ 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path = 'metadata.annotations'): StatusCause[] {
  const out: StatusCause[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(record(annotations))) {
    for (const m of isQualifiedName(k.toLowerCase())) out.push(fieldInvalid(path, k, m));
    size += byteLength(k) + byteLength(str(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) out.push(fieldTooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return out;
}

/** An Invalid cause whose bad value is already rendered (Go's %#v of a struct). */
function invalidRendered(field: string, rendered: string, detail: string): StatusCause {
  return { reason: CauseType.Invalid, field, message: `Invalid value: ${rendered}: ${detail}` };
}

/** Approximates Go's %#v of a metav1.OwnerReference (pointers shown by value, not address). */
function goOwnerRef(r: OwnerReference): string {
  const ptr = (b: boolean | undefined) => (b === undefined ? '(*bool)(nil)' : `(*bool)(${b})`);
  return `v1.OwnerReference{APIVersion:${goQuote(str(r.apiVersion))}, Kind:${goQuote(str(r.kind))}, Name:${goQuote(str(r.name))}, UID:${goQuote(str(r.uid))}, Controller:${ptr(r.controller)}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
}

/** Validates ownerReferences: apiVersion, kind, name, uid present; at most one controller. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, path = 'metadata.ownerReferences'): StatusCause[] {
  const out: StatusCause[] = [];
  let firstController = '';
  for (const item of list(refs)) {
    const ref: OwnerReference = item !== null && typeof item === 'object' ? item : ({} as OwnerReference);
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    if (!version) out.push(fieldInvalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!str(ref.kind)) out.push(fieldInvalid(`${path}.kind`, str(ref.kind), 'kind must not be empty'));
    if (!str(ref.name)) out.push(fieldInvalid(`${path}.name`, str(ref.name), 'name must not be empty'));
    if (!str(ref.uid)) out.push(fieldInvalid(`${path}.uid`, str(ref.uid), 'uid must not be empty'));
    if (group === '' && version === 'v1' && ref.kind === 'Event') {
      out.push(invalidRendered(path, goOwnerRef(ref), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const cur = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController) {
        const detail = `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`;
        out.push(invalidRendered(path, `[]v1.OwnerReference{${list(refs).map((r) => goOwnerRef(record(r as never) as unknown as OwnerReference)).join(', ')}}`, detail));
      } else {
        firstController = cur;
      }
    }
  }
  return out;
}

/**
 * Validates finalizers: each a qualified name, not both "orphan" and "foregroundDeletion";
 * on built-in kinds a name without '/' must be a standard one.
 */
export function validateFinalizers(finalizers: string[] | undefined, customResource = false, path = 'metadata.finalizers'): StatusCause[] {
  const out: StatusCause[] = [];
  const names = list(finalizers);
  for (const f of names) for (const m of isQualifiedName(str(f))) out.push(fieldInvalid(path, str(f), m));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    out.push(fieldInvalid(path, names, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  if (!customResource) {
    names.forEach((f, i) => {
      if (!str(f).includes('/') && !STANDARD_FINALIZERS.includes(str(f))) {
        out.push(fieldInvalid(fieldPath(path, i), str(f), 'name is neither a standard finalizer name nor is it fully qualified'));
      }
    });
  }
  return out;
}

/**
 * Warnings kube-apiserver (1.32) returns, not errors, for the finalizers a write adds to a custom
 * resource (those not in `old`, sorted, once each) that are not domain-qualified:
 * `metadata.finalizers: "x": prefer a domain-qualified finalizer name including a path (/) ...`.
 */
export function finalizerWarnings(finalizers: string[] | undefined, old?: string[], path = 'metadata.finalizers'): string[] {
  const out: string[] = [];
  const before = new Set(list(old).map(str));
  const added = [...new Set(list(finalizers).map(str))].filter((f) => !before.has(f)).sort();
  for (const s of added) {
    for (const m of isQualifiedName(s)) out.push(`${path}: ${goQuote(s)}: ${m}`);
    if (!s.includes('/') && !STANDARD_FINALIZERS.includes(s)) {
      out.push(`${path}: ${goQuote(s)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`);
    }
  }
  return out;
}

function validateManagedFields(entries: ObjectMeta['managedFields']): StatusCause[] {
  const out: StatusCause[] = [];
  list(entries).forEach((entry, i) => {
    const e = record(entry as never) as NonNullable<ObjectMeta['managedFields']>[number];
    const p = `metadata.managedFields[${i}]`;
    if (e.operation !== 'Apply' && e.operation !== 'Update') out.push(fieldInvalid(`${p}.operation`, str(e.operation), 'must be `Apply` or `Update`'));
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') out.push(fieldInvalid(`${p}.fieldsType`, e.fieldsType, 'must be `FieldsV1`'));
  });
  return out;
}

/**
 * Validates an object's metadata (name/generateName, namespace by scope, generation, labels,
 * annotations, ownerReferences, finalizers, managedFields). Returns Status causes, empty when valid.
 */
export function validateObjectMeta(meta: ObjectMeta | undefined, options: ValidateObjectMetaOptions): StatusCause[] {
  const m: ObjectMeta = meta ?? {};
  const out: StatusCause[] = [];
  const nameFn = options.nameValidator ?? (options.nameIsDNSLabel ? nameIsDNSLabel : nameIsDNSSubdomain);
  const name = str(m.name);
  const generateName = str(m.generateName);
  if (generateName) for (const msg of nameFn(generateName, true)) out.push(fieldInvalid('metadata.generateName', generateName, msg));
  if (!name) {
    if (!(options.isCreate && generateName)) out.push(fieldRequired('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) out.push(fieldInvalid('metadata.name', name, msg));
  }
  const ns = str(m.namespace);
  if (options.namespaced) {
    if (!ns) out.push(fieldRequired('metadata.namespace'));
    else for (const msg of isDNS1123Label(ns)) out.push(fieldInvalid('metadata.namespace', ns, msg));
  } else if (ns) {
    out.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof m.generation === 'number' && m.generation < 0) {
    out.push(fieldInvalid('metadata.generation', m.generation, 'must be greater than or equal to 0'));
  }
  out.push(...validateLabels(m.labels));
  out.push(...validateAnnotations(m.annotations));
  out.push(...validateOwnerReferences(m.ownerReferences));
  out.push(...validateFinalizers(m.finalizers, options.customResource ?? false));
  out.push(...validateManagedFields(m.managedFields));
  return out;
}

/** Formats an RFC 3339 timestamp as Go's time.Time String() (how Kubernetes prints it). */
function goTime(t: string | undefined): string {
  if (!t) return '0001-01-01 00:00:00 +0000 UTC';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return t;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/**
 * Update-only metadata checks: name, namespace, uid, creationTimestamp, deletionTimestamp and
 * deletionGracePeriodSeconds are immutable; generation must not decrease; no finalizer may be
 * added once deletion started. Run validateObjectMeta on the new object as well.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta | undefined, old: ObjectMeta | undefined): StatusCause[] {
  const n: ObjectMeta = meta ?? {};
  const o: ObjectMeta = old ?? {};
  const out: StatusCause[] = [];
  if (o.deletionTimestamp) {
    const had = new Set(list(o.finalizers));
    const extra = [...new Set(list(n.finalizers))].filter((f) => !had.has(f)).sort();
    if (extra.length > 0) {
      out.push(fieldForbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(', ')}}`));
    }
  }
  const gen = typeof n.generation === 'number' ? n.generation : 0;
  const oldGen = typeof o.generation === 'number' ? o.generation : 0;
  if (gen < oldGen) out.push(fieldInvalid('metadata.generation', gen, 'must not be decremented'));
  const immutableString = (field: keyof ObjectMeta) => {
    const nv = str(n[field]);
    if (nv !== str(o[field])) out.push(fieldInvalid(`metadata.${String(field)}`, nv, FIELD_IMMUTABLE_ERROR_MSG));
  };
  immutableString('name');
  immutableString('namespace');
  immutableString('uid');
  if (str(n.creationTimestamp) !== str(o.creationTimestamp) && goTime(n.creationTimestamp) !== goTime(o.creationTimestamp)) {
    out.push(invalidRendered('metadata.creationTimestamp', goTime(n.creationTimestamp), FIELD_IMMUTABLE_ERROR_MSG));
  }
  if ((n.deletionTimestamp ?? '') !== (o.deletionTimestamp ?? '') && goTime(n.deletionTimestamp) !== goTime(o.deletionTimestamp)) {
    const shown = n.deletionTimestamp ? goTime(n.deletionTimestamp) : 'null';
    out.push(invalidRendered('metadata.deletionTimestamp', shown, FIELD_IMMUTABLE_ERROR_MSG));
  }
  if ((n.deletionGracePeriodSeconds ?? null) !== (o.deletionGracePeriodSeconds ?? null)) {
    out.push(fieldInvalid('metadata.deletionGracePeriodSeconds', n.deletionGracePeriodSeconds ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  return out;
}
