/**
 * managedFields bookkeeping, as kube-apiserver's field manager keeps it: which manager owns
 * which fields, updated on every write (Update entries: the fields a write changed; Apply
 * entries: the fields an applied configuration sets), conflicts between appliers and other
 * managers, and the removal of fields an applier stopped applying.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, badRequest } from '../errors.js';
import type { KubeObject, ManagedFieldsEntry, StatusCause } from '../types.js';
import type { SchemaObject } from '../schema.js';
import { FieldSet, pathString, type FieldPath } from './fieldpath.js';
import { compare, compareCreated, merge, pruneDropped, toFieldSet, withNamedFieldsAsMembers, type TypeContext } from './typed.js';


/** One manager's fields. */
export interface ManagerFields {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** Managers by identity (manager, operation, subresource, and the apiVersion of Update entries). */
export type Managed = Map<string, ManagerFields>;

/** The identity of a manager entry: Apply entries of one manager are one, whatever their apiVersion. */
export function managerKey(m: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([m.manager, m.operation, m.operation === 'Apply' ? '' : m.apiVersion, m.subresource]);
}

/** The manager that owns an untracked object's fields when it is first applied to. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';

/** The manager the oldest Update entries are merged into past MAX_UPDATE_MANAGERS. */
export const ANCIENT_CHANGES = 'ancient-changes';

/** The most Update entries an object keeps, as kube-apiserver's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;

/** The annotation kubectl's client-side apply keeps. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Fields no manager owns: the identity and system fields of metadata, apiVersion and kind
 * (paths removed as members only, so `metadata.labels` stays).
 */
const STRIP = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ['f:metadata', 'f:name'],
  ['f:metadata', 'f:namespace'],
  ['f:metadata', 'f:creationTimestamp'],
  ['f:metadata', 'f:selfLink'],
  ['f:metadata', 'f:uid'],
  ['f:metadata', 'f:generation'],
  ['f:metadata', 'f:managedFields'],
  ['f:metadata', 'f:resourceVersion'],
  ['f:metadata', 'f:deletionTimestamp'],
  ['f:metadata', 'f:deletionGracePeriodSeconds'],
);

/**
 * Reads managedFields. Throws an Error describing the first malformed entry. Entries of one
 * identity are united.
 */
export function decodeManagedFields(entries: unknown): Managed {
  const out: Managed = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  for (const [i, raw] of entries.entries()) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`managedFields[${i}] must be an object`);
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`managedFields[${i}].operation: unsupported value ${JSON.stringify(e.operation)}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`managedFields[${i}].fieldsType: unsupported value ${JSON.stringify(e.fieldsType)}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromStoredFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new Error(`managedFields[${i}].fieldsV1: ${(err as Error).message}`);
    }
    const m: ManagerFields = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      subresource: typeof e.subresource === 'string' ? e.subresource : '',
      time: typeof e.time === 'string' ? e.time : undefined,
      set,
    };
    const key = managerKey(m);
    const prev = out.get(key);
    out.set(key, prev ? { ...m, set: prev.set.union(set) } : m);
  }
  return out;
}

/** Writes managedFields in Kubernetes' order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const list = [...managed.values()].filter((m) => !m.set.empty);
  const seconds = (t?: string) => (t ? Date.parse(t) / 1000 : 0);
  list.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
  return list.map((m) => {
    const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    return e;
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A write as the field manager sees it. */
export interface FieldManagerContext extends TypeContext {
  /** The kind's schema. */
  schema: SchemaObject | undefined;
  /** The manager's name (fieldManager, or the User-Agent's first segment). */
  manager: string;
  /** The apiVersion written. */
  apiVersion: string;
  /** "" for the resource itself, "status", "scale". */
  subresource: string;
  /** Now, RFC 3339 with seconds. */
  time: string;
  /** Fields this write may not own (status on the main resource; all but status on /status). */
  ignored?: (set: FieldSet) => FieldSet;
}

/** An object without its managedFields, for comparisons. */
function bare(obj: KubeObject | undefined): KubeObject {
  if (!obj) return {} as KubeObject;
  const { metadata, ...rest } = obj;
  if (!metadata) return rest as KubeObject;
  const { managedFields: _mf, ...m } = metadata as Record<string, unknown>;
  return { ...rest, metadata: m } as KubeObject;
}

function ownable(set: FieldSet, ctx: FieldManagerContext): FieldSet {
  const s = set.difference(STRIP);
  return ctx.ignored ? ctx.ignored(s) : s;
}

/**
 * The managers of a write that is not an apply (create, update, patch): kube-apiserver takes
 * the managedFields the client sent when they decode and are not empty, resets them for `[]`
 * or `[{}]`, and otherwise (and always on a subresource) keeps the live object's.
 */
export function managedForUpdate(live: KubeObject | undefined, next: KubeObject, subresource: string): Managed {
  const liveManaged = () => {
    try {
      return decodeManagedFields(live?.metadata?.managedFields);
    } catch {
      return new Map() as Managed;
    }
  };
  if (subresource) return liveManaged();
  const sent = next.metadata?.managedFields as unknown;
  if (Array.isArray(sent) && (sent.length === 0 || (sent.length === 1 && isEmptyEntry(sent[0])))) return new Map();
  try {
    const m = decodeManagedFields(sent);
    if (m.size > 0) return m;
  } catch {
    // Fall back on the live object's.
  }
  return liveManaged();
}

function isEmptyEntry(e: unknown): boolean {
  return e !== null && typeof e === 'object' && !Array.isArray(e) && Object.keys(e).length === 0;
}

/** What a create adds, and the part of it its manager may own. */
interface CreatedFields {
  added: FieldSet;
  owned: FieldSet;
  removed: FieldSet;
}

/**
 * The fields of created objects by what decides them: the definitions, the schema, the fields
 * the writer may not own (by identity) and the object's layout (createdLayout). Objects created
 * by the same clients have the same few layouts: the sets (never changed once made) and their
 * encodings are shared. Bounded, dropped whole when full.
 */
const createdSets = new Map<string, CreatedFields>();
const CREATED_SETS_MAX = 2048;
/** Layouts longer than this are not remembered (a large object is rarely created twice alike). */
const CREATED_LAYOUT_MAX = 8192;
/** A number for each definitions, schema and `ignored` function met, for the keys of createdSets. */
const identities = new WeakMap<object, number>();
let lastIdentity = 0;
function identity(o: object | undefined): number {
  if (o === undefined) return 0;
  let id = identities.get(o);
  if (id === undefined) identities.set(o, (id = ++lastIdentity));
  return id;
}

/**
 * Writes a string that is the same for two objects exactly when their field sets can differ in
 * nothing but what the schema decides: each map's keys with the layout of their values, any
 * scalar (whose value no field set holds) as `s`, and lists whole (`exact`: their items' keys
 * and values name their path elements), undefined apart (a field that is not there). Stops
 * once `max` is spent (then it is not used).
 */
function createdLayout(v: unknown, out: string[], max: { left: number }, exact: boolean): void {
  if (--max.left < 0) return;
  if (v === undefined) out.push('u');
  else if (Array.isArray(v)) {
    out.push('[');
    for (const item of v) {
      createdLayout(item, out, max, true);
      out.push(',');
    }
    out.push(']');
  } else if (v !== null && typeof v === 'object') {
    out.push('{');
    for (const k of Object.keys(v)) {
      const key = JSON.stringify(k);
      max.left -= key.length;
      out.push(key, ':');
      createdLayout((v as Record<string, unknown>)[k], out, max, exact);
      out.push(',');
    }
    out.push('}');
  } else if (!exact) out.push('s');
  else if (v === null) out.push('n');
  else {
    const text = typeof v === 'string' ? JSON.stringify(v) : `${typeof v}:${String(v)}`;
    max.left -= text.length;
    out.push(text);
  }
}

/** compareCreated of a created object (without its managedFields) and its ownable part, remembered by layout. */
function createdFields(next: KubeObject, ctx: FieldManagerContext): CreatedFields {
  const obj = bare(next);
  const compute = (): CreatedFields => {
    const c = compareCreated(obj, ctx.schema, ctx);
    return { added: c.removed.union(c.modified).union(c.added), owned: ownable(c.modified.union(c.added), ctx), removed: c.removed };
  };
  const parts: string[] = [`${identity(ctx.defs)},${identity(ctx.schema)},${identity(ctx.ignored)},`];
  const max = { left: CREATED_LAYOUT_MAX };
  // apiVersion and kind name the root's type when the schema does not.
  parts.push(typeof obj.apiVersion === 'string' ? JSON.stringify(obj.apiVersion) : 'x', typeof obj.kind === 'string' ? JSON.stringify(obj.kind) : 'x');
  createdLayout(obj, parts, max, false);
  if (max.left < 0) return compute();
  const key = parts.join('');
  let fields = createdSets.get(key);
  if (!fields) {
    fields = compute();
    if (createdSets.size >= CREATED_SETS_MAX) createdSets.clear();
    createdSets.set(key, fields);
  }
  return fields;
}

/**
 * Records an Update: the fields the write added or changed become the manager's (united with
 * what it owned); fields removed leave every manager. Returns the managedFields to store.
 */
export function recordUpdate(live: KubeObject | undefined, next: KubeObject, managed: Managed, ctx: FieldManagerContext): ManagedFieldsEntry[] {
  // An existing object without managedFields (reset, or never tracked) is not tracked by
  // updates: only an apply starts tracking it again (see BEFORE_FIRST_APPLY).
  if (live !== undefined && managed.size === 0) return [];
  let changed: FieldSet;
  let taken: FieldSet;
  let removed: FieldSet;
  if (live === undefined) {
    // A create: every field is added, nothing modified or removed.
    const created = createdFields(next, ctx);
    changed = created.owned;
    taken = created.added;
    removed = created.removed;
  } else {
    const c = compare(bare(live), bare(next), ctx.schema, ctx);
    changed = ownable(c.modified.union(c.added), ctx);
    // An update takes the fields it changes from their owners (a forced write) and removes the
    // fields it deletes from everyone.
    taken = c.removed.union(c.modified).union(c.added);
    removed = c.removed;
  }
  const id = { manager: ctx.manager, operation: 'Update' as const, apiVersion: ctx.apiVersion, subresource: ctx.subresource };
  const key = managerKey(id);
  for (const [k, m] of managed) {
    const set = k === key ? m.set.difference(removed) : m.set.difference(taken);
    if (set.empty) managed.delete(k);
    else managed.set(k, { ...m, set });
  }
  if (!changed.empty) {
    const prev = managed.get(key);
    managed.set(key, { ...id, time: ctx.time, set: prev ? prev.set.union(changed) : changed });
  }
  return encodeManagedFields(capUpdateManagers(managed));
}

/**
 * Keeps at most `max` Update entries, as kube-apiserver does after every update: the oldest
 * ones (by time in seconds, then by identity) are merged, per apiVersion, into one Update
 * entry of the manager `ancient-changes`, which takes the time of the newest entry merged
 * into it; the oldest entry of each apiVersion is merged only once a second one of that
 * apiVersion is. Changes `managed` in place and returns it.
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  const updaters = [...managed.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return managed;
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  // Ties are broken by kube's manager identifier: the entry's JSON without time and fields.
  const ident = (m: ManagerFields) => JSON.stringify({ manager: m.manager, operation: m.operation, apiVersion: m.apiVersion, ...(m.subresource ? { subresource: m.subresource } : {}) });
  updaters.sort(([, a], [, b]) => seconds(a.time) - seconds(b.time) || (ident(a) < ident(b) ? -1 : ident(a) > ident(b) ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [key, m] = updaters[i]!;
    const id = { manager: ANCIENT_CHANGES, operation: 'Update' as const, apiVersion: m.apiVersion, subresource: '' };
    const bucket = managerKey(id);
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, key);
      continue;
    }
    if (!managed.has(bucket)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...id, time: f.time, set: f.set });
    }
    managed.set(bucket, { ...id, time: m.time, set: m.set.union(managed.get(bucket)!.set) });
    managed.delete(key);
    length--;
  }
  return managed;
}

/** One conflict: a field another manager owns with another value. */
export interface Conflict {
  manager: ManagerFields;
  path: FieldPath;
}

/** How Kubernetes names a manager in a conflict. */
function printManager(m: ManagerFields): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/** The 409 of an apply with conflicts, worded as kube-apiserver words it. */
export function conflictError(conflicts: Conflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (conflicts.length === 1) message = `conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  else {
    const by = new Map<string, Conflict[]>();
    for (const c of conflicts) {
      const k = printManager(c.manager);
      by.set(k, [...(by.get(k) ?? []), c]);
    }
    const lines: string[] = [];
    for (const k of [...by.keys()].sort()) {
      lines.push(`conflicts with ${k}:`);
      for (const c of by.get(k)!) lines.push(`- ${pathString(c.path)}`);
    }
    message = lines.join('\n');
  }
  return new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${message}`, { causes });
}

/** Options of an apply. */
export interface ApplyOptions {
  force?: boolean;
}

/**
 * Applies a configuration to a live object (undefined: create by apply). Returns the new
 * object with its managedFields, or throws the 409 of its conflicts. Fields the manager applied
 * before and no longer applies are removed unless another manager owns them.
 */
export function applyConfiguration(live: KubeObject | undefined, config: KubeObject, ctx: FieldManagerContext, opts: ApplyOptions = {}): KubeObject {
  if (config.metadata?.managedFields !== undefined && config.metadata.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
  let managed: Managed;
  try {
    managed = decodeManagedFields(live?.metadata?.managedFields);
  } catch {
    managed = new Map();
  }
  const liveBare = bare(live);
  // An object without managedFields (never tracked, or reset) is first given to a manager
  // "before-first-apply" that owns every field it has, as kube-apiserver does.
  if (live !== undefined && managed.size === 0) {
    const c0 = compareCreated(liveBare, ctx.schema, ctx);
    const owned = ownable(c0.added.union(c0.modified), ctx);
    const id = { manager: BEFORE_FIRST_APPLY, operation: 'Update' as const, apiVersion: ctx.apiVersion, subresource: ctx.subresource };
    if (!owned.empty) managed.set(managerKey(id), { ...id, time: ctx.time, set: owned });
  }
  const merged = merge(liveBare, config, ctx.schema, ctx) as KubeObject;
  const applied = ownable(toFieldSet(config, ctx.schema, ctx), ctx);
  const id = { manager: ctx.manager, operation: 'Apply' as const, apiVersion: ctx.apiVersion, subresource: ctx.subresource };
  const self = managerKey(id);
  const c = compare(liveBare, merged, ctx.schema, ctx);
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  for (const [k, m] of managed) {
    if (k === self) continue;
    for (const p of m.set.intersection(changed).paths()) conflicts.push({ manager: m, path: p });
  }
  if (conflicts.length && !opts.force) {
    // kubectl's upgrade from client-side apply: conflicts on fields of the last applied
    // configuration are taken over.
    const allowed = ctx.manager === 'kubectl' ? lastAppliedFields(live, ctx) : undefined;
    const left = allowed ? conflicts.filter((x) => !allowed.has(x.path)) : conflicts;
    if (left.length) throw conflictError(left);
  }
  for (const x of conflicts) {
    const k = managerKey(x.manager);
    const m = managed.get(k);
    if (m) managed.set(k, { ...m, set: m.set.difference(FieldSet.of(x.path)) });
  }
  for (const [k, m] of managed) {
    const set = m.set.difference(c.removed);
    if (set.empty) managed.delete(k);
    else managed.set(k, { ...m, set });
  }
  // Fields no longer applied and owned by no one else go, whole structs included.
  const last = managed.get(self)?.set;
  if (last && !last.empty) {
    // The applier's set as structured-merge-diff holds it while pruning: the configuration's
    // identity fields included, so metadata itself stays.
    const configSet = toFieldSet(config, ctx.schema, ctx);
    const owned = [...managed.entries()].filter(([k]) => k !== self).reduce((acc, [, m]) => acc.union(m.set), configSet);
    pruneDropped(merged, withNamedFieldsAsMembers(last, ctx.schema, ctx), withNamedFieldsAsMembers(owned, ctx.schema, ctx), ctx.schema, ctx);
  }
  syncLastApplied(live, merged, config, ctx);
  // Applying the same configuration again changes nothing, not even the entry's time: the
  // write is a no-op (no new resourceVersion, no watch event).
  const previous = managed.get(self);
  const noop = live !== undefined && previous !== undefined && previous.set.equals(applied) && isDeepStrictEqual(bare(merged), liveBare);
  managed.set(self, { ...id, time: noop ? previous.time : ctx.time, set: applied });
  const metadata = (merged.metadata ?? {}) as Record<string, unknown>;
  merged.metadata = { ...metadata, managedFields: encodeManagedFields(managed) };
  return merged;
}

function lastAppliedFields(live: KubeObject | undefined, ctx: FieldManagerContext): FieldSet | undefined {
  const text = live?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string') return undefined;
  try {
    return ownable(toFieldSet(JSON.parse(text), ctx.schema, ctx), ctx);
  } catch {
    return undefined;
  }
}

/** kubectl's server-side apply keeps an existing last-applied annotation in step with what it applied. */
function syncLastApplied(live: KubeObject | undefined, merged: KubeObject, config: KubeObject, ctx: FieldManagerContext): void {
  if (ctx.manager !== 'kubectl') return;
  if (typeof live?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION] !== 'string') return;
  const copy = structuredClone(config);
  const ann = copy.metadata?.annotations;
  if (ann) {
    delete ann[LAST_APPLIED_ANNOTATION];
    if (Object.keys(ann).length === 0) delete copy.metadata!.annotations;
  }
  const m = (merged.metadata ??= {});
  // As Go encodes an unstructured object: keys sorted, a newline at the end.
  m.annotations = { ...(m.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: JSON.stringify(sortKeys(copy)) + '\n' };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}
