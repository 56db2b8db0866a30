import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject } from '@kplane/api';
import { celEnvironment } from './library.js';
import { estimateCost, maxElements, MAX_COST } from './cost.js';

const cost = (expr: string, schema: SchemaObject) => estimateCost(celEnvironment().parse(expr).ast, schema);
const spec: SchemaObject = {
  type: 'object',
  properties: {
    host: { type: 'string', maxLength: 253 },
    name: { type: 'string' },
    replicas: { type: 'integer' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
    any: { type: 'array', items: { type: 'string' } },
  },
};

test('identifiers, selections and calls cost 1; && and || add both sides', () => {
  assert.equal(cost('self.replicas >= 2', spec), 3);
  assert.equal(cost('!has(self.host) || self.replicas >= 2', spec), 6);
  assert.equal(cost("'x'", spec), 0);
});

test('string operations cost a tenth of the bounded length', () => {
  assert.equal(cost('self.host == oldSelf.host', spec), 2 + 2 + 26);
  assert.equal(cost("self.host.endsWith('.apps.example.com')", spec), 2 + 2, 'the suffix (17 characters) is traversed');
  assert.equal(cost("self.host.lowerAscii() == 'x'", spec), 2 + 26 + 1);
  assert.ok(cost("self.name.lowerAscii() == 'x'", spec) > 300_000, 'unbounded strings are bounded by the request size');
});

test('comprehensions multiply the body by the largest list', () => {
  assert.equal(cost("self.tags.all(x, x.matches('^a'))", spec), 2 + 1 + 10 * (3 + 3));
  assert.ok(cost("self.any.all(x, x.matches('^a'))", spec) > 1e9);
  assert.equal(maxElements({ type: 'array', items: { type: 'integer' } }), Math.floor((3 * 1024 * 1024 - 2) / 2));
});

test('a string of unknown size makes a concatenation unbounded, format() does not', () => {
  assert.ok(cost("'got ' + string(self.replicas)", spec) >= MAX_COST / 10);
  assert.ok(cost("'got %d'.format([self.replicas])", spec) < 20);
  assert.ok(cost('string(self.replicas)', spec) < 5);
});
