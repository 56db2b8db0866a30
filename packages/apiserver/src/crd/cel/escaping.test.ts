import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CEL_RESERVED, celEscape, propertyOf } from './escaping.js';

test("property names escape as Kubernetes escapes them", () => {
  const cases: [string, string | undefined][] = [
    ['a.a', 'a__dot__a'],
    ['a-a', 'a__dash__a'],
    ['a__a', 'a__underscores__a'],
    ['a.-/__a', 'a__dot____dash____slash____underscores__a'],
    ['a._a', 'a__dot___a'],
    ['a__.__a', 'a__underscores____dot____underscores__a'],
    ['a___a', 'a__underscores___a'],
    ['a____a', 'a__underscores____underscores__a'],
    ['a__dot__a', 'a__underscores__dot__underscores__a'],
    ['namespace', '__namespace__'],
    ['if', '__if__'],
    ['has', 'has'],
    ['exists_one', 'exists_one'],
    ['_if', '_if'],
    ['_anything', '_anything'],
    ['@', undefined],
    ['1up', undefined],
    ['👑', undefined],
    ['', undefined],
  ];
  for (const [name, escaped] of cases) assert.equal(celEscape(name), escaped, name);
  for (const word of CEL_RESERVED) assert.equal(celEscape(word), `__${word}__`);
  assert.equal(CEL_RESERVED.size, 21);
});

test('a rule names a property by its escape only', () => {
  const schema = { type: 'object' as const, properties: { namespace: { type: 'string' as const }, 'x-y': { type: 'string' as const }, plain: { type: 'string' as const } } };
  assert.equal(propertyOf(schema, '__namespace__'), 'namespace');
  assert.equal(propertyOf(schema, 'x__dash__y'), 'x-y');
  assert.equal(propertyOf(schema, 'plain'), 'plain');
  assert.equal(propertyOf(schema, 'namespace'), undefined);
  assert.equal(propertyOf(schema, 'x-y'), undefined);
});
