/**
 * One ValidatingAdmissionPolicy, compiled (once per generation) and evaluated against one
 * input (a request with one params object), as kube's validator: matchConditions, then the
 * validations, each a decision (admit or deny, with its message and reason), then the audit
 * annotations. Variables are evaluated lazily, when an expression first reads them.
 */
import type { KubeObject } from '@kplane/api';
import { cel } from '../../crd/cel/load.js';
import { chargeCost, RUNTIME_CEL_COST_BUDGET } from '../../crd/cel/runtime-cost.js';
import { compileExpression, evaluate, evaluateMetered, type CompiledExpression } from './cel.js';
import type { MatchResources } from './match.js';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** kube's error when a policy's validations spend the runtime cost budget. */
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** The longest message a messageExpression may produce (kube's MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** One validation, compiled. */
export interface CompiledValidation {
  expression: CompiledExpression;
  message: string;
  messageExpression?: CompiledExpression;
  reason: string;
}

/** A policy with its expressions compiled, kept while its uid and generation hold. */
export interface CompiledPolicy {
  uid: string;
  generation: number;
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints: MatchResources;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; expression: CompiledExpression }[];
}

/** Compiles a policy's expressions. */
export function compilePolicy(obj: KubeObject): CompiledPolicy {
  const spec = asObj(obj.spec) ?? {};
  const pk = asObj(spec.paramKind);
  return {
    uid: obj.metadata?.uid ?? '',
    generation: obj.metadata?.generation ?? 0,
    name: obj.metadata?.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: (asObj(spec.matchConstraints) ?? {}) as MatchResources,
    matchConditions: objs(spec.matchConditions).map((c) => ({ name: str(c.name), expression: compileExpression(str(c.expression)) })),
    variables: objs(spec.variables).map((v) => ({ name: str(v.name), expression: compileExpression(str(v.expression)) })),
    validations: objs(spec.validations).map((v) => ({
      expression: compileExpression(str(v.expression)),
      message: str(v.message).trim(),
      messageExpression: str(v.messageExpression) ? compileExpression(str(v.messageExpression)) : undefined,
      reason: str(v.reason) || 'Invalid',
    })),
    auditAnnotations: objs(spec.auditAnnotations).map((a) => ({ key: str(a.key), expression: compileExpression(str(a.valueExpression)) })),
  };
}

/** A validation that did not admit: a failed expression, or an error under failurePolicy Fail. */
export interface Decision {
  /** The validation's index (0 for an error before the validations ran). */
  index: number;
  message: string;
  reason: string;
}

/** An audit annotation's outcome: a value to publish, or an error (failurePolicy Fail). */
export type AnnotationResult = { key: string; value: string } | { key: string; error: string };

/** What one evaluation found. */
export interface ValidateResult {
  decisions: Decision[];
  annotations: AnnotationResult[];
}

/** An expression's error as kube words it. */
function expressionError(expr: CompiledExpression, error: string): string {
  return expr.program ? `expression '${expr.source}' resulted in error: ${error}` : `compilation error: ${error}`;
}

/** The CEL type name of a value, as cel-go prints it in messages. */
function celTypeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  return 'map';
}

/**
 * Evaluates a policy against one input (`object`, `oldObject`, `request`, `params`,
 * `namespaceObject`, `authorizer`); undefined when a matchCondition excludes the request.
 */
export function validatePolicy(policy: CompiledPolicy, base: Obj): ValidateResult | undefined {
  const fail = policy.failurePolicy === 'Fail';
  const variables: Obj = {};
  const activation: Obj = { ...base, variables };
  for (const v of policy.variables) {
    let done: { value: unknown } | { error: string } | undefined;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      get() {
        if (!done) {
          const { result: r, cost } = evaluateMetered(v.expression, activation);
          done = r.ok ? { value: r.value } : { error: `composited variable "${v.name}" fails to evaluate: ${r.error}` };
          // A variable's cost is the reading expression's (charged once, on first read).
          chargeCost(cost);
        }
        if ('error' in done) throw new (cel().EvaluationError)(done.error);
        return done.value;
      },
    });
  }
  // A false condition skips the policy; errors (kube's aggregate of them) go by failurePolicy: Ignore skips it too.
  const conditionErrors: string[] = [];
  for (const c of policy.matchConditions) {
    const r = evaluate(c.expression, activation);
    if (!r.ok) conditionErrors.push(expressionError(c.expression, r.error));
    else if (r.value === false) return undefined;
  }
  if (conditionErrors.length) {
    if (!fail) return undefined;
    const message = conditionErrors.length === 1 ? conditionErrors[0]! : `[${conditionErrors.join(', ')}]`;
    return { decisions: [{ index: 0, message, reason: 'Invalid' }], annotations: [] };
  }

  // The validations share one runtime cost budget (kube's RuntimeCELCostBudget); spending it
  // ends them with one error, as does a messageExpression that spends what is left.
  let remaining = RUNTIME_CEL_COST_BUDGET;
  const outOfBudget = (message: string): ValidateResult => ({ decisions: fail ? [{ index: 0, message, reason: 'Invalid' }] : [], annotations: [] });
  const failed: { index: number; v: CompiledValidation }[] = [];
  const decisions: Decision[] = [];
  for (const [index, v] of policy.validations.entries()) {
    const { result: r, cost } = evaluateMetered(v.expression, activation);
    if (cost > remaining) return outOfBudget(OUT_OF_BUDGET);
    remaining -= cost;
    if (!r.ok) {
      if (fail) decisions.push({ index, message: expressionError(v.expression, r.error), reason: 'Invalid' });
    } else if (r.value !== true) failed.push({ index, v });
  }
  for (const { index, v } of failed) {
    let message = '';
    if (v.messageExpression) {
      const { result: m, cost } = evaluateMetered(v.messageExpression, activation);
      if (cost > remaining) return outOfBudget(`failed messageExpression: ${OUT_OF_BUDGET}`);
      remaining -= cost;
      if (m.ok && typeof m.value === 'string') {
        const t = m.value.trim();
        if (Buffer.byteLength(t) <= MAX_MESSAGE_BYTES && !t.includes('\n')) message = t;
      }
    }
    message ||= v.message || `failed expression: ${v.expression.source.trim()}`;
    decisions.push({ index, message, reason: v.reason });
  }
  decisions.sort((a, b) => a.index - b.index);

  const annotations: AnnotationResult[] = [];
  for (const a of policy.auditAnnotations) {
    const r = evaluate(a.expression, activation);
    if (!r.ok) {
      if (fail) annotations.push({ key: a.key, error: expressionError(a.expression, r.error) });
    } else if (typeof r.value === 'string') {
      if (r.value.trim()) annotations.push({ key: a.key, value: r.value.trim() });
    } else if (r.value !== null && r.value !== undefined) {
      annotations.push({
        key: a.key,
        error: `valueExpression '${a.expression.source}' resulted in unsupported return type: ${celTypeName(r.value)}. Return type must be either string or null.`,
      });
    }
  }
  return { decisions, annotations };
}
