/**
 * Stage 3: the facts only the Go types give (pointer, omitempty, enums, OpenAPI v3 defaults),
 * joined onto the draft model; the protobuf numbers of the Go struct tags are checked against
 * the ones joined from generated.proto. The default and enum rules follow kube-openapi's
 * generator as used by Kubernetes 1.32 (see README.md).
 */
import type { ItemModel } from '@kplane/api/model';
import type { DraftField, DraftType } from './draft.js';
import { Problems } from './draft.js';
import type { GoMember, GoPackage, GoType } from './goparse.js';
import { marker, tagValue } from './goparse.js';
import type { DraftModel } from './join.js';
import type { PackageSpec } from './packages.js';
import { importPath } from './packages.js';
import { compareNames } from './swagger.js';

/** Every parsed Go package by import path. */
export type GoUniverse = ReadonlyMap<string, GoPackage>;

/** A Go type expression resolved in the package it is written in. */
type GoRef =
  | { readonly kind: 'pointer' | 'slice' | 'map'; readonly elem: GoRef }
  | { readonly kind: 'builtin'; readonly name: string }
  | { readonly kind: 'interface' }
  | { readonly kind: 'named'; readonly pkg: string; readonly name: string; readonly decl: GoType };

const BUILTIN_ZERO: Readonly<Record<string, unknown>> = {
  string: '', bool: false, byte: 0, int: 0, int8: 0, int16: 0, int32: 0, int64: 0,
  uint: 0, uint8: 0, uint16: 0, uint32: 0, uint64: 0, float32: 0, float64: 0,
};

/** The Go import path of a package of the model. */
export function importPathOf(spec: PackageSpec): string {
  return importPath(spec.tree, spec.dir);
}

class Resolver {
  constructor(readonly universe: GoUniverse, readonly problems: Problems) {}

  resolve(expr: string, pkg: string, where: string): GoRef | undefined {
    const e = expr.trim();
    if (e.startsWith('*')) return this.wrap('pointer', e.slice(1), pkg, where);
    if (e.startsWith('[]')) return this.wrap('slice', e.slice(2), pkg, where);
    if (/^\[\d+\]/.test(e)) return this.wrap('slice', e.replace(/^\[\d+\]/, ''), pkg, where);
    if (e.startsWith('map[')) {
      let depth = 0;
      for (let i = 3; i < e.length; i++) {
        if (e[i] === '[') depth++;
        else if (e[i] === ']' && --depth === 0) return this.wrap('map', e.slice(i + 1), pkg, where);
      }
    }
    if (e === 'interface{}' || e === 'any') return { kind: 'interface' };
    if (e in BUILTIN_ZERO) return { kind: 'builtin', name: e };
    const dot = e.indexOf('.');
    const path = dot < 0 ? pkg : this.universe.get(pkg)?.imports.get(e.slice(0, dot));
    const name = dot < 0 ? e : e.slice(dot + 1);
    const decl = path === undefined ? undefined : this.universe.get(path)?.types.get(name);
    if (path === undefined || !decl) {
      this.problems.add(`${where}: Go type ${e} not found`);
      return undefined;
    }
    return { kind: 'named', pkg: path, name, decl };
  }

  private wrap(kind: 'pointer' | 'slice' | 'map', elem: string, pkg: string, where: string): GoRef | undefined {
    const inner = this.resolve(elem, pkg, where);
    return inner && { kind, elem: inner };
  }

  /** The underlying type of a named non-struct type. */
  underlying(ref: GoRef & { kind: 'named' }, where: string): GoRef | undefined {
    return this.resolve(ref.decl.underlying!, ref.pkg, where);
  }

  /** kube-openapi's mustEnforceDefault: `{}` for value structs, zero for non-omitempty scalars. */
  enforcedDefault(ref: GoRef, omitEmpty: boolean, where: string): unknown {
    switch (ref.kind) {
      case 'pointer':
      case 'slice':
      case 'map':
      case 'interface':
        return undefined;
      case 'builtin':
        return omitEmpty ? undefined : BUILTIN_ZERO[ref.name];
      case 'named': {
        if (this.universe.get(ref.pkg)!.unmarshalers.has(ref.name)) return undefined;
        const members = ref.decl.members;
        if (!members) {
          const u = this.underlying(ref, where);
          return u && this.enforcedDefault(u, omitEmpty, where);
        }
        if (members.length === 1 && members[0]!.name === undefined) {
          const only = this.resolve(members[0]!.type, ref.pkg, where);
          return only && this.enforcedDefault(only, omitEmpty, where);
        }
        return {};
      }
    }
  }

  /** kube-openapi's defaultFromComments: a `+default=` marker on the member or along its type. */
  commentDefault(comments: readonly string[], pkg: string, ref: GoRef | undefined, where: string): unknown {
    let tag = marker(comments, 'default');
    let path = pkg;
    let t = ref;
    while (tag === undefined && t) {
      if (t.kind === 'named') {
        tag = marker(t.decl.comments, 'default');
        path = t.pkg;
        t = t.decl.members ? undefined : this.underlying(t, where);
      } else t = t.kind === 'pointer' ? t.elem : undefined;
    }
    if (tag === undefined) return undefined;
    const symbol = /^ref\(([^"]+)\)$/.exec(tag);
    if (symbol) {
      const name = symbol[1]!;
      const c = this.universe.get(path)?.consts.find((k) => k.name === name);
      if (!c) this.problems.add(`${where}: default ${tag} names no string constant`);
      return c ? (c.value ?? this.constValue(path, c.ref!)) : undefined;
    }
    try {
      return JSON.parse(tag) as unknown;
    } catch {
      this.problems.add(`${where}: default ${tag} is not JSON`);
      return undefined;
    }
  }

  /** kube-openapi's generateDefault. */
  defaultOf(comments: readonly string[], pkg: string, ref: GoRef, omitEmpty: boolean, where: string): unknown {
    const def = this.commentDefault(comments, pkg, ref, where);
    const enforced = this.enforcedDefault(ref, omitEmpty, where);
    if (enforced !== undefined && def !== undefined && JSON.stringify(def) !== JSON.stringify(enforced)) {
      this.problems.add(`${where}: default ${JSON.stringify(def)} conflicts with ${JSON.stringify(enforced)}`);
    }
    return def ?? enforced;
  }

  /** The sorted values of a `+enum` type (the type itself or a pointer to it). */
  enumOf(ref: GoRef): string[] | undefined {
    const t = ref.kind === 'pointer' ? ref.elem : ref;
    if (t.kind !== 'named' || t.decl.underlying !== 'string' || marker(t.decl.comments, 'enum') === undefined) return undefined;
    const values = new Set<string>();
    for (const [path, pkg] of [...this.universe].sort((a, b) => compareNames(a[0], b[0]))) {
      for (const c of pkg.consts) {
        const dot = c.type.indexOf('.');
        const cpath = dot < 0 ? path : pkg.imports.get(c.type.slice(0, dot));
        const cname = dot < 0 ? c.type : c.type.slice(dot + 1);
        if (cpath !== t.pkg || cname !== t.name) continue;
        const value = c.value ?? this.constValue(path, c.ref!);
        if (value === undefined) this.problems.add(`${path}: enum constant ${c.name} converts ${c.ref}, which is no string constant`);
        else values.add(value);
      }
    }
    return [...values].sort((a, b) => compareNames(JSON.stringify(a), JSON.stringify(b)));
  }

  /** The string value of the constant `ref` (bare or import-qualified) names from package `path`, following conversions. */
  constValue(path: string, ref: string, depth = 0): string | undefined {
    const dot = ref.indexOf('.');
    const cpath = dot < 0 ? path : this.universe.get(path)?.imports.get(ref.slice(0, dot));
    const c = cpath === undefined ? undefined : this.universe.get(cpath)?.consts.find((k) => k.name === ref.slice(dot + 1));
    if (!c || depth > 8) return undefined;
    return c.value ?? this.constValue(cpath!, c.ref!, depth + 1);
  }

  /** Alias and pointer chains followed to the type kube-openapi writes the schema of. */
  resolved(ref: GoRef, where: string): GoRef | undefined {
    let t: GoRef | undefined = ref;
    for (;;) {
      if (t?.kind === 'pointer') t = t.elem;
      else if (t?.kind === 'named' && !t.decl.members) t = this.underlying(t, where);
      else return t;
    }
  }

  /** The v3 facts of a list's items or a map's values. */
  itemsOf(container: GoRef, where: string): ItemModel | undefined {
    if (container.kind !== 'slice' && container.kind !== 'map') return undefined;
    const elem = container.elem;
    if (container.kind === 'slice' && elem.kind === 'builtin' && elem.name === 'byte') return undefined;
    const comments = elem.kind === 'named' ? elem.decl.comments : [];
    const pkg = elem.kind === 'named' ? elem.pkg : '';
    const item: { default?: unknown; enum?: string[]; items?: ItemModel } = {};
    const def = this.defaultOf(comments, pkg, elem, false, where);
    if (def !== undefined) item.default = def;
    const values = this.enumOf(elem);
    if (values) item.enum = values;
    const inner = this.resolved(elem, where);
    const nested = inner && this.itemsOf(inner, where);
    if (nested) item.items = nested;
    return Object.keys(item).length > 0 ? item : undefined;
  }
}

interface FlatMember {
  readonly json: string;
  readonly member: GoMember;
  readonly pkg: string;
}

/** The JSON members of a Go struct, inline members flattened (as encoding/json and kube-openapi do). */
function flatten(resolver: Resolver, decl: GoType, pkg: string, where: string): FlatMember[] {
  const out: FlatMember[] = [];
  for (const member of decl.members ?? []) {
    const json = tagValue(member.tag, 'json');
    const parts = json === undefined ? [] : json.split(',');
    if (parts[1] === 'inline') {
      const ref = resolver.resolve(member.type, pkg, where);
      const inner = ref && (ref.kind === 'pointer' ? ref.elem : ref);
      if (inner?.kind === 'named' && inner.decl.members) out.push(...flatten(resolver, inner.decl, inner.pkg, where));
      else resolver.problems.add(`${where}: inline member ${member.type} is not a struct`);
      continue;
    }
    const name = parts[0] || member.name;
    if (name === '-' || name === undefined) continue;
    out.push({ json: name, member, pkg });
  }
  return out;
}

/** The number of a protobuf struct tag (`bytes,2,opt,name=x` → 2). */
function tagNumber(tag: string): number | undefined {
  const p = tagValue(tag, 'protobuf');
  return p === undefined ? undefined : Number(p.split(',')[1]);
}

/** Joins the Go facts onto the draft model, in place. */
export function joinGo(model: DraftModel, universe: GoUniverse, problems: Problems): void {
  const resolver = new Resolver(universe, problems);
  for (const [name, entry] of model) {
    const type = entry.type;
    if (type.special || !type.fields) continue;
    const pkg = importPathOf(entry.spec);
    const decl = universe.get(pkg)?.types.get(entry.short);
    if (!decl?.members) {
      problems.add(`${name}: no Go struct ${entry.short} in ${pkg}`);
      continue;
    }
    checkTags(name, type, decl, pkg, resolver, model);
    const flat = flatten(resolver, decl, pkg, name);
    const seen = new Set<string>();
    for (const { json, member, pkg: mpkg } of flat) {
      seen.add(json);
      const field = type.fields[json];
      if (!field) {
        problems.add(`${name}: Go field ${json} is not in the OpenAPI definition`);
        continue;
      }
      applyMember(field, member, mpkg, resolver, `${name}.${json}`);
    }
    for (const json of Object.keys(type.fields)) {
      if (!seen.has(json)) problems.add(`${name}.${json}: no Go field`);
    }
  }
}

function applyMember(field: DraftField, member: GoMember, pkg: string, resolver: Resolver, where: string): void {
  const ref = resolver.resolve(member.type, pkg, where);
  if (!ref) return;
  const json = tagValue(member.tag, 'json') ?? '';
  const omitEmpty = json.split(',').slice(1).includes('omitempty');
  if (ref.kind === 'pointer') field.ptr = true;
  if (!omitEmpty) field.always = true;
  const def = resolver.defaultOf(member.comments, pkg, ref, omitEmpty, where);
  if (def !== undefined && def !== null) field.default = def;
  const values = resolver.enumOf(ref);
  if (values) field.enum = values;
  const resolved = resolver.resolved(ref, where);
  const items = resolved && resolver.itemsOf(resolved, where);
  if (items) field.items = items;
}

/** The protobuf numbers in the Go struct tags agree with the ones joined from generated.proto. */
function checkTags(name: string, type: DraftType, decl: GoType, pkg: string, resolver: Resolver, model: DraftModel): void {
  const embedded = new Map((type.embedded ?? []).map((e) => [e.proto, e.type]));
  for (const member of decl.members ?? []) {
    const number = tagNumber(member.tag);
    const json = (tagValue(member.tag, 'json') ?? '').split(',');
    if (json[1] === 'inline') {
      if (number === undefined) continue;
      const target = embedded.get(number);
      const ref = resolver.resolve(member.type, pkg, name);
      const inner = ref && (ref.kind === 'pointer' ? ref.elem : ref);
      if (!target || inner?.kind !== 'named' || !target.endsWith(`.${inner.name}`) || !model.has(target)) {
        resolver.problems.add(`${name}: embedded ${member.type} = ${number} is not in the model's embedded list`);
      }
      continue;
    }
    const field = json[0] ? type.fields?.[json[0]] : undefined;
    if (!field) continue;
    if (field.proto !== number) {
      resolver.problems.add(`${name}.${json[0]}: protobuf number ${String(field.proto)} but Go tag says ${String(number)}`);
    }
  }
}
