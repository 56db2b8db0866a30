/**
 * The regex calls of a parsed rule (`matches`, `find`, `findAll`): constant patterns are
 * compiled when the CRD is written, as cel-go does (a bad `matches` pattern is a compile issue,
 * a bad `find` / `findAll` pattern fails program instantiation), and `matches` calls are pointed
 * at the RE2 implementation of the environment.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { regexSyntaxError } from '../regex.js';
import { INTERNAL_FUNCTIONS, RE2_MATCHES } from './library.js';

interface Node {
  op: string;
  args: unknown;
  pos?: number;
}

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && typeof (v as Node).op === 'string';

/** Visits every node of a parsed expression (the public AST: macro calls as written). */
function walk(v: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) walk(x, visit);
    return;
  }
  if (!isNode(v)) return;
  visit(v);
  walk(v.args, visit);
}

/** A call's name, receiver and arguments (receiver undefined for a global call). */
function callParts(n: Node): { name: string; receiver?: Node; args: Node[] } | undefined {
  if (n.op === 'rcall') {
    const [name, receiver, args] = n.args as [string, Node, Node[]];
    return { name, receiver, args };
  }
  if (n.op === 'call') {
    const [name, args] = n.args as [string, Node[]];
    return { name, args };
  }
  return undefined;
}

/** The constant string pattern argument of a regex call, when it is one. */
function literalPattern(parts: { receiver?: Node; args: Node[] }): Node | undefined {
  const arg = parts.receiver ? parts.args[0] : parts.args[1];
  return arg && arg.op === 'value' && typeof arg.args === 'string' ? arg : undefined;
}

/** What checking the regex calls of an expression found. */
export interface RegexCallIssues {
  /** Compile issues, as offset and message (cel-go: "invalid matches argument", "undeclared reference"). */
  issues: { offset: number; message: string }[];
  /** A program instantiation failure (a constant find / findAll pattern that is not RE2). */
  instantiation?: string;
}

/** Checks the constant patterns of regex calls and refuses calls of internal functions. */
export function checkRegexCalls(ast: ASTNode): RegexCallIssues {
  const out: RegexCallIssues = { issues: [] };
  walk(ast, (n) => {
    const parts = callParts(n);
    if (!parts) return;
    if (INTERNAL_FUNCTIONS.has(parts.name)) {
      out.issues.push({ offset: n.pos ?? 0, message: `undeclared reference to '${parts.name}' (in container '')` });
      return;
    }
    if (parts.name !== 'matches' && parts.name !== 'find' && parts.name !== 'findAll') return;
    const lit = literalPattern(parts);
    if (!lit) return;
    const error = regexSyntaxError(lit.args as string);
    if (error === undefined) return;
    if (parts.name === 'matches') out.issues.push({ offset: lit.pos ?? 0, message: 'invalid matches argument' });
    else out.instantiation ??= `program instantiation failed: ${error}`;
  });
  return out;
}

/** Points every `matches` call of a parsed expression at the RE2 implementation. */
export function useRe2Matches(ast: ASTNode): void {
  walk(ast, (n) => {
    const parts = callParts(n);
    if (parts?.name === 'matches') (n.args as unknown[])[0] = RE2_MATCHES;
  });
}

/** An error message with the internal name of `matches` put back. */
export function publicFunctionNames(message: string): string {
  return message.split(RE2_MATCHES).join('matches');
}
