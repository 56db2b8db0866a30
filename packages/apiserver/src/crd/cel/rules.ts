/**
 * x-kubernetes-validations: compiling the rules of a structural schema (syntax, fields that
 * do not exist, result types, cost), and evaluating them on custom resources with `self`,
 * `oldSelf` (transition rules, optionalOldSelf), message / messageExpression, reason and
 * fieldPath, and ratcheting (a rule that does not use oldSelf and fails on a value equal to its
 * old value only warns).
 */
import type { SchemaObject, StatusCause } from '@kplane/api';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldRequired, goQuote, omitValue } from '@kplane/api';
import type { ParseResult } from '@marcbachmann/cel-js';
import { isDeepStrictEqual } from 'node:util';
import type { Correlated } from '../schema-values.js';
import { estimateCost } from './cost.js';
import { checkRegexCalls, publicFunctionNames, useRe2Matches } from './regex-calls.js';
import { COST_LIMIT_EXCEEDED, metered, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './runtime-cost.js';
import { celEnvironment } from './library.js';
import { cel } from './load.js';
import { celEscape, propertyOf } from './escaping.js';

/** One x-kubernetes-validations entry. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A rule compiled for one schema node. */
export interface CompiledRule {
  rule: ValidationRule;
  program?: ParseResult;
  messageProgram?: ParseResult;
  usesOldSelf: boolean;
  /** Worst-case cost of one evaluation of the rule. */
  maxCost: number;
  messageMaxCost: number;
  /** Compile error of the rule (`compilation failed: ...`). */
  error?: string;
  errorRequired?: boolean;
  messageError?: string;
  /** fieldPath as a field-path suffix (".host" → "host"). */
  fieldPath?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function position(src: string, offset: number): { line: number; col: number; text: string } {
  const before = src.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const text = src.split('\n')[line - 1] ?? '';
  return { line, col: offset - lineStart + 1, text };
}

/** cel-go's issue rendering: `ERROR: <input>:1:5: msg` and the source line with a caret. */
function celIssue(src: string, offset: number, msg: string): string {
  const p = position(src, Math.max(0, offset));
  return `ERROR: <input>:${p.line}:${p.col}: ${msg}\n | ${p.text}\n | ${'.'.repeat(Math.max(0, p.col - 1))}^`;
}

function usesIdent(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((n) => usesIdent(n, name));
  if (!isObj(node)) return false;
  if (node.op === 'id' && node.args === name) return true;
  return usesIdent(node.args, name);
}

/** Schema of a child field, or undefined when the schema does not describe it (null: unknown). */
function fieldSchema(s: SchemaObject | undefined, field: string, root: boolean): SchemaObject | null | undefined {
  if (!s) return null;
  if (root && (field === 'apiVersion' || field === 'kind' || field === 'metadata')) return s.properties?.[field] ?? null;
  const prop = propertyOf(s, field);
  if (prop !== undefined) return s.properties![prop];
  if (typeof s.additionalProperties === 'object') return s.additionalProperties;
  if (s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true || !s.properties || s.type !== 'object') return null;
  return undefined;
}

/** Finds selections of fields the schema does not have (cel-go's "undefined field"). */
function undefinedFields(src: string, node: unknown, scope: Map<string, SchemaObject | null>, rootVars: Set<string>, out: string[]): SchemaObject | null {
  if (!isObj(node)) return null;
  const args = node.args as unknown;
  switch (node.op) {
    case 'id':
      return scope.get(args as string) ?? null;
    case '.':
    case '.?': {
      const [target, field] = args as [unknown, string];
      const ts = undefinedFields(src, target, scope, rootVars, out);
      const isRoot = isObj(target) && target.op === 'id' && rootVars.has(target.args as string);
      const scalar = ts && !isRoot && ({ string: 'string', integer: 'int', number: 'double', boolean: 'bool' } as Record<string, string>)[ts.type ?? ''];
      if (scalar && !ts['x-kubernetes-int-or-string']) {
        out.push(celIssue(src, Math.max(0, (node.pos as number) - 1), `type '${scalar}' does not support field selection`));
        return null;
      }
      const fs = fieldSchema(ts ?? undefined, field, isRoot);
      if (fs === undefined && ts) {
        out.push(celIssue(src, Math.max(0, (node.pos as number) - 1), `undefined field '${field}'`));
        return null;
      }
      return fs ?? null;
    }
    case 'rcall': {
      const [name, target, rargs] = args as [string, unknown, unknown[]];
      const ts = undefinedFields(src, target, scope, rootVars, out);
      if (['all', 'exists', 'exists_one', 'map', 'filter'].includes(name) && isObj(rargs[0]) && rargs[0].op === 'id') {
        const inner = new Map(scope);
        const elem = ts?.type === 'array' ? (ts.items ?? null) : null;
        inner.set(rargs[0].args as string, elem);
        for (const a of rargs.slice(1)) undefinedFields(src, a, inner, rootVars, out);
        return null;
      }
      for (const a of rargs) undefinedFields(src, a, scope, rootVars, out);
      return null;
    }
    case 'call': {
      const [, cargs] = args as [string, unknown[]];
      for (const a of cargs) undefinedFields(src, a, scope, rootVars, out);
      return null;
    }
    case '[]':
    case '[?]': {
      const [target, index] = args as [unknown, unknown];
      const ts = undefinedFields(src, target, scope, rootVars, out);
      undefinedFields(src, index, scope, rootVars, out);
      if (ts?.type === 'array') return ts.items ?? null;
      if (ts && typeof ts.additionalProperties === 'object') return ts.additionalProperties;
      return null;
    }
    default:
      if (Array.isArray(args)) for (const a of args) Array.isArray(a) ? a.forEach((x) => undefinedFields(src, x, scope, rootVars, out)) : undefinedFields(src, a, scope, rootVars, out);
      else undefinedFields(src, args, scope, rootVars, out);
      return null;
  }
}

function compileExpression(src: string, schema: SchemaObject, resourceRoot: boolean, optionalOldSelf = false): { program?: ParseResult; error?: string; cost: number } {
  let program: ParseResult;
  try {
    program = celEnvironment(optionalOldSelf).parse(src);
  } catch (err) {
    if (err instanceof cel().ParseError) {
      const summary = (err.message.split('\n')[0] ?? '').trim();
      return { error: `compilation failed: ${celIssue(src, err.range?.start ?? 0, `Syntax error: ${summary}`)}`, cost: 0 };
    }
    return { error: `compilation failed: ${String(err)}`, cost: 0 };
  }
  const issues: string[] = [];
  const scope = new Map<string, SchemaObject | null>([
    ['self', schema],
    ['oldSelf', schema],
  ]);
  undefinedFields(src, program.ast, scope, new Set(resourceRoot ? ['self', 'oldSelf'] : []), issues);
  if (issues.length) return { error: `compilation failed: ${issues.join('\n')}`, cost: 0 };
  const regex = checkRegexCalls(program.ast);
  if (regex.issues.length) return { error: `compilation failed: ${regex.issues.map((i) => celIssue(src, i.offset, i.message)).join('\n')}`, cost: 0 };
  if (regex.instantiation) return { error: regex.instantiation, cost: 0 };
  const cost = estimateCost(program.ast, schema, resourceRoot);
  useRe2Matches(program.ast);
  return { program, cost };
}

/**
 * Compiles the x-kubernetes-validations of one schema node (`resourceRoot`: the node is the
 * resource or an embedded resource, whose apiVersion, kind and metadata rules may read).
 */
export function compileRules(schema: SchemaObject, resourceRoot = false): CompiledRule[] {
  const rules = (schema['x-kubernetes-validations'] ?? []) as ValidationRule[];
  return rules.map((rule) => {
    const out: CompiledRule = { rule, usesOldSelf: false, maxCost: 0, messageMaxCost: 0 };
    if (!rule.rule || rule.rule.trim() === '') {
      out.error = 'rule is not specified';
      out.errorRequired = true;
      return out;
    }
    const c = compileExpression(rule.rule, schema, resourceRoot, rule.optionalOldSelf === true);
    out.program = c.program;
    out.maxCost = c.cost;
    if (c.error) out.error = c.error;
    else {
      out.usesOldSelf = usesIdent(c.program!.ast, 'oldSelf');
      const t = c.program!.check();
      if (t.valid && t.type !== 'bool' && t.type !== 'dyn') out.error = 'cel expression must evaluate to a bool';
    }
    if (rule.messageExpression && rule.messageExpression.trim() !== '') {
      const m = compileExpression(rule.messageExpression, schema, resourceRoot);
      if (m.error) out.messageError = `messageExpression ${m.error}`;
      else {
        out.messageProgram = m.program;
        out.messageMaxCost = m.cost;
        if (usesIdent(m.program!.ast, 'oldSelf')) out.messageError = 'messageExpression uses oldSelf, which is not supported';
        const t = m.program!.check();
        if (t.valid && t.type !== 'string' && t.type !== 'dyn') out.messageError = 'messageExpression must evaluate to a string';
      }
    }
    if (rule.fieldPath) out.fieldPath = normalizeFieldPath(rule.fieldPath, schema) ?? undefined;
    return out;
  });
}

/**
 * Turns a rule's fieldPath (".host", ".a['b.c']", ".m['key']") into a field-path suffix, or
 * null when it does not name a field of the schema.
 */
export function normalizeFieldPath(fieldPath: string, schema: SchemaObject): string | null {
  const tokens = fieldPath.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g);
  if (!tokens || tokens.join('') !== fieldPath.trim()) return null;
  let s: SchemaObject | undefined = schema;
  let out = '';
  for (const t of tokens) {
    const name = t.startsWith('.') ? t.slice(1) : t.slice(2, -2).replace(/\\(.)/g, '$1');
    if (!s) return null;
    if (s.properties) {
      s = s.properties[name];
      if (!s) return null;
      out = out ? `${out}.${name}` : name;
    } else if (typeof s.additionalProperties === 'object') {
      s = s.additionalProperties;
      out = `${out}[${name}]`;
    } else return null;
  }
  return out;
}

/** Converts a JSON value into CEL values by its schema (integers become int, date-times timestamps). */
export function toCel(value: unknown, schema: SchemaObject | undefined): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'number') {
    if ((schema?.type === 'integer' || schema?.['x-kubernetes-int-or-string'] || (!schema?.type && Number.isInteger(value))) && Number.isInteger(value)) return BigInt(value);
    return value;
  }
  if (typeof value === 'string') {
    if (schema?.type === 'string' && schema.format === 'date-time') {
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? value : d;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema?.items));
  if (isObj(value)) {
    const out: Obj = {};
    const additional = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    const props = schema?.properties;
    for (const [k, v] of Object.entries(value)) {
      const prop = props && Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined;
      if (!prop) {
        out[k] = toCel(v, additional);
        continue;
      }
      // Properties are named as rules name them (`namespace` is `__namespace__`).
      const name = celEscape(k);
      if (name !== undefined) out[name] = toCel(v, prop);
    }
    return out;
  }
  return value;
}

/** The message of an evaluation error, as cel-go words it ("no such key: foo"). */
function evalErrorText(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  return publicFunctionNames(first.replace(/^No such key/, 'no such key'));
}

function ruleErrorString(r: ValidationRule): string {
  return r.message && r.message.trim() ? r.message.trim() : r.rule.trim();
}

function ruleMessageOrDefault(r: ValidationRule): string {
  return r.message && r.message.trim() ? r.message.trim() : `failed rule: ${ruleErrorString(r)}`;
}

function causeForReason(path: string, value: unknown, detail: string, reason: string | undefined): StatusCause {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(path, detail);
    case 'FieldValueRequired':
      return fieldRequired(path, detail);
    case 'FieldValueDuplicate':
      return fieldDuplicate(path, value);
    default:
      return fieldInvalid(path, value, detail);
  }
}

/** Inputs of one evaluation of a node's rules. */
export interface RuleInput {
  value: unknown;
  schema: SchemaObject;
  path: string;
  old?: Correlated;
  /** The object the rules see as `self` when the node is a resource root (apiVersion, kind, metadata.name). */
  resourceRoot?: boolean;
}

function rootView(v: unknown): unknown {
  if (!isObj(v)) return v;
  const m = isObj(v.metadata) ? v.metadata : {};
  const meta: Obj = {};
  if (m.name !== undefined) meta.name = m.name;
  if (m.generateName !== undefined) meta.generateName = m.generateName;
  return { ...v, metadata: meta };
}

/**
 * The cost budget of one object's validation: what is left of it, and the limit of each
 * evaluation. `remaining` goes negative once validation stopped for cost.
 */
export interface CostBudget {
  remaining: number;
  perCallLimit: number;
}

/** A fresh budget with kube-apiserver's limits (10,000,000 per object, 1,000,000 per call). */
export function newCostBudget(total = RUNTIME_CEL_COST_BUDGET, perCallLimit = PER_CALL_LIMIT): CostBudget {
  return { remaining: total, perCallLimit };
}

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
const MESSAGE_OUT_OF_BUDGET = 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';
/** kube-apiserver's longest evaluated messageExpression. */
const MAX_MESSAGE_BYTES = 5 * 1024;

/**
 * Evaluates compiled rules on one value, charging their runtime cost to `budget`. Failures
 * become causes, or warnings when ratcheting excuses them (the value equals its old value and
 * the rule does not use oldSelf). A rule over the per-call limit, or a budget spent, ends
 * validation: `budget.remaining` is then negative.
 */
export function evaluateRules(rules: CompiledRule[], input: RuleInput, warnings?: string[], budget: CostBudget = newCostBudget()): StatusCause[] {
  const out: StatusCause[] = [];
  if (input.value === null || input.value === undefined || rules.length === 0) return out;
  const type = input.schema.type;
  const stop = (cause: StatusCause): StatusCause[] => {
    out.push(cause);
    budget.remaining = -1;
    return out;
  };
  if (budget.remaining <= 0) return stop(fieldInvalid(input.path, type ?? '', OUT_OF_BUDGET));
  const selfVal = toCel(input.resourceRoot ? rootView(input.value) : input.value, input.schema);
  const oldVal = input.old ? toCel(input.resourceRoot ? rootView(input.old.value) : input.old.value, input.schema) : undefined;
  const unchanged = input.old !== undefined && isDeepStrictEqual(input.value, input.old.value);
  const limit = () => Math.min(budget.perCallLimit, budget.remaining + 1);
  for (const r of rules) {
    if (!r.program) {
      if (r.error) out.push(fieldInvalid(input.path, type ?? '', `rule compile error: ${r.error}`));
      continue;
    }
    const optional = r.rule.optionalOldSelf === true;
    if (r.usesOldSelf && input.old === undefined && !optional) continue;
    const ctx: Obj = { self: selfVal };
    if (r.usesOldSelf) ctx.oldSelf = optional ? (input.old ? cel().Optional.of(oldVal) : cel().Optional.none()) : oldVal;
    const program = r.program;
    const run = metered(limit(), () => program(ctx));
    if (run.cost > budget.remaining) return stop(fieldInvalid(input.path, type ?? '', OUT_OF_BUDGET));
    budget.remaining -= run.cost;
    if (run.cancelled) {
      return stop(fieldInvalid(input.path, type ?? '', `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.rule)}`));
    }
    if (run.error !== undefined) {
      out.push(fieldInvalid(input.path, type ?? '', `${evalErrorText(run.error)} evaluating rule: ${ruleErrorString(r.rule)}`));
      continue;
    }
    if (run.value === true) continue;
    const path = r.fieldPath ? (r.fieldPath.startsWith('[') ? `${input.path}${r.fieldPath}` : input.path ? `${input.path}.${r.fieldPath}` : r.fieldPath) : input.path;
    const addCause = (cause: StatusCause) => {
      if (!r.usesOldSelf && unchanged) warnings?.push(`${cause.field}: ${cause.message}`);
      else out.push(cause);
    };
    let detail: string | undefined;
    if (r.messageProgram) {
      const messageProgram = r.messageProgram;
      const m = metered(limit(), () => messageProgram({ self: selfVal }));
      if (m.cost > budget.remaining) {
        addCause(fieldInvalid(path, type ?? '', MESSAGE_OUT_OF_BUDGET));
        budget.remaining = -1;
        return out;
      }
      if (m.cancelled) {
        addCause(fieldInvalid(path, type ?? '', `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(r.rule.messageExpression ?? '')}`));
        budget.remaining = -1;
        return out;
      }
      budget.remaining -= m.cost;
      const text = typeof m.value === 'string' ? m.value.trim() : '';
      if (text !== '' && !/[\n\r]/.test(text) && Buffer.byteLength(text) <= MAX_MESSAGE_BYTES) detail = text;
    }
    detail ??= ruleMessageOrDefault(r.rule);
    const value = type === 'object' || type === 'array' ? omitValue : input.value;
    addCause(causeForReason(path, value, detail, r.rule.reason));
  }
  return out;
}
