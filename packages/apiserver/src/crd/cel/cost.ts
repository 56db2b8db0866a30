/**
 * Static worst-case cost estimation of CEL expressions, as kube-apiserver computes it when a
 * CRD is written: cel-go's checker cost model (identifiers and selections 1, `has` 0, literals
 * 0, list and map literals 10 and 30, comprehensions their range times condition plus step,
 * string operations a tenth of the length they traverse), Kubernetes' library cost functions,
 * and sizes from the schema as Kubernetes' declared types bound them (`maxLength` × 4 bytes,
 * `maxItems`, `maxProperties`, enums, formats, or what fits in a 3 MiB request).
 */
import type { SchemaObject } from '@kplane/api';
import type { ASTNode } from '@marcbachmann/cel-js';
import { decl, type Decl } from './decl.js';

export { maxElements } from './decl.js';

/** The largest uint64 (as cel-go saturates). */
export const MAX_COST = 18446744073709551615;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const ACCUMULATOR = '__result__';

/** A [min, max] estimate. */
export interface Range {
  min: number;
  max: number;
}

/** What the estimator knows about an expression (cel-go's AstNode). */
interface Info {
  cost: Range;
  /** CEL type kind: int, uint, double, bool, string, bytes, timestamp, duration, list, map, object, optional, dyn. */
  type: string;
  /** The field path from a variable (cel-go's exprPath), which sizes come from. */
  path?: string[];
  /** A size known from the expression itself (literals, derived results). */
  computed?: Range;
  /** The declared type, for selections and elements. */
  decl?: Decl;
  /** The element type of a list (or value type of a map) that is not declared. */
  elem?: Info;
  /** The value of a literal. */
  lit?: unknown;
}

const sat = (n: number): number => (n > MAX_COST ? MAX_COST : n);
const add = (a: Range, b: Range): Range => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
const mul = (a: Range, b: Range): Range => ({ min: sat(a.min * b.min), max: sat(a.max * b.max) });
const factor = (r: Range, f: number): Range => ({ min: sat(Math.ceil(r.min * f)), max: sat(Math.ceil(r.max * f)) });
const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const fixed = (n: number): Range => ({ min: n, max: n });
const ZERO = fixed(0);
const ONE = fixed(1);
const UNBOUNDED: Range = { min: 0, max: MAX_COST };
const SCALARS = new Set(['bool', 'double', 'duration', 'int', 'timestamp', 'uint']);

/** One estimation: the declared type of the rule's node, and the variables in scope. */
interface Ctx {
  root: Decl | undefined;
  /** Comprehension variables: the path of their range and whether it is a map (keys) or a list (items). */
  iter: Map<string, { rangePath: string[] | undefined; map: boolean; elem: Info }>;
  /** Variables bound by cel.bind (or self, oldSelf): their type. */
  vars: Map<string, Info>;
}

/** cel-go's sizeEstimator: the declared type at a path, as Kubernetes bounds it (Min 0). */
function pathSize(ctx: Ctx, path: string[] | undefined): Range | undefined {
  if (!path || path.length === 0 || path[0] === ACCUMULATOR) return undefined;
  let node = ctx.root;
  for (const name of path.slice(1)) {
    if (!node) return undefined;
    node = name === '@items' || name === '@values' ? node.elem : name === '@keys' ? node.key : node.fields?.get(name);
  }
  return node ? { min: 0, max: node.maxElements } : undefined;
}

/** cel-go's coster.sizeEstimate: computed, from the path, 1 for scalars, else unbounded. */
function size(ctx: Ctx, i: Info): Range {
  return i.computed ?? pathSize(ctx, i.path) ?? (SCALARS.has(i.type) ? ONE : UNBOUNDED);
}

/** Kubernetes' library CostEstimator.sizeEstimate (no scalar default). */
function libSize(ctx: Ctx, i: Info): Range {
  return i.computed ?? pathSize(ctx, i.path) ?? UNBOUNDED;
}

function fromDecl(d: Decl | undefined, path: string[] | undefined): Info {
  return { cost: ONE, type: d?.type ?? 'dyn', path, decl: d };
}

function elementOf(ctx: Ctx, list: Info, suffix: '@items' | '@values'): Info {
  const path = [...(list.path ?? []), suffix];
  if (list.decl?.elem) return fromDecl(list.decl.elem, path);
  return { ...(list.elem ?? { type: 'dyn', cost: ONE }), cost: ONE, path };
}

function literal(v: unknown): Info {
  if (typeof v === 'string') return { cost: ZERO, type: 'string', computed: fixed([...v].length) };
  if (v instanceof Uint8Array || (v !== null && typeof v === 'object' && '0' in (v as object))) {
    const n = v instanceof Uint8Array ? v.length : Object.keys(v as object).length;
    return { cost: ZERO, type: 'bytes', computed: fixed(n) };
  }
  const type = typeof v === 'bigint' ? 'int' : typeof v === 'number' ? 'double' : typeof v === 'boolean' ? 'bool' : v === null ? 'null' : 'uint';
  return { cost: ZERO, type, computed: ONE, lit: v };
}

type Node = { op: string; args: unknown };

/** Estimates an expression's cost (and type and size). */
function estimate(node: ASTNode, ctx: Ctx): Info {
  const n = node as unknown as Node;
  const a = n.args as unknown[];
  switch (n.op) {
    case 'value':
      return literal(n.args);
    case 'id':
      return ident(n.args as string, ctx);
    case '.': {
      const target = estimate(a[0] as ASTNode, ctx);
      const field = a[1] as string;
      const path = [...(target.path ?? []), field];
      const d = target.decl?.fields?.get(field) ?? (target.decl?.type === 'map' ? target.decl.elem : undefined);
      const selectCost = target.type === 'dyn' && !target.decl ? ZERO : ONE;
      return { ...fromDecl(d, path), cost: add(target.cost, selectCost) };
    }
    case '.?': {
      // _?._(target, "field"): a call, 1 plus its arguments.
      const target = estimate(a[0] as ASTNode, ctx);
      const d = target.decl?.fields?.get(a[1] as string) ?? (target.decl?.type === 'map' ? target.decl.elem : undefined);
      return { cost: add(target.cost, ONE), type: 'optional', decl: d };
    }
    case '[]':
    case '[?]': {
      const target = estimate(a[0] as ASTNode, ctx);
      const idx = estimate(a[1] as ASTNode, ctx);
      const cost = add(add(target.cost, idx.cost), ONE);
      if (n.op === '[?]') return { cost, type: 'optional' };
      if (target.type === 'list') return { ...elementOf(ctx, target, '@items'), cost };
      if (target.type === 'map' || target.type === 'object') return { ...elementOf(ctx, target, '@values'), cost };
      return { cost, type: 'dyn' };
    }
    case '!_':
    case '-_': {
      const operand = n.args as unknown as Node;
      // CEL's parser reads a minus sign before a number as a negative literal.
      if (n.op === '-_' && operand.op === 'value' && (typeof operand.args === 'bigint' || typeof operand.args === 'number')) return literal(operand.args);
      const x = estimate(n.args as ASTNode, ctx);
      return { cost: add(x.cost, ONE), type: n.op === '!_' ? 'bool' : x.type };
    }
    case '&&':
    case '||': {
      const l = estimate(a[0] as ASTNode, ctx);
      const r = estimate(a[1] as ASTNode, ctx);
      return { cost: { min: l.cost.min, max: sat(l.cost.max + r.cost.max) }, type: 'bool' };
    }
    case '?:': {
      const c = estimate(a[0] as ASTNode, ctx);
      const t = estimate(a[1] as ASTNode, ctx);
      const f = estimate(a[2] as ASTNode, ctx);
      const type = t.type === f.type ? t.type : t.type === 'dyn' ? f.type : t.type;
      return { cost: add(c.cost, union(t.cost, f.cost)), type, computed: union(size(ctx, t), size(ctx, f)), decl: t.decl ?? f.decl, elem: t.elem ?? f.elem };
    }
    case 'list': {
      const items = (n.args as ASTNode[]).map((x) => estimate(x, ctx));
      const cost = items.reduce((s, i) => add(s, i.cost), fixed(10));
      return { cost, type: 'list', computed: fixed(items.length), elem: items[0] };
    }
    case 'map': {
      const entries = n.args as [ASTNode, ASTNode][];
      let cost = fixed(30);
      let elem: Info | undefined;
      for (const [k, v] of entries) {
        const vi = estimate(v, ctx);
        elem ??= vi;
        cost = add(cost, add(estimate(k, ctx).cost, vi.cost));
      }
      return { cost, type: 'map', computed: fixed(entries.length), elem };
    }
    case 'call':
      return call(a[0] as string, undefined, a[1] as ASTNode[], ctx);
    case 'rcall':
      return call(a[0] as string, a[1] as ASTNode, a[2] as ASTNode[], ctx);
    default:
      return operator(n.op, a as ASTNode[], ctx);
  }
}

function ident(name: string, ctx: Ctx): Info {
  const it = ctx.iter.get(name);
  if (it) return { ...it.elem, cost: ONE, path: [...(it.rangePath ?? []), it.map ? '@keys' : '@items'] };
  const v = ctx.vars.get(name);
  return { ...(v ?? { type: 'dyn' }), cost: ONE, path: [name], computed: undefined };
}

function argSum(infos: Info[]): Range {
  return infos.reduce((s, i) => add(s, i.cost), ZERO);
}

/** cel-go's size-based cost of ==, != and string/bytes ordering. */
function compareCost(ctx: Ctx, l: Info, r: Info): Range {
  const smallest = Math.min(size(ctx, l).max, size(ctx, r).max);
  return factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL);
}

function operator(op: string, args: ASTNode[], ctx: Ctx): Info {
  const [l, r] = args.map((x) => estimate(x, ctx)) as [Info, Info];
  const base = add(l.cost, r.cost);
  switch (op) {
    case '+': {
      const kind = l.type === 'dyn' ? r.type : l.type;
      if (kind === 'string' || kind === 'bytes' || kind === 'list') {
        const result = add(size(ctx, l), size(ctx, r));
        const cost = kind === 'list' ? add(ONE, base) : add(factor(result, STRING_TRAVERSAL), base);
        return { cost, type: kind, computed: result, elem: l.elem ?? r.elem, decl: kind === 'list' ? (l.decl ?? r.decl) : undefined };
      }
      return { cost: add(base, ONE), type: kind };
    }
    case '==':
      // Kubernetes prices == on its own types: quantities 1, URLs a tenth of the right side's size.
      if (l.type === 'Quantity' && r.type === 'Quantity') return { cost: add(ONE, base), type: 'bool' };
      if (l.type === 'URL' && r.type === 'URL') return { cost: add(factor({ min: 1, max: r.computed?.max ?? 1 }, STRING_TRAVERSAL), base), type: 'bool' };
      return { cost: add(compareCost(ctx, l, r), base), type: 'bool' };
    case '!=':
      return { cost: add(compareCost(ctx, l, r), base), type: 'bool' };
    case '<':
    case '<=':
    case '>':
    case '>=':
      if (l.type === 'string' || l.type === 'bytes') return { cost: add(compareCost(ctx, l, r), base), type: 'bool' };
      return { cost: add(base, ONE), type: 'bool' };
    case 'in':
      if (r.type === 'list') return { cost: add(size(ctx, r), base), type: 'bool' };
      return { cost: add(base, ONE), type: 'bool' };
    default:
      return { cost: add(base, ONE), type: l.type === 'dyn' ? r.type : l.type };
  }
}

/** A comprehension: range, init and result once, condition and step once per element. */
function comprehension(name: string, target: Info, args: ASTNode[], ctx: Ctx): Info {
  const varName = (args[0] as unknown as { args: string }).args;
  const map = target.type === 'map' || target.type === 'object';
  const elem: Info = map ? { cost: ONE, type: 'string', decl: target.decl?.key } : elementOf(ctx, target, '@items');
  const inner: Ctx = { ...ctx, iter: new Map(ctx.iter).set(varName, { rangePath: target.path, map, elem: { ...elem, path: undefined } }) };
  const bodies = args.slice(1).map((x) => estimate(x, inner));
  const p = bodies[bodies.length - 1]!.cost;
  const n = size(ctx, target);
  // init + result, and condition + step, of cel-go's macro expansions.
  let once: Range;
  let each: Range;
  switch (name) {
    case 'all': // init true; cond @not_strictly_false(accu); step accu && p; result accu
      [once, each] = [ONE, add(fixed(3), p)];
      break;
    case 'exists': // init false; cond @not_strictly_false(!accu); step accu || p
      [once, each] = [ONE, add(fixed(4), p)];
      break;
    case 'exists_one': // init 0; cond true; step p ? accu + 1 : accu; result accu == 1
      [once, each] = [fixed(2), add(fixed(2), p)];
      break;
    case 'map': // init []; cond true; step [filter ?] accu + [f] [: accu]; result accu
      [once, each] = [fixed(11), add(fixed(12), bodies.length === 2 ? add(bodies[0]!.cost, p) : p)];
      break;
    default: // filter: step p ? accu + [x] : accu
      [once, each] = [fixed(11), add(fixed(13), p)];
  }
  const cost = add(add(target.cost, once), mul(n, each));
  if (name === 'map') return { cost, type: 'list', computed: n, elem: bodies[bodies.length - 1] };
  if (name === 'filter') return { cost, type: 'list', computed: n, decl: target.decl, elem: target.elem };
  return { cost, type: 'bool', computed: n };
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function call(name: string, targetNode: ASTNode | undefined, args: ASTNode[], ctx: Ctx): Info {
  if (name === 'has' && !targetNode) {
    // A presence test costs its operand only (Kubernetes keeps has() free).
    const sel = args[0] as unknown as { op: string; args: [ASTNode, string] };
    return { cost: sel.op === '.' ? estimate(sel.args[0], ctx).cost : estimate(args[0]!, ctx).cost, type: 'bool' };
  }
  const tn = targetNode as unknown as Node | undefined;
  if (tn?.op === 'id' && tn.args === 'cel' && name === 'bind') {
    // A comprehension over [] (10) whose accumulator is the variable.
    const varName = (args[0] as unknown as { args: string }).args;
    const init = estimate(args[1]!, ctx);
    const inner: Ctx = { ...ctx, vars: new Map(ctx.vars).set(varName, { ...init, path: undefined }) };
    const iter = new Map(ctx.iter);
    iter.delete(varName);
    inner.iter = iter;
    const body = estimate(args[2]!, inner);
    return { ...body, cost: add(add(fixed(10), init.cost), body.cost) };
  }
  const target = targetNode ? estimate(targetNode, ctx) : undefined;
  if (target && MACROS.has(name)) return comprehension(name, target, args, ctx);
  const infos = args.map((x) => estimate(x, ctx));
  const sum = add(argSum(infos), target?.cost ?? ZERO);
  const out = (cost: Range, type: string, extra: Partial<Info> = {}): Info => ({ cost: add(cost, sum), type, ...extra });
  const lib = library(name, target, infos, ctx);
  if (lib) return out(lib.cost, lib.type, lib.extra);
  return out(ONE, resultType(name, target, infos));
}

/** Kubernetes' CostEstimator.EstimateCallCost and cel-go's per-overload estimates. */
function library(name: string, t: Info | undefined, args: Info[], ctx: Ctx): { cost: Range; type: string; extra?: Partial<Info> } | undefined {
  switch (name) {
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!t) return undefined;
      const type = name === 'isSorted' ? 'bool' : name === 'indexOf' || name === 'lastIndexOf' ? 'int' : 'dyn';
      if (t.type === 'list') {
        const el = elementOf(ctx, t, '@items');
        let elCost = ONE;
        if (el.type === 'string' || el.type === 'bytes') elCost = add(elCost, factor(libSize(ctx, el), STRING_TRAVERSAL));
        return { cost: mul(libSize(ctx, t), elCost), type: type === 'dyn' ? el.type : type };
      }
      return { cost: factor(libSize(ctx, t), STRING_TRAVERSAL), type };
    }
    case 'url':
      if (args.length !== 1) return undefined;
      return { cost: factor(libSize(ctx, args[0]!), STRING_TRAVERSAL), type: 'URL', extra: { computed: libSize(ctx, args[0]!) } };
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim': {
      if (!t) return undefined;
      const sz = libSize(ctx, t);
      return { cost: factor(sz, STRING_TRAVERSAL), type: 'string', extra: { computed: sz } };
    }
    case 'replace':
      if (!t || args.length < 2) return undefined;
      return { cost: factor(libSize(ctx, t), 2 * STRING_TRAVERSAL), type: 'string', extra: { computed: replaceSize(libSize(ctx, t), libSize(ctx, args[0]!), libSize(ctx, args[1]!)) } };
    case 'split': {
      if (!t) return undefined;
      const sz = libSize(ctx, t);
      const limit = args[1] ? literalInt(args[1]) : undefined;
      return { cost: factor(sz, 2 * STRING_TRAVERSAL), type: 'list', extra: { computed: { min: 0, max: limit ?? sz.max }, elem: { cost: ONE, type: 'string' } } };
    }
    case 'join': {
      if (!t) return undefined;
      const listSize = libSize(ctx, t);
      let sz = t.type === 'list' ? mul(listSize, libSize(ctx, elementOf(ctx, t, '@items'))) : ZERO;
      if (args.length > 0) sz = add(sz, mul(libSize(ctx, args[0]!), { min: listSize.min > 0 ? listSize.min - 1 : 0, max: listSize.max > 0 ? listSize.max - 1 : 0 }));
      return { cost: factor(sz, STRING_TRAVERSAL), type: 'string', extra: { computed: sz } };
    }
    case 'find':
    case 'findAll': {
      if (!t || args.length < 1) return undefined;
      const sz = libSize(ctx, t);
      const cost = mul(factor(add(sz, ONE), STRING_TRAVERSAL), factor(libSize(ctx, args[0]!), REGEX_LENGTH));
      return { cost, type: name === 'find' ? 'string' : 'list', extra: { computed: { min: 0, max: sz.max }, ...(name === 'findAll' ? { elem: { cost: ONE, type: 'string' } } : {}) } };
    }
    case 'sign':
    case 'asInteger':
    case 'isInteger':
    case 'asApproximateFloat':
    case 'isGreaterThan':
    case 'isLessThan':
    case 'compareTo':
    case 'add':
    case 'sub':
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
      return { cost: ONE, type: resultType(name, t, args) };
  }
  // cel-go's own estimates, by overload.
  switch (name) {
    case 'format':
      if (t) return { cost: factor(size(ctx, t), STRING_TRAVERSAL), type: 'string' };
      return undefined;
    case 'bytes':
      if (args.length === 1 && args[0]!.type === 'string') {
        const sz = size(ctx, args[0]!);
        return { cost: factor(sz, STRING_TRAVERSAL), type: 'bytes', extra: { computed: { min: sz.min, max: sat(sz.max * 4) } } };
      }
      return undefined;
    case 'string':
      if (args.length === 1 && args[0]!.type === 'bytes') {
        const sz = size(ctx, args[0]!);
        return { cost: factor(sz, STRING_TRAVERSAL), type: 'string', extra: { computed: { min: Math.floor(sz.min / 4), max: sz.max } } };
      }
      return undefined;
    case 'startsWith':
    case 'endsWith':
      if (t && args.length === 1) return { cost: factor(size(ctx, args[0]!), STRING_TRAVERSAL), type: 'bool' };
      return undefined;
    case 'matches':
      if (t && args.length === 1) return { cost: mul(factor(add(size(ctx, t), ONE), STRING_TRAVERSAL), factor(size(ctx, args[0]!), REGEX_LENGTH)), type: 'bool' };
      return undefined;
    case 'contains':
      if (t && args.length === 1) return { cost: mul(factor(size(ctx, t), STRING_TRAVERSAL), factor(size(ctx, args[0]!), STRING_TRAVERSAL)), type: 'bool' };
      return undefined;
  }
  return undefined;
}

function literalInt(i: Info): number | undefined {
  if (typeof i.lit !== 'bigint') return undefined;
  return i.lit < 0n ? MAX_COST : Number(i.lit);
}

/** Kubernetes' estimate of the size of replace()'s result. */
function replaceSize(sz: Range, toReplace: Range, replaceWith: Range): Range {
  const count: Range = { min: 0, max: 0 };
  const retained: Range = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < MAX_COST ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) retained.max = sz.max;
  else count.max = Math.ceil(sz.max / toReplace.min);
  if (toReplace.max === 0) {
    count.min = sz.min < MAX_COST ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) retained.min = sz.min;
  else count.min = Math.ceil(sz.min / toReplace.max);
  return add(mul(count, replaceWith), retained);
}

const RESULT_TYPES: Record<string, string> = {
  size: 'int', int: 'int', uint: 'uint', double: 'double', string: 'string', bool: 'bool', bytes: 'bytes', timestamp: 'timestamp', duration: 'duration',
  startsWith: 'bool', endsWith: 'bool', contains: 'bool', matches: 'bool', isURL: 'bool', isQuantity: 'bool', quantity: 'Quantity', charAt: 'string',
  sign: 'int', asInteger: 'int', isInteger: 'bool', asApproximateFloat: 'double', isGreaterThan: 'bool', isLessThan: 'bool', compareTo: 'int',
  add: 'Quantity', sub: 'Quantity', getScheme: 'string', getHostname: 'string', getHost: 'string', getPort: 'string', getEscapedPath: 'string', getQuery: 'map',
  hasValue: 'bool', reverse: 'string', getFullYear: 'int', getMonth: 'int', getDayOfMonth: 'int', getDayOfWeek: 'int', getDayOfYear: 'int', getDate: 'int',
  getHours: 'int', getMinutes: 'int', getSeconds: 'int', getMilliseconds: 'int', type: 'type',
};

function resultType(name: string, t: Info | undefined, args: Info[]): string {
  if (name === 'orValue' || name === 'value') return t?.decl?.type ?? args[0]?.type ?? 'dyn';
  if (name === 'dyn') return args[0]?.type ?? 'dyn';
  return RESULT_TYPES[name] ?? 'dyn';
}

/**
 * The worst-case cost of a parsed expression with `self` (and `oldSelf`) typed by `schema`
 * (`resourceRoot`: the schema of a resource, which rules see with apiVersion, kind and metadata).
 */
export function estimateCost(ast: ASTNode, schema: SchemaObject, resourceRoot = false): number {
  const root = decl(schema, resourceRoot);
  const self: Info = fromDecl(root, undefined);
  const ctx: Ctx = { root, iter: new Map(), vars: new Map([['self', self], ['oldSelf', self]]) };
  return estimate(ast, ctx).cost.max;
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
