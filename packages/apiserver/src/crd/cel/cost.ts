/**
 * Static worst-case cost estimation of CEL expressions, following cel-go's checker cost model
 * and Kubernetes' library estimates: identifiers and selections cost 1, most calls 1 plus their
 * arguments, string operations a tenth of the string length, comprehensions the loop body times
 * the largest possible list. Sizes come from the schema (maxLength, maxItems, maxProperties) or,
 * when unbounded, from the largest request kube-apiserver accepts (3 MiB).
 */
import type { SchemaObject } from '@kplane/api';
import type { ASTNode } from '@marcbachmann/cel-js';
import { propertyOf } from './escaping.js';

/** The largest uint64 (as cel-go saturates). */
export const MAX_COST = 18446744073709551615;
/** Largest request body kube-apiserver accepts: bounds unbounded strings and lists. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/** A [min, max] estimate. */
export interface Range {
  min: number;
  max: number;
}

/** What the estimator knows about an expression. */
interface Info {
  cost: Range;
  type: string;
  size?: Range;
  schema?: SchemaObject;
  /** Element of a list / value of a map. */
  elem?: Info;
}

const SCALARS = new Set(['int', 'uint', 'double', 'bool', 'null', 'timestamp', 'duration', 'type']);

function sat(n: number): number {
  return n > MAX_COST ? MAX_COST : n;
}
function add(a: Range, b: Range): Range {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}
function factor(r: Range, f: number): Range {
  return { min: Math.ceil(r.min * f), max: sat(Math.ceil(r.max * f)) };
}
function times(a: Range, b: Range): Range {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}
function union(a: Range, b: Range): Range {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}
const ONE: Range = { min: 1, max: 1 };
const ZERO: Range = { min: 0, max: 0 };
const UNBOUNDED: Range = { min: 0, max: MAX_COST };

/** The smallest JSON encoding of a value of this schema (Kubernetes' estimateMinSizeJSON). */
function minJsonSize(s: SchemaObject | undefined): number {
  if (!s) return 0;
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'boolean':
      return 4;
    case 'number':
    case 'integer':
      return 1;
    case 'string':
      return 2;
    case 'array':
      return 2;
    case 'object': {
      let size = 2;
      for (const r of s.required ?? []) size += r.length + 4 + minJsonSize(s.properties?.[r]);
      return size;
    }
    default:
      return 0;
  }
}

/** Largest element count of a list or map schema. */
export function maxElements(s: SchemaObject): number {
  if (s.type === 'array') return s.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minJsonSize(s.items) + 1));
  if (s.type === 'object' && typeof s.additionalProperties === 'object') {
    return s.maxProperties ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minJsonSize(s.additionalProperties) + 6));
  }
  return s.maxProperties ?? Object.keys(s.properties ?? {}).length;
}

function maxStringLength(s: SchemaObject): number {
  if (s.maxLength !== undefined) return s.maxLength;
  if (s.format === 'duration') return 32;
  if (s.format === 'date') return 12;
  if (s.format === 'date-time') return 34;
  return MAX_REQUEST_BYTES - 2;
}

/** The CEL type name and size of values of a schema. */
export function schemaInfo(s: SchemaObject | undefined, cost: Range = ONE): Info {
  if (!s) return { cost, type: 'dyn' };
  if (s['x-kubernetes-int-or-string']) return { cost, type: 'dyn', schema: s, size: { min: 0, max: MAX_REQUEST_BYTES - 2 } };
  switch (s.type) {
    case 'integer':
      return { cost, type: 'int', schema: s };
    case 'number':
      return { cost, type: 'double', schema: s };
    case 'boolean':
      return { cost, type: 'bool', schema: s };
    case 'string':
      if (s.format === 'date-time') return { cost, type: 'timestamp', schema: s };
      if (s.format === 'duration') return { cost, type: 'duration', schema: s };
      return { cost, type: s.format === 'byte' ? 'bytes' : 'string', schema: s, size: { min: s.minLength ?? 0, max: maxStringLength(s) } };
    case 'array':
      return { cost, type: 'list', schema: s, size: { min: s.minItems ?? 0, max: maxElements(s) }, elem: schemaInfo(s.items) };
    case 'object': {
      const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      const elem = additional ? schemaInfo(additional) : s['x-kubernetes-preserve-unknown-fields'] && !s.properties ? { cost: ONE, type: 'dyn' } : undefined;
      return { cost, type: 'map', schema: s, size: { min: s.minProperties ?? 0, max: maxElements(s) }, elem };
    }
    default:
      return { cost, type: 'dyn', schema: s };
  }
}

function sizeOf(i: Info): Range {
  if (i.size) return i.size;
  if (SCALARS.has(i.type)) return ONE;
  return UNBOUNDED;
}

function childInfo(parent: Info, field: string | undefined): Info {
  const s = parent.schema;
  if (!s) return { cost: ONE, type: 'dyn' };
  if (s.type === 'array') return schemaInfo(s.items);
  const prop = field === undefined ? undefined : propertyOf(s, field);
  if (prop !== undefined) return schemaInfo(s.properties![prop]);
  if (typeof s.additionalProperties === 'object') return schemaInfo(s.additionalProperties);
  if (field === 'metadata' || field === 'apiVersion' || field === 'kind') return field === 'metadata' ? { cost: ONE, type: 'map' } : { cost: ONE, type: 'string', size: { min: 0, max: MAX_REQUEST_BYTES - 2 } };
  return { cost: ONE, type: 'dyn' };
}

/** Variables in scope while estimating. */
export type Scope = Map<string, Info>;

/** A scope with `self` (and `oldSelf`) typed by a schema. */
export function ruleScope(schema: SchemaObject): Scope {
  const self = schemaInfo(schema);
  return new Map([
    ['self', self],
    ['oldSelf', self],
  ]);
}

const literalInfo = (v: unknown): Info => {
  if (typeof v === 'string') return { cost: ZERO, type: 'string', size: { min: [...v].length, max: [...v].length } };
  if (typeof v === 'bigint') return { cost: ZERO, type: 'int' };
  if (typeof v === 'number') return { cost: ZERO, type: 'double' };
  if (typeof v === 'boolean') return { cost: ZERO, type: 'bool' };
  if (v === null) return { cost: ZERO, type: 'null' };
  if (v instanceof Uint8Array) return { cost: ZERO, type: 'bytes', size: { min: v.length, max: v.length } };
  return { cost: ZERO, type: 'dyn' };
};

/** Estimates an expression's cost (and type/size) in a scope. */
export function estimate(node: ASTNode, scope: Scope): Info {
  const n = node as unknown as { op: string; args: unknown };
  const a = n.args as unknown[];
  switch (n.op) {
    case 'value':
      return literalInfo(n.args);
    case 'id':
      return { ...(scope.get(n.args as string) ?? { type: 'dyn' }), cost: ONE };
    case '.':
    case '.?': {
      const target = estimate(a[0] as ASTNode, scope);
      const c = childInfo(target, a[1] as string);
      return { ...c, cost: add(target.cost, ONE), type: n.op === '.?' ? 'optional' : c.type };
    }
    case '[]':
    case '[?]': {
      const target = estimate(a[0] as ASTNode, scope);
      const idx = estimate(a[1] as ASTNode, scope);
      const lit = (a[1] as { op: string; args: unknown }).op === 'value' ? String((a[1] as { args: unknown }).args) : undefined;
      const c = target.type === 'list' || target.type === 'map' ? (target.elem ?? childInfo(target, lit)) : childInfo(target, lit);
      return { ...c, cost: add(add(target.cost, idx.cost), ONE) };
    }
    case '!_':
    case '-_': {
      const x = estimate(n.args as ASTNode, scope);
      return { cost: add(x.cost, ONE), type: n.op === '!_' ? 'bool' : x.type };
    }
    case '&&':
    case '||': {
      const l = estimate(a[0] as ASTNode, scope);
      const r = estimate(a[1] as ASTNode, scope);
      return { cost: { min: l.cost.min, max: sat(l.cost.max + r.cost.max) }, type: 'bool' };
    }
    case '?:': {
      const c = estimate(a[0] as ASTNode, scope);
      const t = estimate(a[1] as ASTNode, scope);
      const f = estimate(a[2] as ASTNode, scope);
      return { cost: add(c.cost, union(t.cost, f.cost)), type: t.type === f.type ? t.type : 'dyn', size: union(sizeOf(t), sizeOf(f)), schema: t.schema ?? f.schema, elem: t.elem ?? f.elem };
    }
    case 'list': {
      const items = (n.args as ASTNode[]).map((x) => estimate(x, scope));
      const cost = items.reduce((s, i) => add(s, i.cost), { min: 10, max: 10 });
      return { cost, type: 'list', size: { min: items.length, max: items.length }, elem: items[0] };
    }
    case 'map': {
      const entries = n.args as [ASTNode, ASTNode][];
      let cost: Range = { min: 30, max: 30 };
      for (const [k, v] of entries) cost = add(cost, add(estimate(k, scope).cost, estimate(v, scope).cost));
      return { cost, type: 'map', size: { min: entries.length, max: entries.length } };
    }
    case 'call':
      return estimateCall(a[0] as string, undefined, a[1] as ASTNode[], scope);
    case 'rcall':
      return estimateCall(a[0] as string, a[1] as ASTNode, a[2] as ASTNode[], scope);
    default:
      return estimateOperator(n.op, a as ASTNode[], scope);
  }
}

function argSum(infos: Info[]): Range {
  return infos.reduce((s, i) => add(s, i.cost), ZERO);
}

function estimateOperator(op: string, args: ASTNode[], scope: Scope): Info {
  const [l, r] = args.map((x) => estimate(x, scope)) as [Info, Info];
  const base = add(l.cost, r.cost);
  const textual = (i: Info) => i.type === 'string' || i.type === 'bytes' || i.type === 'list';
  switch (op) {
    case '+':
      if (textual(l) || textual(r)) {
        const size = add(sizeOf(l), sizeOf(r));
        return { cost: add(factor(size, STRING_TRAVERSAL), base), type: l.type === 'dyn' ? r.type : l.type, size, elem: l.elem ?? r.elem };
      }
      return { cost: add(base, ONE), type: l.type };
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if (op !== '==' && op !== '!=' && !(l.type === 'string' || l.type === 'bytes')) return { cost: add(base, ONE), type: 'bool' };
      const smallest = Math.min(sizeOf(l).max, sizeOf(r).max);
      return { cost: add(factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL), base), type: 'bool' };
    }
    case 'in':
      return { cost: add(sizeOf(r), base), type: 'bool' };
    default:
      return { cost: add(base, ONE), type: l.type };
  }
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function estimateMacro(name: string, range: Info, args: ASTNode[], scope: Scope): Info {
  const varName = (args[0] as unknown as { args: string }).args;
  const inner = new Map(scope);
  const elem = range.type === 'map' ? { cost: ONE, type: 'string', size: UNBOUNDED } : (range.elem ?? { cost: ONE, type: 'dyn' });
  inner.set(varName, elem);
  const bodies = args.slice(1).map((x) => estimate(x, inner));
  const body = argSum(bodies);
  const n = sizeOf(range);
  const loop = (perIteration: number, fixed: number): Range => add(add(range.cost, { min: fixed, max: fixed }), times(n, add(body, { min: perIteration, max: perIteration })));
  switch (name) {
    case 'all':
      return { cost: loop(3, 1), type: 'bool' };
    case 'exists':
      return { cost: loop(4, 1), type: 'bool' };
    case 'exists_one':
      return { cost: loop(2, 2), type: 'bool' };
    case 'map':
      return { cost: loop(13, 11), type: 'list', size: n, elem: bodies[bodies.length - 1] };
    default:
      return { cost: loop(14, 11), type: 'list', size: { min: 0, max: n.max }, elem };
  }
}

function estimateCall(name: string, target: ASTNode | undefined, args: ASTNode[], scope: Scope): Info {
  if (name === 'has') {
    const sel = args[0] as unknown as { args: [ASTNode, string] };
    const t = estimate(sel.args[0], scope);
    return { cost: add(t.cost, ONE), type: 'bool' };
  }
  if (target && (target as unknown as { op: string; args: unknown }).op === 'id' && (target as unknown as { args: string }).args === 'cel' && name === 'bind') {
    const varName = (args[0] as unknown as { args: string }).args;
    const init = estimate(args[1]!, scope);
    const inner = new Map(scope);
    inner.set(varName, { ...init, cost: ONE });
    const body = estimate(args[2]!, inner);
    return { ...body, cost: add(init.cost, body.cost) };
  }
  const t = target ? estimate(target, scope) : undefined;
  if (t && MACROS.has(name)) return estimateMacro(name, t, args, scope);
  const infos = args.map((x) => estimate(x, scope));
  const sum = add(argSum(infos), t?.cost ?? ZERO);
  const recv = t ?? infos[0];
  const with_ = (cost: Range, type: string, extra: Partial<Info> = {}): Info => ({ cost: add(cost, sum), type, ...extra });
  switch (name) {
    case 'size':
      return with_(ONE, 'int');
    case 'startsWith':
    case 'endsWith':
      return with_(factor(sizeOf(infos[0]!), STRING_TRAVERSAL), 'bool');
    case 'contains':
      return with_(times(factor(sizeOf(recv!), STRING_TRAVERSAL), factor(sizeOf(infos[t ? 0 : 1]!), STRING_TRAVERSAL)), 'bool');
    case 'matches':
    case 'find':
    case 'findAll': {
      const str = t ? recv! : infos[0]!;
      const re = t ? infos[0]! : infos[1]!;
      const c = times(factor(add(sizeOf(str), ONE), STRING_TRAVERSAL), factor(sizeOf(re), REGEX_LENGTH));
      return with_(c, name === 'matches' ? 'bool' : name === 'find' ? 'string' : 'list', name === 'matches' ? {} : { size: { min: 0, max: sizeOf(str).max } });
    }
    case 'lowerAscii':
    case 'upperAscii':
    case 'trim':
    case 'substring':
    case 'reverse':
      return with_(factor(sizeOf(recv!), STRING_TRAVERSAL), 'string', { size: sizeOf(recv!) });
    case 'replace':
      return with_(factor(sizeOf(recv!), 2 * STRING_TRAVERSAL), 'string', { size: UNBOUNDED });
    case 'split':
      return with_(factor(sizeOf(recv!), 2 * STRING_TRAVERSAL), 'list', { size: { min: 0, max: sizeOf(recv!).max }, elem: { cost: ONE, type: 'string', size: sizeOf(recv!) } });
    case 'join': {
      const size = times(sizeOf(recv!), sizeOf(recv!.elem ?? { cost: ONE, type: 'dyn' }));
      return with_(factor(size, STRING_TRAVERSAL), 'string', { size });
    }
    case 'format':
      return with_(factor(sizeOf(recv!), STRING_TRAVERSAL), 'string');
    case 'url':
    case 'quantity':
    case 'isURL':
    case 'isQuantity':
      return with_(factor(sizeOf(infos[0]!), STRING_TRAVERSAL), name.startsWith('is') ? 'bool' : name);
    case 'indexOf':
    case 'lastIndexOf':
      if (recv?.type === 'list') return with_(times(sizeOf(recv), elementCost(recv)), 'int');
      return with_(factor(sizeOf(recv!), STRING_TRAVERSAL), 'int');
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
      return with_(times(sizeOf(recv!), elementCost(recv!)), name === 'isSorted' ? 'bool' : (recv!.elem?.type ?? 'dyn'));
    case 'string':
      return with_(ONE, 'string', infos[0]?.type === 'string' ? { size: sizeOf(infos[0]) } : {});
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'timestamp':
    case 'duration':
      return with_(ONE, name);
    case 'dyn':
      return { ...infos[0]!, cost: add(infos[0]!.cost, ONE) };
    default:
      return with_(ONE, 'dyn');
  }
}

function elementCost(list: Info): Range {
  const el = list.elem;
  if (el && (el.type === 'string' || el.type === 'bytes')) return add(ONE, factor(sizeOf(el), STRING_TRAVERSAL));
  return ONE;
}

/** The worst-case cost of a parsed expression with `self` typed by `schema`. */
export function estimateCost(ast: ASTNode, schema: SchemaObject): number {
  return estimate(ast, ruleScope(schema)).cost.max;
}

/**
 * Kubernetes' message for a cost over its limit:
 * `<what> exceeds budget by factor of more than 100x (try simplifying the rule, ...)`.
 */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factorText = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factorText} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** Largest cost of one expression (rule cost times how often it can run). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest total cost of all the rules of one CRD version's schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
