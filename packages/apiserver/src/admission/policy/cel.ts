/**
 * The CEL environment of admission policies: the one kplane CEL environment (the Kubernetes
 * libraries CRD rules use, RE2 `matches`, runtime cost metering) with the variables a
 * ValidatingAdmissionPolicy sees: object, oldObject, request, params, namespaceObject,
 * variables and authorizer.
 */
import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { celEnvironment, meterEnvironment } from '../../crd/cel/library.js';
import { cel } from '../../crd/cel/load.js';
import { checkRegexCalls, publicFunctionNames, useRe2Matches } from '../../crd/cel/regex-calls.js';
import { metered, PER_CALL_LIMIT } from '../../crd/cel/runtime-cost.js';
import { registerAuthzLibrary } from './authz.js';

/** The variables of a policy expression. */
export const POLICY_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables', 'authorizer'] as const;

let env: Environment | undefined;

/** The shared policy environment (built on first use). */
export function policyEnvironment(): Environment {
  if (!env) {
    const e = celEnvironment().clone();
    registerAuthzLibrary(e);
    for (const v of POLICY_VARIABLES) e.registerVariable(v, 'dyn');
    meterEnvironment(e);
    env = e;
  }
  return env;
}

/** A compiled expression, or why it does not compile. */
export interface CompiledExpression {
  readonly source: string;
  readonly program?: ParseResult;
  readonly error?: string;
}

/** Compiles one expression (cel-go's wording of syntax errors: `ERROR: <input>:L:C: ...`), in the policy environment unless told another. */
export function compileExpression(source: string, environment: Environment = policyEnvironment()): CompiledExpression {
  try {
    const program = environment.parse(source);
    const regex = checkRegexCalls(program.ast);
    if (regex.issues.length) return { source, error: `compilation failed: ${regex.issues.map((i) => `ERROR: <input>:1:${i.offset + 1}: ${i.message}`).join('\n')}` };
    if (regex.instantiation) return { source, error: regex.instantiation };
    useRe2Matches(program.ast);
    return { source, program };
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
    const col = err instanceof cel().ParseError ? (err.range?.start ?? 0) + 1 : 1;
    return { source, error: `compilation failed: ERROR: <input>:1:${col}: Syntax error: ${first}` };
  }
}

/** The outcome of evaluating one expression. */
export type Evaluation = { ok: true; value: unknown } | { ok: false; error: string };

/** Evaluates a compiled expression with kube-apiserver's per-call cost limit. */
export function evaluate(expr: CompiledExpression, activation: Record<string, unknown>): Evaluation {
  return evaluateMetered(expr, activation).result;
}

/** Evaluates a compiled expression under a cost limit (kube-apiserver's per-call one by default): its outcome and actual cost. */
export function evaluateMetered(expr: CompiledExpression, activation: Record<string, unknown>, limit = PER_CALL_LIMIT): { result: Evaluation; cost: number } {
  if (!expr.program) return { result: { ok: false, error: expr.error ?? 'compilation failed' }, cost: 0 };
  const program = expr.program;
  const run = metered(limit, () => program(activation));
  if (run.cancelled) return { result: { ok: false, error: 'operation cancelled: actual cost limit exceeded' }, cost: run.cost };
  if (run.error !== undefined) {
    const first = (run.error instanceof Error ? run.error.message : String(run.error)).split('\n')[0]!.trim();
    return { result: { ok: false, error: publicFunctionNames(first.replace(/^No such key/, 'no such key')) }, cost: run.cost };
  }
  return { result: { ok: true, value: run.value }, cost: run.cost };
}
