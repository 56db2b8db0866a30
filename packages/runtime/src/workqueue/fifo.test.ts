import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from './fifo.js';

test('fifo: keeps order across wrap-around and growth', () => {
  const f = new Fifo(4);
  const expected: string[] = [];
  let n = 0;
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < round % 7; i++) {
      f.push(`k${n}`);
      expected.push(`k${n++}`);
    }
    for (let i = 0; i < round % 3 && expected.length > 0; i++) assert.equal(f.shift(), expected.shift());
    assert.equal(f.length, expected.length);
  }
  assert.deepEqual(f.toArray(), expected);
  while (expected.length > 0) assert.equal(f.shift(), expected.shift());
  assert.equal(f.shift(), undefined);
});
