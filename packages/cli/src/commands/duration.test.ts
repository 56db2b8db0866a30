import { it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from './duration.js';

it('parses Go durations into milliseconds', () => {
  assert.equal(parseDuration('--x', '1h'), 3_600_000);
  assert.equal(parseDuration('--x', '1h0m0s'), 3_600_000);
  assert.equal(parseDuration('--x', '1h30m'), 5_400_000);
  assert.equal(parseDuration('--x', '90s'), 90_000);
  assert.equal(parseDuration('--x', '1.5m'), 90_000);
  assert.equal(parseDuration('--x', '500ms'), 500);
  assert.equal(parseDuration('--x', '0'), 0);
  assert.equal(parseDuration('--x', '0s'), 0);
});

it('refuses what is not a duration, naming the flag', () => {
  for (const bad of ['', '1', 'h', '1d', '1h ', '-1h', '1hh', 'abc']) {
    assert.throws(() => parseDuration('--event-ttl', bad), /^Error: --event-ttl: not a duration/);
  }
});
