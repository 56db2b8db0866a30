/**
 * Start times of a CronJob's schedule: the schedule is parsed with `parseCronSchedule` (the
 * grammar the API server validated), then the next matching time in the schedule's zone is
 * computed by cron-parser, given an expression rendered so that its day-of-month / day-of-week
 * rule is Kubernetes' (both restricted: either matches; one of them `*`: both must match).
 * Also the controller's arithmetic over them (mostRecentScheduleTime, nextScheduleTimeDuration).
 */
import { createRequire } from 'node:module';
import { parseCronSchedule, type CronField, type CronSchedule } from '@kplane/api';

let cronLib: typeof import('cron-parser') | undefined;
/** cron-parser, loaded when the first schedule is read (a controller manager with no CronJob never needs it). */
const cronParser = (): typeof import('cron-parser') => (cronLib ??= createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser'));

/** A parsed schedule in a zone: `next(t)` is the first start time strictly after `t` (ms), undefined when none comes within five years. */
export interface Schedule {
  next(afterMs: number): number | undefined;
}

/** How far ahead a schedule is searched, as the cron library Kubernetes uses does. */
const SEARCH_YEARS = 5;

function list(field: CronField): string {
  return field.values.join(',');
}

function isFull(field: CronField, count: number): boolean {
  return field.values.length === count;
}

/** The five fields as cron-parser reads them, with Kubernetes' day rule made explicit. */
function renderFields(s: Extract<CronSchedule, { kind: 'fields' }>): string {
  let dom: string;
  let dow: string;
  if (s.dayOfMonth.star || s.dayOfWeek.star) {
    // One of them is "*": a day must match both.
    dom = s.dayOfMonth.star ? '*' : list(s.dayOfMonth);
    dow = s.dayOfWeek.star ? '*' : list(s.dayOfWeek);
  } else if (isFull(s.dayOfMonth, 31) || isFull(s.dayOfWeek, 7)) {
    // Both restricted: either one matching is enough, and one of them matches every day.
    dom = '*';
    dow = '*';
  } else {
    dom = list(s.dayOfMonth);
    dow = list(s.dayOfWeek);
  }
  return [list(s.minute), list(s.hour), dom, list(s.month), dow].join(' ');
}

/**
 * Compiles a schedule (as validated by the API server) read in `timeZone` (a `TZ=` prefix in the
 * schedule wins; default UTC). Throws CronParseError (from @kplane/api) when it does not parse.
 */
export function compileSchedule(schedule: string, timeZone = 'UTC'): Schedule {
  const parsed = parseCronSchedule(schedule);
  const tz = parsed.timeZone || timeZone || 'UTC';
  if (parsed.kind === 'every') {
    const delayMs = parsed.seconds * 1000;
    // A constant delay after the previous time, counted from its whole second.
    return { next: (after) => Math.floor(after / 1000) * 1000 + delayMs };
  }
  const expression = renderFields(parsed);
  const matches = wallClockMatcher(parsed, tz);
  /** The first instant after `after` cron-parser finds whose wall clock really matches (not a time moved out of a DST gap). */
  const libraryNext = (after: number): number | undefined => {
    const limit = new Date(after);
    limit.setUTCFullYear(limit.getUTCFullYear() + SEARCH_YEARS);
    try {
      const it = cronParser().CronExpressionParser.parse(expression, { currentDate: new Date(after), endDate: limit, tz });
      for (let i = 0; i < 1000; i++) {
        const t = it.next().getTime();
        if (t > limit.getTime()) return undefined;
        if (matches(t)) return t;
      }
      return undefined;
    } catch {
      // No matching day (e.g. February 30th) or none before the limit.
      return undefined;
    }
  };
  return {
    next(after) {
      const next = libraryNext(after);
      // A wall-clock time that happens twice (clocks set back) matches at both instants.
      const earlier = libraryNext(after - HOUR_MS);
      if (earlier !== undefined && earlier <= after && matches(earlier + HOUR_MS) && sameWallClock(earlier, earlier + HOUR_MS, tz)) {
        const repeat = earlier + HOUR_MS;
        if (repeat > after && (next === undefined || repeat < next)) return repeat;
      }
      return next;
    },
  };
}

const HOUR_MS = 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of an instant in a zone: [minute, hour, day of month, month, day of week]. */
function wallClock(ms: number, tz: string): [number, number, number, number, number] {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', weekday: 'short', day: 'numeric', month: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return [Number(get('minute')), Number(get('hour')), Number(get('day')), Number(get('month')), weekday];
}

function sameWallClock(a: number, b: number, tz: string): boolean {
  return wallClock(a, tz).every((v, i) => v === wallClock(b, tz)[i]);
}

/** Does an instant's wall clock in `tz` match the fields (with Kubernetes' day rule)? */
function wallClockMatcher(s: Extract<CronSchedule, { kind: 'fields' }>, tz: string): (ms: number) => boolean {
  const sets = [s.minute, s.hour, s.dayOfMonth, s.month, s.dayOfWeek].map((f) => new Set(f.values));
  const either = !s.dayOfMonth.star && !s.dayOfWeek.star;
  return (ms) => {
    const [minute, hour, dom, month, dow] = wallClock(ms, tz);
    if (!sets[0]!.has(minute) || !sets[1]!.has(hour) || !sets[3]!.has(month)) return false;
    return either ? sets[2]!.has(dom) || sets[4]!.has(dow) : sets[2]!.has(dom) && sets[4]!.has(dow);
  };
}

/** How many start times were missed since the last one. */
export type MissedSchedules = 'none' | 'few' | 'many';

/** What mostRecentScheduleTime finds. */
export interface MostRecent {
  /** The time counted from: the last schedule time, else the creation time (or the starting deadline, when later). */
  earliestMs: number;
  /** The latest start time at or before now, if any. */
  mostRecentMs?: number;
  missed: MissedSchedules;
  /** Set when the schedule cannot be used (two start times less than a second apart, or none). */
  error?: string;
}

/** The parts of a CronJob the arithmetic reads. */
export interface ScheduleState {
  creationMs: number;
  lastScheduleMs?: number;
  startingDeadlineSeconds?: number;
}

/**
 * The latest unmet start time at or before `nowMs` after the last scheduled (or creation)
 * time, estimated as Kubernetes does from the gap between the next two start times (so a
 * schedule missed for years costs a few steps, not one per missed time). More than 100 missed
 * times: `missed` is "many".
 */
export function mostRecentScheduleTime(state: ScheduleState, nowMs: number, schedule: Schedule, includeStartingDeadline: boolean): MostRecent {
  let earliestMs = state.lastScheduleMs ?? state.creationMs;
  if (includeStartingDeadline && state.startingDeadlineSeconds !== undefined) {
    const deadline = nowMs - state.startingDeadlineSeconds * 1000;
    if (deadline > earliestMs) earliestMs = deadline;
  }
  const t1 = schedule.next(earliestMs);
  const t2 = t1 === undefined ? undefined : schedule.next(t1);
  if (t1 !== undefined && nowMs < t1) return { earliestMs, missed: 'none' };
  if (t2 !== undefined && nowMs < t2) return { earliestMs, mostRecentMs: t1, missed: 'none' };
  const between = t1 === undefined || t2 === undefined ? 0 : Math.round((t2 - t1) / 1000);
  if (between < 1) return { earliestMs, missed: 'none', error: 'time difference between two schedules is less than 1 second' };
  const elapsed = Math.trunc((nowMs - t1!) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  // Start one interval before the estimate and let the schedule find the real times.
  let mostRecentMs: number | undefined;
  for (let t = schedule.next(t1! + (missedCount - 2) * between * 1000); t !== undefined && t <= nowMs; t = schedule.next(t)) mostRecentMs = t;
  const missed: MissedSchedules = missedCount > 100 ? 'many' : missedCount > 0 ? 'few' : 'none';
  return mostRecentMs === undefined ? { earliestMs, missed } : { earliestMs, mostRecentMs, missed };
}

/** Time-bound slack added to a requeue so the start time has passed when the sync runs. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/** How long until the sync after the next start time (nextScheduleTimeDuration); undefined when none comes. */
export function nextScheduleDelay(state: ScheduleState, nowMs: number, schedule: Schedule): number | undefined {
  const found = mostRecentScheduleTime(state, nowMs, schedule, false);
  let from: number;
  if (found.error !== undefined) from = nowMs;
  else if (found.mostRecentMs !== undefined) from = found.mostRecentMs;
  else from = found.missed === 'none' ? found.earliestMs : nowMs;
  const next = schedule.next(from);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - nowMs;
}
