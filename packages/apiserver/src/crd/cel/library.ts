/**
 * The CEL environment custom resource rules run in: @marcbachmann/cel-js with the Kubernetes
 * libraries CRD rules use (string extensions such as format/charAt/replace, list helpers
 * isSorted/sum/min/max/indexOf, regex find/findAll, url and quantity helpers) and with
 * `self` / `oldSelf` as variables. One environment is built per process and shared, on first
 * use, from the library `loadCel()` loaded (see load.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { cel } from './load.js';
import { regexFind, regexFindAll, regexTest, RegexSyntaxError } from '../regex.js';
import { chargeCost, meterEvaluator, regexCost, traversalCost } from './runtime-cost.js';

/**
 * The name `matches` calls are given once parsed (see rules.ts): the library's own `matches`
 * uses JavaScript's backtracking RegExp and cannot be replaced, so rules call this one (RE2).
 */
export const RE2_MATCHES = 'matches_re2';
const EVALUATOR_HOOK = 'kplane_evaluator_hook';
/** Functions of the environment that rules may not call by name. */
export const INTERNAL_FUNCTIONS: ReadonlySet<string> = new Set([RE2_MATCHES, EVALUATOR_HOOK]);
let hooked: unknown;

/** Runs a regex function, charging cel-go's cost and wording a bad pattern as Go does. */
function celRegex<T>(s: string, re: string, prefix: string, run: () => T): T {
  chargeCost(regexCost(s, re));
  try {
    return run();
  } catch (err) {
    if (err instanceof RegexSyntaxError) fail(`${prefix}${err.message}`);
    throw err;
  }
}

/** A parsed URL as Kubernetes' url() returns it. */
export class CelURL {
  constructor(readonly url: URL) {}
}

/** A resource quantity ("500m", "1Gi") as Kubernetes' quantity() returns it, kept as an exact rational. */
export class CelQuantity {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}
  /** Compares two quantities: -1, 0 or 1. */
  compare(o: CelQuantity): number {
    const a = this.num * o.den;
    const b = o.num * this.den;
    return a < b ? -1 : a > b ? 1 : 0;
  }
}

const SUFFIX: Record<string, [bigint, bigint]> = {
  '': [1n, 1n], n: [1n, 1_000_000_000n], u: [1n, 1_000_000n], m: [1n, 1000n],
  k: [1000n, 1n], M: [1_000_000n, 1n], G: [10n ** 9n, 1n], T: [10n ** 12n, 1n], P: [10n ** 15n, 1n], E: [10n ** 18n, 1n],
  Ki: [1n << 10n, 1n], Mi: [1n << 20n, 1n], Gi: [1n << 30n, 1n], Ti: [1n << 40n, 1n], Pi: [1n << 50n, 1n], Ei: [1n << 60n, 1n],
};
const QUANTITY_RE = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** Parses a Kubernetes quantity string; undefined when it is not one. */
export function parseQuantity(s: string): CelQuantity | undefined {
  const m = QUANTITY_RE.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix, exp] = m;
  const [intPart, fracPart = ''] = digits!.split('.');
  let num = BigInt((intPart || '0') + fracPart);
  let den = 10n ** BigInt(fracPart.length);
  if (suffix) {
    const [mul, div] = SUFFIX[suffix]!;
    num *= mul;
    den *= div;
  } else if (exp) {
    const e = BigInt(exp);
    if (e >= 0n) num *= 10n ** e;
    else den *= 10n ** -e;
  }
  return new CelQuantity(sign === '-' ? -num : num, den);
}

function fail(message: string): never {
  throw new (cel().EvaluationError)(message);
}

function toNumber(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function fmtValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(fmtValue).join(', ')}]`;
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${fmtValue(k)}: ${fmtValue(x)}`).join(', ')}}`;
  return String(v);
}

/** CEL's string.format: %s %d %f %.Nf %e %x %X %o %b and %%. */
export function celFormat(format: string, args: unknown[]): string {
  let i = 0;
  return format.replace(/%(\.(\d+))?([sdfeExXob%])/g, (_m, _p, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (i >= args.length) fail(`index ${i} out of range`);
    const v = args[i++];
    switch (verb) {
      case 's':
        return fmtValue(v);
      case 'd':
        if (typeof v !== 'bigint' && !(typeof v === 'number' && Number.isInteger(v))) fail(`error during formatting: decimal clause can only be used on integers, was given ${typeof v}`);
        return String(v);
      case 'f':
        return toNumber(v).toFixed(precision === undefined ? 6 : Number(precision));
      case 'e':
      case 'E': {
        const s = toNumber(v).toExponential(precision === undefined ? 6 : Number(precision)).replace(/e([+-])(\d)$/, 'e$10$2');
        return verb === 'E' ? s.toUpperCase() : s;
      }
      case 'x':
      case 'X': {
        const s = typeof v === 'string' ? Buffer.from(v).toString('hex') : BigInt(v as bigint).toString(16);
        return verb === 'X' ? s.toUpperCase() : s;
      }
      case 'o':
        return BigInt(v as bigint).toString(8);
      case 'b':
        return typeof v === 'boolean' ? String(v) : BigInt(v as bigint).toString(2);
      default:
        return '';
    }
  });
}

function compareValues(a: unknown, b: unknown): number {
  if (a instanceof CelQuantity && b instanceof CelQuantity) return a.compare(b);
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function listIndexOf(list: unknown[], v: unknown, last: boolean): bigint {
  const eq = (x: unknown) => JSON.stringify(x, (_k, y) => (typeof y === 'bigint' ? `${y}n` : y)) === JSON.stringify(v, (_k, y) => (typeof y === 'bigint' ? `${y}n` : y));
  return BigInt(last ? list.findLastIndex(eq) : list.findIndex(eq));
}

function port(u: URL): string {
  return u.port;
}

function build(): Environment {
  const env = new (cel().Environment)({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  env.registerType('URL', CelURL);
  env.registerType('Quantity', CelQuantity);
  // Strings (cel-go ext strings, as Kubernetes enables them).
  env.registerFunction('string.format(list): string', (s: string, l: unknown[]) => {
    const out = celFormat(s, l);
    chargeCost(traversalCost(out.length));
    return out;
  });
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) fail(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => {
    chargeCost(traversalCost(s.length));
    const out = s.split(a).join(b);
    chargeCost(traversalCost(out.length));
    return out;
  });
  env.registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    chargeCost(traversalCost(s.length));
    if (n < 0n) return s.split(a).join(b);
    let out = s;
    let from = 0;
    for (let k = 0n; k < n; k++) {
      const at = out.indexOf(a, from);
      if (at < 0) break;
      out = out.slice(0, at) + b + out.slice(at + a.length);
      from = at + b.length;
    }
    return out;
  });
  env.registerFunction('string.reverse(): string', (s: string) => {
    chargeCost(traversalCost(s.length));
    return [...s].reverse().join('');
  });
  // Lists (Kubernetes list library).
  env.registerFunction('list.isSorted(): bool', (l: unknown[]) => (chargeCost(l.length), l.every((x, i) => i === 0 || compareValues(l[i - 1], x) <= 0)));
  env.registerFunction('list.sum(): dyn', (l: unknown[]) => (chargeCost(l.length), (l.length === 0 ? 0n : l.reduce((a, b) => (a as bigint) + (b as bigint)))));
  env.registerFunction('list.min(): dyn', (l: unknown[]) => (chargeCost(l.length), (l.length === 0 ? fail('min called on empty list') : l.reduce((a, b) => (compareValues(b, a) < 0 ? b : a)))));
  env.registerFunction('list.max(): dyn', (l: unknown[]) => (chargeCost(l.length), (l.length === 0 ? fail('max called on empty list') : l.reduce((a, b) => (compareValues(b, a) > 0 ? b : a)))));
  env.registerFunction('list.indexOf(dyn): int', (l: unknown[], v: unknown) => (chargeCost(l.length), listIndexOf(l, v, false)));
  env.registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => (chargeCost(l.length), listIndexOf(l, v, true)));
  // Regex (Go's RE2, linear time): cel-go's matches, Kubernetes' find and findAll.
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (s: string, re: string) => celRegex(s, re, '', () => regexTest(re, s)));
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, (s: string, re: string) => celRegex(s, re, '', () => regexTest(re, s)));
  env.registerFunction('string.find(string): string', (s: string, re: string) => celRegex(s, re, 'Illegal regex: ', () => regexFind(re, s)));
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => celRegex(s, re, 'Illegal regex: ', () => regexFindAll(re, s)));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) =>
    celRegex(s, re, 'Illegal regex: ', () => regexFindAll(re, s, n < -1n ? -1 : n > BigInt(s.length + 1) ? s.length + 1 : Number(n))),
  );
  // Gives the environment's evaluator to meterEvaluator (see celEnvironment); refused in rules.
  env.registerFunction(`${EVALUATOR_HOOK}(): bool`, function (this: unknown) {
    hooked = this;
    return true;
  });
  // URLs.
  const parseUrl = (s: string): URL | undefined => {
    try {
      return new URL(s);
    } catch {
      return undefined;
    }
  };
  env.registerFunction('isURL(string): bool', (s: string) => parseUrl(s) !== undefined && /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s));
  env.registerFunction('url(string): URL', (s: string) => {
    const u = parseUrl(s);
    return u ? new CelURL(u) : fail(`URL parse error during conversion from string: parse "${s}": invalid URL`);
  });
  env.registerFunction('URL.getScheme(): string', (u: CelURL) => u.url.protocol.replace(/:$/, ''));
  env.registerFunction('URL.getHost(): string', (u: CelURL) => u.url.host);
  env.registerFunction('URL.getHostname(): string', (u: CelURL) => u.url.hostname.replace(/^\[|\]$/g, ''));
  env.registerFunction('URL.getPort(): string', (u: CelURL) => port(u.url));
  env.registerFunction('URL.getEscapedPath(): string', (u: CelURL) => u.url.pathname);
  env.registerFunction('URL.getQuery(): map', (u: CelURL) => {
    const out: Record<string, string[]> = {};
    for (const [k, v] of u.url.searchParams) (out[k] ??= []).push(v);
    return out;
  });
  // Quantities.
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  env.registerFunction('quantity(string): Quantity', (s: string) => parseQuantity(s) ?? fail(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`));
  env.registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) > 0);
  env.registerFunction('Quantity.isLessThan(Quantity): bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) < 0);
  env.registerFunction('Quantity.compareTo(Quantity): int', (a: CelQuantity, b: CelQuantity) => BigInt(a.compare(b)));
  env.registerFunction('Quantity.sign(): int', (a: CelQuantity) => BigInt(a.num > 0n ? 1 : a.num < 0n ? -1 : 0));
  env.registerFunction('Quantity.isInteger(): bool', (a: CelQuantity) => a.num % a.den === 0n);
  env.registerFunction('Quantity.asInteger(): int', (a: CelQuantity) => (a.num % a.den === 0n ? a.num / a.den : fail('cannot convert value to integer')));
  env.registerFunction('Quantity.asApproximateFloat(): double', (a: CelQuantity) => Number(a.num) / Number(a.den));
  env.registerFunction('Quantity.add(Quantity): Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.num * b.den + b.num * a.den, a.den * b.den));
  env.registerFunction('Quantity.sub(Quantity): Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.num * b.den - b.num * a.den, a.den * b.den));
  env.registerFunction('Quantity.add(int): Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(a.num + b * a.den, a.den));
  env.registerFunction('Quantity.sub(int): Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(a.num - b * a.den, a.den));
  return env;
}

let shared: { plain: Environment; optional: Environment } | undefined;

/**
 * Puts the runtime cost meter on another environment cloned from the shared one (each
 * environment evaluates with its own evaluator); call it once the environment is complete.
 */
export function meterEnvironment(env: Environment): void {
  hooked = undefined;
  env.evaluate(`${EVALUATOR_HOOK}()`);
  if (hooked) meterEvaluator(hooked as Parameters<typeof meterEvaluator>[0]);
}

/**
 * The shared CEL environment (built on first use). With `optionalOldSelf`, `oldSelf` is an
 * optional value (rules with optionalOldSelf: true); otherwise it is the old value itself.
 */
export function celEnvironment(optionalOldSelf = false): Environment {
  if (!shared) {
    const base = build();
    const plain = base.clone();
    plain.registerVariable('self', 'dyn');
    plain.registerVariable('oldSelf', 'dyn');
    const optional = base.clone();
    optional.registerVariable('self', 'dyn');
    optional.registerVariable('oldSelf', 'optional<dyn>');
    for (const env of [plain, optional]) {
      hooked = undefined;
      env.evaluate(`${EVALUATOR_HOOK}()`);
      meterEvaluator(hooked as Parameters<typeof meterEvaluator>[0]);
    }
    shared = { plain, optional };
  }
  return optionalOldSelf ? shared.optional : shared.plain;
}
