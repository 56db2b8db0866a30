import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rfc3339 } from './time.js';

test('rfc3339 writes whole seconds in UTC, from a Date or milliseconds', () => {
  assert.equal(rfc3339(Date.UTC(2026, 11, 4, 5, 6, 7, 890)), '2026-12-04T05:06:07Z');
  assert.equal(rfc3339(new Date(Date.UTC(2026, 11, 4, 5, 6, 7, 1))), '2026-12-04T05:06:07Z');
  // The next second is formatted anew, not taken from the last one.
  assert.equal(rfc3339(Date.UTC(2026, 11, 4, 5, 6, 8)), '2026-12-04T05:06:08Z');
  assert.equal(rfc3339(0), '1970-01-01T00:00:00Z');
  assert.equal(rfc3339(-1), '1969-12-31T23:59:59Z');
});

test('rfc3339 of an invalid time throws, as toISOString does', () => {
  assert.throws(() => rfc3339(Number.NaN), RangeError);
  assert.throws(() => rfc3339(new Date('nope')), RangeError);
});
