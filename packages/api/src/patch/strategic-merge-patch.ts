/**
 * Kubernetes strategic merge patch (application/strategic-merge-patch+json), following
 * k8s.io/apimachinery/pkg/util/strategicpatch, driven by the OpenAPI extensions
 * `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key`.
 *
 * - Maps merge recursively; `null` deletes a key.
 * - Lists whose field has strategy `merge` merge: lists of maps by the merge key, lists of
 *   primitives as a union. Other lists (and fields of unknown schema) are replaced.
 * - Directives: `$patch: replace | delete` in maps; `{$patch: delete, <key>: v}` and
 *   `{$patch: replace}` in merging lists; `$retainKeys`; `$deleteFromPrimitiveList/<field>`;
 *   `$setElementOrder/<field>` (the order of the result follows it).
 *
 * Errors: ApiError 400 BadRequest for malformed directives and patches that do not fit the
 * object (Kubernetes answers some of the latter with 500; kplane never blames itself for a
 * client's patch), 422 Invalid for lists of lists and a patch inconsistent with `$retainKeys`.
 */
import { ApiError, badRequest } from '../errors.js';
import { getOwn, hasOwn, setOwn } from '../own.js';
import { resolveSchema } from '../schema.js';
import { recordPatchResult } from './patch-info.js';
import type { SchemaDefinitions, SchemaObject } from '../schema.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 = 400,
  ) {
    super(message);
  }
}

const errBadPrimitiveList = () => new PatchError('invalid patch format of primitive list');
const errBadRetainKeys = () => new PatchError('invalid patch format of retainKeys');
const errBadSetElementOrder = () => new PatchError('invalid patch format of setElementOrder list');

function isMap(v: Json): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's %v rendering of a JSON value (`map[a:1 b:[x y]]`), as Kubernetes' patch error messages print maps. */
export function goPrint(v: Json): string {
  return goV(v);
}

function goV(v: Json): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isMap(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

const errNoMergeKey = (m: JsonMap, key: string) => new PatchError(`map: ${goV(m)} does not contain declared merge key: ${key}`);
const errBadPatchType = (t: Json, m: JsonMap) => new PatchError(`unknown patch type: ${goV(t)} in map: ${goV(m)}`);

/** Schema context: the schema of the value being merged. Undefined means "unknown". */
interface Ctx {
  defs: SchemaDefinitions;
}

function resolve(schema: SchemaObject | undefined, ctx: Ctx): SchemaObject | undefined {
  const s = resolveSchema(schema, ctx.defs);
  if (!s || s['x-kubernetes-preserve-unknown-fields']) return s && (s.properties || s.items) ? s : undefined;
  return s;
}

/** Patch metadata of field `key` inside an object schema. */
interface FieldMeta {
  schema: SchemaObject | undefined;
  strategy: string;
  mergeKey: string;
}

function fieldMeta(parent: SchemaObject | undefined, key: string, ctx: Ctx): FieldMeta {
  if (!parent) return { schema: undefined, strategy: '', mergeKey: '' };
  let raw: SchemaObject | undefined = getOwn(parent.properties, key);
  if (!raw && typeof parent.additionalProperties === 'object') raw = parent.additionalProperties;
  // Extensions may sit on the property wrapper ({allOf:[{$ref}], x-kubernetes-...}); resolve merges them.
  const resolved = resolveSchema(raw, ctx.defs);
  const strategies = String(resolved?.['x-kubernetes-patch-strategy'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  let strategy = '';
  if (strategies.length === 1) strategy = strategies[0] === 'retainKeys' ? '' : strategies[0]!;
  else if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') strategy = strategies[1]!;
    else if (strategies[1] === 'retainKeys') strategy = strategies[0]!;
    else throw new PatchError(`unexpected patch strategy: [${strategies.join(' ')}]`);
  } else if (strategies.length > 2) throw new PatchError(`unexpected patch strategy: [${strategies.join(' ')}]`);
  return { schema: resolve(raw, ctx), strategy, mergeKey: String(resolved?.['x-kubernetes-patch-merge-key'] ?? '') };
}

function itemSchema(list: SchemaObject | undefined, ctx: Ctx): SchemaObject | undefined {
  return list ? resolve(list.items, ctx) : undefined;
}

function sameValue(a: Json, b: Json): boolean {
  return a === b;
}

// ---- maps -----------------------------------------------------------------------------------

function mergeMap(original: JsonMap | undefined, patch: JsonMap, schema: SchemaObject | undefined, ctx: Ctx): JsonMap {
  if (hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      const { [DIRECTIVE]: _d, ...rest } = patch;
      return mergeMap(undefined, rest, schema, ctx);
    }
    if (d === 'delete') return {};
    throw errBadPatchType(d, patch);
  }
  const out: JsonMap = original ? { ...original } : {};
  const p: JsonMap = { ...patch };
  applyRetainKeys(out, p);
  applySetElementOrder(out, p, schema, ctx);

  for (const [rawKey, patchV] of Object.entries(p)) {
    let k = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete out[k];
      continue;
    }
    const meta = fieldMeta(schema, k, ctx);
    if (!hasOwn(out, k)) {
      if (!isDeleteList) setOwn(out, k, stripDirectives(patchV, meta.schema, ctx));
      continue;
    }
    const origV = out[k];
    if (isMap(origV) && isMap(patchV)) {
      setOwn(out, k, meta.strategy === 'replace' ? stripDirectives(patchV, meta.schema, ctx) : mergeMap(origV, patchV, meta.schema, ctx));
    } else if (Array.isArray(origV) && Array.isArray(patchV)) {
      if (meta.strategy === 'merge' || isDeleteList) {
        setOwn(out, k, mergeSlice(origV, patchV, itemSchema(meta.schema, ctx), meta.mergeKey, isDeleteList, ctx));
      } else {
        setOwn(out, k, stripDirectives(patchV, meta.schema, ctx));
      }
    } else if (isDeleteList) {
      continue;
    } else {
      setOwn(out, k, stripDirectives(patchV, meta.schema, ctx));
    }
  }
  return out;
}

/** Values added wholesale (new keys, replaced lists) must not carry directives or nulls into the object. */
function stripDirectives(v: Json, schema: SchemaObject | undefined, ctx: Ctx): Json {
  if (isMap(v)) return mergeMap(undefined, v, schema, ctx);
  if (Array.isArray(v)) {
    const items = itemSchema(schema, ctx);
    return v
      .filter((x) => !(isMap(x) && Object.prototype.hasOwnProperty.call(x, DIRECTIVE) && (x[DIRECTIVE] === 'delete' || Object.keys(x).length === 1)))
      .map((x) => (isMap(x) ? mergeMap(undefined, x, items, ctx) : x));
  }
  return v;
}

function extractKey(key: string, prefix: string): string {
  const i = key.indexOf('/');
  if (i < 0 || key.slice(0, i) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST ? errBadPrimitiveList() : errBadSetElementOrder();
  }
  return key.slice(i + 1);
}

function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw errBadRetainKeys();
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw errBadRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

// ---- $setElementOrder -------------------------------------------------------------------------

function applySetElementOrder(original: JsonMap, patch: JsonMap, schema: SchemaObject | undefined, ctx: Ctx): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadSetElementOrder();
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasOwn(original, field) && original[field] !== null;
    const foundPatch = hasOwn(patch, field) && patch[field] !== null;
    const origList = foundOriginal ? original[field] : undefined;
    const patchList = foundPatch ? patch[field] : undefined;
    if (foundOriginal && !Array.isArray(origList)) throw new PatchError(`expected a slice, but received a ${goKind(origList)}`);
    if (foundPatch && !Array.isArray(patchList)) throw new PatchError(`expected a slice, but received a ${goKind(patchList)}`);
    const meta = fieldMeta(schema, field, ctx);
    validateWithSetOrderList((patchList as Json[]) ?? [], order, meta.mergeKey);
    let merged: Json[];
    if (foundOriginal && foundPatch) {
      merged =
        meta.strategy === 'merge'
          ? mergeSlice(origList as Json[], patchList as Json[], itemSchema(meta.schema, ctx), meta.mergeKey, false, ctx)
          : (stripDirectives(patchList, meta.schema, ctx) as Json[]);
    } else if (foundOriginal) {
      merged = origList as Json[];
    } else if (foundPatch) {
      merged = stripDirectives(patchList, meta.schema, ctx) as Json[];
    } else {
      continue;
    }
    const [inOrder, serverOnly] = partition(merged, order, meta.mergeKey);
    setOwn(original, field, normalizeElementOrder(inOrder, serverOnly, order, (origList as Json[]) ?? [], meta.mergeKey));
    delete patch[field];
  }
}

function goKind(v: Json): string {
  if (Array.isArray(v)) return 'slice';
  if (isMap(v)) return 'map';
  if (typeof v === 'number') return 'float64';
  return typeof v;
}

function mergeKeyOf(item: Json, mergeKey: string): Json {
  if (!isMap(item)) throw new PatchError(`expected a map, but received a ${goKind(item)}`);
  if (!Object.prototype.hasOwnProperty.call(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
  return item[mergeKey];
}

function validateWithSetOrderList(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? patchList.filter((x) => !(isMap(x) && x[DIRECTIVE] === 'delete')) : patchList;
  let pi = 0;
  let oi = 0;
  while (pi < nonDelete.length && oi < order.length) {
    const item = nonDelete[pi];
    if (isMap(item) && Object.prototype.hasOwnProperty.call(item, DIRECTIVE)) {
      pi++;
      continue;
    }
    const equal = mergeKey ? sameValue(mergeKeyOf(item, mergeKey), mergeKeyOf(order[oi], mergeKey)) : sameValue(item, order[oi]);
    if (equal) pi++;
    oi++;
  }
  if (pi < nonDelete.length && oi >= order.length) {
    throw new PatchError(`The order in patch list:\n${goV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goV(order)}\n`);
  }
}

// ---- lists ------------------------------------------------------------------------------------

function indexIn(list: Json[], item: Json, mergeKey: string): number {
  if (mergeKey) {
    const v = isMap(item) ? item[mergeKey] : undefined;
    return list.findIndex((x) => isMap(x) && sameValue(x[mergeKey], v));
  }
  return list.findIndex((x) => sameValue(x, item));
}

/** Splits `items` into those present in `by` and the rest, keeping order. */
function partition(items: Json[], by: Json[], mergeKey: string): [Json[], Json[]] {
  const inBy: Json[] = [];
  const rest: Json[] = [];
  for (const it of items) {
    if (mergeKey) mergeKeyOf(it, mergeKey);
    (indexIn(by, it, mergeKey) >= 0 ? inBy : rest).push(it);
  }
  return [inBy, rest];
}

function sortByOrder(items: Json[], order: Json[], mergeKey: string): Json[] {
  return items
    .map((it, i) => ({ it, i, o: indexIn(order, it, mergeKey) }))
    .sort((a, b) => (a.o >= 0 && b.o >= 0 ? a.o - b.o : a.i - b.i))
    .map((x) => x.it);
}

/**
 * Orders the patch's items by `patchOrder` and the server-only items by their live order, then
 * interleaves them: a server-only item goes before a patch item only when it came before it in
 * the live list. (Items new to the list therefore come first, as in Kubernetes.)
 */
function normalizeElementOrder(patchItems: Json[], serverOnly: Json[], patchOrder: Json[], serverOrder: Json[], mergeKey: string): Json[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function elementKind(lists: Json[][]): 'map' | 'scalar' | undefined {
  let kind: string | undefined;
  for (const l of lists) {
    for (const v of l) {
      const k = Array.isArray(v) ? 'slice' : isMap(v) ? 'map' : v === null ? 'null' : typeof v;
      if (k === 'slice') throw new PatchError('lists of lists are not supported', 422);
      if (kind === undefined) kind = k;
      else if (kind !== k) throw new PatchError(`list element types are not identical: ${goV(lists)}`);
    }
  }
  if (kind === undefined) return undefined;
  return kind === 'map' ? 'map' : 'scalar';
}

function mergeSlice(original: Json[], patch: Json[], items: SchemaObject | undefined, mergeKey: string, isDeleteList: boolean, ctx: Ctx): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch]);
  if (kind === 'scalar') {
    if (isDeleteList) {
      return original.filter((v) => !patch.some((d) => sameValue(d, v)));
    }
    const merged: Json[] = [];
    for (const v of [...original, ...patch]) if (!merged.some((m) => sameValue(m, v))) merged.push(v);
    const [inPatch, serverOnly] = partition(merged, patch, '');
    return normalizeElementOrder(inPatch, serverOnly, patch, original, '');
  }
  if (!mergeKey) throw new PatchError('cannot merge lists without merge key');
  let orig = [...original];
  const plain: Json[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonMap;
    if (!Object.prototype.hasOwnProperty.call(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = m[DIRECTIVE];
    if (d === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      orig = orig.filter((o) => !(isMap(o) && Object.prototype.hasOwnProperty.call(o, mergeKey) && sameValue(o[mergeKey], m[mergeKey])));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(d, m);
    }
  }
  if (replace) return plain.map((v) => mergeMap(undefined, v as JsonMap, items, ctx));
  const merged = [...orig];
  for (const v of plain) {
    const m = v as JsonMap;
    const key = mergeKeyOf(m, mergeKey);
    const idx = merged.findIndex((o) => isMap(o) && Object.prototype.hasOwnProperty.call(o, mergeKey) && sameValue(o[mergeKey], key));
    if (idx >= 0) merged[idx] = mergeMap(merged[idx] as JsonMap, m, items, ctx);
    else merged.push(mergeMap(undefined, m, items, ctx));
  }
  const [inPatch, serverOnly] = partition(merged, plain, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, plain, orig, mergeKey);
}

// ---- entry point ------------------------------------------------------------------------------

/**
 * Applies a strategic merge patch to `doc` (not modified) using the kind's schema. With no
 * schema (or a free-form one) it behaves like a JSON merge patch: maps merge, lists are replaced.
 * Throws ApiError (400 or 422) when the patch is malformed or does not fit the object.
 */
export function applyStrategicMergePatch<T = unknown>(doc: T, patch: unknown, schema: SchemaObject | undefined, defs: SchemaDefinitions): T {
  if (!isMap(patch)) throw badRequest('invalid JSON document');
  const original = isMap(doc) ? (structuredClone(doc) as JsonMap) : {};
  const ctx: Ctx = { defs };
  try {
    return recordPatchResult(mergeMap(original, structuredClone(patch), resolve(schema, ctx), ctx) as T, 'strategic', patch);
  } catch (e) {
    if (e instanceof PatchError) {
      if (e.code === 422) {
        const err = new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
        err.cause = e;
        throw err;
      }
      throw badRequest(e.message);
    }
    throw e;
  }
}
