import type { LoadResult } from './load.js';

/** CPU use during one load run. */
export interface CpuUse {
  /** Cores busy in the server process (1.00 = one core saturated). */
  serverCores: number;
  /** Cores busy in the load generator. */
  clientCores: number;
  /** Server CPU time per request, in microseconds. */
  serverUsPerReq: number;
}

/** One line of the throughput table. */
export interface ThroughputRow {
  name: string;
  result: LoadResult;
  cpu?: CpuUse;
  /** req/s of the baseline this case is compared with; no ratio when absent. */
  baselineRps?: number;
  /** Server CPU us/req of that baseline, for the CPU-cost ratio. */
  baselineUsPerReq?: number;
  /** Smallest acceptable ratio to the baseline, shown as met or missed. */
  target?: number;
}

/** One line of the LIST table. */
export interface TimingRow {
  name: string;
  ms: number;
  note?: string;
}

/** Lays out rows of cells as a fixed-width text table; the first row is the header. */
export function formatTable(rows: string[][], rightAligned: readonly number[] = []): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (row: string[]): string =>
    row
      .map((cell, i) => (rightAligned.includes(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** The ratio of `rps` to `baseline`, e.g. "0.62x" ("-" without a baseline). */
export function ratio(rps: number, baseline: number | undefined): string {
  if (baseline === undefined || baseline <= 0) return '-';
  return `${(rps / baseline).toFixed(2)}x`;
}

/**
 * The throughput table: case, req/s, ratio to the baseline, target, latency, server CPU per
 * request and its ratio (baseline cost / this cost, so 0.5x = twice the CPU per request),
 * cores busy in server and load generator, errors.
 */
export function formatThroughput(rows: readonly ThroughputRow[]): string {
  const header = ['case', 'req/s', 'vs bare https', 'target', 'p50 ms', 'p99 ms', 'server us/req', 'cpu ratio', 'cores srv/cli', 'errors'];
  const body = rows.map((r) => {
    const met = r.target !== undefined && r.baselineRps ? (r.result.rps / r.baselineRps >= r.target ? 'met' : 'MISSED') : '';
    return [
      r.name,
      r.result.rps.toFixed(0),
      ratio(r.result.rps, r.baselineRps),
      r.target !== undefined ? `>=${r.target}x ${met}` : '',
      r.result.p50Ms.toFixed(1),
      r.result.p99Ms.toFixed(1),
      r.cpu ? r.cpu.serverUsPerReq.toFixed(0) : '-',
      r.cpu && r.baselineUsPerReq ? ratio(r.baselineUsPerReq, r.cpu.serverUsPerReq) : '-',
      r.cpu ? `${r.cpu.serverCores.toFixed(2)}/${r.cpu.clientCores.toFixed(2)}` : '-',
      String(r.result.errors),
    ];
  });
  return formatTable([header, ...body], [1, 2, 4, 5, 6, 7, 8, 9]);
}

/** The timing table: case, milliseconds, note. */
export function formatTimings(rows: readonly TimingRow[]): string {
  return formatTable([['case', 'ms', 'note'], ...rows.map((r) => [r.name, r.ms.toFixed(0), r.note ?? ''])], [1]);
}
