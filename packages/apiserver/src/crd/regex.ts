/**
 * Regular expressions as kube-apiserver runs them: Go's RE2 syntax and semantics, in time
 * linear in the input (re2js), so a CRD `pattern` or a CEL `matches()` can never stall the
 * event loop however the expression and the value are chosen. Compiled expressions are kept in
 * a bounded least-recently-used cache shared by schema patterns and CEL rules.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

let re2: typeof import('re2js') | undefined;
/** re2js (its CommonJS build), loaded at the first expression compiled: most processes compile none. */
const re2js = (): typeof import('re2js') => (re2 ??= createRequire(import.meta.url)('re2js') as typeof import('re2js'));

/** How many compiled expressions the cache keeps. */
export const REGEX_CACHE_SIZE = 1024;

const cache = new Map<string, RE2JS | string>();

/**
 * Compiles a Go (RE2) regular expression once; throws a `RegexSyntaxError` carrying Go's
 * message (`error parsing regexp: missing closing ): \`(a\``) when it is not one.
 */
export function compileRegex(pattern: string): RE2JS {
  let hit = cache.get(pattern);
  if (hit !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, hit);
  } else {
    const { RE2JS, RE2JSSyntaxException } = re2js();
    try {
      hit = RE2JS.compile(pattern);
    } catch (err) {
      if (!(err instanceof RE2JSSyntaxException)) throw err;
      hit = err.message;
    }
    cache.set(pattern, hit);
    if (cache.size > REGEX_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  if (typeof hit === 'string') throw new RegexSyntaxError(hit);
  return hit;
}

/** A pattern that is not valid RE2; the message is Go's regexp.Compile error. */
export class RegexSyntaxError extends Error {
  override name = 'RegexSyntaxError';
}

/** Go's regexp.Compile error for a pattern, or undefined when the pattern is valid RE2. */
export function regexSyntaxError(pattern: string): string | undefined {
  try {
    compileRegex(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof RegexSyntaxError) return err.message;
    throw err;
  }
}

/** Does `pattern` match anywhere in `value` (Go's MatchString)? Throws RegexSyntaxError. */
export function regexTest(pattern: string, value: string): boolean {
  return compileRegex(pattern).test(value);
}

/** The leftmost match of `pattern` in `value`, or '' (Go's FindString). */
export function regexFind(pattern: string, value: string): string {
  return (compileRegex(pattern).re2Input.find(value) as string | null) ?? '';
}

/**
 * Up to `n` successive non-overlapping matches (all when n < 0), with Go's FindAllString rule
 * that an empty match right after a previous match is skipped.
 */
export function regexFindAll(pattern: string, value: string, n = -1): string[] {
  if (n === 0) return [];
  return (compileRegex(pattern).re2Input.findAll(value, n) as string[] | null) ?? [];
}

/** How many compiled expressions are cached now (for tests). */
export function regexCacheSize(): number {
  return cache.size;
}
