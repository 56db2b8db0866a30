/**
 * The safety benchmark: how kplane's resources hold under hostile but legal load.
 *
 * Against a kplane on SQLite over HTTPS (a child process, as `kplane up` runs it): many merge
 * patches of a ConfigMap of nearly 1 MiB while a thousand idle watchers and a few stalled ones
 * (never reading) are open; the server's peak RSS; the database size against the live data
 * once the server has compacted its storage on its own schedule (run with a short interval, so
 * the run sees it happen); and how much writes checked against a pathological pattern (`^(a+)+$`, in a
 * CRD `pattern` and a CEL `matches()` rule) delay /readyz. Figures are reported, not asserted.
 */
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHttpsTransport, loadKubeconfig, type HttpsTransport } from '@kplane/client';
import { pathologicalCrd, PATHOLOGICAL } from '@kplane/apiserver/testing';
import { createSqliteBackend } from '@kplane/storage';
import { startChild } from './child.js';
import { median } from './load.js';
import { formatTable } from './report.js';
import type { KplaneInfo } from './server-kplane.js';

/** Options of benchSafety. */
export interface SafetyBenchOptions {
  /** Folder for the server's data (its database is measured there). */
  dataDir: string;
  /** Merge patches of the big ConfigMap (default 400). */
  patches?: number;
  /** Size of the big ConfigMap's data in bytes (default 0.9 MiB). */
  configMapBytes?: number;
  /** Watchers that read but see no change (default 1000). */
  idleWatchers?: number;
  /** Watchers of the patched ConfigMap that never read (default 10). */
  stalledWatchers?: number;
  /** Length of the `aaa…a!` value checked against the pattern (default 40). */
  regexLength?: number;
  /** Pathological writes sent at once (half by pattern, half by CEL; default 20). */
  pathologicalWrites?: number;
  /** How long the pathological writes may take before the server is given up on (default 20 s). */
  pathologicalDeadlineMs?: number;
  /** The server's storage compaction interval (`compactionIntervalMs`, default 2 s instead of 5 minutes). */
  compactionIntervalMs?: number;
  /** How long to wait, each time, for the server to compact (default 60 s, at least 5 intervals). */
  compactionTimeoutMs?: number;
  progress?: (line: string) => void;
}

/** What benchSafety measured. */
export interface SafetyBenchResult {
  patches: number;
  patchErrors: number;
  firstPatchError?: string;
  patchMs: number;
  configMapBytes: number;
  idleWatchers: number;
  stalledWatchers: number;
  /** Watchers whose stream the server ended before the patches were done. */
  watchersClosedEarly: number;
  /** Server RSS after start-up and its peak (VmHWM), in bytes; undefined off Linux. */
  startRssBytes?: number;
  peakRssBytes?: number;
  /** Peak RSS (VmHWM) right after the patches, before the compactions that follow them and the /readyz phase. */
  peakRssAfterPatchesBytes?: number;
  /** The server's compaction interval, ms. */
  compactionIntervalMs: number;
  /** Database files (main, WAL and shared memory) right after the patches (the server compacting on its schedule meanwhile). */
  dbBytesAfterPatches: number;
  /**
   * Database files once the server had compacted at the last patch's revision and ended that
   * compaction (WAL emptied), and how long after the last patch that was seen; undefined when
   * not seen before the timeout.
   */
  dbBytesAfterPatchCompaction?: number;
  patchCompactionMs?: number;
  /**
   * Database files at the end of the run, the server still running, once it had compacted at its
   * last revision (or at the timeout, see compactionObserved). The figure read against the target.
   */
  dbBytesAfterCompaction: number;
  /** Whether the server was seen compacting at its last revision before the timeout. */
  compactionObserved: boolean;
  /** Whether that compaction was also seen ending with its WAL emptied (it does when it removed rows). */
  compactionWalEmptied: boolean;
  /** Bytes of the current key and value of every key, read from the database once the server stopped. */
  liveBytes: number;
  /** Median /readyz latency with nothing else running, ms. */
  readyzBaselineMs: number;
  /** Slowest /readyz while the pathological writes were in flight, ms (undefined if none answered). */
  readyzWorstMs?: number;
  readyzProbes: number;
  /** How the pathological writes were answered (status → count), and how long they took in all. */
  pathologicalAnswers: Record<string, number>;
  pathologicalMs?: number;
  /** True when the writes did not all answer before the deadline. */
  pathologicalTimedOut: boolean;
}

/** Targets: peak RSS under 1 GiB, database at most 10x the live data, /readyz delayed under 100 ms. */
export interface SafetyTargets {
  maxPeakRssBytes: number;
  maxDbRatio: number;
  maxReadyzDelayMs: number;
}

/** Reads a field (in kB) of /proc/<pid>/status as bytes; undefined off Linux. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes of an SQLite database with its WAL and shared-memory files. */
export function databaseBytes(file: string): number {
  let total = 0;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      total += statSync(f).size;
    } catch {
      /* absent */
    }
  }
  return total;
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const NS = 'default';
const IDLE_NS = 'kube-public';

/** The server's current revision: the resourceVersion of a list. */
async function currentRevision(t: HttpsTransport): Promise<number> {
  const r = await call(t, 'GET', `/api/v1/namespaces/${IDLE_NS}/configmaps?limit=1`);
  if (r.status !== 200) throw new Error(`listing ${IDLE_NS}: ${r.status} ${r.text.slice(0, 200)}`);
  return Number((JSON.parse(r.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
}

const WAL_POLL_MS = 50;

/**
 * Waits, polling every 50 ms, until the server has compacted its storage at `revision` (a LIST
 * at `revision - 1` with resourceVersionMatch=Exact answers 410 Expired: nothing below
 * `revision` is readable any more) and then until that compaction has ended: after a compaction
 * that removed rows the server gives the free pages back and ends with a truncating WAL
 * checkpoint, so the WAL file is empty. The WAL wait is cut after two more intervals (a
 * compaction that removed nothing leaves the WAL as it is). Bounded by `timeoutMs` in all.
 */
async function waitForServerCompaction(t: HttpsTransport, dbFile: string, revision: number, intervalMs: number, timeoutMs: number): Promise<{ compacted: boolean; walEmptied: boolean; ms: number }> {
  const start = performance.now();
  const deadline = start + timeoutMs;
  const sleep = () => new Promise((r) => setTimeout(r, WAL_POLL_MS));
  const probe = `/api/v1/namespaces/${IDLE_NS}/configmaps?limit=1&resourceVersionMatch=Exact&resourceVersion=${Math.max(1, revision - 1)}`;
  let compacted = false;
  while (performance.now() < deadline) {
    const r = await call(t, 'GET', probe);
    if (r.status === 410) {
      compacted = true;
      break;
    }
    if (r.status !== 200) throw new Error(`probing compaction: ${r.status} ${r.text.slice(0, 200)}`);
    await sleep();
  }
  if (!compacted) return { compacted, walEmptied: false, ms: performance.now() - start };
  const walDeadline = Math.min(deadline, performance.now() + 2 * intervalMs + 1000);
  const walBytes = () => {
    try {
      return statSync(`${dbFile}-wal`).size;
    } catch {
      return 0;
    }
  };
  for (;;) {
    if (walBytes() === 0) return { compacted, walEmptied: true, ms: performance.now() - start };
    if (performance.now() >= walDeadline) return { compacted, walEmptied: false, ms: performance.now() - start };
    await sleep();
  }
}

async function call(t: HttpsTransport, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const r = await t({ method, path, headers: { ...JSON_HEADERS, 'content-type': contentType }, body: body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
  return { status: r.status, text: Buffer.from(r.body ?? []).toString('utf8') };
}

/** Opens a watch over its own connection; resolves once the server answered its headers. */
function openWatch(tls: { host: string; port: number; ca: string; cert: string; key: string }, agent: Agent, path: string, read: boolean): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: tls.host, port: tls.port, path, method: 'GET', headers: { accept: 'application/json' }, ca: tls.ca, cert: tls.cert, key: tls.key, agent }, (res) => {
      if (read) res.resume();
      else res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs the safety benchmark against a fresh kplane (SQLite, HTTPS) in a child process. */
export async function benchSafety(options: SafetyBenchOptions): Promise<SafetyBenchResult> {
  const patches = options.patches ?? 400;
  const configMapBytes = options.configMapBytes ?? Math.round(0.9 * 1024 * 1024);
  const idleCount = options.idleWatchers ?? 1000;
  const stalledCount = options.stalledWatchers ?? 10;
  const regexLength = options.regexLength ?? 40;
  const writes = options.pathologicalWrites ?? 20;
  const progress = options.progress ?? (() => {});
  const intervalMs = options.compactionIntervalMs ?? 2000;
  const compactionTimeoutMs = options.compactionTimeoutMs ?? Math.max(60_000, 5 * intervalMs);
  const child = await startChild<KplaneInfo>(new URL('./server-kplane.js', import.meta.url), ['sqlite', options.dataDir, String(intervalMs)]);
  const kc = loadKubeconfig(child.info.kubeconfigPath);
  const t = createHttpsTransport({ ...kc.transportOptions, maxSockets: 64 });
  const url = new URL(kc.server);
  const text = (v: Uint8Array | string | undefined) => (v === undefined ? '' : typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));
  const tls = { host: url.hostname, port: Number(url.port), ca: text(kc.transportOptions.ca), cert: text(kc.transportOptions.cert), key: text(kc.transportOptions.key) };
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const watchers: IncomingMessage[] = [];
  let closedEarly = 0;
  let stopped = false;
  try {
    const startRssBytes = procStatusBytes(child.pid, 'VmRSS');
    const blob = 'x'.repeat(configMapBytes);
    const created = await call(t, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob, i: '0' } });
    if (created.status !== 201) throw new Error(`creating the big ConfigMap: ${created.status} ${created.text.slice(0, 300)}`);

    progress(`safety: opening ${idleCount} idle and ${stalledCount} stalled watchers ...`);
    for (let i = 0; i < idleCount; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, idleCount - i) }, () => openWatch(tls, agent, `/api/v1/namespaces/${IDLE_NS}/configmaps?watch=true&timeoutSeconds=3600`, true)));
      watchers.push(...batch);
    }
    for (let i = 0; i < stalledCount; i++) watchers.push(await openWatch(tls, agent, `/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=3600&fieldSelector=metadata.name%3Dbig`, false));
    for (const w of watchers) w.once('close', () => void (stopped || closedEarly++));

    progress(`safety: ${patches} merge patches of a ${(configMapBytes / 1024 / 1024).toFixed(2)} MiB ConfigMap ...`);
    let patchErrors = 0;
    let firstPatchError: string | undefined;
    const t0 = performance.now();
    for (let i = 1; i <= patches; i++) {
      const r = await call(t, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/big`, { data: { i: String(i) } }, 'application/merge-patch+json');
      if (r.status !== 200) {
        patchErrors++;
        firstPatchError ??= `${r.status} ${r.text.slice(0, 200)}`;
      }
    }
    const patchMs = performance.now() - t0;
    const peakRssAfterPatchesBytes = procStatusBytes(child.pid, 'VmHWM');
    const dbFile = join(options.dataDir, 'state.db');
    const dbBytesAfterPatches = databaseBytes(dbFile);
    stopped = true;
    for (const w of watchers) w.destroy();
    agent.destroy();

    // The server compacts on its own schedule: wait until it has compacted the patches' history,
    // before the /readyz phase, so that this compaction does not run during it.
    progress(`safety: waiting for the server to compact (every ${(intervalMs / 1000).toFixed(1)} s) ...`);
    const patchRevision = await currentRevision(t);
    const afterPatches = await waitForServerCompaction(t, dbFile, patchRevision, intervalMs, compactionTimeoutMs);
    const dbBytesAfterPatchCompaction = afterPatches.compacted ? databaseBytes(dbFile) : undefined;

    progress(`safety: /readyz while ${writes} writes are checked against ${PATHOLOGICAL} ...`);
    const crd = await call(t, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', pathologicalCrd());
    if (crd.status !== 201) throw new Error(`creating the CRD: ${crd.status} ${crd.text.slice(0, 300)}`);
    const crPath = '/apis/safety.example.com/v1/namespaces/default/redoses';
    for (let i = 0; (await call(t, 'GET', crPath)).status !== 200; i++) {
      if (i > 200) throw new Error('the CRD was never served');
      await new Promise((r) => setTimeout(r, 25));
    }
    const readyz = async () => {
      const s = performance.now();
      const r = await t({ method: 'GET', path: '/readyz', headers: {} });
      if (r.status !== 200) throw new Error(`/readyz answered ${r.status}`);
      return performance.now() - s;
    };
    // Open the connections the writes and probes will use first, so that the figure measures the
    // pattern checks, not a burst of TLS handshakes (which delays /readyz on its own).
    await Promise.all(Array.from({ length: writes + 1 }, () => call(t, 'GET', crPath)));
    const baseline: number[] = [];
    for (let i = 0; i < 20; i++) baseline.push(await readyz());
    const evil = 'a'.repeat(regexLength) + '!';
    const answers: Record<string, number> = {};
    const w0 = performance.now();
    let inFlight = true;
    const all = Promise.all(
      Array.from({ length: writes }, (_, i) =>
        call(t, 'POST', crPath, { apiVersion: 'safety.example.com/v1', kind: 'Redos', metadata: { name: `evil-${i}` }, spec: i % 2 === 0 ? { p: evil } : { q: evil } }).then(
          (r) => void (answers[String(r.status)] = (answers[String(r.status)] ?? 0) + 1),
          (err) => void (answers[`error ${String(err).slice(0, 60)}`] = (answers[`error ${String(err).slice(0, 60)}`] ?? 0) + 1),
        ),
      ),
    ).then(() => {
      inFlight = false;
      return performance.now() - w0;
    });
    const during: number[] = [];
    const deadline = Date.now() + (options.pathologicalDeadlineMs ?? 20_000);
    const timers = new Set<NodeJS.Timeout>();
    /** Resolves with `value` at the deadline (the timer is cleared at the end). */
    const atDeadline = <T>(value: T) => new Promise<T>((r) => timers.add(setTimeout(() => r(value), Math.max(1, deadline - Date.now()))));
    const probes = (async () => {
      while (inFlight && Date.now() < deadline) during.push(await Promise.race([readyz(), atDeadline(Infinity)]));
    })();
    const pathologicalMs = await Promise.race([all, atDeadline(undefined)]);
    await probes;
    for (const timer of timers) clearTimeout(timer);
    const finite = during.filter(Number.isFinite);

    // The figure: the database once the server has compacted at its last revision, read while it
    // runs. (If the server gave no answer to the pathological writes, this wait times out.)
    progress('safety: waiting for the server to compact at its last revision ...');
    let final = { compacted: false, walEmptied: false, ms: 0 };
    try {
      final = await waitForServerCompaction(t, dbFile, await currentRevision(t), intervalMs, compactionTimeoutMs);
    } catch (err) {
      progress(`safety: the server's compaction could not be observed: ${String(err).slice(0, 200)}`);
    }
    const dbBytesAfterCompaction = databaseBytes(dbFile);
    const peakRssBytes = procStatusBytes(child.pid, 'VmHWM');

    // The server is stopped (killed if it does not stop); the live data is read (not compacted) from its database.
    t.close();
    await child.stop();
    const backend = createSqliteBackend({ path: dbFile });
    let liveBytes = 0;
    for (const kv of (await backend.list('/')).items) liveBytes += Buffer.byteLength(kv.key) + Buffer.byteLength(kv.value);
    await backend.close();
    const result: SafetyBenchResult = {
      patches,
      patchErrors,
      patchMs,
      configMapBytes,
      idleWatchers: idleCount,
      stalledWatchers: stalledCount,
      watchersClosedEarly: closedEarly,
      compactionIntervalMs: intervalMs,
      dbBytesAfterPatches,
      dbBytesAfterCompaction,
      compactionObserved: final.compacted,
      compactionWalEmptied: final.walEmptied,
      liveBytes,
      readyzBaselineMs: median(baseline),
      readyzProbes: during.length,
      pathologicalAnswers: answers,
      pathologicalTimedOut: pathologicalMs === undefined,
    };
    if (firstPatchError !== undefined) result.firstPatchError = firstPatchError;
    if (startRssBytes !== undefined) result.startRssBytes = startRssBytes;
    if (peakRssBytes !== undefined) result.peakRssBytes = peakRssBytes;
    if (peakRssAfterPatchesBytes !== undefined) result.peakRssAfterPatchesBytes = peakRssAfterPatchesBytes;
    if (dbBytesAfterPatchCompaction !== undefined) {
      result.dbBytesAfterPatchCompaction = dbBytesAfterPatchCompaction;
      result.patchCompactionMs = afterPatches.ms;
    }
    if (finite.length > 0 && finite.length === during.length) result.readyzWorstMs = Math.max(...finite);
    if (pathologicalMs !== undefined) result.pathologicalMs = pathologicalMs;
    return result;
  } finally {
    stopped = true;
    for (const w of watchers) w.destroy();
    agent.destroy();
    t.close();
    await child.stop();
  }
}

const mib = (b: number | undefined) => (b === undefined ? '-' : `${(b / 1024 / 1024).toFixed(1)} MiB`);

/** The safety table, with each figure read against its target. */
export function formatSafety(r: SafetyBenchResult, targets: SafetyTargets): string {
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'unknown' : ok ? 'met' : 'MISSED');
  const ratio = r.liveBytes > 0 ? r.dbBytesAfterCompaction / r.liveBytes : Infinity;
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const compaction = r.compactionObserved
    ? `after the server compacted at its last revision${r.compactionWalEmptied ? '' : ' (WAL not emptied)'} ${mib(r.dbBytesAfterCompaction)}`
    : `server compaction NOT seen before the timeout; database then ${mib(r.dbBytesAfterCompaction)}`;
  const afterPatches =
    r.dbBytesAfterPatchCompaction === undefined
      ? 'its compaction of the patches not seen before the timeout'
      : `${mib(r.dbBytesAfterPatchCompaction)} once it had compacted them, ${secs(r.patchCompactionMs ?? 0)} after the last`;
  const delay = r.readyzWorstMs === undefined ? undefined : r.readyzWorstMs - r.readyzBaselineMs;
  const answers = Object.entries(r.pathologicalAnswers).map(([k, v]) => `${v}x ${k}`).join(', ') || 'none';
  const rows = [
    ['figure', 'value', 'target', 'note'],
    ['server peak RSS', mib(r.peakRssBytes), `<${mib(targets.maxPeakRssBytes)} ${verdict(r.peakRssBytes === undefined ? undefined : r.peakRssBytes < targets.maxPeakRssBytes)}`, `whole run; after start-up ${mib(r.startRssBytes)}, peak right after the patches ${mib(r.peakRssAfterPatchesBytes)}; ${r.patches} patches in ${(r.patchMs / 1000).toFixed(1)} s, ${r.patchErrors} failed${r.firstPatchError ? ` (first: ${r.firstPatchError})` : ''}; ${r.watchersClosedEarly} of ${r.idleWatchers + r.stalledWatchers} watchers closed by the server`],
    [
      'database / live data',
      Number.isFinite(ratio) ? `${ratio.toFixed(1)}x` : '-',
      `<=${targets.maxDbRatio}x ${verdict(r.compactionObserved && ratio <= targets.maxDbRatio)}`,
      `server compacting every ${secs(r.compactionIntervalMs)}: ${compaction}, live ${mib(r.liveBytes)}; right after the patches ${mib(r.dbBytesAfterPatches)}, ${afterPatches}`,
    ],
    [
      '/readyz delay',
      delay === undefined ? (r.pathologicalTimedOut ? 'no answer' : '-') : `${delay.toFixed(1)} ms`,
      `<${targets.maxReadyzDelayMs} ms ${verdict(delay === undefined ? (r.pathologicalTimedOut ? false : undefined) : delay < targets.maxReadyzDelayMs)}`,
      `worst of ${r.readyzProbes} probes minus the median without load (${r.readyzBaselineMs.toFixed(1)} ms); writes answered ${answers}${r.pathologicalMs === undefined ? ' (not all before the deadline)' : ` in ${r.pathologicalMs.toFixed(0)} ms`}`,
    ],
  ];
  return formatTable(rows, [1]);
}
