/** Small helpers shared by the built-in kinds: loose object access, label/selector formatting, verbs. */
import { CauseType, goQuote, labelSelectorFromObject, type KubeObject, type LabelSelectorObject, type StatusCause } from '@kplane/api';

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** The value as a JSON object, or undefined. */
export function asObj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** The value as an array of JSON objects (non-objects dropped); [] when absent. */
export function objs(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : [];
}

/** The value as a string ('' when absent or not a string). */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The value as a number (0 when absent or not a number). */
export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** The child object at `key`, created when missing (or not an object). */
export function child(parent: Obj, key: string): Obj {
  const v = asObj(parent[key]);
  if (v) return v;
  const created: Obj = {};
  parent[key] = created;
  return created;
}

/** Reads a dotted path ("spec.template.spec") from an object. */
export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    const o = asObj(cur);
    if (!o) return undefined;
    cur = o[part];
  }
  return cur;
}

/** `spec` of an object, created when missing. */
export function spec(obj: KubeObject): Obj {
  return child(obj as Obj, 'spec');
}

/** Sets `obj[key] = value` only when the key is absent (undefined or null). */
export function setDefault(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

/** The creation timestamp as RFC 3339 in UTC, second precision (Created At cells). */
export function createdAt(obj: KubeObject): string {
  const t = obj.metadata?.creationTimestamp;
  if (!t) return '';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : `${d.toISOString().slice(0, 19)}Z`;
}

/**
 * Deep equality of JSON values where, as apimachinery's semantic equality, a missing value,
 * null, [] and {} are all "empty" and equal to each other.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) =>
    v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (asObj(v) !== undefined && Object.keys(v as Obj).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  const oa = asObj(a);
  const ob = asObj(b);
  if (oa || ob) {
    if (!oa || !ob) return false;
    for (const k in oa) if (Object.hasOwn(oa, k) && !semanticEqual(oa[k], ob[k])) return false;
    // Keys only `b` has must be empty values.
    for (const k in ob) if (Object.hasOwn(ob, k) && !Object.hasOwn(oa, k) && !semanticEqual(undefined, ob[k])) return false;
    return true;
  }
  return a === b;
}

/** labels.FormatLabels: "a=b,c=d" sorted by key, "<none>" when empty. */
export function formatLabels(labels: unknown): string {
  const o = asObj(labels) ?? {};
  const keys = Object.keys(o).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${String(o[k])}`).join(',');
}

/** LabelSelectorAsSelector(sel).String(); "<invalid>" when the selector cannot be converted. */
export function selectorString(sel: unknown): string {
  try {
    return labelSelectorFromObject(sel as LabelSelectorObject | undefined).toString();
  } catch {
    return '<invalid>';
  }
}

/** metav1.FormatLabelSelector: the selector string, "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(sel: unknown): string {
  const s = selectorString(sel);
  if (s === '<invalid>') return '<error>';
  return s === '' ? '<none>' : s;
}

/** Container names and images, comma-joined (printers.go layoutContainerCells). */
export function containerCells(containers: unknown): [string, string] {
  const list = objs(containers);
  return [list.map((c) => str(c.name)).join(','), list.map((c) => str(c.image)).join(',')];
}

/** Go's %#v of a map[string]string, with `map[string]string(nil)` for a missing map. */
export function goStringMap(v: unknown): string {
  const o = asObj(v);
  if (!o) return 'map[string]string(nil)';
  const keys = Object.keys(o).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(o[k]))}`).join(', ')}}`;
}

/** Go's %#v of a []string, with `[]string(nil)` for a missing slice. */
export function goStringSlice(v: unknown): string {
  if (!Array.isArray(v)) return '[]string(nil)';
  return `[]string{${v.map((x) => goQuote(String(x))).join(', ')}}`;
}

/** Go's %#v of a metav1.LabelSelector value, as validation messages print it. */
export function goLabelSelector(sel: unknown): string {
  const o = asObj(sel) ?? {};
  const exprs = Array.isArray(o.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${objs(o.matchExpressions)
        .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(str(e.key))}, Operator:${goQuote(str(e.operator))}, Values:${goStringSlice(e.values)}}`)
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(o.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** An Invalid cause whose value is already rendered in Go syntax. */
export function invalidRendered(field: string, rendered: string, detail: string): StatusCause {
  return { reason: CauseType.Invalid, field, message: `Invalid value: ${rendered}: ${detail}` };
}

/** The verbs kube-apiserver lists for a typical resource. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Verbs of a resource without deletecollection (namespaces). */
export const VERBS_NO_DELETECOLLECTION = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
