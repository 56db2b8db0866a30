import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';

const doc = { metadata: { name: 'x', labels: { a: '1' } }, data: { k: 'v' }, list: [1, 2, 3] };

test('applies operations without touching the input', () => {
  const out = applyJsonPatch(doc, [
    { op: 'add', path: '/metadata/labels/b', value: '2' },
    { op: 'replace', path: '/data/k', value: 'w' },
    { op: 'remove', path: '/list/0' },
    { op: 'test', path: '/metadata/name', value: 'x' },
    { op: 'add', path: '/list/-', value: 9 },
  ]);
  assert.deepEqual(out, { metadata: { name: 'x', labels: { a: '1', b: '2' } }, data: { k: 'w' }, list: [2, 3, 9] });
  assert.deepEqual(doc.list, [1, 2, 3]);
});

test('operations that do not apply are 422 Invalid', () => {
  for (const ops of [
    [{ op: 'test', path: '/metadata/name', value: 'y' }],
    [{ op: 'remove', path: '/missing' }],
    [{ op: 'replace', path: '/missing/deeper', value: 1 }],
    [{ op: 'bogus', path: '/a' }],
  ]) {
    assert.throws(() => applyJsonPatch(doc, ops), { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
  }
});

test('malformed patches are 400 and too many operations 413', () => {
  assert.throws(() => applyJsonPatch(doc, { op: 'add' }), { code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' });
  assert.throws(() => applyJsonPatch(doc, ['x']), { code: 400, message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation' });
  const many = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/metadata/name', value: 'x' }));
  assert.throws(() => applyJsonPatch(doc, many), { code: 413, message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001' });
});

test('merge patch follows RFC 7386', () => {
  const out = applyMergePatch(doc, { metadata: { labels: { a: null, c: '3' } }, list: [7], data: null, extra: { x: { y: 1 } } });
  assert.deepEqual(out, { metadata: { name: 'x', labels: { c: '3' } }, list: [7], extra: { x: { y: 1 } } });
  assert.deepEqual(doc.metadata.labels, { a: '1' });
  assert.throws(() => applyMergePatch(doc, [1]), { code: 400, message: 'Invalid JSON Patch' });
  assert.throws(() => applyMergePatch(doc, null), { code: 400 });
});

test('merge patch: __proto__, constructor and prototype keys stay data', () => {
  const out = applyMergePatch({ data: { a: '1' } }, JSON.parse('{"data":{"__proto__":{"polluted":1},"constructor":"c"},"prototype":{"p":1}}')) as Record<string, any>;
  assert.equal(Object.getPrototypeOf(out.data), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(out)), JSON.parse('{"data":{"a":"1","__proto__":{"polluted":1},"constructor":"c"},"prototype":{"p":1}}'));
  const again = applyMergePatch(out, JSON.parse('{"data":{"__proto__":{"more":2}}}')) as Record<string, any>;
  assert.deepEqual(Object.getOwnPropertyDescriptor(again.data, '__proto__')?.value, { polluted: 1, more: 2 });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('JSON patch: prototype paths are refused (422), plain keys named constructor are data', () => {
  assert.throws(() => applyJsonPatch({ a: {} }, [{ op: 'add', path: '/a/__proto__/polluted', value: 1 }]), { code: 422 });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(applyJsonPatch({ a: {} }, [{ op: 'add', path: '/a/constructor', value: 1 }]), { a: { constructor: 1 } });
});
