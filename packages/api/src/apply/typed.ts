/**
 * Schema-driven walks of objects for server-side apply: the field set an object sets, the
 * comparison of two objects, the merge of an applied configuration into a live object, and the
 * removal of fields. The schema decides each value's shape as Kubernetes' structured merge does:
 * structs (declared properties), maps (granular, or atomic with `x-kubernetes-map-type:
 * atomic`), lists (`x-kubernetes-list-type` atomic / set / map with `x-kubernetes-list-map-keys`;
 * a list without one but with patch strategy `merge` is keyed by its patch merge key, or a set
 * of scalars without a key; any other list is atomic) and scalars. Values a schema does not
 * describe are deduced: objects as granular maps, lists as atomic, the rest as scalars.
 */
import { getOwn, hasOwn } from '../own.js';
import { resolveSchema, schemaRefName, type SchemaDefinitions, type SchemaObject } from '../schema.js';
import { fieldElement, FieldSet, keyElement, valueElement, type PathElement } from './fieldpath.js';
import { modelKind, modelType, parseTypeRef } from '../model/index.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

/** The shape of a value, from its schema. */
export type Shape =
  | { t: 'scalar' }
  | { t: 'struct'; atomic: boolean; schema: SchemaObject }
  | { t: 'map'; atomic: boolean; schema: SchemaObject | undefined }
  | { t: 'list'; list: 'atomic' | 'set' | 'map'; keys: string[]; items: SchemaObject | undefined };

/** Schemas and their definitions, as the walks read them. */
export interface TypeContext {
  defs: SchemaDefinitions;
}

const DEDUCED: SchemaObject = {};

function isMap(v: Json): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Are two JSON values equal (objects by their own keys, in any order)? What isDeepStrictEqual
 * answers for decoded JSON, without its checks of prototypes, symbols and cycles.
 */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const am = a as JsonMap;
  const bm = b as JsonMap;
  const keys = Object.keys(am);
  if (keys.length !== Object.keys(bm).length) return false;
  for (const k of keys) if (!hasOwn(bm, k) || !jsonEqual(am[k], bm[k])) return false;
  return true;
}

/** The shape of `value` under `schema` (undefined: deduced from the value). */
export function shapeOf(schema: SchemaObject | undefined, value: Json, ctx: TypeContext): Shape {
  const s = resolveSchema(schema, ctx.defs);
  if (Array.isArray(value)) {
    if (!s || s === DEDUCED || !s.items) return { t: 'list', list: 'atomic', keys: [], items: undefined };
    const items = s.items;
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'map') return { t: 'list', list: 'map', keys: s['x-kubernetes-list-map-keys'] ?? [], items };
    if (lt === 'set') return { t: 'list', list: 'set', keys: [], items };
    if (lt === 'atomic') return { t: 'list', list: 'atomic', keys: [], items };
    const strategies = String(s['x-kubernetes-patch-strategy'] ?? '').split(',');
    if (strategies.includes('merge')) {
      const key = s['x-kubernetes-patch-merge-key'];
      if (typeof key === 'string' && key) return { t: 'list', list: 'map', keys: [key], items };
      const item = resolveSchema(items, ctx.defs);
      if (item && item.type !== 'object' && !item.properties) return { t: 'list', list: 'set', keys: [], items };
    }
    return { t: 'list', list: 'atomic', keys: [], items };
  }
  if (isMap(value)) {
    if (!s || s === DEDUCED) return { t: 'map', atomic: false, schema: undefined };
    const atomic = s['x-kubernetes-map-type'] === 'atomic';
    if (s.properties) return { t: 'struct', atomic, schema: s };
    if (isMap(s.additionalProperties)) return { t: 'map', atomic, schema: s.additionalProperties };
    if (s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true) return { t: 'map', atomic, schema: undefined };
    // A schema without properties or types (FieldsV1, RawExtension): a granular map.
    if (s.type === 'object' && !atomic) return { t: 'map', atomic: false, schema: undefined };
    return { t: 'map', atomic: true, schema: undefined };
  }
  return { t: 'scalar' };
}

/** The schema of field `key` of a struct or map shape. */
function fieldSchema(shape: Shape, key: string): { schema: SchemaObject | undefined; declared: boolean } {
  if (shape.t === 'struct') {
    const p = getOwn(shape.schema.properties, key);
    if (p) return { schema: p, declared: true };
    const ap = shape.schema.additionalProperties;
    return { schema: isMap(ap) ? (ap as SchemaObject) : DEDUCED, declared: false };
  }
  if (shape.t === 'map') return { schema: shape.schema ?? DEDUCED, declared: false };
  return { schema: DEDUCED, declared: false };
}

function isLeaf(shape: Shape): boolean {
  return shape.t === 'scalar' || (shape.t === 'list' && shape.list === 'atomic') || ((shape.t === 'struct' || shape.t === 'map') && shape.atomic);
}

/** The path element of a list item (undefined when it cannot be named: a list-map item missing a key). */
export function itemElement(shape: Shape & { t: 'list' }, item: Json, index: number, ctx: TypeContext): PathElement | undefined {
  if (shape.list === 'set') return valueElement(item);
  if (shape.list === 'map') {
    if (!isMap(item)) return undefined;
    const keys: JsonMap = {};
    for (const k of shape.keys) {
      if (hasOwn(item, k)) keys[k] = item[k];
      else {
        // A key field left out takes its schema default (a container port's protocol is TCP).
        const d = resolveSchema(getOwn(resolveSchema(shape.items, ctx.defs)?.properties, k), ctx.defs)?.default;
        if (d !== undefined) keys[k] = d;
      }
    }
    if (Object.keys(keys).length === 0) return undefined;
    return keyElement(keys);
  }
  return `i:${index}`;
}

/** The fields an object (an applied configuration) sets. */
export function toFieldSet(value: Json, schema: SchemaObject | undefined, ctx: TypeContext): FieldSet {
  const set = FieldSet.empty();
  const walk = (v: Json, s: SchemaObject | undefined, path: PathElement[]): void => {
    const shape = shapeOf(s, v, ctx);
    if (isLeaf(shape)) {
      set.insert(path);
      return;
    }
    if (shape.t === 'list') {
      (v as Json[]).forEach((item, i) => {
        const pe = itemElement(shape, item, i, ctx);
        if (pe === undefined) return;
        const p = [...path, pe];
        walk(item, shape.items, p);
        set.insert(p);
      });
      return;
    }
    for (const [k, child] of Object.entries(v as JsonMap)) {
      const f = fieldSchema(shape, k);
      const p = [...path, fieldElement(k)];
      walk(child, f.schema, p);
      if (child === null || (isMap(child) && Object.keys(child).length === 0) || !f.declared) set.insert(p);
    }
  };
  if (isMap(value)) walk(value, schema, []);
  return set;
}

/** What changed from one object to another: fields added, modified and removed. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const refName = schemaRefName;

/**
 * Does Go's zero value of built-in type `typeName` hold field `key` (a struct that is not a
 * pointer, or a field whose json tag has no omitempty)? Such a field exists in every object of
 * the type, so it never appears or goes as a whole. Custom resources have no zero value.
 */
function inZeroValue(typeName: string | undefined, key: string): boolean {
  if (!typeName) return false;
  const f = modelType(typeName)?.type.fields?.[key];
  if (!f) return false;
  if (f.always) return true;
  if (f.ptr) return false;
  const ref = parseTypeRef(f.type);
  if (ref.kind !== 'named') return false;
  const t = modelType(ref.name)?.type;
  return !!t?.fields && !t.special;
}

/**
 * Compares two objects field by field, as structured-merge-diff compares the Go objects of an
 * update: a map, list or struct that appears (or goes) is itself added (or removed), with what
 * is below it, except a field that Go's zero value of its (existing) parent already holds — a
 * non-pointer struct, a field without omitempty — which only holds the changes below it.
 */
export function compare(lhs: Json, rhs: Json, schema: SchemaObject | undefined, ctx: TypeContext): Comparison {
  const c: Comparison = { added: FieldSet.empty(), modified: FieldSet.empty(), removed: FieldSet.empty() };
  // `inL` / `inR`: the value's parent exists on that side; `zero`: Go's zero value of the parent holds the field.
  const walk = (l: Json, r: Json, s: SchemaObject | undefined, path: PathElement[], inL: boolean, inR: boolean, zero: boolean): void => {
    if (l === undefined && r === undefined) return;
    if (l !== undefined && r !== undefined) {
      // Equal subtrees hold no change (most of an update).
      if (l === r || jsonEqual(l, r)) return;
      const ls = shapeOf(s, l, ctx);
      const rs = shapeOf(s, r, ctx);
      if (ls.t !== rs.t || isLeaf(rs) || isLeaf(ls)) {
        c.modified.insert(path);
        return;
      }
    }
    const one = (r ?? l) as Json;
    if (isLeaf(shapeOf(s, one, ctx))) {
      (l === undefined ? c.added : c.removed).insert(path);
      return;
    }
    // Whether each side really has this value (rather than an empty stand-in).
    let hasL = l !== undefined;
    let hasR = r !== undefined;
    if (l === undefined || r === undefined) {
      const held = zero && (l === undefined ? inL : inR);
      if (path.length > 0 && !held) (l === undefined ? c.added : c.removed).insert(path);
      if (held) {
        if (l === undefined) hasL = true;
        else hasR = true;
      }
      if (l === undefined) l = Array.isArray(r) ? [] : {};
      else r = Array.isArray(l) ? [] : {};
    }
    const rs = shapeOf(s, r, ctx);
    if (rs.t === 'list') {
      const li = new Map<PathElement, Json>();
      (l as Json[]).forEach((item, i) => {
        const pe = itemElement(rs, item, i, ctx);
        if (pe !== undefined) li.set(pe, item);
      });
      const seen = new Set<PathElement>();
      (r as Json[]).forEach((item, i) => {
        const pe = itemElement(rs, item, i, ctx);
        if (pe === undefined) return;
        seen.add(pe);
        walk(li.get(pe), item, rs.items, [...path, pe], hasL, hasR, false);
      });
      for (const [pe, item] of li) {
        if (seen.has(pe)) continue;
        walk(item, undefined, rs.items, [...path, pe], hasL, hasR, false);
      }
      return;
    }
    const lm = l as JsonMap;
    const rm = r as JsonMap;
    const typeName = rs.t === 'struct' ? (path.length === 0 ? rootType : refName(s)) : undefined;
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      const f = fieldSchema(rs, k);
      const lv = hasOwn(lm, k) ? lm[k] : undefined;
      const rv = hasOwn(rm, k) ? rm[k] : undefined;
      walk(lv, rv, f.schema, [...path, fieldElement(k)], hasL, hasR, f.declared && inZeroValue(typeName, k));
    }
  };
  // The root's type: from its schema's reference, or (a resolved schema) from the kind.
  const obj = (isMap(rhs) ? rhs : isMap(lhs) ? lhs : {}) as JsonMap;
  const rootType = refName(schema) ?? (typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' ? modelKind(obj.apiVersion, obj.kind)?.name : undefined);
  walk(isMap(lhs) ? lhs : {}, isMap(rhs) ? rhs : {}, schema, [], true, true, true);
  return c;
}

/**
 * What `compare({}, rhs, schema, ctx)` answers, walked once over `rhs` alone (a create: every
 * field is added; there is nothing to compare it with): a map, list or struct is added with what
 * is below it, except a field Go's zero value of its parent holds, which only holds its fields.
 */
export function compareCreated(rhs: Json, schema: SchemaObject | undefined, ctx: TypeContext): Comparison {
  const c: Comparison = { added: FieldSet.empty(), modified: FieldSet.empty(), removed: FieldSet.empty() };
  // `held`: Go's zero value of the (existing) parent holds this field (it was there before).
  const walk = (r: Json, s: SchemaObject | undefined, path: PathElement[], held: boolean): void => {
    if (r === undefined) return;
    const rs = shapeOf(s, r, ctx);
    if (isLeaf(rs)) {
      c.added.insert(path);
      return;
    }
    if (!held) c.added.insert(path);
    walkChildren(r, s, rs, path, held);
  };
  // `has`: the value existed before (held by its parent's zero value, or the root).
  const walkChildren = (r: Json, s: SchemaObject | undefined, rs: Shape, path: PathElement[], has: boolean): void => {
    if (rs.t === 'list') {
      (r as Json[]).forEach((item, i) => {
        const pe = itemElement(rs, item, i, ctx);
        if (pe !== undefined) walk(item, rs.items, [...path, pe], false);
      });
      return;
    }
    const rm = r as JsonMap;
    const typeName = rs.t === 'struct' ? (path.length === 0 ? rootType : refName(s)) : undefined;
    for (const k of Object.keys(rm)) {
      const f = fieldSchema(rs, k);
      walk(rm[k], f.schema, [...path, fieldElement(k)], has && f.declared && inZeroValue(typeName, k));
    }
  };
  const obj = (isMap(rhs) ? rhs : {}) as JsonMap;
  const rootType = refName(schema) ?? (typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' ? modelKind(obj.apiVersion, obj.kind)?.name : undefined);
  // The root, compared with an empty object: no change when empty; an atomic root is modified
  // as a whole, which a field set does not hold (the empty path).
  if (Object.keys(obj).length === 0) return c;
  const rs = shapeOf(schema, obj, ctx);
  if (!isLeaf(rs)) walkChildren(obj, schema, rs, [], true);
  return c;
}

/**
 * Merges an applied configuration into a live object: leaves and atomic values take the
 * configuration's value; structs and maps merge by field; list-map items merge by key and set
 * members are united, the live order kept and new items placed as the configuration orders them.
 */
export function merge(live: Json, config: Json, schema: SchemaObject | undefined, ctx: TypeContext): Json {
  if (live === undefined) return structuredClone(config);
  if (config === undefined) return structuredClone(live);
  const ls = shapeOf(schema, live, ctx);
  const cs = shapeOf(schema, config, ctx);
  if (ls.t !== cs.t || isLeaf(cs)) return structuredClone(config);
  if (cs.t === 'list') {
    const la = live as Json[];
    const ca = config as Json[];
    const lpe = la.map((item, i) => itemElement(cs, item, i, ctx));
    const cpe = ca.map((item, i) => itemElement(cs, item, i, ctx));
    const lIndex = new Map<PathElement, number>();
    lpe.forEach((pe, i) => pe !== undefined && lIndex.set(pe, i));
    const cIndex = new Map<PathElement, number>();
    cpe.forEach((pe, i) => pe !== undefined && cIndex.set(pe, i));
    const out: Json[] = [];
    const doneL = new Set<number>();
    let li = 0;
    let ci = 0;
    while (li < la.length || ci < ca.length) {
      if (li < la.length && doneL.has(li)) {
        li++;
        continue;
      }
      if (li < la.length) {
        const pe = lpe[li];
        if (pe === undefined || !cIndex.has(pe)) {
          out.push(structuredClone(la[li]));
          li++;
          continue;
        }
      }
      if (ci < ca.length) {
        const pe = cpe[ci];
        const at = pe === undefined ? undefined : lIndex.get(pe);
        if (at !== undefined && !doneL.has(at)) {
          out.push(merge(la[at], ca[ci], cs.items, ctx));
          doneL.add(at);
        } else if (at === undefined) out.push(structuredClone(ca[ci]));
        ci++;
        continue;
      }
      li++;
    }
    return out;
  }
  const out: JsonMap = { ...(structuredClone(live) as JsonMap) };
  for (const [k, v] of Object.entries(config as JsonMap)) {
    out[k] = merge(hasOwn(out, k) ? out[k] : undefined, v, fieldSchema(cs, k).schema, ctx);
  }
  return out;
}

/** Removes the members of `set` from `obj` (in place). */
export function removeFields(obj: Json, set: FieldSet, schema: SchemaObject | undefined, ctx: TypeContext): void {
  for (const path of set.paths()) removePath(obj, path, schema, ctx);
}

function removePath(obj: Json, path: PathElement[], schema: SchemaObject | undefined, ctx: TypeContext): void {
  let v = obj;
  let s = schema;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i]!;
    const last = i === path.length - 1;
    if (v === undefined || v === null || typeof v !== 'object') return;
    const shape = shapeOf(s, v, ctx);
    if (pe.startsWith('f:')) {
      if (!isMap(v)) return;
      const k = pe.slice(2);
      if (!hasOwn(v, k)) return;
      if (last) {
        delete v[k];
        return;
      }
      s = fieldSchema(shape, k).schema;
      v = v[k];
      continue;
    }
    if (!Array.isArray(v) || shape.t !== 'list') return;
    const idx = v.findIndex((item, j) => itemElement(shape, item, j, ctx) === pe);
    if (idx < 0) return;
    if (last) {
      v.splice(idx, 1);
      return;
    }
    s = shape.items;
    v = v[idx];
  }
}

/** The schema of the value at path element `pe` below `schema`, and whether `pe` names a declared struct field. */
function elementSchema(schema: SchemaObject | undefined, pe: PathElement, ctx: TypeContext): { schema: SchemaObject | undefined; named: boolean } {
  const s = resolveSchema(schema, ctx.defs);
  if (!s) return { schema: undefined, named: false };
  if (pe.startsWith('f:')) {
    const p = getOwn(s.properties, pe.slice(2));
    if (p) return { schema: p, named: true };
    return { schema: isMap(s.additionalProperties) ? (s.additionalProperties as SchemaObject) : undefined, named: false };
  }
  return { schema: s.items, named: false };
}

/**
 * The set with every declared struct field on the way to its members made a member itself,
 * as structured-merge-diff's EnsureNamedFieldsAreMembers (a map's keys and list items on the
 * way are not): what removing a manager's fields removes whole, so that no emptied struct is
 * left behind.
 */
export function withNamedFieldsAsMembers(set: FieldSet, schema: SchemaObject | undefined, ctx: TypeContext): FieldSet {
  const out = FieldSet.empty();
  for (const p of set.paths()) {
    out.insert(p);
    let s = schema;
    for (let i = 0; i < p.length - 1; i++) {
      const e = elementSchema(s, p[i]!, ctx);
      if (e.named) out.insert(p.slice(0, i + 1));
      s = e.schema;
    }
  }
  return out;
}

/**
 * Removes from `obj` (in place) what an applier stopped applying, as structured-merge-diff
 * prunes an apply: a field of `last` (the applier's previous fields, declared struct fields
 * on the way included) goes, with everything below it, unless it and each of its ancestors
 * that `last` covers is still owned by someone (`owned`: every manager's fields after the
 * apply, the applier's new ones included, with their declared struct fields). A map or list
 * emptied by a removal goes too.
 */
export function pruneDropped(obj: Json, last: FieldSet, owned: FieldSet, schema: SchemaObject | undefined, ctx: TypeContext): void {
  const walk = (v: Json, s: SchemaObject | undefined, path: PathElement[], cut: boolean, survives: boolean): boolean => {
    const shape = shapeOf(s, v, ctx);
    if (isLeaf(shape)) return false;
    // Whether anything was removed from v, and v is now empty.
    let removed = false;
    const visit = (pe: PathElement, child: Json, childSchema: SchemaObject | undefined, drop: () => void, clear: () => void): void => {
      const p = [...path, pe];
      if (!last.hasPrefix(p)) return;
      const inLast = last.has(p);
      const cut2 = cut || inLast;
      const survives2 = survives && (!cut2 || owned.has(p));
      if (inLast && !survives2) {
        drop();
        removed = true;
        return;
      }
      if (child !== null && typeof child === 'object' && walk(child, childSchema, p, cut2, survives2)) clear();
    };
    if (shape.t === 'list') {
      const items = v as Json[];
      const drops = new Set<number>();
      const clears = new Set<number>();
      items.forEach((item, i) => {
        const pe = itemElement(shape, item, i, ctx);
        if (pe !== undefined) visit(pe, item, shape.items, () => drops.add(i), () => clears.add(i));
      });
      for (let i = items.length - 1; i >= 0; i--) if (drops.has(i)) items.splice(i, 1);
      return removed && items.length === 0;
    }
    const m = v as JsonMap;
    for (const k of Object.keys(m)) {
      visit(fieldElement(k), m[k], fieldSchema(shape, k).schema, () => delete m[k], () => delete m[k]);
    }
    return removed && Object.keys(m).length === 0;
  };
  if (isMap(obj)) walk(obj, schema, [], false, true);
}
