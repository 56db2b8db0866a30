/**
 * A single pass over JSON text, before it is parsed, that enforces what JSON.parse does not:
 * a bound on nesting depth (every recursive function in kplane stays far from the stack's
 * end), integer literals within int64, and the paths of duplicate keys (kept by JSON.parse as
 * "last one wins"; fieldValidation decides whether they are an error or a warning).
 *
 * The scan is iterative. It does not validate syntax: on anything it does not expect it stops,
 * and JSON.parse then reports the syntax error.
 */
import { badRequest, type ApiError } from './errors.js';

/**
 * The deepest nesting of objects and arrays a request body (or an object built from one by a
 * patch) may have. Kubernetes objects nest about 20 levels; the YAML parser and the recursive
 * walks of pruning, patching and validation overflow the stack at several hundred to a few
 * thousand levels, so 256 leaves a wide margin on both sides.
 */
export const MAX_NESTING_DEPTH = 256;

/** The 400 for a body nested deeper than MAX_NESTING_DEPTH. */
export function depthExceeded(format: 'json' | 'yaml' = 'json'): ApiError {
  return badRequest(`${format}: exceeded max depth of ${MAX_NESTING_DEPTH}`);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The 400 for an integer literal outside int64, as Go's decoder words it; `field` (the path of
 * the value, when it is inside an object) is named as Go names the struct field it was meant for.
 */
export function int64Overflow(literal: string, field?: string): ApiError {
  const into = field ? `Go struct field .${field} of type int64` : 'Go value of type int64';
  return badRequest(`json: cannot unmarshal number ${literal} into ${into}`);
}

/** Is `literal` (an integer literal without fraction or exponent) outside int64? */
export function outsideInt64(literal: string): boolean {
  const digits = literal.startsWith('-') ? literal.length - 1 : literal.length;
  if (digits < 19) return false;
  const n = BigInt(literal);
  return n < INT64_MIN || n > INT64_MAX;
}

interface Frame {
  isObject: boolean;
  keys?: Set<string>;
  /** Object: the last key read (the way into a child). Array: the current index. */
  key: string;
  index: number;
  expectKey: boolean;
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

function pathOf(stack: Frame[], last: string): string {
  let p = '';
  for (let i = 0; i < stack.length - 1; i++) {
    const f = stack[i]!;
    if (f.isObject) p = p ? `${p}.${f.key}` : f.key;
    else p += `[${f.index}]`;
  }
  return p ? `${p}.${last}` : last;
}

/** What scanJson found. */
export interface JsonScan {
  /** Paths of keys that appear more than once in their object (`metadata.name`, `spec.containers[0].image`). */
  duplicates: string[];
}

/**
 * Scans JSON text: throws ApiError 400 for nesting deeper than MAX_NESTING_DEPTH, an integer
 * literal outside int64 or a number outside float64 (`1e400`, which JSON.parse turns into
 * Infinity and JSON.stringify into null), and returns the paths of duplicate keys. Malformed text is left to
 * JSON.parse (the scan stops where it stops understanding).
 */
export function scanJson(text: string, maxDepth = MAX_NESTING_DEPTH): JsonScan {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) throw depthExceeded('json');
      const isObject = c === 0x7b;
      stack.push({ isObject, keys: isObject ? new Set() : undefined, key: '', index: 0, expectKey: isObject });
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) {
        if (top.isObject) top.expectKey = true;
        else top.index++;
      }
      i++;
    } else if (c === 0x22 /* " */) {
      STRING.lastIndex = i;
      const m = STRING.exec(text);
      if (!m) return { duplicates };
      const top = stack[stack.length - 1];
      if (top?.isObject && top.expectKey) {
        const raw = m[0];
        let key: string;
        try {
          key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        } catch {
          return { duplicates };
        }
        if (top.keys!.has(key)) duplicates.push(pathOf(stack, key));
        else top.keys!.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = STRING.lastIndex;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return { duplicates };
      if (m[1] === undefined && m[2] === undefined) {
        if (outsideInt64(m[0])) {
          const top = stack[stack.length - 1];
          const last = top ? (top.isObject ? top.key : `[${top.index}]`) : '';
          throw int64Overflow(m[0], top ? pathOf(stack, last).replace(/\.\[/g, '[') : undefined);
        }
      } else if (!Number.isFinite(Number(m[0]))) {
        throw badRequest(`json: cannot unmarshal number ${m[0]} into Go value of type float64`);
      }
      i = NUMBER.lastIndex;
    } else {
      i++;
    }
  }
  return { duplicates };
}
