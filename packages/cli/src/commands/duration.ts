/**
 * Go duration flags, as kube-apiserver takes them (`--event-ttl=1h0m0s`, `90s`, `1h30m`,
 * `500ms`): a sequence of decimal numbers, each with a unit (ns, us, µs, ms, s, m, h); `0`
 * alone is zero.
 */

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration into milliseconds; throws an Error naming the flag when it is not one. */
export function parseDuration(flag: string, text: string): number {
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) break;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = part.lastIndex;
  }
  if (at === 0 || at !== text.length) throw new Error(`${flag}: not a duration (like 1h, 5m or 90s): ${text}`);
  return ms;
}

/** Parses --terminated-pod-gc-threshold: a whole number (0 or less: terminated pods are never collected). */
export function parseTerminatedPodGcThreshold(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n)) throw new Error(`--terminated-pod-gc-threshold: must be a whole number, not ${text}`);
  return n;
}
