import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneBody, decodeBody, duplicateFields, mediaType } from './decode.js';
import { MAX_NESTING_DEPTH } from './json-scan.js';

const enc = (s: string) => new TextEncoder().encode(s);

test('decodes JSON by media type, ignoring parameters', () => {
  assert.deepEqual(decodeBody(enc('{"a":[1,{"b":null}]}'), 'application/json; charset=utf-8'), { a: [1, { b: null }] });
  assert.deepEqual(decodeBody(enc('[{"op":"remove","path":"/a"}]'), 'application/json-patch+json'), [{ op: 'remove', path: '/a' }]);
  assert.deepEqual(decodeBody('{"a":1}', undefined), { a: 1 });
  assert.equal(mediaType(' Application/YAML ; x=y'), 'application/yaml');
});

test('decodes YAML (and JSON sent as YAML)', () => {
  const y = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  creationTimestamp: 2024-01-01T00:00:00Z\ndata:\n  flag: "yes"\n  n: 0777\nbase: &b {p: 1}\nmerged:\n  <<: *b\n  q: 2\n';
  assert.deepEqual(decodeBody(enc(y), 'application/apply-patch+yaml'), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' },
    data: { flag: 'yes', n: 777 },
    base: { p: 1 },
    merged: { p: 1, q: 2 },
  });
  assert.deepEqual(decodeBody(enc('{"a": 1}'), 'application/yaml'), { a: 1 });
  assert.deepEqual(decodeBody(enc('---\na: 1\n'), 'application/yaml'), { a: 1 });
});

test('JSON sent as YAML (an apply patch) decodes as the YAML parser would, duplicates and limits included', () => {
  const body = '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"admin","labels":{"a":"1"}},"rules":[{"verbs":["get"],"resources":["pods"]}],"n":-1.5e3,"s":"\\u00e9\\/x","z":null,"t":true}';
  assert.deepEqual(decodeBody(enc(body), 'application/apply-patch+yaml'), JSON.parse(body));
  assert.deepEqual(decodeBody(enc(` \n${body}\n`), 'application/yaml'), JSON.parse(body));
  assert.deepEqual(decodeBody(enc('[1, {"a": "b"}]'), 'application/yaml'), [1, { a: 'b' }]);
  // Flow YAML that is not JSON, and JSON with duplicate keys, still take the YAML decoder.
  assert.deepEqual(decodeBody(enc('{a: 1, b: [x]}'), 'application/yaml'), { a: 1, b: ['x'] });
  const dup = decodeBody(enc('{"a": 1, "a": 2}'), 'application/apply-patch+yaml');
  assert.deepEqual(dup, { a: 2 });
  assert.deepEqual(duplicateFields(dup), ['a']);
  assert.throws(() => decodeBody(enc('{"n": 18446744073709551616}'), 'application/yaml'), { code: 400 });
});

test('malformed bodies are 400 BadRequest with the parser message', () => {
  assert.throws(() => decodeBody(enc('{"a":'), 'application/json'), (e: any) => e.code === 400 && e.reason === 'BadRequest' && /^json: /.test(e.message));
  assert.throws(() => decodeBody(enc('a: [1\n'), 'application/yaml'), (e: any) => e.code === 400 && /^yaml: /.test(e.message) && !e.message.includes('\n'));
  assert.throws(() => decodeBody(enc('a: 1\n---\nb: 2\n'), 'application/yaml'), { code: 400, message: 'yaml: the request body contains more than one document' });
  assert.throws(() => decodeBody(enc('   '), 'application/json'), { code: 400, message: 'the request body is empty' });
  assert.throws(() => decodeBody(new Uint8Array([0xff, 0xfe]), 'application/json'), { code: 400, message: 'the request body is not valid UTF-8' });
});

test('unknown media types are 415', () => {
  assert.throws(() => decodeBody(enc('x'), 'application/vnd.kubernetes.protobuf'), { code: 415, reason: 'UnsupportedMediaType' });
});

test('limits: nesting depth, int64 integers and YAML aliasing are 400, for JSON and YAML alike', () => {
  const deep = '['.repeat(3000) + ']'.repeat(3000);
  assert.throws(() => decodeBody(enc(deep), 'application/json'), { code: 400, message: `json: exceeded max depth of ${MAX_NESTING_DEPTH}` });
  assert.throws(() => decodeBody(enc(`a: ${deep}\n`), 'application/yaml'), { code: 400, message: `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}` });
  const block = 'a:\n' + Array.from({ length: 400 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n') + '1\n';
  assert.throws(() => decodeBody(enc(block), 'application/yaml'), { code: 400 });
  assert.throws(() => decodeBody(enc('{"n": 18446744073709551616}'), 'application/json'), { code: 400, message: 'json: cannot unmarshal number 18446744073709551616 into Go struct field .n of type int64' });
  assert.throws(() => decodeBody(enc('n: 18446744073709551616\n'), 'application/yaml'), { code: 400 });
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (const [i, c] of 'bcdefgh'.split('').entries()) lines.push(`${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`);
  assert.throws(() => decodeBody(enc(lines.join('\n')), 'application/yaml'), { code: 400, reason: 'BadRequest', message: 'yaml: document contains excessive aliasing' });
  assert.throws(() => decodeBody(enc('a: &a [*a]\n'), 'application/yaml'), { code: 400 });
});

test('YAML aliases give every place its own copy', () => {
  const v = decodeBody(enc('a: &x {k: 1}\nb: *x\n'), 'application/yaml') as { a: { k: number }; b: { k: number } };
  v.a.k = 2;
  assert.equal(v.b.k, 1);
});

test('duplicate JSON keys: last one wins, paths remembered through cloneBody', () => {
  const v = decodeBody(enc('{"metadata":{"name":"a","name":"b"}}'), 'application/json');
  assert.deepEqual(v, { metadata: { name: 'b' } });
  assert.deepEqual(duplicateFields(v), ['metadata.name']);
  assert.deepEqual(duplicateFields(cloneBody(v)), ['metadata.name']);
  assert.deepEqual(duplicateFields(decodeBody(enc('{"a":1}'), 'application/json')), []);
  assert.deepEqual(duplicateFields('x'), []);
  const y = decodeBody(enc('a: 1\nb: [{n: x, n: y}]\na: 2\nm:\n  <<: {k: 1}\n  k: 2\n'), 'application/yaml');
  assert.deepEqual(y, { a: 2, b: [{ n: 'y' }], m: { k: 2 } });
  assert.deepEqual(duplicateFields(y), ['a', 'b[0].n']);
});

test('__proto__ keys become own data properties', () => {
  const v = decodeBody(enc('{"__proto__": {"polluted": true}}'), 'application/json') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__']);
  const y = decodeBody(enc('__proto__: {polluted: true}\n'), 'application/yaml') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(y), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
