import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaObject } from '@kplane/api';
import { applyDefaults, compileDefaulter } from './defaults.js';
import { sortedKeys } from './unstructured.js';

const schema = JSON.parse(
  '{"type":"object","properties":{"__proto__":{"type":"object","default":{"polluted":true}},"constructor":{"type":"string","default":"c"}},"additionalProperties":{"type":"string","default":"d","nullable":false}}',
) as SchemaObject;

test('defaults set __proto__ and constructor as own properties and never touch prototypes', () => {
  for (const apply of [(v: unknown) => applyDefaults(v, schema), (v: unknown) => compileDefaulter(schema)!(v)]) {
    const value: Record<string, unknown> = JSON.parse('{"x":null}');
    apply(value);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(value)), JSON.parse('{"x":"d","__proto__":{"polluted":true},"constructor":"c"}'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  }
});

test('sorted keys keep a __proto__ key as data', () => {
  const out = sortedKeys(JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":[{"__proto__":2}]}')) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true},"a":[{"__proto__":2}],"b":1}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
