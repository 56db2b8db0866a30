/**
 * The watcher's retry backoff: client-go's reflector defaults (kube-rs's DefaultBackoff has the
 * same numbers) — 800 ms doubling up to 30 s, full jitter, reset after two healthy minutes.
 */
import type { Clock } from '../clock.js';

/** Options of createBackoff; every duration is in milliseconds. */
export interface BackoffOptions {
  /** First delay (default 800). */
  initialMs?: number;
  /** Largest base delay (default 30 000). */
  maxMs?: number;
  /** A failure more than this long after the previous one starts again from `initialMs` (default 120 000). */
  resetAfterMs?: number;
  /** Growth per failure (default 2). */
  factor?: number;
  /** Each delay d becomes d + random() · jitter · d (default 1.0, as client-go; 0 disables). */
  jitter?: number;
  /** Source of randomness in [0, 1) (default Math.random); tests inject a seeded one. */
  random?: () => number;
}

/** A per-watcher exponential backoff. */
export interface Backoff {
  /** The delay to wait before the next attempt, and records this failure. */
  next(): number;
  /** Forgets past failures: the next delay is the initial one again. */
  reset(): void;
}

/**
 * Creates an exponential backoff on `clock`, with client-go's semantics: the base delay starts
 * at `initialMs` and doubles on every failure up to `maxMs`; jitter is added on top, so a delay
 * lies in [base, base · (1 + jitter)); when more than `resetAfterMs` has passed since the
 * previous failure the base delay returns to `initialMs`.
 */
export function createBackoff(clock: Clock, options: BackoffOptions = {}): Backoff {
  const initialMs = options.initialMs ?? 800;
  const maxMs = options.maxMs ?? 30_000;
  const resetAfterMs = options.resetAfterMs ?? 120_000;
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 1.0;
  const random = options.random ?? Math.random;
  let base = initialMs;
  let last: number | undefined;
  return {
    next() {
      const now = clock.now();
      if (last !== undefined && now - last > resetAfterMs) base = initialMs;
      last = now;
      const delay = base;
      base = Math.min(maxMs, base * factor);
      return jitter > 0 ? delay + random() * jitter * delay : delay;
    },
    reset() {
      base = initialMs;
      last = undefined;
    },
  };
}
