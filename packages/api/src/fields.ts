/**
 * Field selectors (`metadata.name=x,status.phase!=Running`) with the parsing, escaping and
 * error messages of k8s.io/apimachinery/pkg/fields.
 */
import { badRequest } from './errors.js';

/** One term of a field selector. `=` and `==` mean the same. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

/** A parsed field selector: a conjunction of terms. */
export interface FieldSelector {
  /** The terms, in the order Kubernetes keeps them (terms sorted as strings). */
  readonly requirements: readonly FieldRequirement[];
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  /**
   * Does an object satisfy every term? `get` returns a field's value; a missing field reads
   * as "" (as in Kubernetes: `a=` matches objects without `a`).
   */
  matches(get: (field: string) => string | undefined): boolean;
  /** The canonical string form with values escaped. */
  toString(): string;
}

const operators = ['!=', '==', '='] as const;

/** Escapes `\`, `,` and `=` in a field selector value. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Reverses escapeFieldValue; throws ApiError 400 on an invalid or missing escape. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on unescaped commas, keeping escapes in the terms. */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** Splits a term at the first operator found scanning left to right. */
function splitTerm(term: string): [string, FieldRequirement['operator'], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of operators) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function makeFieldSelector(requirements: FieldRequirement[]): FieldSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(get) {
      return requirements.every((r) => {
        const v = get(r.field) ?? '';
        return r.operator === '!=' ? v !== r.value : v === r.value;
      });
    },
    toString() {
      return requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
    },
  };
}

/** Parses a field selector; throws ApiError 400 BadRequest with Kubernetes' message when malformed. */
export function parseFieldSelector(s: string): FieldSelector {
  const selector = s ?? '';
  const parts = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, operator, raw] = split;
    reqs.push({ field, operator, value: unescapeFieldValue(raw) });
  }
  return makeFieldSelector(reqs);
}

/** A selector requiring each field to equal the given value. */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return makeFieldSelector(Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })));
}

/**
 * Rejects terms on fields the resource does not support, with kube-apiserver's
 * `field label not supported: <field>` (ApiError 400 BadRequest).
 */
export function checkFieldSelectorFields(sel: FieldSelector, supported: Iterable<string>): void {
  const ok = new Set(supported);
  for (const r of sel.requirements) if (!ok.has(r.field)) throw badRequest(`field label not supported: ${r.field}`);
}
