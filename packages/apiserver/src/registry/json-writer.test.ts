import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonWriter, objectEnd, objectEndOfBytes, storedHeadLength, storedHeadLengthOfBytes } from './json-writer.js';

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

test('storedHeadLength finds the stored head, and only it', () => {
  const head = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{';
  assert.equal(storedHeadLength(head + '"name":"a"}}'), head.length);
  assert.equal(storedHeadLength(head + '}}'), head.length);
  assert.equal(storedHeadLength('{"kind":"Pod","apiVersion":"v1","metadata":{}}'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v1","kind":"Pod","spec":{},"metadata":{}}'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v\\"1","kind":"Pod","metadata":{}}'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v1\\","kind":"Pod","metadata":{}}'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v1","kind":"Po\\"d","metadata":{}}'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v1","kind":"Pod"'), 0);
  assert.equal(storedHeadLength('{"apiVersion":"v1'), 0);
});

test('the byte forms of storedHeadLength and objectEnd agree with the text forms (ASCII heads, UTF-8 content)', () => {
  const cases = [
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"é✓","labels":{"k":"\\"}"}},"spec":{}}',
    '{"apiVersion":"v1","kind":"Pod","metadata":{}}',
    '{"kind":"Pod","apiVersion":"v1","metadata":{}}',
    '{"apiVersion":"v\\"1","kind":"Pod","metadata":{}}',
    '{"apiVersion":"v1","kind":"Pod"',
    '{"apiVersion":"v1',
    '',
  ];
  for (const json of cases) {
    const bytes = Buffer.from(json);
    const at = storedHeadLength(json);
    // The heads are ASCII: the same index in bytes and in UTF-16 units.
    assert.equal(storedHeadLengthOfBytes(bytes), at, json);
    assert.equal(storedHeadLengthOfBytes(new Uint8Array(bytes)), at, json);
    if (at > 0) {
      const end = objectEndOfBytes(bytes, at);
      assert.equal(bytes.subarray(at, end).toString(), json.slice(at, objectEnd(json, at)), json);
    }
  }
  assert.equal(objectEndOfBytes(Buffer.from('{"a":"}'), 1), 0);
});

test('JsonWriter.writeBytes: bytes and text in order, parts of a source, and pieces larger than a chunk', () => {
  const w = new JsonWriter();
  const big = Buffer.from('é'.repeat(50_000));
  w.write('[');
  w.writeBytes(Buffer.from('"abc✓"'));
  w.writeBytes(Buffer.from('xx,"def"yy'), 2, 8);
  w.write(',"');
  w.writeBytes(big);
  w.write('"]');
  const want = Buffer.from(`["abc✓","def","${'é'.repeat(50_000)}"]`);
  assert.equal(w.size, want.length);
  assert.deepEqual(w.take(), want);
});
