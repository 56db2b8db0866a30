/**
 * The CEL of MutatingAdmissionPolicy mutations. Kubernetes writes apply configurations and
 * JSON patches with CEL object construction (`Object{spec: Object.spec{replicas: 3}}`,
 * `JSONPatch{op: "add", path: "/x", value: 1}`), which the CEL library kplane uses does not
 * parse. Expressions are therefore rewritten before they are compiled: a construction
 * `Type.Path{field: value, ...}` becomes the map literal `{"@type": "Type.Path", "field": value, ...}`
 * (`@type` is no field name Kubernetes allows; `patch.ts` checks the type names against the
 * field paths, as kube does, and drops them), and `jsonpatch.escapeKey(...)` a call of a
 * function of kplane's policy environment.
 * The rewrite works on tokens, so strings and comments are never touched.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compileExpression, POLICY_VARIABLES, type CompiledExpression } from '../cel.js';
import { celEnvironment } from '../../../crd/cel/library.js';

const ESCAPE_KEY = 'jsonpatch_escapeKey';
/** The key a constructed object's type name is kept under. */
export const TYPE_KEY = '@type';

let env: Environment | undefined;

/** The environment of mutation expressions: the policy variables and `jsonpatch.escapeKey`. */
export function mutatingEnvironment(): Environment {
  if (!env) {
    const e = celEnvironment().clone();
    for (const v of POLICY_VARIABLES) e.registerVariable(v, 'dyn');
    e.registerFunction(`${ESCAPE_KEY}(string): string`, (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1'));
    env = e;
  }
  return env;
}

interface Token {
  kind: 'ident' | 'string' | 'space' | 'punct' | 'other';
  text: string;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /(?:\s+|\/\/[^\n]*)+/y;
const NUMBER = /(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)[uU]?/y;

/** The length of the string literal at `at` (with its r/b prefixes), or 0 when there is none. */
function stringAt(src: string, at: number): number {
  let i = at;
  let raw = false;
  while (i < src.length && i - at < 2 && /[rRbB]/.test(src[i]!)) {
    if (src[i] === 'r' || src[i] === 'R') raw = true;
    i++;
  }
  const q = src[i];
  if (q !== '"' && q !== "'") return 0;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  i += close.length;
  while (i < src.length) {
    if (!raw && src[i] === '\\') {
      i += 2;
      continue;
    }
    if (src.startsWith(close, i)) return i + close.length - at;
    if (!triple && src[i] === '\n') break;
    i++;
  }
  return src.length - at;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const sticky = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const m = re.exec(src);
    return m && m[0].length > 0 ? m[0] : undefined;
  };
  while (i < src.length) {
    const s = stringAt(src, i);
    if (s > 0) {
      out.push({ kind: 'string', text: src.slice(i, i + s) });
      i += s;
      continue;
    }
    const space = sticky(SPACE);
    if (space) {
      out.push({ kind: 'space', text: space });
      i += space.length;
      continue;
    }
    const ident = sticky(IDENT);
    if (ident) {
      out.push({ kind: 'ident', text: ident });
      i += ident.length;
      continue;
    }
    const num = sticky(NUMBER);
    if (num) {
      out.push({ kind: 'other', text: num });
      i += num.length;
      continue;
    }
    out.push({ kind: 'punct', text: src[i]! });
    i++;
  }
  return out;
}

/**
 * Rewrites CEL object constructions into map literals and `jsonpatch.escapeKey` into kplane's
 * function; any other text is kept as written.
 */
export function rewriteObjectConstruction(src: string): string {
  const tokens = tokenize(src);
  const next = (from: number): number => {
    let j = from;
    while (j < tokens.length && tokens[j]!.kind === 'space') j++;
    return j;
  };
  const out: string[] = [];
  // What each open bracket opened: a message construction, a map, a list or a call.
  const stack: ('message' | 'map' | 'other')[] = [];
  let prev: Token | undefined; // the last token that is not space
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'space') {
      out.push(t.text);
      continue;
    }
    if (t.kind === 'ident' && !(prev?.kind === 'punct' && prev.text === '.')) {
      // A qualified name: ident (. ident)*
      let end = i;
      const parts = [t.text];
      for (;;) {
        const dot = next(end + 1);
        if (tokens[dot]?.text !== '.') break;
        const id = next(dot + 1);
        if (tokens[id]?.kind !== 'ident') break;
        parts.push(tokens[id]!.text);
        end = id;
      }
      const after = next(end + 1);
      const inMessage = stack.at(-1) === 'message';
      const fieldName = inMessage && (prev?.text === '{' || prev?.text === ',') && tokens[after]?.text === ':' && parts.length === 1;
      if (fieldName) {
        out.push(JSON.stringify(t.text));
        prev = t;
        continue;
      }
      if (tokens[after]?.text === '{') {
        // A message construction: its braces become a map's, its type name a first entry.
        stack.push('message');
        const close = next(after + 1);
        out.push(`{${JSON.stringify(TYPE_KEY)}: ${JSON.stringify(parts.join('.'))}${tokens[close]?.text === '}' ? '' : ', '}`);
        prev = tokens[after];
        i = after;
        continue;
      }
      if (parts.join('.') === 'jsonpatch.escapeKey' && tokens[after]?.text === '(') {
        out.push(ESCAPE_KEY);
        prev = tokens[end];
        i = end;
        continue;
      }
    }
    if (t.kind === 'punct') {
      if (t.text === '{') stack.push('map');
      else if (t.text === '(' || t.text === '[') stack.push('other');
      else if (t.text === '}' || t.text === ')' || t.text === ']') stack.pop();
    }
    out.push(t.text);
    prev = t;
  }
  return out.join('');
}

/** Compiles a mutation expression (after the rewrite), reporting errors against the source as written. */
export function compileMutationExpression(source: string): CompiledExpression {
  const compiled = compileExpression(rewriteObjectConstruction(source), mutatingEnvironment());
  return { ...compiled, source };
}
