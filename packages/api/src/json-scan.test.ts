import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH, outsideInt64, scanJson } from './json-scan.js';

test('nesting up to MAX_NESTING_DEPTH passes, one level more is 400', () => {
  const ok = '['.repeat(MAX_NESTING_DEPTH) + ']'.repeat(MAX_NESTING_DEPTH);
  assert.deepEqual(scanJson(ok), { duplicates: [] });
  const deep = `{"a":${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}}`;
  assert.throws(() => scanJson(deep), { code: 400, reason: 'BadRequest', message: `json: exceeded max depth of ${MAX_NESTING_DEPTH}` });
  // Brackets inside strings do not count.
  assert.deepEqual(scanJson(JSON.stringify({ s: '['.repeat(1000) })), { duplicates: [] });
  assert.throws(() => scanJson('['.repeat(20000)), { code: 400 });
});

test('integer literals must fit int64; floats and exponents are left alone', () => {
  assert.doesNotThrow(() => scanJson('[9223372036854775807, -9223372036854775808, 1e300, 18446744073709551616.5, 0.1]'));
  assert.throws(() => scanJson('{"replicas": 9223372036854775808}'), { code: 400, message: 'json: cannot unmarshal number 9223372036854775808 into Go struct field .replicas of type int64' });
  assert.throws(() => scanJson('{"spec": {"a": [1, -9223372036854775809]}}'), { code: 400, message: 'json: cannot unmarshal number -9223372036854775809 into Go struct field .spec.a[1] of type int64' });
  assert.throws(() => scanJson('9223372036854775808'), { code: 400, message: 'json: cannot unmarshal number 9223372036854775808 into Go value of type int64' });
  assert.throws(() => scanJson('[-9223372036854775809]'), { code: 400 });
  assert.equal(outsideInt64('18446744073709551616'), true);
  assert.equal(outsideInt64('-12'), false);
  assert.throws(() => scanJson('[1e400]'), { code: 400, message: 'json: cannot unmarshal number 1e400 into Go value of type float64' });
  assert.throws(() => scanJson('[-2.5E+999]'), { code: 400 });
  // Digits inside strings are not numbers.
  assert.doesNotThrow(() => scanJson('{"a": "18446744073709551616"}'));
});

test('duplicate keys are reported with their paths, escaped keys decoded', () => {
  const text = '{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c"},{"name":"d","image":"x","image":"y"}]},"k\\u0065y":1,"key":2}';
  assert.deepEqual(scanJson(text).duplicates, ['metadata.name', 'spec.containers[1].image', 'key']);
  // The same key in sibling objects, or as a value, is no duplicate.
  assert.deepEqual(scanJson('[{"a":"a"},{"a":"a"}]').duplicates, []);
});

test('malformed text is left to JSON.parse', () => {
  for (const bad of ['{"a":', '{"a" 1}', '"unterminated', '}}}', '[1,,2]', '{"a":tru}']) {
    assert.doesNotThrow(() => scanJson(bad), bad);
  }
});
