/**
 * Cron schedules as Kubernetes reads a CronJob's `spec.schedule`: the standard five fields
 * (minute, hour, day of month, month, day of week) or a descriptor (`@hourly`, `@every 90s`,
 * ...), optionally behind a `TZ=` / `CRON_TZ=` zone prefix. The grammar, the accepted values and
 * the error texts are those of the parser kube-apiserver validates with and the cronjob
 * controller schedules with (robfig/cron v3, `ParseStandard`), so a schedule kplane refuses gets
 * Kubernetes' message. Only parsing lives here; computing start times is the controller's.
 */
import { goQuote } from './field-errors.js';

/** Inclusive bounds of a field, with the names it accepts. */
interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAY_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: MONTH_NAMES };
const DOW: Bounds = { min: 0, max: 6, names: DAY_NAMES };

/** One field of a five-field schedule: the values it matches, and whether it was a `*` / `?`. */
export interface CronField {
  /** Matching values, ascending. */
  readonly values: readonly number[];
  /** Written as `*` or `?` (with no step above 1): day of month and day of week then combine with AND. */
  readonly star: boolean;
}

/** A parsed schedule. */
export type CronSchedule =
  | {
      readonly kind: 'fields';
      readonly minute: CronField;
      readonly hour: CronField;
      readonly dayOfMonth: CronField;
      readonly month: CronField;
      readonly dayOfWeek: CronField;
      /** The zone of a `TZ=` / `CRON_TZ=` prefix, if any. */
      readonly timeZone?: string;
    }
  | {
      /** `@every <duration>`: a constant delay (whole seconds, at least one) after the previous time. */
      readonly kind: 'every';
      readonly seconds: number;
      readonly timeZone?: string;
    };

/** A schedule that does not parse; `message` is the parser's text as Kubernetes reports it. */
export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

const fail = (message: string): never => {
  throw new CronParseError(message);
};

/** Go's strconv.Atoi (optional sign, decimal digits, int64 range), with its error texts. */
function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) fail(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`);
  const n = Number(expr);
  if (Math.abs(n) >= 2 ** 63) fail(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range`);
  return n;
}

function nonNegative(expr: string): number {
  const n = atoi(expr);
  if (n < 0) fail(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names ? Object.entries(bounds.names).find(([k]) => k === expr.toLowerCase()) : undefined;
  return named ? named[1] : nonNegative(expr);
}

/** One comma-separated part of a field: `*`, `?`, `a`, `a-b`, each with an optional `/step`. */
function parseRange(expr: string, bounds: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    start = intOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1]!, bounds);
    else return fail(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = nonNegative(rangeAndStep[1]!);
    // "N/step" runs from N to the field's maximum.
    if (lowAndHigh.length === 1) end = bounds.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    fail(`too many slashes: ${expr}`);
  }
  if (start < bounds.min) fail(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) fail(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) fail(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) fail(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) into.add(v);
  return star;
}

function parseField(text: string, bounds: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  // Empty parts (",," or a trailing comma) are skipped, as strings.FieldsFunc does.
  for (const part of text.split(',').filter((p) => p !== '')) if (parseRange(part, bounds, values)) star = true;
  return { values: [...values].sort((a, b) => a - b), star };
}

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's time.ParseDuration, in seconds (fractional), with its error texts. */
export function parseGoDuration(text: string): number {
  const quoted = goQuote(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') fail(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    if (num[0] === '' || num[0] === '.') fail(`time: invalid duration ${quoted}`);
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') fail(`time: missing unit in duration ${quoted}`);
    const scale = UNITS[unit];
    if (scale === undefined) fail(`time: unknown unit ${goQuote(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[2] || '0'}`) * scale!;
  }
  return sign * total;
}

function parseDescriptor(spec: string, timeZone: string | undefined): CronSchedule {
  const all = (b: Bounds): CronField => ({ values: Array.from({ length: b.max - b.min + 1 }, (_, i) => b.min + i), star: true });
  const one = (v: number): CronField => ({ values: [v], star: false });
  const fields = (minute: CronField, hour: CronField, dayOfMonth: CronField, month: CronField, dayOfWeek: CronField): CronSchedule => ({
    kind: 'fields', minute, hour, dayOfMonth, month, dayOfWeek, ...(timeZone !== undefined ? { timeZone } : {}),
  });
  switch (spec) {
    case '@yearly':
    case '@annually':
      return fields(one(0), one(0), one(1), one(1), all(DOW));
    case '@monthly':
      return fields(one(0), one(0), one(1), all(MONTHS), all(DOW));
    case '@weekly':
      return fields(one(0), one(0), all(DOM), all(MONTHS), one(0));
    case '@daily':
    case '@midnight':
      return fields(one(0), one(0), all(DOM), all(MONTHS), all(DOW));
    case '@hourly':
      return fields(one(0), all(HOURS), all(DOM), all(MONTHS), all(DOW));
  }
  const every = '@every ';
  if (spec.startsWith(every)) {
    let seconds: number;
    try {
      seconds = parseGoDuration(spec.slice(every.length));
    } catch (err) {
      return fail(`failed to parse duration ${spec}: ${(err as Error).message}`);
    }
    // Below one second counts as one; otherwise whole seconds.
    seconds = seconds < 1 ? 1 : Math.floor(seconds);
    return { kind: 'every', seconds, ...(timeZone !== undefined ? { timeZone } : {}) };
  }
  return fail(`unrecognized descriptor: ${spec}`);
}

/**
 * Is `name` a time zone Go's time.LoadLocation would load: "" and "UTC", or an IANA name known
 * to this runtime, spelt with its exact case? ("Local" is refused: it names no zone.)
 */
export function isKnownTimeZone(name: string): boolean {
  if (name === '' || name === 'UTC') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // The runtime matches names without regard to case; zone files do not.
    return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Parses a schedule as kube-apiserver's validation and the cronjob controller do. Throws a
 * CronParseError whose message is the parser's (e.g. `expected exactly 5 fields, found 1: [x]`).
 */
export function parseCronSchedule(spec: string): CronSchedule {
  if (spec.length === 0) fail('empty spec string');
  let timeZone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? spec.length : space);
    if (space < 0 || !isKnownTimeZone(zone)) fail(`provided bad location ${zone}: unknown time zone ${zone}`);
    timeZone = zone;
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, timeZone);
  const parts = spec.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) fail(`expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = parts as [string, string, string, string, string];
  return {
    kind: 'fields',
    minute: parseField(minute, MINUTES),
    hour: parseField(hour, HOURS),
    dayOfMonth: parseField(dayOfMonth, DOM),
    month: parseField(month, MONTHS),
    dayOfWeek: parseField(dayOfWeek, DOW),
    ...(timeZone !== undefined ? { timeZone } : {}),
  };
}

/** The parse error of a schedule as Kubernetes words it, or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseCronSchedule(spec);
    return undefined;
  } catch (err) {
    if (err instanceof CronParseError) return err.message;
    throw err;
  }
}
