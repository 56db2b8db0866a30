/**
 * Static cost estimates compared with the ones kube-apiserver's own test table
 * (apiextensions-apiserver's cost estimation tests) records for the same schemas and rules:
 * each case without size limits ("calc") and with maxItems / maxProperties / maxLength set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject } from '@kplane/api';
import { celEnvironment } from './library.js';
import { estimateCost } from './cost.js';
import { loadCel } from './load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

type Gen = (max?: number) => SchemaObject;

/** A schema for a type name of the table: number, string, boolean, integer, int-or-string, duration, date, date-time. */
function scalar(type: string): SchemaObject {
  if (type === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (type === 'duration' || type === 'date' || type === 'date-time') return { type: 'string', format: type };
  return { type: type as SchemaObject['type'] };
}
const objectItem = (): SchemaObject => ({ type: 'object', required: ['required'], properties: { required: { type: 'string' }, optional: { type: 'string' } } });
const array = (items: SchemaObject): Gen => (max) => ({ type: 'array', items, ...(max === undefined ? {} : { maxItems: max }) });
const map = (values: SchemaObject): Gen => (max) => ({ type: 'object', additionalProperties: values, ...(max === undefined ? {} : { maxProperties: max }) });
const str: Gen = (max) => ({ type: 'string', ...(max === undefined ? {} : { maxLength: max }) });

/** [expression, schema, calc cost (0: not recorded), set maximum, set cost]. */
const CASES: [string, Gen, number, number, number][] = [
  ['self.all(x, true)', array(scalar('number')), 4718591, 10, 32],
  ['self.all(x, true)', array(scalar('string')), 3145727, 20, 62],
  ['self.all(x, true)', array(scalar('boolean')), 1887437, 5, 17],
  ['self.all(x, true)', array({ type: 'array', items: { type: 'number' } }), 3145727, 100, 302],
  ['self.all(x, true)', array(objectItem()), 555128, 50, 152],
  ['self.all(x, true)', map(scalar('number')), 1348169, 10, 32],
  ['self.all(x, true)', map(scalar('string')), 1179647, 3, 11],
  ['self.all(x, true)', map(scalar('boolean')), 943718, 100, 302],
  ["self.contains('test')", str, 314574, 10, 5],
  ["self.startsWith('test')", str, 2, 15, 2],
  ["self.endsWith('test')", str, 2, 30, 2],
  ['size(self + "hello") > size("hello")', str, 314578, 4, 7],
  ['self[1] == 0.0', array(scalar('number')), 2, 5000, 2],
  ['self[1] == self[1]', array(scalar('string')), 314577, 8, 314577],
  ['self.all(x, self.all(y, true))', array(scalar('number')), 0, 10, 352],
  ['self.all(x, self.all(y, self.all(z, true)))', array(scalar('number')), 0, 10, 3552],
  ['self.matches("x")', str, 314574, 50, 22],
  ['"".matches("(((((((((())))))))))[0-9]")', str, 7, 10, 7],
  ['self.matches("")', str, 1, 100, 1],
  ['self.all(x, x.contains(self[x]))', (max) => ({ type: 'object', additionalProperties: str(max), ...(max === undefined ? {} : { maxProperties: max }) }), 2752507, 10, 72],
  ['self[3] == 0.0', array(scalar('number')), 2, 0, 2],
  ['self["x"] == 0.0', map(scalar('number')), 2, 0, 2],
  ['self == "x"', str, 2, 0, 1],
  ['self == b"x"', (max) => ({ type: 'string', format: 'byte', ...(max === undefined ? {} : { maxLength: max }) }), 2, 0, 1],
  ['self.all(x, x == 0.0)', array(scalar('number')), 6291454, 3 * 1024 * 2048, 25165826],
  ['self.all(x, true)', array(scalar('int-or-string')), 4718591, 10, 32],
  ['self[0] == 5', array(scalar('int-or-string')), 3, 10, 3],
  ['self[0] == false', array(scalar('boolean')), 2, 25, 2],
  ['self[0] == null', array(objectItem()), 2, 422, 2],
  ['self[0][0] == -1.0', array({ type: 'array', items: { type: 'number' } }), 3, 51, 3],
  ['self.all(x, x.y == 25.2)', array({ type: 'object', additionalProperties: { type: 'number' } }), 6291452, 12, 74],
  ['self[0].x > 2.0', array({ type: 'object', additionalProperties: { type: 'number' } }), 4, 3000, 4],
  ['self.all(x, true)', array(scalar('duration')), 2359295, 5, 17],
  ['self[0].getHours() == 2', array(scalar('duration')), 4, 525, 4],
  ['self.all(x, true)', array(scalar('date')), 725936, 15, 47],
  ['self[2].getDayOfMonth() == 13', array(scalar('date')), 4, 42, 4],
  ['self.all(x, true)', array(scalar('date-time')), 428963, 25, 77],
  ['self[2].getMinutes() == 45', array(scalar('date-time')), 4, 99, 4],
  ['self.all(x, true)', map(scalar('int-or-string')), 1348169, 15, 47],
  ['self.all(x, true)', map(objectItem()), 428963, 20, 62],
  ['self.all(x, true)', map({ type: 'object', additionalProperties: { type: 'number' } }), 1179647, 10, 32],
  ['self.all(x, true)', map({ type: 'array', items: { type: 'number' } }), 1179647, 25, 77],
  ['self.all(x, true)', map(scalar('duration')), 1048577, 5, 17],
  ['self.all(x, true)', map(scalar('date')), 524288, 10, 32],
  ['self.all(x, true)', map(scalar('date-time')), 349526, 25, 77],
  ["self.find('[0-9]+') == ''", str, 629147, 10, 11],
  ["self.join(' ') == 'aa bb'", (max) => ({ ...array(str(max))(max) }), 329853068905, 10, 43],
  ['self.isSorted() == true', (max) => ({ ...array(str(max))(max) }), 329854432052, 10, 52],
  [
    "self.str.replace(self.before, self.after) == 'does not matter'",
    (max) => ({ type: 'object', properties: { str: str(max), before: { type: 'string', maxLength: 2 }, after: { type: 'string', maxLength: 4 } } }),
    629154,
    4,
    12,
  ],
  ['self.str.split(self.separator) == []', (max) => ({ type: 'object', properties: { str: str(max), separator: str(max) } }), 629160, 10, 22],
  ["self.lowerAscii() == 'lower!'", str, 314575, 10, 6],
  ['oldSelf.size() == self.size()', map(scalar('integer')), 5, 10, 5],
  ['self["a"] == self["b"]', map(scalar('date-time')), 8, 7, 8],
  ['self["c"] == self["d"]', map(scalar('duration')), 8, 42, 8],
  ["self.contains('A')", (max) => ({ type: 'string', enum: ['A', 'B', 'C', 'LongValue'], ...(max === undefined ? {} : { maxLength: max }) }), 2, 1000, 401],
];

const cost = (expr: string, schema: SchemaObject) => estimateCost(celEnvironment().parse(expr).ast, schema);

test("static costs equal kube-apiserver's for its own table of schemas and rules", () => {
  const wrong: string[] = [];
  for (const [expr, gen, calc, max, set] of CASES) {
    const c = cost(expr, gen());
    if (calc !== 0 && c !== calc) wrong.push(`${expr} (no limits): ${c}, Kubernetes ${calc}`);
    const s = cost(expr, gen(max));
    if (s !== set) wrong.push(`${expr} (limits ${max}): ${s}, Kubernetes ${set}`);
  }
  assert.deepEqual(wrong, []);
});
