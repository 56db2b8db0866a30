/**
 * Label selectors: the string form (`a=b,c in (x,y),!d`) and metav1.LabelSelector objects,
 * with the parser, matching and error messages of k8s.io/apimachinery/pkg/labels.
 */
import { badRequest } from './errors.js';
import { errorBody, fieldInvalid, fieldNotSupported, goValue } from './field-errors.js';
import type { StatusCause } from './types.js';
import { isQualifiedName, isValidLabelValue, validateLabels } from './validation.js';

/** Requirement operators, spelled as Kubernetes' selection.Operator values. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a selector: all of a selector's requirements must match. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** A parsed label selector. */
export interface LabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector does not restrict anything (matches every object). */
  readonly empty: boolean;
  /** True for the selector of a null metav1.LabelSelector: it matches nothing. */
  readonly nothing: boolean;
  /** Does a set of labels satisfy every requirement? */
  matches(labels: Record<string, string> | undefined): boolean;
  /** The canonical string form (`a=b,c in (x,y)`), as Kubernetes prints it. */
  toString(): string;
}

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const validOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** A field error as apimachinery prints it: `<path>: <body>`. */
function fieldErrorText(path: string, value: unknown, detail: string): string {
  return `${path}: ${errorBody('FieldValueInvalid', value, detail)}`;
}

/** Joins errors as Go's aggregate does: one error alone, several in brackets. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** Returns the error text of Kubernetes' NewRequirement for these arguments, or undefined. */
function requirementError(key: string, op: string, vals: string[], path: string): string | undefined {
  const errs: string[] = [];
  const join = (p: string, c: string) => (p === '<nil>' ? c : `${p}.${c}`);
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(fieldErrorText(join(path, 'key'), key, keyErrs.join('; ')));
  const valuePath = join(path, 'values');
  switch (op) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(fieldErrorText(valuePath, vals, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(fieldErrorText(valuePath, vals, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(fieldErrorText(valuePath, vals, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(fieldErrorText(valuePath, vals, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) errs.push(fieldErrorText(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default: {
      const c = fieldNotSupported(join(path, 'operator'), op, validOperators);
      errs.push(`${c.field}: ${c.message}`);
    }
  }
  vals.forEach((v, i) => {
    const ve = isValidLabelValue(v);
    if (ve.length) errs.push(fieldErrorText(`${valuePath}[${i}][${key}]`, v, ve.join('; ')));
  });
  return errs.length ? aggregate(errs) : undefined;
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const val = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(val!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(val!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1 || !/^[+-]?\d+$/.test(val!) || !/^[+-]?\d+$/.test(r.values[0]!)) return false;
      const a = BigInt(val!);
      const b = BigInt(r.values[0]!);
      return r.operator === 'gt' ? a > b : a < b;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const sorted = [...r.values].sort();
  const vals = r.values.length === 1 ? r.values[0]! : sorted.join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${vals})`;
    case 'notin':
      return `${r.key} notin (${vals})`;
    case 'gt':
      return `${r.key}>${vals}`;
    case 'lt':
      return `${r.key}<${vals}`;
    default:
      return `${r.key}${r.operator}${vals}`;
  }
}

function makeSelector(reqs: LabelRequirement[], nothing = false): LabelSelector {
  const requirements = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements,
    empty: !nothing && requirements.length === 0,
    nothing,
    matches(labels) {
      if (nothing) return false;
      const l = labels ?? {};
      return requirements.every((r) => requirementMatches(r, l));
    },
    toString() {
      return requirements.map(requirementString).join(',');
    },
  };
}

/** A selector that matches everything. */
export function everythingSelector(): LabelSelector {
  return makeSelector([]);
}

/** A selector that matches nothing (the selector of a null metav1.LabelSelector). */
export function nothingSelector(): LabelSelector {
  return makeSelector([], true);
}

/** A selector requiring exactly these labels (no validation; empty set: everything). */
export function selectorFromSet(set: Record<string, string> | undefined): LabelSelector {
  return makeSelector(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

// ---- lexer -------------------------------------------------------------------------------

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  tok: Tok;
  lit: string;
}

const literalTokens: Record<string, Tok> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c) && c !== '';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buf += s[pos]!;
        const t = literalTokens[buf];
        if (t) {
          last = { tok: t, lit: buf };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) buf += s[pos++]!;
      const t = literalTokens[buf];
      items.push({ tok: t ?? 'id', lit: buf });
    }
  }
}

// ---- parser ------------------------------------------------------------------------------

class ParseError extends Error {}

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  /** In value context the keywords `in`/`notin` are ordinary identifiers. */
  private view(i: Item, values: boolean): Item {
    return values && (i.tok === 'in' || i.tok === 'notin') ? { tok: 'id', lit: i.lit } : i;
  }
  private lookahead(values = true): Item {
    return this.view(this.items[this.pos]!, values);
  }
  private consume(values = true): Item {
    return this.view(this.items[this.pos++]!, values);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead();
      if (tok === 'id' || tok === '!') {
        try {
          reqs.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        const t = this.consume();
        if (t.tok === 'eos') return reqs;
        if (t.tok === ',') {
          const t2 = this.lookahead();
          if (t2.tok !== 'id' && t2.tok !== '!') throw new ParseError(`found '${t2.lit}', expected: identifier after ','`);
        } else {
          throw new ParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'eos') {
        return reqs;
      } else {
        throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let op: LabelOperator | undefined;
    let t = this.consume();
    if (t.tok === '!') {
      op = '!';
      t = this.consume();
    }
    if (t.tok !== 'id') throw new ParseError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new ParseError(fieldErrorText('<nil>', key, keyErrs.join('; ')));
    const next = this.lookahead().tok;
    if (next === 'eos' || next === ',') op ??= 'exists';
    if (op === 'exists' || op === '!') return this.finish(key, op, []);
    const o = this.consume(false);
    let operator: LabelOperator;
    switch (o.tok) {
      case 'in':
        operator = 'in';
        break;
      case '=':
        operator = '=';
        break;
      case '==':
        operator = '==';
        break;
      case '>':
        operator = 'gt';
        break;
      case '<':
        operator = 'lt';
        break;
      case 'notin':
        operator = 'notin';
        break;
      case '!=':
        operator = '!=';
        break;
      default:
        throw new ParseError(`found '${o.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.finish(key, operator, [...values].sort());
  }

  private finish(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const err = requirementError(key, operator, values, '<nil>');
    if (err) throw new ParseError(err);
    return { key, operator, values };
  }

  private parseValues(): Set<string> {
    const t = this.consume();
    if (t.tok !== '(') throw new ParseError(`found '${t.lit}' expected: '('`);
    const la = this.lookahead();
    if (la.tok === 'id' || la.tok === ',') {
      const s = this.parseIdentifiersList();
      if (this.consume().tok !== ')') throw new ParseError(`found '${la.lit}', expected: ')'`);
      return s;
    }
    if (la.tok === ')') {
      this.consume();
      return new Set(['']);
    }
    throw new ParseError(`found '${la.lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const t = this.consume();
      if (t.tok === 'id') {
        s.add(t.lit);
        const t2 = this.lookahead();
        if (t2.tok === ',') continue;
        if (t2.tok === ')') return s;
        throw new ParseError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (s.size === 0) s.add('');
        const t2 = this.lookahead().tok;
        if (t2 === ')') {
          s.add('');
          return s;
        }
        if (t2 === ',') s.add('');
      } else {
        throw new ParseError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const la = this.lookahead().tok;
    if (la === 'eos' || la === ',') return new Set(['']);
    const t = this.consume();
    if (t.tok === 'id') return new Set([t.lit]);
    throw new ParseError(`found '${t.lit}', expected: identifier`);
  }
}

/** Parses the string form of a label selector; throws ApiError 400 BadRequest when malformed. */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    return makeSelector(new Parser(lex(s ?? '')).parse());
  } catch (e) {
    if (e instanceof ParseError) throw badRequest(e.message);
    throw e;
  }
}

/**
 * Converts a metav1.LabelSelector into a selector, as Kubernetes' LabelSelectorAsSelector:
 * null/undefined matches nothing, `{}` matches everything. Throws ApiError 400 on bad input.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return nothingSelector();
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    const err = requirementError(k, '=', [String(v)], '<nil>');
    if (err) throw badRequest(err);
    reqs.push({ key: k, operator: '=', values: [String(v)] });
  }
  for (const expr of sel.matchExpressions ?? []) {
    const map: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };
    const op = map[expr.operator];
    if (!op) throw badRequest(`${goValue(String(expr.operator ?? ''))} is not a valid label selector operator`);
    const values = [...(expr.values ?? [])];
    const err = requirementError(expr.key ?? '', op, values, '<nil>');
    if (err) throw badRequest(err);
    reqs.push({ key: expr.key, operator: op, values });
  }
  return makeSelector(reqs);
}

/**
 * Validates a metav1.LabelSelector in an object (Kubernetes' ValidateLabelSelector), returning
 * causes under `path` (e.g. "spec.selector").
 */
export function validateLabelSelector(sel: LabelSelectorObject | null | undefined, path: string): StatusCause[] {
  if (!sel) return [];
  const out: StatusCause[] = [...validateLabels(sel.matchLabels, `${path}.matchLabels`)];
  (sel.matchExpressions ?? []).forEach((expr, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          out.push({ reason: 'FieldValueRequired', field: `${p}.values`, message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" });
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          out.push({ reason: 'FieldValueForbidden', field: `${p}.values`, message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" });
        }
        break;
      default:
        out.push(fieldInvalid(`${p}.operator`, String(expr.operator ?? ''), 'not a valid selector operator'));
    }
    for (const m of isQualifiedName(expr.key ?? '')) out.push(fieldInvalid(`${p}.key`, expr.key ?? '', m));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(v)) out.push(fieldInvalid(`${p}.values[${j}]`, v, m));
    });
  });
  return out;
}
