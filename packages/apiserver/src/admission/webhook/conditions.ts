/**
 * matchConditions: CEL expressions over the request that must all hold for a webhook to be
 * called. The caller has loaded the CEL library (`loadCel()`, crd/cel/load.ts) first.
 */
import type { ParseResult, Environment } from '@marcbachmann/cel-js';
import { celEnvironment } from '../../crd/cel/library.js';
import { toCel } from '../../crd/cel/rules.js';

/** One matchCondition of a webhook. */
export interface MatchCondition {
  name: string;
  expression: string;
}

/** The outcome: call the webhook, skip it, or an error (subject to the failure policy). */
export type ConditionResult = { matches: true } | { matches: false } | { error: string };

let env: Environment | undefined;
const compiled = new Map<string, ParseResult | Error>();

function compile(expression: string): ParseResult | Error {
  let p = compiled.get(expression);
  if (!p) {
    if (!env) {
      env = celEnvironment(false).clone();
      for (const v of ['object', 'oldObject', 'request']) env.registerVariable(v, 'dyn');
    }
    try {
      p = env.parse(expression);
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, p);
  }
  return p;
}

/**
 * Evaluates the conditions as kube's matcher does: any false skips the webhook; otherwise any
 * error is returned (the caller applies failurePolicy: Fail refuses, Ignore skips).
 */
export function evaluateMatchConditions(conditions: readonly MatchCondition[] | undefined, request: Record<string, unknown>): ConditionResult {
  if (!conditions?.length) return { matches: true };
  const vars = { object: toCel(request.object ?? null, undefined), oldObject: toCel(request.oldObject ?? null, undefined), request: toCel(request, undefined) };
  const errors: string[] = [];
  for (const c of conditions) {
    const program = compile(c.expression);
    if (program instanceof Error) {
      errors.push(`compilation failed: ${program.message.split('\n')[0]}`);
      continue;
    }
    try {
      const value = program(vars);
      if (value === false) return { matches: false };
      if (value !== true) errors.push(`matchCondition '${c.name}' did not evaluate to a boolean`);
    } catch (err) {
      errors.push(`${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (errors.length === 1) return { error: errors[0]! };
  if (errors.length) return { error: `[${errors.join(', ')}]` };
  return { matches: true };
}
