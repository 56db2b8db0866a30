/**
 * Just enough of resource.Quantity to compare and add CPU and memory amounts (for the pod's QoS
 * class): parses "100m", "1.5", "128Mi", "1e3", "2G" into a number of base units.
 */

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** Parses a quantity (string or number) into base units; NaN when malformed. */
export function parseQuantity(q: unknown): number {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return Number.NaN;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$/.exec(q.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (suffix in binary) return n * binary[suffix]!;
  if (/^[eE]/.test(suffix)) return n * 10 ** Number(suffix.slice(1));
  return n * (decimal[suffix] ?? Number.NaN);
}

/** Compares two amounts with a tolerance for floating-point noise: -1, 0 or 1. */
export function compareQuantity(a: number, b: number): number {
  const eps = Math.max(Math.abs(a), Math.abs(b)) * 1e-12;
  if (Math.abs(a - b) <= eps) return 0;
  return a < b ? -1 : 1;
}
