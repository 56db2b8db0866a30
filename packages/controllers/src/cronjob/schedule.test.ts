import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileSchedule, mostRecentScheduleTime, nextScheduleDelay } from './schedule.js';
import { jobName, rfc1123z, rfc3339InZone } from './util.js';

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function starts(schedule: string, from: string, n: number, tz?: string): (string | undefined)[] {
  const s = compileSchedule(schedule, tz);
  const out: (string | undefined)[] = [];
  let t: number | undefined = at(from);
  for (let i = 0; i < n && t !== undefined; i++) out.push(iso((t = s.next(t))));
  return out;
}

test('next start times: strictly after, minute steps, ranges', () => {
  assert.deepEqual(starts('*/15 * * * *', '2026-01-05T00:00:00Z', 3), ['2026-01-05T00:15:00.000Z', '2026-01-05T00:30:00.000Z', '2026-01-05T00:45:00.000Z']);
  assert.deepEqual(starts('0 9-10 * * *', '2026-01-05T09:30:00Z', 2), ['2026-01-05T10:00:00.000Z', '2026-01-06T09:00:00.000Z']);
  assert.deepEqual(starts('@hourly', '2026-01-05T09:30:00.500Z', 1), ['2026-01-05T10:00:00.000Z']);
});

test('day of month and day of week: either when both are restricted, both when one is *', () => {
  // 2026-01-05 is a Monday.
  assert.deepEqual(starts('0 0 7 * 1', '2026-01-05T00:00:00Z', 3), ['2026-01-07T00:00:00.000Z', '2026-01-12T00:00:00.000Z', '2026-01-19T00:00:00.000Z']);
  assert.deepEqual(starts('0 0 * * 1', '2026-01-05T00:00:00Z', 2), ['2026-01-12T00:00:00.000Z', '2026-01-19T00:00:00.000Z']);
  assert.deepEqual(starts('0 0 ? * mon', '2026-01-05T00:00:00Z', 1), ['2026-01-12T00:00:00.000Z']);
  // "*/2" is not "*": with a restricted weekday, either matches.
  assert.deepEqual(starts('0 0 */10 * 1', '2026-01-05T00:00:00Z', 3), ['2026-01-11T00:00:00.000Z', '2026-01-12T00:00:00.000Z', '2026-01-19T00:00:00.000Z']);
  assert.deepEqual(starts('@weekly', '2026-01-05T00:00:00Z', 1), ['2026-01-11T00:00:00.000Z']);
});

test('time zones: the schedule is read on the zone\'s wall clock', () => {
  assert.deepEqual(starts('0 9 * * *', '2026-01-05T00:00:30Z', 2, 'Asia/Tokyo'), ['2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z']);
  assert.deepEqual(starts('TZ=America/New_York 0 9 * * *', '2026-07-01T00:00:00Z', 1), ['2026-07-01T13:00:00.000Z']);
  assert.deepEqual(starts('CRON_TZ=America/New_York 0 9 * * *', '2026-01-01T00:00:00Z', 1, 'Asia/Tokyo'), ['2026-01-01T14:00:00.000Z']);
});

test('daylight saving: a time in the gap does not run that day, a time in the repeated hour runs twice', () => {
  // New York, 2026: clocks go forward on March 8 at 2:00 and back on November 1 at 2:00.
  assert.deepEqual(starts('30 2 * * *', '2026-03-07T12:00:00Z', 2, 'America/New_York'), ['2026-03-09T06:30:00.000Z', '2026-03-10T06:30:00.000Z']);
  assert.deepEqual(starts('30 1 * * *', '2026-10-31T12:00:00Z', 3, 'America/New_York'), ['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  assert.deepEqual(starts('0 3 * * *', '2026-03-07T12:00:00Z', 2, 'America/New_York'), ['2026-03-08T07:00:00.000Z', '2026-03-09T07:00:00.000Z']);
});

test('@every: a constant delay from the previous whole second', () => {
  assert.deepEqual(starts('@every 90s', '2026-01-05T00:00:00.700Z', 2), ['2026-01-05T00:01:30.000Z', '2026-01-05T00:03:00.000Z']);
});

test('a schedule that never matches has no next time', () => {
  assert.deepEqual(starts('0 0 30 2 *', '2026-01-05T00:00:00Z', 1), [undefined]);
});

test('mostRecentScheduleTime: none, one, few and many missed', () => {
  const s = compileSchedule('*/5 * * * *');
  const created = at('2026-01-05T00:00:30Z');
  assert.deepEqual(mostRecentScheduleTime({ creationMs: created }, at('2026-01-05T00:04:00Z'), s, true), { earliestMs: created, missed: 'none' });
  assert.equal(iso(mostRecentScheduleTime({ creationMs: created }, at('2026-01-05T00:06:00Z'), s, true).mostRecentMs), '2026-01-05T00:05:00.000Z');
  const few = mostRecentScheduleTime({ creationMs: created }, at('2026-01-05T01:02:00Z'), s, true);
  assert.equal(iso(few.mostRecentMs), '2026-01-05T01:00:00.000Z');
  assert.equal(few.missed, 'few');
  const many = mostRecentScheduleTime({ creationMs: created }, at('2026-01-06T00:01:00Z'), s, true);
  assert.equal(iso(many.mostRecentMs), '2026-01-06T00:00:00.000Z');
  assert.equal(many.missed, 'many');
  // The last schedule time counts from there; the starting deadline moves the earliest time up.
  const last = at('2026-01-05T00:55:00Z');
  assert.equal(mostRecentScheduleTime({ creationMs: created, lastScheduleMs: last }, at('2026-01-05T00:58:00Z'), s, true).mostRecentMs, undefined);
  const late = mostRecentScheduleTime({ creationMs: created, startingDeadlineSeconds: 60 }, at('2026-01-05T01:02:00Z'), s, true);
  assert.equal(late.mostRecentMs, undefined);
  assert.equal(iso(mostRecentScheduleTime({ creationMs: created, startingDeadlineSeconds: 60 }, at('2026-01-05T01:00:30Z'), s, true).mostRecentMs), '2026-01-05T01:00:00.000Z');
  // A schedule whose start times cannot be told apart is an error.
  assert.equal(mostRecentScheduleTime({ creationMs: created }, at('2026-01-06T00:00:00Z'), compileSchedule('0 0 30 2 *'), true).error, 'time difference between two schedules is less than 1 second');
});

test('nextScheduleDelay: 100 ms after the next start time', () => {
  const s = compileSchedule('*/5 * * * *');
  const created = at('2026-01-05T00:00:30Z');
  assert.equal(nextScheduleDelay({ creationMs: created }, at('2026-01-05T00:01:00Z'), s), 4 * 60_000 + 100);
  assert.equal(nextScheduleDelay({ creationMs: created, lastScheduleMs: at('2026-01-05T00:05:00Z') }, at('2026-01-05T00:05:00.200Z'), s), 5 * 60_000 - 100);
});

test('Job names, the scheduled-timestamp annotation and event times', () => {
  assert.equal(jobName('tick', at('2026-01-05T00:05:00Z')), `tick-${at('2026-01-05T00:05:00Z') / 60_000}`);
  assert.equal(rfc3339InZone(at('2026-01-06T00:00:00Z'), 'Asia/Tokyo'), '2026-01-06T09:00:00+09:00');
  assert.equal(rfc3339InZone(at('2026-01-06T00:00:00Z'), 'America/St_Johns'), '2026-01-05T20:30:00-03:30');
  assert.equal(rfc3339InZone(at('2026-01-06T00:00:00Z'), undefined), '2026-01-06T00:00:00Z');
  assert.equal(rfc1123z(at('2026-01-06T00:00:00Z')), 'Tue, 06 Jan 2026 00:00:00 +0000');
});
