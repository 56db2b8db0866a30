import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonWriter, objectEnd } from './json-writer.js';

test('JsonWriter: the bytes of every piece, in order, through growing chunks and oversized pieces', () => {
  const pieces = ['{"items":['];
  for (let i = 0; i < 3000; i++) pieces.push(`${i ? ',' : ''}{"name":"é-${i}","data":"${'x'.repeat(i % 97)}"}`);
  pieces.push(`,"${'€'.repeat(40_000)}"`, ']}');
  const w = new JsonWriter();
  for (const p of pieces) w.write(p);
  const want = Buffer.from(pieces.join(''));
  assert.equal(w.size, want.length);
  const chunks = w.takeChunks();
  assert.ok(chunks.length > 3, 'written in several chunks');
  assert.deepEqual(Buffer.concat(chunks), want);
  assert.equal(w.size, 0);
  w.write('[]');
  assert.equal(w.take().toString(), '[]');
});

test('JsonWriter: a writer that writes nothing hands out nothing', () => {
  const w = new JsonWriter();
  assert.deepEqual(w.takeChunks(), []);
  w.write('');
  assert.equal(w.take().length, 0);
});

test('objectEnd: the end of an object, past strings with braces and escapes and nested values', () => {
  const json = '{"metadata":{"name":"a}","labels":{"k":"\\"}"},"f":[{"x":1}]},"spec":{}}';
  const from = json.indexOf('{', 1) + 1;
  assert.equal(json.slice(from - 1, objectEnd(json, from)), '{"name":"a}","labels":{"k":"\\"}"},"f":[{"x":1}]}');
  assert.equal(objectEnd('{"a":"}', 1), 0);
});
