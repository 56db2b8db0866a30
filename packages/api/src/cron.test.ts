import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cronScheduleError, isKnownTimeZone, parseCronSchedule, parseGoDuration } from './cron.js';

test('five fields: values, steps, ranges, names and the star flag', () => {
  const s = parseCronSchedule('*/15 9-17 ? jan-MAR mon,wed,FRI');
  assert.equal(s.kind, 'fields');
  if (s.kind !== 'fields') return;
  assert.deepEqual(s.minute.values, [0, 15, 30, 45]);
  assert.equal(s.minute.star, false);
  assert.deepEqual(s.hour.values, [9, 10, 11, 12, 13, 14, 15, 16, 17]);
  assert.equal(s.dayOfMonth.star, true);
  assert.equal(s.dayOfMonth.values.length, 31);
  assert.deepEqual(s.month.values, [1, 2, 3]);
  assert.deepEqual(s.dayOfWeek.values, [1, 3, 5]);
  const t = parseCronSchedule('5/20 * */1 * 0');
  if (t.kind !== 'fields') return assert.fail();
  assert.deepEqual(t.minute.values, [5, 25, 45]);
  assert.equal(t.dayOfMonth.star, true);
});

test('descriptors and @every', () => {
  const weekly = parseCronSchedule('@weekly');
  if (weekly.kind !== 'fields') return assert.fail();
  assert.deepEqual(weekly.dayOfWeek.values, [0]);
  assert.equal(weekly.dayOfMonth.star, true);
  for (const d of ['@yearly', '@annually', '@monthly', '@daily', '@midnight', '@hourly']) assert.equal(cronScheduleError(d), undefined);
  assert.deepEqual(parseCronSchedule('@every 1h30m'), { kind: 'every', seconds: 5400 });
  assert.deepEqual(parseCronSchedule('@every 1500ms'), { kind: 'every', seconds: 1 });
  assert.equal(parseGoDuration('1.5h'), 5400);
});

test('error texts are the parser Kubernetes validates with', () => {
  assert.equal(cronScheduleError('error'), 'expected exactly 5 fields, found 1: [error]');
  assert.equal(cronScheduleError('* * * *  * *'), 'expected exactly 5 fields, found 6: [* * * * * *]');
  assert.equal(cronScheduleError('60 * * * *'), 'end of range (60) above maximum (59): 60');
  assert.equal(cronScheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
  assert.equal(cronScheduleError('* * * * 7'), 'end of range (7) above maximum (6): 7');
  assert.equal(cronScheduleError('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
  assert.equal(cronScheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
  assert.equal(cronScheduleError('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
  assert.equal(cronScheduleError('*/2/3 * * * *'), 'too many slashes: */2/3');
  assert.equal(cronScheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
  assert.equal(cronScheduleError('*/-1 * * * *'), 'negative number (-1) not allowed: -1');
  assert.equal(cronScheduleError('@often'), 'unrecognized descriptor: @often');
  assert.equal(cronScheduleError('@every 5d'), 'failed to parse duration @every 5d: time: unknown unit "d" in duration "5d"');
  assert.equal(cronScheduleError('@every 5'), 'failed to parse duration @every 5: time: missing unit in duration "5"');
  assert.equal(cronScheduleError('TZ=Mars/Olympus 0 * * * *'), 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus');
});

test('a TZ= prefix names the zone', () => {
  const s = parseCronSchedule('CRON_TZ=Europe/Paris 0 9 * * *');
  assert.equal(s.timeZone, 'Europe/Paris');
});

test('time zones load as Go loads them: exact IANA names, UTC, no Local', () => {
  assert.equal(isKnownTimeZone('Europe/Paris'), true);
  assert.equal(isKnownTimeZone('UTC'), true);
  assert.equal(isKnownTimeZone('europe/paris'), false);
  assert.equal(isKnownTimeZone('Local'), false);
  assert.equal(isKnownTimeZone('Mars/Olympus'), false);
});
