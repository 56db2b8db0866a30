import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Problems } from './draft.js';
import { literal } from './emit.js';
import { normalizeName } from './join.js';
import { constName, protoPackageOf } from './packages.js';
import { compareNames, namedTypeOf, typeOf, typeRefOf, type SwaggerSchema } from './swagger.js';

test('TypeRefs of swagger property schemas', () => {
  const problems = new Problems();
  const cases: [SwaggerSchema, string][] = [
    [{ type: 'string' }, 'string'],
    [{ type: 'string', format: 'byte' }, 'byte'],
    [{ type: 'integer', format: 'int64' }, 'int64'],
    [{ type: 'number', format: 'double' }, 'double'],
    [{ type: 'boolean' }, 'boolean'],
    [{ $ref: '#/definitions/a.b.C' }, 'a.b.C'],
    [{ type: 'array', items: { type: 'array', items: { type: 'integer', format: 'int32' } } }, '[][]int32'],
    [{ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }, 'map[string][]string'],
  ];
  for (const [schema, ref] of cases) assert.equal(typeRefOf(schema, 'x', problems), ref);
  assert.deepEqual(problems.list, []);
  typeRefOf({ type: 'integer' }, 'T.n', problems);
  typeRefOf({ type: 'object' }, 'T.o', problems);
  assert.equal(problems.list.length, 2);
});

test('type facts, with unknown schema keys and bad extension values reported', () => {
  const problems = new Problems();
  const type = typeOf('T', {
    type: 'object',
    required: ['b', 'missing'],
    properties: { b: { type: 'string', 'x-kubernetes-list-type': 'bag' }, a: { type: 'string', pattern: '^x$' } as SwaggerSchema },
  }, problems);
  assert.deepEqual(Object.keys(type.fields!), ['a', 'b']);
  assert.equal(type.fields!['b']!.required, true);
  assert.deepEqual(problems.list.sort(), [
    'T.a: unknown schema key pattern',
    'T.b list-type: unexpected value "bag"',
    'T: required missing is not a property',
  ]);
});

test('names and literals', () => {
  assert.equal(namedTypeOf('map[string][]a.B'), 'a.B');
  assert.equal(namedTypeOf('[]string'), undefined);
  assert.deepEqual(['b', '$ref', 'B', 'a'].sort(compareNames), ['$ref', 'B', 'a', 'b']);
  assert.equal(normalizeName('x-kubernetes-list-type'), normalizeName('xKubernetesListType'));
  assert.equal(normalizeName('$ref'), 'ref');
  assert.equal(protoPackageOf('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.'), 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1');
  assert.equal(constName('admissionregistration-v1'), 'admissionregistrationV1');
  assert.equal(literal({ a: 'x', 'b-c': [1, true, null], d: "it's" }), `{ a: 'x', 'b-c': [1, true, null], d: "it's" }`);
});
