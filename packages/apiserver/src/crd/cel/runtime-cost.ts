/**
 * Runtime cost of CEL evaluations, metered as kube-apiserver meters them: every evaluation of
 * an expression is cancelled once it costs more than the per-call limit, and all the rules run
 * while validating one object share one budget. The static estimate (`cost.ts`) keeps costly
 * rules out of CRDs; this meter is the backstop for values the estimate could not foresee.
 *
 * The CEL library has no cost tracking of its own, so the meter counts the steps of its
 * evaluator (each evaluated node of the expression; constants free, list and map literals 10
 * and 30, as cel-go charges them; a concatenation a tenth of its result's size) plus what
 * library functions charge for the work they do on strings and lists (`chargeCost`). Evaluation is synchronous, so one meter is active at a time.
 */

/** The most one evaluation of one expression may cost (k8s.io/apiserver/pkg/apis/cel PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** What all the rules run while validating one object may cost together (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** cel-go's error when an evaluation goes over its limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** Thrown inside an evaluation that went over its limit. */
export class CostLimitExceeded extends Error {
  override name = 'CostLimitExceeded';
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

interface Meter {
  cost: number;
  limit: number;
  exceeded: boolean;
}

let active: Meter | undefined;

/** Adds `n` to the cost of the evaluation under way; throws once it is over its limit. */
export function chargeCost(n: number): void {
  const m = active;
  if (m === undefined) return;
  m.cost += n;
  if (m.cost > m.limit) {
    m.exceeded = true;
    throw new CostLimitExceeded();
  }
}

/** What one metered evaluation did. */
export interface MeteredResult<T> {
  value?: T;
  error?: unknown;
  /** Its actual cost (past the limit when it was cancelled). */
  cost: number;
  /** It went over its limit and was cancelled. */
  cancelled: boolean;
}

/**
 * Runs one evaluation under a meter with `limit`. Once over the limit every further step
 * throws, so an evaluation cannot go on long after it: even when CEL's error-absorbing
 * operators (`||`, `exists`) swallow one cancellation, the result is reported as cancelled.
 */
export function metered<T>(limit: number, run: () => T): MeteredResult<T> {
  const outer = active;
  const m: Meter = { cost: 0, limit, exceeded: false };
  active = m;
  try {
    const value = run();
    return m.exceeded ? { cost: m.cost, cancelled: true, error: new CostLimitExceeded() } : { value, cost: m.cost, cancelled: false };
  } catch (error) {
    return { error: m.exceeded ? new CostLimitExceeded() : error, cost: m.cost, cancelled: m.exceeded };
  } finally {
    active = outer;
  }
}

/** What cel-go charges for a string traversal: a tenth of its length, rounded up. */
export function traversalCost(length: number): number {
  return Math.ceil(length * 0.1);
}

/** cel-go's cost of a regex call: the traversal of the string times a quarter of the pattern's length. */
export function regexCost(value: string, pattern: string): number {
  return Math.ceil((1 + value.length) * 0.1) * Math.ceil(pattern.length * 0.25);
}

interface Evaluator {
  run(ast: { op: string }, ctx: unknown): unknown;
}

const STEP_COST: Record<string, number> = { value: 0, list: 10, map: 30 };

/**
 * Puts the meter on an evaluator of the CEL library: each step it takes is charged while a
 * meter is active (outside `metered` it runs as before).
 */
export function meterEvaluator(ev: Evaluator): void {
  const run = ev.run;
  ev.run = function meteredRun(this: Evaluator, ast, ctx) {
    const m = active;
    if (m !== undefined) {
      m.cost += STEP_COST[ast.op] ?? 1;
      if (m.cost > m.limit) {
        m.exceeded = true;
        throw new CostLimitExceeded();
      }
    }
    const result = run.call(this, ast, ctx);
    // Concatenation builds a new string or list: charged by its size, as cel-go charges it.
    if (m !== undefined && ast.op === '+' && (typeof result === 'string' || Array.isArray(result))) chargeCost(traversalCost(result.length));
    return result;
  };
}
