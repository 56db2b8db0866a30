/**
 * Static cost estimates, each worked out by hand from kube-apiserver's sources: cel-go's checker
 * cost model (v0.22), Kubernetes' library cost estimator and SchemaDeclType's size bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject } from '@kplane/api';
import { celEnvironment } from './library.js';
import { estimateCost, maxElements, MAX_COST } from './cost.js';
import { decl, unboundedCardinality } from './decl.js';
import { loadCel } from './load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

const cost = (expr: string, schema: SchemaObject, root = false) => estimateCost(celEnvironment().parse(expr).ast, schema, root);
const spec: SchemaObject = {
  type: 'object',
  properties: {
    host: { type: 'string', maxLength: 253 },
    name: { type: 'string' },
    replicas: { type: 'integer' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
    any: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 20 } },
    mode: { type: 'string', enum: ['Always', 'Never', 'IfNotPresent'] },
    timeout: { type: 'string', format: 'duration' },
  },
};

test('sizes as Kubernetes declares them: maxLength counts 4 bytes a character, enums their longest value, formats their longest encoding', () => {
  const d = decl(spec)!;
  assert.equal(d.fields!.get('host')!.maxElements, 1012);
  assert.equal(d.fields!.get('name')!.maxElements, 3 * 1024 * 1024 - 2);
  assert.equal(d.fields!.get('mode')!.maxElements, 12);
  assert.equal(d.fields!.get('timeout')!.maxElements, 32);
  assert.equal(d.fields!.get('tags')!.maxElements, 10);
  assert.equal(maxElements({ type: 'array', items: { type: 'integer' } }), Math.floor((3 * 1024 * 1024 - 2) / 2));
  assert.equal(maxElements({ type: 'array', items: { type: 'boolean' } }), Math.floor((3 * 1024 * 1024 - 2) / 5));
  assert.equal(maxElements({ type: 'object', additionalProperties: { type: 'string' } }), Math.floor((3 * 1024 * 1024 - 2) / 8));
  // An item {name: string} with name required: 2 + len("name") + 2 + 4 bytes at least; a default makes it optional.
  const item: SchemaObject = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  assert.equal(decl(item)!.minSerializedSize, 12);
  assert.equal(unboundedCardinality(item, false), Math.floor((3 * 1024 * 1024) / 13));
  assert.equal(decl({ ...item, properties: { name: { type: 'string', default: 'x' } } })!.minSerializedSize, 2);
});

test('identifiers and selections cost 1, has() is free, literals 0, && and || add both sides', () => {
  assert.equal(cost('self.replicas >= 2', spec), 3);
  assert.equal(cost('!has(self.host) || self.replicas >= 2', spec), 5);
  assert.equal(cost("'x'", spec), 0);
  assert.equal(cost('size(self.tags) <= 5', spec), 4);
  assert.equal(cost('self.replicas == 3', spec), 2, 'an int field has no size: comparing it costs nothing');
  assert.equal(cost("self.host in ['a', 'b']", spec), 2 + 10 + 2);
  assert.equal(cost("self.labels['a'] == 'b'", spec), 2 + 1 + 1, 'index 1, and the value (80 bytes) compared with one character');
});

test('string operations cost a tenth of the bounded length they traverse', () => {
  assert.equal(cost('self.host == oldSelf.host', spec), 2 + 2 + 102);
  assert.equal(cost("self.host.endsWith('.apps.example.com')", spec), 2 + 2, 'the suffix (17 characters) is traversed');
  assert.equal(cost("self.host.lowerAscii() == 'x'", spec), 2 + 102 + 1);
  assert.equal(cost("self.mode == 'Always'", spec), 2 + 1);
  assert.equal(cost("self.host.contains('ab')", spec), 2 + 102 * 1);
  assert.equal(cost("self.host.split('.').size() > 1", spec), 2 + 203 + 1 + 1);
  assert.ok(cost("self.name.lowerAscii() == 'x'", spec) > 300_000, 'unbounded strings are bounded by the request size');
});

test('comprehensions: range + init + result, and condition + step per element', () => {
  // all: 2 (range) + 1 + 10 × (3 + x.matches: 1 + ceil(41 / 10) × ceil(2 / 4)).
  assert.equal(cost("self.tags.all(x, x.matches('^a'))", spec), 2 + 1 + 10 * (3 + 6));
  assert.equal(cost("self.tags.exists(x, x == 'a')", spec), 2 + 1 + 10 * (4 + 2));
  assert.equal(cost("self.tags.exists_one(x, x == 'a')", spec), 2 + 2 + 10 * (2 + 2));
  assert.equal(cost("self.tags.map(x, x + 'y')", spec), 2 + 11 + 10 * (12 + 6));
  assert.equal(cost("self.tags.filter(x, x == 'a')", spec), 2 + 11 + 10 * (13 + 2));
  assert.equal(cost("self.labels.all(k, k != 'x')", spec), 2 + 1 + 5 * (3 + 1), 'map keys have no declared size');
  assert.ok(cost("self.any.all(x, x.matches('^a'))", spec) > 1e9);
});

test('library functions: lists, regex, url, quantity, format, cel.bind', () => {
  assert.equal(cost('self.tags.isSorted()', spec), 2 + 10 * (1 + 4));
  assert.equal(cost("self.host.find('[a-z]+') == ''", spec), 2 + 102 * 2 + 0);
  assert.equal(cost("isURL(self.host) && url(self.host).getHost() == 'x'", spec), 3 + (2 + 102) + 1 + 1);
  assert.equal(cost("isQuantity(self.host) && quantity(self.host).isLessThan(quantity('1Gi'))", spec), 3 + 3 + 1 + 1);
  assert.equal(cost("quantity(self.host) == quantity('1')", spec), 3 + 1 + 1, 'quantities compare in one step');
  assert.equal(cost("url(self.host) == url('https://x')", spec), (2 + 102) + 1 + 1, 'URLs compare by the right side');
  assert.ok(cost("quantity(self.host) != quantity('1')", spec) > 1e18, '!= has no Kubernetes estimate: the sizes of quantities are unknown');
  assert.equal(cost("'got %d'.format([self.replicas])", spec), 1 + 10 + 2);
  assert.equal(cost('cel.bind(h, self.host, h == h)', spec), 10 + 2 + 2, 'a bound variable is sized by the root (an object: 0)');
  assert.ok(cost("'got ' + string(self.replicas)", spec) >= MAX_COST / 10, 'string() has no declared size');
});

test('a resource root sees apiVersion, kind and metadata.name (unbounded strings)', () => {
  assert.equal(cost("self.metadata.name.startsWith('a')", { type: 'object', properties: { spec: { type: 'object' } } }, true), 3 + 1);
});
