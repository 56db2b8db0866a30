import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject, StatusCause } from '@kplane/api';
import { compileRules, newCostBudget, toCel, type CostBudget } from './rules.js';
import { COST_LIMIT_EXCEEDED, metered, PER_CALL_LIMIT, regexCost, RUNTIME_CEL_COST_BUDGET } from './runtime-cost.js';
import { buildCelValidator, validateCel } from './validator.js';
import { loadCel } from './load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

const texts = (causes: StatusCause[]) => causes.map((c) => `${c.field}: ${c.message}`);
const rules = (...r: object[]) => ({ 'x-kubernetes-validations': r }) as SchemaObject;

/** Validates `{ spec: value }` against a root whose spec carries `schema`. */
function run(schema: SchemaObject, value: unknown, budget: CostBudget): string[] {
  const v = buildCelValidator({ type: 'object', properties: { spec: schema } });
  assert.ok(v, 'the schema has rules');
  return texts(validateCel(v, { spec: value }, '', undefined, [], budget));
}

const ints = (n: number) => Array.from({ length: n }, (_, i) => i);
const CUBIC = 'self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))';
const list: SchemaObject = { type: 'object', properties: { l: { type: 'array', items: { type: 'integer' } } } };

test("Kubernetes' limits: 1,000,000 per call, 10,000,000 per object", () => {
  assert.equal(PER_CALL_LIMIT, 1_000_000);
  assert.equal(RUNTIME_CEL_COST_BUDGET, 10_000_000);
  assert.deepEqual(newCostBudget(), { remaining: 10_000_000, perCallLimit: 1_000_000 });
});

test('a rule is charged for every step it takes: a cubic rule costs about n³ steps', () => {
  const budget = newCostBudget();
  assert.deepEqual(run({ ...list, ...rules({ rule: CUBIC }) }, { l: ints(30) }, budget), []);
  const spent = RUNTIME_CEL_COST_BUDGET - budget.remaining;
  assert.ok(spent > 30 ** 3 && spent < 20 * 30 ** 3, `cost ${spent}`);
});

test('a rule over the per-call limit is cancelled after the limit, and no further rule runs', () => {
  const budget = newCostBudget(RUNTIME_CEL_COST_BUDGET, 10_000);
  const s = { ...list, ...rules({ rule: CUBIC }, { rule: 'false' }) };
  assert.deepEqual(run(s, { l: ints(200) }, budget), [
    `spec: Invalid value: "object": '${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${CUBIC}`,
  ]);
  assert.equal(budget.remaining, -1);
});

test('the work done stops at the limit, even where CEL absorbs errors (||, exists)', () => {
  const self = toCel({ l: ints(200) }, list);
  for (const rule of [`${CUBIC} || true`, 'self.l.exists(x, self.l.exists(y, self.l.exists(z, x + y + z < 0))) || true']) {
    const [compiled] = compileRules({ ...list, ...rules({ rule }) });
    // Run to its end, the rule would take 200³ = 8,000,000 iterations.
    const r = metered(10_000, () => compiled!.program!({ self }));
    assert.equal(r.cancelled, true, rule);
    assert.ok(r.cost > 10_000 && r.cost < 11_000, `${rule}: cost ${r.cost}`);
    const budget = newCostBudget(20_000_000, 10_000);
    assert.match(run({ ...list, ...rules({ rule }) }, { l: ints(200) }, budget)[0] ?? '', /call cost exceeds limit for rule/, rule);
  }
});

test('the budget of one object is shared by all its rules: once spent, validation stops with one cause', () => {
  const item: SchemaObject = { type: 'string', ...rules({ rule: 'self.size() < 0', message: 'never' }) };
  const s: SchemaObject = { type: 'object', properties: { l: { type: 'array', items: item } } };
  const budget = newCostBudget(20, PER_CALL_LIMIT);
  const out = run(s, { l: Array.from({ length: 30 }, () => 'x') }, budget);
  const last = out.at(-1)!;
  assert.match(last, /^spec\.l\[(\d+)\]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run$/);
  const stoppedAt = Number(/\[(\d+)\]/.exec(last)![1]);
  assert.ok(stoppedAt > 0 && stoppedAt < 30, `stopped at ${stoppedAt}`);
  assert.deepEqual(out.slice(0, -1), ints(stoppedAt).map((i) => `spec.l[${i}]: Invalid value: "x": never`));
  assert.equal(budget.remaining, -1);
});

test('messageExpression is metered too', () => {
  const expr = "'n=' + string(self.l.map(x, self.l.map(y, self.l.map(z, x))).size())";
  const s = { ...list, ...rules({ rule: 'false', messageExpression: expr }) };
  assert.deepEqual(run(s, { l: ints(100) }, newCostBudget(RUNTIME_CEL_COST_BUDGET, 5_000)), [
    `spec: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(expr)}`,
  ]);
  assert.deepEqual(run(s, { l: ints(100) }, newCostBudget(5_000, PER_CALL_LIMIT)), [
    'spec: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
  ]);
  assert.deepEqual(run(s, { l: ints(3) }, newCostBudget()), ['spec: Invalid value: n=3']);
});

test("regex calls are charged cel-go's cost: string traversal times a quarter of the pattern", () => {
  const pattern = '^[a-z]+$';
  const s: SchemaObject = { type: 'string', ...rules({ rule: `self.matches('${pattern}')` }) };
  const value = 'a'.repeat(10_000);
  const budget = newCostBudget();
  assert.deepEqual(run(s, value, budget), []);
  const spent = RUNTIME_CEL_COST_BUDGET - budget.remaining;
  assert.ok(spent >= regexCost(value, pattern) && spent < regexCost(value, pattern) + 10, `cost ${spent}`);
});

test('a pathological regex in a rule answers at once, and RE2 syntax applies', () => {
  const s: SchemaObject = { type: 'string', ...rules({ rule: "self.matches('^(a+)+$')", message: 'only a' }, { rule: "self.matches('!\\\\z')" }) };
  assert.deepEqual(run(s, `${'a'.repeat(40)}!`, newCostBudget()), ['spec: Invalid value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!": only a']);
  const dyn: SchemaObject = { type: 'object', properties: { s: { type: 'string' }, re: { type: 'string' } }, ...rules({ rule: 'self.s.matches(self.re)' }, { rule: "self.s.find(self.re) != ''" }) };
  assert.deepEqual(run(dyn, { s: `${'a'.repeat(40)}!`, re: '^(a|a)*$' }, newCostBudget()), [
    'spec: Invalid value: failed rule: self.s.matches(self.re)',
    "spec: Invalid value: failed rule: self.s.find(self.re) != ''",
  ]);
  assert.deepEqual(run(dyn, { s: 'x', re: '(?=x)' }, newCostBudget()), [
    'spec: Invalid value: "object": error parsing regexp: invalid or unsupported Perl syntax: `(?=` evaluating rule: self.s.matches(self.re)',
    "spec: Invalid value: \"object\": Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=` evaluating rule: self.s.find(self.re) != ''",
  ]);
});

test('a concatenation is charged a tenth of the size it builds', () => {
  const s: SchemaObject = { type: 'string', ...rules({ rule: "(self + self + self).size() > 0" }) };
  const budget = newCostBudget();
  assert.deepEqual(run(s, 'a'.repeat(100_000), budget), []);
  const spent = RUNTIME_CEL_COST_BUDGET - budget.remaining;
  // 20,000 for the first concatenation, 30,000 for the second.
  assert.ok(spent >= 50_000 && spent < 50_100, `cost ${spent}`);
});
