import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFieldSelectorFields, escapeFieldValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldValue } from './fields.js';

const obj: Record<string, string> = { 'metadata.name': 'web', 'metadata.namespace': 'default', 'status.phase': 'Running' };
const get = (f: string) => obj[f];

test('parses =, == and != terms and matches', () => {
  const s = parseFieldSelector('metadata.name=web,status.phase!=Pending,metadata.namespace==default');
  assert.deepEqual(s.requirements, [
    { field: 'metadata.name', operator: '=', value: 'web' },
    { field: 'metadata.namespace', operator: '==', value: 'default' },
    { field: 'status.phase', operator: '!=', value: 'Pending' },
  ]);
  assert.equal(s.matches(get), true);
  assert.equal(parseFieldSelector('status.phase!=Running').matches(get), false);
  assert.equal(parseFieldSelector('metadata.name=other').matches(get), false);
  assert.equal(s.toString(), 'metadata.name=web,metadata.namespace=default,status.phase!=Pending');
});

test('empty selectors and missing fields', () => {
  assert.equal(parseFieldSelector('').empty, true);
  assert.equal(parseFieldSelector(',').empty, true);
  assert.equal(parseFieldSelector('').matches(get), true);
  assert.equal(parseFieldSelector('spec.nodeName=').matches(get), true);
  assert.equal(parseFieldSelector('spec.nodeName!=').matches(get), false);
});

test('escaping', () => {
  assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  assert.equal(unescapeFieldValue('a\\,b\\=c\\\\d'), 'a,b=c\\d');
  const s = parseFieldSelector('metadata.name=a\\,b,status.phase=x');
  assert.deepEqual(s.requirements.map((r) => r.value), ['a,b', 'x']);
  assert.equal(s.toString(), 'metadata.name=a\\,b,status.phase=x');
});

test('errors use the apimachinery wording', () => {
  assert.throws(() => parseFieldSelector('foo'), { code: 400, reason: 'BadRequest', message: "invalid selector: 'foo'; can't understand 'foo'" });
  assert.throws(() => parseFieldSelector('a=b,c'), { message: "invalid selector: 'a=b,c'; can't understand 'c'" });
  assert.throws(() => parseFieldSelector('a=b=c'), { message: 'invalid field selector: unescaped character in value: 61' });
  assert.throws(() => parseFieldSelector('a=b\\x'), { message: 'invalid field selector: invalid escape sequence: \\x' });
  assert.throws(() => parseFieldSelector('a=b\\'), { message: 'invalid field selector: invalid escape sequence: \\' });
});

test('checkFieldSelectorFields rejects unsupported fields', () => {
  const s = parseFieldSelector('metadata.name=a,spec.foo=b');
  assert.throws(() => checkFieldSelectorFields(s, ['metadata.name', 'metadata.namespace']), { code: 400, message: 'field label not supported: spec.foo' });
  assert.doesNotThrow(() => checkFieldSelectorFields(s, ['metadata.name', 'spec.foo']));
  assert.equal(fieldSelectorFromSet({ 'metadata.name': 'web' }).matches(get), true);
});
