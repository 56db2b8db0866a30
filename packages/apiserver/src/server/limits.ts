import { badRequest, goQuote, tooManyRequests } from '@kplane/api';

/** The limits the API server enforces on requests; every one defaults to kube-apiserver's. */
export interface ServerLimits {
  /** Largest request body accepted (kube-apiserver: 3 MiB); larger ones get 413. */
  maxBodyBytes: number;
  /**
   * Bytes of an oversized body read and thrown away before the 413 is sent, so that a client
   * still sending its body reads the answer instead of a reset connection. A body larger than
   * maxBodyBytes + this is answered at once and its connection closed.
   */
  maxDiscardBytes: number;
  /** Read-only requests (get, list) served at once (--max-requests-inflight, 400); 0: no bound. */
  maxReadOnlyInFlight: number;
  /** Mutating requests served at once (--max-mutating-requests-inflight, 200); 0: no bound. */
  maxMutatingInFlight: number;
  /** Longest a non-watch request may take before a 504 (--request-timeout, 60 s). */
  requestTimeoutMs: number;
  /**
   * Longest a streamed answer (a watch) may wait for its client to take data before its
   * connection is closed (kplane's own bound, 60 s): a client that stops reading and never
   * disconnects holds no socket for ever.
   */
  maxWriteStallMs: number;
}

/** kube-apiserver's defaults. */
export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxBodyBytes: 3 * 1024 * 1024,
  maxDiscardBytes: 16 * 1024 * 1024,
  maxReadOnlyInFlight: 400,
  maxMutatingInFlight: 200,
  requestTimeoutMs: 60_000,
  maxWriteStallMs: 60_000,
});

/** The limits with kube-apiserver's defaults for whatever is not given. */
export function resolveLimits(given: Partial<ServerLimits> | undefined): ServerLimits {
  return { ...DEFAULT_LIMITS, ...given };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Parses a query parameter the way kube-apiserver converts it into an int64 field: an optional
 * sign and decimal digits, within int64, else 400 with Go's strconv message. Values beyond what
 * a JavaScript number holds exactly are clamped to ±Number.MAX_SAFE_INTEGER (larger than any
 * count, size or number of seconds kplane can meet).
 */
export function parseInt64Param(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n < INT64_MIN || n > INT64_MAX) throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (n < BigInt(-Number.MAX_SAFE_INTEGER)) return -Number.MAX_SAFE_INTEGER;
  return Number(n);
}

/**
 * A query parameter as kube-apiserver converts it to a bool: only "0" and "false" (any case)
 * are false; anything else, the empty value ("?watch") included, is true. A parameter that is
 * absent is false, which callers handle before calling this.
 */
export function parseBoolParam(value: string): boolean {
  return !(value === '0' || value.toLowerCase() === 'false');
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Parses a Go duration ("30s", "1m30s", "1.5h", "-2ms", "0") into milliseconds, with Go's
 * error messages; durations beyond int64 nanoseconds are invalid, as in Go.
 */
export function parseGoDuration(s: string): number {
  const invalid = () => new Error(`time: invalid duration ${goQuote(s)}`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let totalNs = 0;
  while (rest !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest)!;
    if (m[0] === '' || m[0] === '.' || (m[1] === '' && (m[2] ?? '') === '')) throw invalid();
    rest = rest.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(rest)![0];
    if (u === '') throw new Error(`time: missing unit in duration ${goQuote(s)}`);
    const unit = UNIT_NS[u];
    if (unit === undefined) throw new Error(`time: unknown unit ${goQuote(u)} in duration ${goQuote(s)}`);
    rest = rest.slice(u.length);
    totalNs += Number(`${m[1] || '0'}.${m[2] || '0'}`) * unit;
    if (totalNs > 2 ** 63 - 1) throw invalid();
  }
  return (sign * totalNs) / 1e6;
}

/** What a request costs the in-flight bound: nothing (watches), a read-only or a mutating slot. */
export type RequestClass = 'long-running' | 'read-only' | 'mutating';

/**
 * Bounds the requests served at once, as kube-apiserver's max-in-flight filter: one bound for
 * read-only requests, one for mutating ones; long-running requests (watches) are not counted.
 */
export class InFlightLimiter {
  private readOnly = 0;
  private mutating = 0;

  constructor(private readonly limits: Pick<ServerLimits, 'maxReadOnlyInFlight' | 'maxMutatingInFlight'>) {}

  /**
   * Takes a slot for a request of class `c`; returns the function that gives it back, or throws
   * the 429 TooManyRequests (Retry-After: 1 s) kube-apiserver answers when none is free.
   */
  acquire(c: RequestClass): () => void {
    if (c === 'long-running') return () => {};
    const max = c === 'read-only' ? this.limits.maxReadOnlyInFlight : this.limits.maxMutatingInFlight;
    const current = c === 'read-only' ? this.readOnly : this.mutating;
    if (max > 0 && current >= max) throw tooManyRequests('Too many requests, please try again later.', 1);
    if (c === 'read-only') this.readOnly++;
    else this.mutating++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (c === 'read-only') this.readOnly--;
      else this.mutating--;
    };
  }

  /** Requests being served now, by class. */
  inFlight(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }
}
