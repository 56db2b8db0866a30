/**
 * The scale case: one kplane process (SQLite, over HTTPS) holding many pods and nodes. A first
 * share of the pods and nodes is created through the API (the API's create rate); the rest are
 * copies of what kplane stored, written into its database while it is stopped (see
 * scale-fill.ts); then kplane starts on the full database (restart to ready), and serves a LIST
 * of every pod in one request as JSON, as asked for protobuf (kplane answers JSON), and as
 * metadata only, each received as chunks, with the server's CPU time and RSS meanwhile; a paged
 * LIST for comparison; and a second restart. The server's RSS is sampled all along.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHttpsTransport, loadKubeconfig, type HttpsTransport } from '@kplane/client';
import { runInChild, startChild, type Child } from './child.js';
import { expectStatus } from './list-bench.js';
import { runPool } from './load.js';
import { formatTable } from './report.js';
import { fillThroughStorage } from './scale-fill.js';
import type { KplaneInfo } from './server-kplane.js';

/** Options of benchScale. */
export interface ScaleBenchOptions {
  /** Pods in all (spread over `namespaces` namespaces and bound to the nodes). */
  pods: number;
  /** Nodes in all. */
  nodes: number;
  /** Namespaces the pods are spread over (default 50). */
  namespaces?: number;
  /** Creates in flight over HTTPS. */
  concurrency: number;
  /** Pods created through the API (default 2,000, at most `pods`); the rest through storage. */
  apiPods?: number;
  /** The server's data directory (SQLite lives there; the restarts reopen it). */
  dataDir: string;
}

/** What one LIST of every pod measured. */
export interface ListTiming {
  /** From the request to the first byte of the body. */
  firstByteMs: number;
  /** From the request to the last byte of the body. */
  lastByteMs: number;
  /** The client's JSON.parse of the whole body (not part of lastByteMs). */
  parseMs: number;
  bytes: number;
  items: number;
  /** The server's highest RSS during the LIST (its peak reset just before). */
  serverPeakRss: number;
  /** The server's CPU time (user + system) during the LIST; 0 where unavailable. */
  serverCpuMs?: number;
  /** The response's content type. */
  contentType?: string;
}

/** What benchScale measured. */
export interface ScaleBenchResult {
  pods: number;
  nodes: number;
  /** Pods created through the API over HTTPS, and how long that took. */
  apiPods: number;
  apiCreateMs: number;
  /** Pods and nodes copied through storage, and how long that took. */
  storagePods: number;
  storageMs: number;
  /** kplane's start on the full database, to ready, and the server's CPU time meanwhile. */
  startMs: number;
  startCpuMs: number;
  /** The server's RSS once ready on the full database. */
  rssAfterStart: number;
  /**
   * From ready to settled (a second in which the server used under 15 % of a core): the
   * controllers' informers list and cache everything meanwhile. The LISTs start after it.
   */
  settleMs: number;
  settleCpuMs: number;
  /** LIST of every pod in one request (the server streams it): JSON, asked as protobuf, metadata only. */
  list: ListTiming;
  protobuf: ListTiming;
  metadata: ListTiming;
  /** LIST of every pod with limit=500 following continue (the sum of the pages). */
  paged: ListTiming & { pages: number };
  /** From starting a new server process on the same data to ready (the second start), and its CPU time. */
  restartMs: number;
  restartCpuMs: number;
  /** The new server's RSS once ready. */
  rssAfterRestart: number;
  /** The highest server RSS of the whole run: sampled every 100 ms, and the kernel's peak (VmHWM) of each server process. */
  maxRssSampled: number;
  maxRssPeak: number;
  /** The highest anonymous RSS sampled (RssAnon: the process's own memory, without the database file's pages SQLite maps). */
  maxRssAnonSampled: number;
  /** The machine's 1-minute load average at the end. */
  loadAverage: number;
}

/** Targets of the issue: LIST of every pod ≤ 3 s, RSS ≤ 2 GiB at every moment, restart ≤ 10 s. */
export const SCALE_TARGETS = { maxListSeconds: 3, maxRssBytes: 2 * 1024 ** 3, maxRestartSeconds: 10 };

const HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM, RssAnon); 0 where unavailable. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resets the peak RSS (VmHWM) of process `pid` to its current RSS (Linux clear_refs 5). */
function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* not Linux, or not allowed: the peak then counts from the process start */
  }
}

/** A pod as a ReplicaSet would make it, bound to `node`. */
export function scalePod(name: string, namespace: string, node: string, i: number): object {
  const app = `app-${i % 100}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app, 'pod-template-hash': '5d8f9c7b6' } },
    spec: {
      nodeName: node,
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '10m', memory: '16Mi' } }, env: [{ name: 'APP', value: app }] }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
  };
}

/** A Node with capacity for the pods. */
function scaleNode(name: string): object {
  const capacity = { cpu: '64', memory: '256Gi', pods: '110' };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { capacity, allocatable: capacity } };
}

/** The highest RSS of the server processes, read every 100 ms and from each one's kernel peak. */
class RssWatch {
  sampled = 0;
  peak = 0;
  anon = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private pid: () => number | undefined) {
    this.timer = setInterval(() => this.sample(), 100);
  }
  sample(): void {
    const pid = this.pid();
    if (pid === undefined) return;
    this.sampled = Math.max(this.sampled, procStatusBytes(pid, 'VmRSS'));
    this.anon = Math.max(this.anon, procStatusBytes(pid, 'RssAnon'));
  }
  /** Records the kernel's peak of `pid` before it is reset or the process ends. */
  keepPeak(pid: number): void {
    this.sample();
    this.peak = Math.max(this.peak, procStatusBytes(pid, 'VmHWM'));
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** LIST every pod in one request, the body received as chunks; the server's peak RSS and CPU meanwhile. */
async function listAll(stream: HttpsTransport, child: Child<KplaneInfo>, rss: RssWatch, query: Record<string, string> = {}, accept = 'application/json'): Promise<ListTiming & { continue?: string }> {
  rss.keepPeak(child.pid);
  resetPeakRss(child.pid);
  const cpu0 = child.cpuMs() ?? 0;
  const t0 = performance.now();
  const r = await expectStatus(stream({ method: 'GET', path: '/api/v1/pods', query, headers: { accept } }), 200);
  let firstByteMs = 0;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of r.stream ?? [r.body!]) {
    if (bytes === 0) firstByteMs = performance.now() - t0;
    chunks.push(chunk);
    bytes += chunk.byteLength;
  }
  const lastByteMs = performance.now() - t0;
  const serverCpuMs = (child.cpuMs() ?? 0) - cpu0;
  const serverPeakRss = procStatusBytes(child.pid, 'VmHWM');
  rss.keepPeak(child.pid);
  const p0 = performance.now();
  const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
  const parseMs = performance.now() - p0;
  return { firstByteMs, lastByteMs, parseMs, bytes, items: list.items.length, serverPeakRss, serverCpuMs, contentType: r.headers['content-type'], continue: list.metadata.continue };
}

/** Waits until the server uses under 15 % of a core for a whole second (at most `maxMs`); returns the time and CPU it took. */
async function settle(child: Child<KplaneInfo>, maxMs = 180_000): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const c0 = child.cpuMs() ?? 0;
  let last = c0;
  while (performance.now() - t0 < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = child.cpuMs() ?? 0;
    if (now - last < 150) break;
    last = now;
  }
  return { ms: performance.now() - t0, cpuMs: (child.cpuMs() ?? 0) - c0 };
}

/** LIST every pod in one request (no continue expected). */
async function listOnce(stream: HttpsTransport, child: Child<KplaneInfo>, rss: RssWatch, pods: number, accept?: string): Promise<ListTiming> {
  const { continue: _c, ...timing } = await listAll(stream, child, rss, {}, accept);
  if (timing.items < pods) throw new Error(`LIST returned ${timing.items} pods, want ${pods}`);
  return timing;
}

/** Runs the scale case against a kplane child on `dataDir` (SQLite). */
export async function benchScale(options: ScaleBenchOptions): Promise<ScaleBenchResult> {
  const { pods, nodes, concurrency, dataDir } = options;
  const namespaces = Math.max(1, options.namespaces ?? 50);
  const apiPods = Math.max(1, Math.min(pods, options.apiPods ?? 2000));
  const apiNodes = Math.max(1, Math.min(nodes, Math.ceil((apiPods * nodes) / pods)));
  const entry = new URL('./server-kplane.js', import.meta.url);
  let child: Child<KplaneInfo> | undefined = await startChild<KplaneInfo>(entry, ['sqlite', dataDir]);
  const rss = new RssWatch(() => child?.pid);
  const stopChild = async (): Promise<void> => {
    if (!child) return;
    rss.keepPeak(child.pid);
    await child.stop();
    child = undefined;
  };
  try {
    // 1. Through the API: namespaces, their default ServiceAccounts, the first nodes and pods.
    const tls = loadKubeconfig(child.info.kubeconfigPath).transportOptions;
    const t = createHttpsTransport({ ...tls, maxSockets: concurrency });
    await runPool(namespaces, concurrency, async (n) => {
      await expectStatus(t({ method: 'POST', path: '/api/v1/namespaces', headers: HEADERS, body: encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${n}` } }) }), 201, 409);
      await expectStatus(t({ method: 'POST', path: `/api/v1/namespaces/scale-${n}/serviceaccounts`, headers: HEADERS, body: encode({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }) }), 201, 409);
    });
    await runPool(apiNodes, concurrency, async (i) => {
      await expectStatus(t({ method: 'POST', path: '/api/v1/nodes', headers: HEADERS, body: encode(scaleNode(`node-${i}`)) }), 201);
    });
    const t0 = performance.now();
    await runPool(apiPods, concurrency, async (i) => {
      const ns = `scale-${i % namespaces}`;
      await expectStatus(t({ method: 'POST', path: `/api/v1/namespaces/${ns}/pods`, headers: HEADERS, body: encode(scalePod(`pod-${i}`, ns, `node-${i % nodes}`, i)) }), 201);
    });
    const apiCreateMs = performance.now() - t0;
    t.close();
    await stopChild();

    // 2. Through storage, the server stopped: the rest, as copies of what the server stored.
    const fill = await fillThroughStorage(dataDir, { pods, nodes, namespaces, fromPod: apiPods, fromNode: apiNodes });

    // 3. Start on the full database.
    const s0 = performance.now();
    child = await startChild<KplaneInfo>(entry, ['sqlite', dataDir], 600_000);
    const startMs = performance.now() - s0;
    const startCpuMs = child.cpuMs() ?? 0;
    rss.sample();
    const rssAfterStart = procStatusBytes(child.pid, 'VmRSS');

    // 4. The LISTs, once the server has settled.
    const settled = await settle(child);
    // A new process listens on a new port: its own kubeconfig.
    const stream = createHttpsTransport({ ...loadKubeconfig(child.info.kubeconfigPath).transportOptions, maxSockets: 1, stream: () => true });
    const list = await listOnce(stream, child, rss, pods);
    const protobuf = await listOnce(stream, child, rss, pods, 'application/vnd.kubernetes.protobuf');
    const metadata = await listOnce(stream, child, rss, pods, 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    const paged = { firstByteMs: 0, lastByteMs: 0, parseMs: 0, bytes: 0, items: 0, serverPeakRss: 0, serverCpuMs: 0, pages: 0 };
    let token: string | undefined;
    do {
      const page = await listAll(stream, child, rss, token ? { limit: '500', continue: token } : { limit: '500' });
      if (paged.pages === 0) paged.firstByteMs = page.firstByteMs;
      paged.lastByteMs += page.lastByteMs;
      paged.parseMs += page.parseMs;
      paged.bytes += page.bytes;
      paged.items += page.items;
      paged.serverCpuMs += page.serverCpuMs ?? 0;
      paged.serverPeakRss = Math.max(paged.serverPeakRss, page.serverPeakRss);
      paged.pages++;
      token = page.continue;
    } while (token);
    stream.close();
    await stopChild();

    // 5. Restart.
    const r0 = performance.now();
    child = await startChild<KplaneInfo>(entry, ['sqlite', dataDir], 600_000);
    const restartMs = performance.now() - r0;
    const restartCpuMs = child.cpuMs() ?? 0;
    const rssAfterRestart = procStatusBytes(child.pid, 'VmRSS');
    await stopChild();
    return {
      pods, nodes, apiPods, apiCreateMs, storagePods: fill.pods, storageMs: fill.ms, startMs, startCpuMs, rssAfterStart, settleMs: settled.ms, settleCpuMs: settled.cpuMs,
      list, protobuf, metadata, paged, restartMs, restartCpuMs, rssAfterRestart,
      maxRssSampled: rss.sampled, maxRssPeak: rss.peak, maxRssAnonSampled: rss.anon, loadAverage: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) || 0,
    };
  } finally {
    rss.stop();
    await stopChild();
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The scale case as a table: figures, and each as a ratio of its target (≤ 1 meets it). */
export function formatScale(r: ScaleBenchResult): string {
  const rssTarget = SCALE_TARGETS.maxRssBytes;
  const peak = Math.max(r.maxRssSampled, r.maxRssPeak);
  const ofList = (ms: number): string => `${(ms / 1000 / SCALE_TARGETS.maxListSeconds).toFixed(2)}x of 3 s`;
  const listRow = (name: string, l: ListTiming): string[] => [
    name,
    `${(l.bytes / 1e6).toFixed(0)} MB, ${l.items} items`,
    s(l.lastByteMs),
    `server CPU ${s(l.serverCpuMs ?? 0)}; first byte ${s(l.firstByteMs)}; peak RSS ${mb(l.serverPeakRss)} (+${mb(Math.max(0, l.serverPeakRss - r.rssAfterStart))}); ${l.contentType ?? ''}`,
    ofList(l.lastByteMs),
  ];
  const rows: string[][] = [
    ['create through the API (HTTPS)', `${r.apiPods} pods`, s(r.apiCreateMs), `${((r.apiPods * 1000) / r.apiCreateMs).toFixed(0)} pods/s`, ''],
    ['create through storage (copies)', `${r.storagePods} pods + nodes`, s(r.storageMs), `${((r.storagePods * 1000) / r.storageMs).toFixed(0)} pods/s`, ''],
    ['start on the full database', '', s(r.startMs), `server CPU ${s(r.startCpuMs)}; RSS once ready ${mb(r.rssAfterStart)}`, `${(r.startMs / 1000 / SCALE_TARGETS.maxRestartSeconds).toFixed(2)}x of 10 s`],
    ['settle after start', '', s(r.settleMs), `server CPU ${s(r.settleCpuMs)} (the controllers' informers list and cache)`, ''],
    listRow('LIST all pods, JSON (streamed)', r.list),
    listRow('LIST all pods, Accept protobuf', r.protobuf),
    listRow('LIST all pods, metadata only', r.metadata),
    ['LIST all pods, limit=500', `${r.paged.pages} pages`, s(r.paged.lastByteMs), `server CPU ${s(r.paged.serverCpuMs ?? 0)}; JSON one request / paged ${(r.list.lastByteMs / r.paged.lastByteMs).toFixed(2)}x`, ''],
    ['restart to ready (SQLite)', '', s(r.restartMs), `server CPU ${s(r.restartCpuMs)}; RSS once ready ${mb(r.rssAfterRestart)}`, `${(r.restartMs / 1000 / SCALE_TARGETS.maxRestartSeconds).toFixed(2)}x of 10 s`],
    ['server RSS, highest of the run', mb(peak), '', `sampled every 100 ms ${mb(r.maxRssSampled)}; kernel peak ${mb(r.maxRssPeak)}; anonymous (without the mapped database) at most ${mb(r.maxRssAnonSampled)}`, `${(peak / rssTarget).toFixed(2)}x of 2 GiB`],
  ];
  return `${formatTable([['case', 'size', 'time', 'note', 'vs target'], ...rows], [2])}\n(${r.pods} pods, ${r.nodes} nodes; load average ${r.loadAverage.toFixed(1)} at the end)`;
}

/** One in-process LIST of every pod (see probe-list-stream.ts). */
export interface ListStreamSample {
  mode: 'streamed' | 'built';
  /** The storage the server ran on (absent: memory). */
  storage?: 'memory' | 'sqlite';
  pods: number;
  bytes: number;
  ms: number;
  /** CPU time of the process during the LIST (wall time on a busy machine also counts waits for a core). */
  cpuMs: number;
  /** RSS before the LIST, and the highest RSS during it. */
  rssBefore: number;
  peakRss: number;
}

/** The in-process LIST of `pods` pods, streamed and built whole on memory storage, and streamed on SQLite (from stored bytes), each in a fresh process. */
export async function listStreamInChildren(pods: number): Promise<{ streamed: ListStreamSample; built: ListStreamSample; sqlite: ListStreamSample }> {
  const entry = new URL('./probe-list-stream.js', import.meta.url);
  const run = (mode: string, storage = 'memory'): Promise<ListStreamSample> => runInChild<ListStreamSample>(entry, [String(pods), mode, storage], { execArgv: ['--expose-gc'], timeoutMs: 600_000 });
  const streamed = await run('streamed');
  const built = await run('built');
  const sqlite = { ...(await run('streamed', 'sqlite')), storage: 'sqlite' as const };
  return { streamed, built, sqlite };
}

/** The streamed and built LISTs as a table, the streamed one as a ratio of the built one. */
export function formatListStream(r: { streamed: ListStreamSample; built: ListStreamSample; sqlite?: ListStreamSample }): string {
  const row = (x: ListStreamSample): string[] => [x.storage === 'sqlite' ? 'streamed on SQLite (stored bytes)' : x.mode === 'streamed' ? 'streamed (GET, body read as chunks)' : 'built whole (as before)', `${(x.bytes / 1e6).toFixed(0)} MB`, s(x.ms), s(x.cpuMs), mb(x.rssBefore), mb(x.peakRss), `+${mb(x.peakRss - x.rssBefore)}`];
  const { streamed, built } = r;
  const ratio = ['streamed / built', '', `${(streamed.ms / built.ms).toFixed(2)}x`, `${(streamed.cpuMs / built.cpuMs).toFixed(2)}x`, '', `${(streamed.peakRss / built.peakRss).toFixed(2)}x`, `${((streamed.peakRss - streamed.rssBefore) / Math.max(1, built.peakRss - built.rssBefore)).toFixed(2)}x`];
  return formatTable([['LIST of every pod', 'size', 'time', 'CPU', 'RSS before', 'peak RSS', 'LIST adds'], row(streamed), row(built), ratio, ...(r.sqlite ? [row(r.sqlite)] : [])], [2, 3, 4, 5, 6]);
}
