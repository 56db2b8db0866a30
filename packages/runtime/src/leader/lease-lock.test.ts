import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicroTime, leaseToRecord, parseMicroTime, recordKey, recordToLeaseSpec } from './lease-lock.js';

test('MicroTime: RFC 3339 with six fraction digits, parsed back at any precision', () => {
  const t = Date.UTC(2026, 0, 1, 12, 30, 5, 123);
  assert.equal(formatMicroTime(t), '2026-01-01T12:30:05.123000Z');
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00.000000Z');
  assert.equal(parseMicroTime('2026-01-01T12:30:05.123456Z'), t);
  assert.equal(parseMicroTime('2026-01-01T12:30:05Z'), t - 123);
  assert.equal(parseMicroTime(''), undefined);
  assert.equal(parseMicroTime('yesterday'), undefined);
  assert.equal(parseMicroTime(undefined), undefined);
});

test('lease record <-> spec round trip; absent fields read as zero', () => {
  const record = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: 1_000, renewTime: 2_000, leaseTransitions: 3 };
  const spec = recordToLeaseSpec(record);
  assert.deepEqual(spec, {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: '1970-01-01T00:00:01.000000Z',
    renewTime: '1970-01-01T00:00:02.000000Z',
    leaseTransitions: 3,
  });
  assert.deepEqual(leaseToRecord({ spec }), record);
  assert.deepEqual(leaseToRecord({}), { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 });
  assert.equal(recordKey(record), recordKey({ ...record }));
  assert.notEqual(recordKey(record), recordKey({ ...record, renewTime: 2_001 }));
});
