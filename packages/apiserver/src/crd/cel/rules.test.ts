import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject, StatusCause } from '@kplane/api';
import { compileRules, normalizeFieldPath } from './rules.js';
import { buildCelValidator, validateCel } from './validator.js';
import { celFormat, parseQuantity } from './library.js';
import { loadCel } from './load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

const texts = (causes: StatusCause[]) => causes.map((c) => `${c.field}: ${c.message}`);

/** Validates `value` at spec with one schema carrying the rules. */
function run(schema: SchemaObject, value: unknown, old?: unknown, warnings?: string[]): string[] {
  const root: SchemaObject = { type: 'object', properties: { spec: schema } };
  const v = buildCelValidator(root);
  assert.ok(v, 'the schema has rules');
  return texts(validateCel(v, { spec: value }, '', old === undefined ? undefined : { value: { spec: old } }, warnings));
}

const rules = (...r: object[]) => ({ 'x-kubernetes-validations': r }) as SchemaObject;

test('rule and message: scalar values are shown, objects omitted, default message names the rule', () => {
  const s: SchemaObject = { type: 'object', properties: { replicas: { type: 'integer' }, min: { type: 'integer' } }, ...rules({ rule: 'self.min <= self.replicas' }) };
  assert.deepEqual(run(s, { replicas: 1, min: 2 }), ['spec: Invalid value: failed rule: self.min <= self.replicas']);
  assert.deepEqual(run(s, { replicas: 3, min: 2 }), []);
  const str: SchemaObject = { type: 'string', ...rules({ rule: "self.startsWith('kube')", message: 'must start with kube' }) };
  assert.deepEqual(run(str, 'docker'), ['spec: Invalid value: "docker": must start with kube']);
});

test('messageExpression (format), reason and fieldPath', () => {
  const s: SchemaObject = {
    type: 'object',
    properties: { host: { type: 'string', maxLength: 253 }, replicas: { type: 'integer' }, items: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 10 } } },
    ...rules(
      { rule: "!has(self.host) || self.host.endsWith('.apps.example.com')", message: 'host must be in the apps.example.com zone', fieldPath: '.host' },
      { rule: '!has(self.host) || self.replicas >= 2', messageExpression: "'needs at least 2 replicas, got %d'.format([self.replicas])", reason: 'FieldValueForbidden' },
      { rule: 'has(self.replicas)', reason: 'FieldValueRequired', message: 'replicas please' },
      { rule: 'self.items.size() == 0', reason: 'FieldValueDuplicate', fieldPath: ".items" },
      { rule: 'false', reason: 'FieldValueInvalid', messageExpression: "'%s and %s'.format([self.host, string(self.replicas)])" },
    ),
  };
  assert.deepEqual(run(s, { host: 'x.org', replicas: 1, items: ['a'] }), [
    'spec.host: Invalid value: host must be in the apps.example.com zone',
    'spec: Forbidden: needs at least 2 replicas, got 1',
    'spec.items: Duplicate value',
    'spec: Invalid value: x.org and 1',
  ]);
  assert.deepEqual(run(s, { host: 'x.apps.example.com', items: [] }), [
    'spec: Invalid value: "object": no such key: replicas evaluating rule: !has(self.host) || self.replicas >= 2',
    'spec: Required value: replicas please',
    'spec: Invalid value: failed rule: false',
  ], 'a failing messageExpression falls back to the default message');
});

test('transition rules run only on update; optionalOldSelf runs on create with an empty oldSelf', () => {
  const immutable: SchemaObject = { type: 'string', ...rules({ rule: 'self == oldSelf', message: 'host cannot be changed' }) };
  assert.deepEqual(run(immutable, 'a'), []);
  assert.deepEqual(run(immutable, 'b', 'a'), ['spec: Invalid value: "b": host cannot be changed']);
  assert.deepEqual(run(immutable, 'a', 'a'), []);
  const growing: SchemaObject = { type: 'integer', ...rules({ rule: '!oldSelf.hasValue() || self >= oldSelf.value()', optionalOldSelf: true, message: 'may only grow' }) };
  assert.deepEqual(run(growing, 1), []);
  assert.deepEqual(run(growing, 1, 2), ['spec: Invalid value: 1: may only grow']);
  const createOnly: SchemaObject = { type: 'integer', ...rules({ rule: 'oldSelf.hasValue() || self > 10', optionalOldSelf: true, message: 'start above 10' }) };
  assert.deepEqual(run(createOnly, 1), ['spec: Invalid value: 1: start above 10']);
});

test('ratcheting: an unchanged invalid value only warns', () => {
  const s: SchemaObject = { type: 'object', properties: { a: { type: 'string', ...rules({ rule: "self.startsWith('x')", message: 'x first' }) }, b: { type: 'string' } } };
  const warnings: string[] = [];
  assert.deepEqual(run(s, { a: 'bad', b: 'new' }, { a: 'bad', b: 'old' }, warnings), []);
  assert.deepEqual(warnings, ['spec.a: Invalid value: "bad": x first']);
  assert.deepEqual(run(s, { a: 'worse', b: 'new' }, { a: 'bad', b: 'old' }), ['spec.a: Invalid value: "worse": x first']);
});

test('lists, maps, has() and the rules of list items', () => {
  const s: SchemaObject = {
    type: 'object',
    properties: {
      set1: { type: 'array', items: { type: 'string' } },
      set2: { type: 'array', items: { type: 'string' } },
      map1: { type: 'object', additionalProperties: { type: 'string' } },
      ports: { type: 'array', items: { type: 'integer', ...rules({ rule: 'self > 0 && self < 65536', message: 'bad port' }) } },
    },
    ...rules({ rule: 'self.set1.all(e, !(e in self.set2))', message: 'disjoint' }, { rule: "!('MY_KEY' in self.map1)", message: 'no MY_KEY' }, { rule: 'self.ports.exists_one(p, p == 80)', message: 'one 80' }),
  };
  assert.deepEqual(run(s, { set1: ['a'], set2: ['b'], map1: {}, ports: [80, 443] }), []);
  assert.deepEqual(run(s, { set1: ['a'], set2: ['a'], map1: { MY_KEY: 'v' }, ports: [80, 80, 0] }), [
    'spec: Invalid value: disjoint',
    'spec: Invalid value: no MY_KEY',
    'spec: Invalid value: one 80',
    'spec.ports[2]: Invalid value: 0: bad port',
  ]);
});

test('Kubernetes library functions: strings, lists, regex, urls, quantities', () => {
  const ok = (rule: string, value: unknown, schema: SchemaObject = { type: 'string' }) => assert.deepEqual(run({ ...schema, ...rules({ rule }) }, value), [], rule);
  ok("self.lowerAscii() == 'abc' && self.upperAscii() == 'ABC'", 'aBc');
  ok("self.split(',').size() == 2 && self.replace(',', ';') == 'a;b' && self.indexOf(',') == 1", 'a,b');
  ok("self.charAt(1) == 'b' && self.substring(1) == 'bc' && self.trim() == 'abc'", 'abc');
  ok("self.find('[0-9]+') == '42' && self.findAll('[0-9]').size() == 3", 'ab42c7');
  ok("self.matches('^[a-z]+$')", 'abc');
  ok("isURL(self) && url(self).getScheme() == 'https' && url(self).getHost() == 'example.com:8443' && url(self).getEscapedPath() == '/x'", 'https://example.com:8443/x');
  ok("quantity(self).isLessThan(quantity('1Gi')) && quantity(self).isGreaterThan(quantity('500m')) && isQuantity(self)", '512Mi');
  ok('self.isSorted() && self.sum() == 6 && self.min() == 1 && self.max() == 3 && self.indexOf(2) == 1', [1, 2, 3], { type: 'array', items: { type: 'integer' } });
  ok("['a', 'b'].join('-') == 'a-b' && 'x'.format([]) == 'x'", 'x');
  ok('self.map(x, x * 2).filter(y, y > 2) == [4, 6]', [1, 2, 3], { type: 'array', items: { type: 'integer' } });
  ok('timestamp(self) > timestamp("2020-01-01T00:00:00Z")', '2024-05-01T00:00:00Z');
  ok("duration('1m') > duration('30s')", 'x');
  assert.equal(celFormat('%s=%d (%.2f)', ['a', 3n, 1.5]), 'a=3 (1.50)');
  assert.equal(parseQuantity('1.5Gi')?.compare(parseQuantity('1536Mi')!), 0);
});

test('compile errors: syntax, undefined fields, non-bool results', () => {
  const s: SchemaObject = { type: 'object', properties: { a: { type: 'string' } } };
  const errs = (rule: string, extra: object = {}) => compileRules({ ...s, ...rules({ rule, ...extra }) })[0]!;
  assert.equal(errs('self.b == 1').error, "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 1\n | ....^");
  assert.match(errs('self.a ==').error!, /^compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
  assert.equal(errs('1 + 2').error, 'cel expression must evaluate to a bool');
  assert.equal(errs("self.a == 'x'", { messageExpression: '1' }).messageError, 'messageExpression must evaluate to a string');
  assert.equal(errs('self == oldSelf').usesOldSelf, true);
  assert.equal(normalizeFieldPath(".a", s), 'a');
  assert.equal(normalizeFieldPath(".b", s), null);
  assert.equal(normalizeFieldPath("['a']", { type: 'object', properties: { a: { type: 'string' } } }), 'a');
  assert.equal(normalizeFieldPath(".m['k.1']", { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } } } }), 'm[k.1]');
});
