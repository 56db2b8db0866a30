/**
 * The scale case: one kplane process (SQLite, over HTTPS) holding many pods and nodes. The
 * pods and nodes are created through the API; then a LIST of every pod in one request (the
 * answer streamed by the server, received here as chunks), a paged LIST that follows
 * `continue` for comparison, the server's RSS around them, and a restart to ready.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHttpsTransport, loadKubeconfig, type HttpsTransport } from '@kplane/client';
import { runInChild, startChild, type Child } from './child.js';
import { expectStatus } from './list-bench.js';
import { runPool } from './load.js';
import { formatTable } from './report.js';
import type { KplaneInfo } from './server-kplane.js';

/** Options of benchScale. */
export interface ScaleBenchOptions {
  /** Pods to create (spread over `namespaces` namespaces and bound to the nodes). */
  pods: number;
  /** Nodes to create. */
  nodes: number;
  /** Namespaces the pods are spread over (default 50). */
  namespaces?: number;
  /** Creates in flight. */
  concurrency: number;
  /** The server's data directory (SQLite lives there; the restart reopens it). */
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
}

/** What benchScale measured. */
export interface ScaleBenchResult {
  pods: number;
  nodes: number;
  createMs: number;
  /** The server's RSS once everything is created, and its highest RSS up to then. */
  rssAfterCreate: number;
  peakRssCreate: number;
  /** LIST of every pod in one request (the server streams it). */
  list: ListTiming;
  /** LIST of every pod with limit=500 following continue (the sum of the pages). */
  paged: ListTiming & { pages: number };
  /** From starting a new server process on the same data to ready. */
  restartMs: number;
  /** The new server's RSS once ready. */
  rssAfterRestart: number;
}

/** Targets of the issue: LIST of every pod ≤ 3 s, RSS ≤ 2 GiB at every moment, restart ≤ 10 s. */
export const SCALE_TARGETS = { maxListSeconds: 3, maxRssBytes: 2 * 1024 ** 3, maxRestartSeconds: 10 };

const HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM); 0 where unavailable. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
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

/** LIST every pod in one request, the body received as chunks, and the server's peak RSS meanwhile. */
async function listAll(stream: HttpsTransport, pid: number, query: Record<string, string> = {}): Promise<ListTiming & { continue?: string }> {
  resetPeakRss(pid);
  const t0 = performance.now();
  const r = await expectStatus(stream({ method: 'GET', path: '/api/v1/pods', query, headers: HEADERS }), 200);
  let firstByteMs = 0;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of r.stream ?? [r.body!]) {
    if (bytes === 0) firstByteMs = performance.now() - t0;
    chunks.push(chunk);
    bytes += chunk.byteLength;
  }
  const lastByteMs = performance.now() - t0;
  const serverPeakRss = procStatusBytes(pid, 'VmHWM');
  const p0 = performance.now();
  const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
  const parseMs = performance.now() - p0;
  return { firstByteMs, lastByteMs, parseMs, bytes, items: list.items.length, serverPeakRss, continue: list.metadata.continue };
}

/** Runs the scale case against a fresh kplane child on `dataDir` (SQLite). */
export async function benchScale(options: ScaleBenchOptions): Promise<ScaleBenchResult> {
  const { pods, nodes, concurrency, dataDir } = options;
  const namespaces = Math.max(1, options.namespaces ?? 50);
  const entry = new URL('./server-kplane.js', import.meta.url);
  let child: Child<KplaneInfo> = await startChild<KplaneInfo>(entry, ['sqlite', dataDir]);
  try {
    const tls = loadKubeconfig(child.info.kubeconfigPath).transportOptions;
    const t = createHttpsTransport({ ...tls, maxSockets: concurrency });
    const t0 = performance.now();
    await runPool(namespaces, concurrency, async (n) => {
      await expectStatus(t({ method: 'POST', path: '/api/v1/namespaces', headers: HEADERS, body: encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${n}` } }) }), 201, 409);
      await expectStatus(t({ method: 'POST', path: `/api/v1/namespaces/scale-${n}/serviceaccounts`, headers: HEADERS, body: encode({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }) }), 201, 409);
    });
    await runPool(nodes, concurrency, async (i) => {
      await expectStatus(t({ method: 'POST', path: '/api/v1/nodes', headers: HEADERS, body: encode(scaleNode(`node-${i}`)) }), 201);
    });
    await runPool(pods, concurrency, async (i) => {
      const ns = `scale-${i % namespaces}`;
      await expectStatus(t({ method: 'POST', path: `/api/v1/namespaces/${ns}/pods`, headers: HEADERS, body: encode(scalePod(`pod-${i}`, ns, `node-${i % nodes}`, i)) }), 201);
    });
    const createMs = performance.now() - t0;
    const rssAfterCreate = procStatusBytes(child.pid, 'VmRSS');
    const peakRssCreate = procStatusBytes(child.pid, 'VmHWM');

    const stream = createHttpsTransport({ ...tls, maxSockets: 1, stream: () => true });
    const list = await listAll(stream, child.pid);
    if (list.items < pods) throw new Error(`LIST returned ${list.items} pods, want ${pods}`);
    delete list.continue;

    resetPeakRss(child.pid);
    const paged = { firstByteMs: 0, lastByteMs: 0, parseMs: 0, bytes: 0, items: 0, serverPeakRss: 0, pages: 0 };
    let token: string | undefined;
    do {
      const page = await listAll(stream, child.pid, token ? { limit: '500', continue: token } : { limit: '500' });
      if (paged.pages === 0) paged.firstByteMs = page.firstByteMs;
      paged.lastByteMs += page.lastByteMs;
      paged.parseMs += page.parseMs;
      paged.bytes += page.bytes;
      paged.items += page.items;
      paged.serverPeakRss = Math.max(paged.serverPeakRss, page.serverPeakRss);
      paged.pages++;
      token = page.continue;
    } while (token);
    t.close();
    stream.close();

    await child.stop();
    const r0 = performance.now();
    child = await startChild<KplaneInfo>(entry, ['sqlite', dataDir], 120_000);
    const restartMs = performance.now() - r0;
    const rssAfterRestart = procStatusBytes(child.pid, 'VmRSS');
    return { pods, nodes, createMs, rssAfterCreate, peakRssCreate, list, paged, restartMs, rssAfterRestart };
  } finally {
    await child.stop();
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The scale case as a table: figures, and each as a ratio of its target (≤ 1 meets it). */
export function formatScale(r: ScaleBenchResult): string {
  const rssTarget = SCALE_TARGETS.maxRssBytes;
  const peak = Math.max(r.peakRssCreate, r.list.serverPeakRss, r.paged.serverPeakRss);
  const rows: string[][] = [
    ['create', `${r.pods} pods + ${r.nodes} nodes`, s(r.createMs), `${((r.pods * 1000) / r.createMs).toFixed(0)} pods/s`, ''],
    ['LIST all pods, one request (streamed)', `${(r.list.bytes / 1e6).toFixed(0)} MB, ${r.list.items} items`, s(r.list.lastByteMs), `first byte ${s(r.list.firstByteMs)}; client parse ${s(r.list.parseMs)}; ${(r.list.lastByteMs / r.paged.lastByteMs).toFixed(2)}x the paged LIST`, `${(r.list.lastByteMs / 1000 / SCALE_TARGETS.maxListSeconds).toFixed(2)}x of 3 s`],
    ['LIST all pods, limit=500', `${r.paged.pages} pages`, s(r.paged.lastByteMs), `client parse ${s(r.paged.parseMs)}`, ''],
    ['server RSS after create', mb(r.rssAfterCreate), '', `peak during create ${mb(r.peakRssCreate)}`, ''],
    ['server peak RSS during the LIST', mb(r.list.serverPeakRss), '', `+${mb(r.list.serverPeakRss - r.rssAfterCreate)} over the RSS after create; paged: ${mb(r.paged.serverPeakRss)}`, ''],
    ['server peak RSS, whole run', mb(peak), '', '', `${(peak / rssTarget).toFixed(2)}x of 2 GiB`],
    ['restart to ready (SQLite)', '', s(r.restartMs), `RSS once ready ${mb(r.rssAfterRestart)}`, `${(r.restartMs / 1000 / SCALE_TARGETS.maxRestartSeconds).toFixed(2)}x of 10 s`],
  ];
  return formatTable([['case', 'size', 'time', 'note', 'vs target'], ...rows], [2]);
}

/** One in-process LIST of every pod (see probe-list-stream.ts). */
export interface ListStreamSample {
  mode: 'streamed' | 'built';
  pods: number;
  bytes: number;
  ms: number;
  /** CPU time of the process during the LIST (wall time on a busy machine also counts waits for a core). */
  cpuMs: number;
  /** RSS before the LIST, and the highest RSS during it. */
  rssBefore: number;
  peakRss: number;
}

/** The in-process LIST of `pods` pods, streamed and built whole, each in a fresh process. */
export async function listStreamInChildren(pods: number): Promise<{ streamed: ListStreamSample; built: ListStreamSample }> {
  const entry = new URL('./probe-list-stream.js', import.meta.url);
  const run = (mode: string): Promise<ListStreamSample> => runInChild<ListStreamSample>(entry, [String(pods), mode], { execArgv: ['--expose-gc'], timeoutMs: 600_000 });
  const streamed = await run('streamed');
  const built = await run('built');
  return { streamed, built };
}

/** The streamed and built LISTs as a table, the streamed one as a ratio of the built one. */
export function formatListStream(r: { streamed: ListStreamSample; built: ListStreamSample }): string {
  const row = (x: ListStreamSample): string[] => [x.mode === 'streamed' ? 'streamed (GET, body read as chunks)' : 'built whole (as before)', `${(x.bytes / 1e6).toFixed(0)} MB`, s(x.ms), s(x.cpuMs), mb(x.rssBefore), mb(x.peakRss), `+${mb(x.peakRss - x.rssBefore)}`];
  const { streamed, built } = r;
  const ratio = ['streamed / built', '', `${(streamed.ms / built.ms).toFixed(2)}x`, `${(streamed.cpuMs / built.cpuMs).toFixed(2)}x`, '', `${(streamed.peakRss / built.peakRss).toFixed(2)}x`, `${((streamed.peakRss - streamed.rssBefore) / Math.max(1, built.peakRss - built.rssBefore)).toFixed(2)}x`];
  return formatTable([['LIST of every pod', 'size', 'time', 'CPU', 'RSS before', 'peak RSS', 'LIST adds'], row(streamed), row(built), ratio], [2, 3, 4, 5, 6]);
}
