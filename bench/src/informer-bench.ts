/**
 * The informer benchmark's measuring and reporting side: time to first sync and memory of one
 * informer, measured in a process of its own, and the comparison table with its targets.
 */
import { clientFromKubeconfig } from '@kplane/client';
import { runInChild } from './child.js';
import { formatTable } from './report.js';

/** The part of `process.memoryUsage()` the benchmark reads. */
export interface MemorySnapshot {
  heapUsed: number;
  rss: number;
}

/** A prepared informer: everything is set up, nothing has been listed yet. */
export interface SyncSubject {
  /** Starts the informer; resolves with the number of cached objects once the first list is in the cache. */
  sync(): Promise<number>;
  /** Stops the informer and closes its connections. */
  stop(): Promise<void>;
}

/** What {@link measureSync} reports for one informer. */
export interface SyncMeasurement {
  /** From `sync()` to the cache holding the first list, in ms. */
  syncMs: number;
  /** Objects in the cache after the first sync. */
  items: number;
  /** `heapUsed` after a forced GC, before starting and after the sync (the cache is still held). */
  heapBefore: number;
  heapAfter: number;
  /** RSS at the same two moments. */
  rssBefore: number;
  rssAfter: number;
  /** Highest RSS of the process up to the end of the sync (from `process.resourceUsage().maxRSS`). */
  peakRss: number;
}

/** Options of measureSync. */
export interface MeasureSyncOptions {
  /** Forces a full garbage collection (`globalThis.gc` under `--expose-gc`). */
  gc: () => void;
  memoryUsage?: () => MemorySnapshot;
  /** Highest RSS so far in bytes. */
  peakRss?: () => number;
  now?: () => number;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Two full collections with a turn of the event loop between, so that weak callbacks and finalizers have run. */
async function collect(gc: () => void): Promise<void> {
  gc();
  await settle();
  gc();
}

/**
 * Prepares an informer, takes a memory snapshot after a forced GC, times its first sync, and
 * takes a second snapshot after another forced GC while the informer (and so its cache) is
 * still alive; then stops it. Meant to run alone in a fresh process (`--expose-gc`), so the
 * heap holds nothing but this informer's cache beyond the baseline.
 */
export async function measureSync(prepare: () => Promise<SyncSubject>, options: MeasureSyncOptions): Promise<SyncMeasurement> {
  const memoryUsage = options.memoryUsage ?? (() => process.memoryUsage());
  const peakRss = options.peakRss ?? (() => process.resourceUsage().maxRSS * 1024);
  const now = options.now ?? (() => performance.now());
  const subject = await prepare();
  await collect(options.gc);
  const before = memoryUsage();
  const t0 = now();
  const items = await subject.sync();
  const syncMs = now() - t0;
  const peak = peakRss();
  await collect(options.gc);
  const after = memoryUsage();
  await subject.stop();
  return { syncMs, items, heapBefore: before.heapUsed, heapAfter: after.heapUsed, rssBefore: before.rss, rssAfter: after.rss, peakRss: peak };
}

/** One informer's runs, for the report. */
export interface InformerResult {
  name: string;
  runs: SyncMeasurement[];
}

/** Targets of the comparison: kplane at most `maxMemoryRatio` of the other's memory and at least `minSpeedup` times as fast. */
export interface InformerTargets {
  maxMemoryRatio: number;
  minSpeedup: number;
}

const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);

/** The median run by sync time (the lower middle one for an even count). */
export function medianRun(runs: readonly SyncMeasurement[]): SyncMeasurement {
  if (runs.length === 0) throw new Error('no runs');
  const sorted = [...runs].sort((a, b) => a.syncMs - b.syncMs);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * The informer table (one line per informer: its median run by sync time, all sync times,
 * heap and RSS growth, peak RSS growth; `extra` rows are for information) followed by the
 * reading of the targets, comparing `ours` (kplane) with `theirs`.
 */
export function formatInformers(ours: InformerResult, theirs: InformerResult, targets: InformerTargets, extra: readonly InformerResult[] = []): string {
  const rows = [ours, theirs, ...extra].map((r) => {
    const m = medianRun(r.runs);
    return [
      r.name,
      m.syncMs.toFixed(0),
      r.runs.map((x) => x.syncMs.toFixed(0)).join(', '),
      String(m.items),
      mb(m.heapAfter - m.heapBefore),
      mb(m.rssAfter - m.rssBefore),
      mb(m.peakRss - m.rssBefore),
    ];
  });
  const table = formatTable([['informer', 'sync ms', 'runs (ms)', 'objects', 'heap +MB', 'RSS +MB', 'peak RSS +MB'], ...rows], [1, 3, 4, 5, 6]);
  const a = medianRun(ours.runs);
  const b = medianRun(theirs.runs);
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  const speedup = b.syncMs / a.syncMs;
  const heapRatio = (a.heapAfter - a.heapBefore) / (b.heapAfter - b.heapBefore);
  const rssRatio = (a.rssAfter - a.rssBefore) / (b.rssAfter - b.rssBefore);
  const peakRatio = (a.peakRss - a.rssBefore) / (b.peakRss - b.rssBefore);
  const lines = [
    `speed:  ${theirs.name} sync time / ${ours.name} sync time = ${speedup.toFixed(2)}x (target >= ${targets.minSpeedup}x: ${verdict(speedup >= targets.minSpeedup)})`,
    `memory: ${ours.name} / ${theirs.name} heap growth = ${heapRatio.toFixed(2)}x (target <= ${targets.maxMemoryRatio}x: ${verdict(heapRatio <= targets.maxMemoryRatio)}); ` +
      `RSS growth ${rssRatio.toFixed(2)}x, peak RSS growth ${peakRatio.toFixed(2)}x`,
  ];
  return `${table}\n\n${lines.join('\n')}`;
}

/** Options of benchInformers. */
export interface BenchInformersOptions {
  /** Admin kubeconfig of the (already filled) server. */
  kubeconfig: string;
  namespace: string;
  /** ConfigMaps in the namespace; every informer must cache exactly this many. */
  count: number;
  /** Runs per informer, interleaved (default 1). */
  runs?: number;
  /** Also run kplane's informer with paged lists (pages of 500), for information (default true). */
  paged?: boolean;
  /** Told before each child starts. */
  progress?: (line: string) => void;
}

/** The informers benchInformers measured. */
export interface InformerResults {
  kplane: InformerResult;
  clientNode: InformerResult;
  extra: InformerResult[];
}

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

/**
 * Reads the namespace once in each of the two ways the informers do (one LIST, one streaming
 * list read to its initial-events-end bookmark), untimed: the server's code paths are compiled
 * and the garbage its fill left is collected before any informer is measured, so that whichever
 * runs first does not pay for it.
 */
export async function warmServer(kubeconfig: string, namespace: string): Promise<void> {
  const client = clientFromKubeconfig(kubeconfig);
  try {
    const api = client.resource(CONFIGMAPS);
    await api.list({ namespace });
    const ctl = new AbortController();
    for await (const ev of api.watch({ namespace, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, signal: ctl.signal })) {
      if (ev.type === 'BOOKMARK' && ev.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true') break;
      if (ev.type === 'ERROR') throw new Error(`warm-up watch failed: ${JSON.stringify(ev.object)}`);
    }
    ctl.abort();
  } finally {
    client.transport.close();
  }
}

/**
 * Runs each informer in a fresh child process (`probe-informer.js` under `--expose-gc`), one
 * at a time so they never compete for the CPU, interleaved over `runs` rounds, after
 * warmServer.
 */
export async function benchInformers(options: BenchInformersOptions): Promise<InformerResults> {
  const kplane: InformerResult = { name: 'kplane informerFor (streaming list)', runs: [] };
  const clientNode: InformerResult = { name: 'client-node makeInformer (one list)', runs: [] };
  const paged: InformerResult = { name: 'kplane createInformer, pages of 500 (info)', runs: [] };
  const cases: [string, InformerResult][] = [
    ['kplane', kplane],
    ['client-node', clientNode],
  ];
  if (options.paged ?? true) cases.push(['kplane-paged', paged]);
  const entry = new URL('./probe-informer.js', import.meta.url);
  options.progress?.('informer: warming the server up ...');
  await warmServer(options.kubeconfig, options.namespace);
  for (let round = 0; round < (options.runs ?? 1); round++) {
    for (const [which, result] of cases) {
      options.progress?.(`informer: ${which}, run ${round + 1} ...`);
      const args = [which, options.kubeconfig, options.namespace, String(options.count)];
      result.runs.push(await runInChild<SyncMeasurement>(entry, args, { execArgv: ['--expose-gc'], timeoutMs: 600_000 }));
    }
  }
  return { kplane, clientNode, extra: paged.runs.length > 0 ? [paged] : [] };
}
