/**
 * Just enough of resource.Quantity to compare requests with allocatable: cpu in millicores,
 * everything else in base units (bytes, pods).
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const PATTERN = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/**
 * Parses a quantity ("100m", "1.5", "128Mi", "1e3") into its value in base units, or
 * undefined when it is not a quantity. Numbers are taken as they are.
 */
export function parseQuantity(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = PATTERN.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[3] !== undefined) return n * 10 ** Number(m[3]);
  const suffix = m[2] ?? '';
  return n * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** Milli-units of a quantity, rounded up as Kubernetes' MilliValue does (0 when absent or invalid). */
export function milliValue(q: unknown): number {
  const v = parseQuantity(q);
  return v === undefined ? 0 : Math.ceil(Math.round(v * 1e9) / 1e6);
}

/** Whole units of a quantity, rounded up (0 when absent or invalid). */
export function value(q: unknown): number {
  const v = parseQuantity(q);
  return v === undefined ? 0 : Math.ceil(Math.round(v * 1e3) / 1e3);
}
