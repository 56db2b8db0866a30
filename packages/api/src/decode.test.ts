import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, mediaType } from './decode.js';

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

test('malformed bodies are 400 BadRequest with the parser message', () => {
  assert.throws(() => decodeBody(enc('{"a":'), 'application/json'), (e: any) => e.code === 400 && e.reason === 'BadRequest' && /^json: /.test(e.message));
  assert.throws(() => decodeBody(enc('a: [1\n'), 'application/yaml'), (e: any) => e.code === 400 && /^yaml: /.test(e.message) && !e.message.includes('\n'));
  assert.throws(() => decodeBody(enc('a: 1\na: 2\n'), 'application/yaml'), { code: 400, message: 'yaml: Map keys must be unique at line 2, column 1:' });
  assert.throws(() => decodeBody(enc('a: 1\n---\nb: 2\n'), 'application/yaml'), { code: 400, message: 'yaml: the request body contains more than one document' });
  assert.throws(() => decodeBody(enc('   '), 'application/json'), { code: 400, message: 'the request body is empty' });
  assert.throws(() => decodeBody(new Uint8Array([0xff, 0xfe]), 'application/json'), { code: 400, message: 'the request body is not valid UTF-8' });
});

test('unknown media types are 415', () => {
  assert.throws(() => decodeBody(enc('x'), 'application/vnd.kubernetes.protobuf'), { code: 415, reason: 'UnsupportedMediaType' });
});
