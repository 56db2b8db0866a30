/**
 * The etcd storage case: CREATE and GET of ConfigMaps through kplane over HTTPS on etcd and on
 * SQLite, and raw etcd puts of the same bytes from the same client library (etcd3), in one run,
 * interleaved rounds, as ratios: what the etcd driver costs against SQLite, and how much of
 * etcd's own write rate kplane's creates reach.
 */
import { join } from 'node:path';
import { createHttpsTransport, loadKubeconfig, type HttpsTransport } from '@kplane/client';
import type { RawResponse } from '@kplane/api';
import { startEtcd, type TestEtcd } from '@kplane/storage/testing';
import { processCpuMs, startChild, type Child } from './child.js';
import { expectStatus } from './list-bench.js';
import { mergeResults, runLoad, type LoadResult } from './load.js';
import { formatTable, ratio } from './report.js';
import type { KplaneInfo } from './server-kplane.js';
import { deploymentInChild } from './deployment-child.js';
import type { DeploymentBenchResult, PodsProbeResult } from './pods-bench.js';

/** Options of benchEtcdStorage. */
export interface EtcdBenchOptions {
  /** Folder for the two kplanes' data dirs. */
  dir: string;
  rounds: number;
  /** Measured ms per case and round. */
  roundMs: number;
  warmupMs: number;
  concurrency: number;
  /** The ConfigMap every CREATE posts (and whose JSON the raw puts store). */
  configMap: (name: string, namespace: string) => object;
  progress?: (line: string) => void;
  /** Replicas of a Deployment scaled from 0 on etcd and on SQLite, each in a fresh process (0 or absent: skipped). */
  deploymentReplicas?: number;
  /** Time allowed for each Deployment to be Ready (default 120 s). */
  deploymentTimeoutMs?: number;
}

/** One case's merged numbers. */
export interface EtcdBenchRow {
  name: string;
  result: LoadResult;
  /** CPU ms per request of the kplane process (and of etcd, when it serves the case). */
  serverUsPerReq?: number;
  etcdUsPerReq?: number;
}

/** What benchEtcdStorage measured. */
export interface EtcdBenchResult {
  rawPut: EtcdBenchRow;
  createSqlite: EtcdBenchRow;
  createEtcd: EtcdBenchRow;
  getSqlite: EtcdBenchRow;
  getEtcd: EtcdBenchRow;
  /** The Deployment 0 → N case, when run. */
  deployment?: { etcd: PodsProbeResult<DeploymentBenchResult>; sqlite: PodsProbeResult<DeploymentBenchResult> };
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const PATH = '/api/v1/namespaces/default/configmaps';
const GET_NAME = 'bench-get';

interface Server {
  child: Child<KplaneInfo>;
  t: HttpsTransport;
}

interface Acc {
  name: string;
  rounds: LoadResult[];
  serverMs: number;
  etcdMs: number;
  sent: number;
}

async function startServer(storage: string, dataDir: string, concurrency: number, body: (name: string) => Uint8Array): Promise<Server> {
  const child = await startChild<KplaneInfo>(new URL('./server-kplane.js', import.meta.url), [storage, dataDir]);
  const t = createHttpsTransport({ ...loadKubeconfig(child.info.kubeconfigPath).transportOptions, maxSockets: concurrency });
  await expectStatus(t({ method: 'POST', path: PATH, headers: JSON_HEADERS, body: body(GET_NAME) }), 201);
  return { child, t };
}

/** Runs the etcd storage case: starts an etcd and two kplanes (etcd, SQLite), measures, stops them. */
export async function benchEtcdStorage(options: EtcdBenchOptions): Promise<EtcdBenchResult> {
  const body = (name: string): Uint8Array => Buffer.from(JSON.stringify(options.configMap(name, 'default')));
  const etcd: TestEtcd = await startEtcd();
  const servers: Server[] = [];
  const { Etcd3 } = await import('etcd3');
  const raw = new Etcd3({ hosts: `http://${etcd.endpoint}` });
  try {
    const onEtcd = await startServer(etcd.url, join(options.dir, 'etcd'), options.concurrency, body);
    servers.push(onEtcd);
    const onSqlite = await startServer('sqlite', join(options.dir, 'sqlite'), options.concurrency, body);
    servers.push(onSqlite);
    const value = Buffer.from(JSON.stringify(options.configMap('raw', 'default')));
    // The client connects on its first call: not inside a measured window.
    await raw.put('/bench/raw/connect').value(value);
    const ok: RawResponse = { status: 201, headers: {} };

    type Kind = { acc: Acc; server?: Server; etcdBusy: boolean; send: (round: number) => (i: number) => Promise<RawResponse>; expect: number };
    const acc = (name: string): Acc => ({ name, rounds: [], serverMs: 0, etcdMs: 0, sent: 0 });
    const create = (s: Server) => (round: number) => (i: number) =>
      s.t({ method: 'POST', path: PATH, headers: JSON_HEADERS, body: body(`load-${round}-${i}`) });
    const get = (s: Server) => () => () => s.t({ method: 'GET', path: `${PATH}/${GET_NAME}`, headers: JSON_HEADERS });
    const kinds: Kind[] = [
      { acc: acc('raw etcd put (etcd3 client, baseline)'), etcdBusy: true, expect: 201, send: (round) => async (i) => (await raw.put(`/bench/raw/${round}/${i}`).value(value), ok) },
      { acc: acc('kplane CREATE (sqlite)'), server: onSqlite, etcdBusy: false, expect: 201, send: create(onSqlite) },
      { acc: acc('kplane CREATE (etcd)'), server: onEtcd, etcdBusy: true, expect: 201, send: create(onEtcd) },
      { acc: acc('kplane GET (sqlite)'), server: onSqlite, etcdBusy: false, expect: 200, send: get(onSqlite) },
      { acc: acc('kplane GET (etcd)'), server: onEtcd, etcdBusy: true, expect: 200, send: get(onEtcd) },
    ];
    for (let r = 0; r < options.rounds; r++) {
      options.progress?.(`etcd storage: round ${r + 1}/${options.rounds} ...`);
      for (const k of kinds) {
        const server0 = k.server?.child.cpuMs();
        const pid = etcd.pid;
        const etcd0 = pid ? processCpuMs(pid) : undefined;
        const result = await runLoad({ send: k.send(r), concurrency: options.concurrency, durationMs: options.roundMs, warmupMs: options.warmupMs, expectStatus: k.expect });
        const server1 = k.server?.child.cpuMs();
        const etcd1 = pid ? processCpuMs(pid) : undefined;
        if (server0 !== undefined && server1 !== undefined) k.acc.serverMs += server1 - server0;
        if (k.etcdBusy && etcd0 !== undefined && etcd1 !== undefined) k.acc.etcdMs += etcd1 - etcd0;
        k.acc.sent += result.sent;
        k.acc.rounds.push(result);
      }
    }
    const row = (k: Kind): EtcdBenchRow => {
      const out: EtcdBenchRow = { name: k.acc.name, result: mergeResults(k.acc.rounds) };
      if (k.acc.sent > 0 && k.server) out.serverUsPerReq = (k.acc.serverMs * 1000) / k.acc.sent;
      if (k.acc.sent > 0 && k.etcdBusy) out.etcdUsPerReq = (k.acc.etcdMs * 1000) / k.acc.sent;
      return out;
    };
    const [rawPut, createSqlite, createEtcd, getSqlite, getEtcd] = kinds.map(row) as [EtcdBenchRow, EtcdBenchRow, EtcdBenchRow, EtcdBenchRow, EtcdBenchRow];
    const result: EtcdBenchResult = { rawPut, createSqlite, createEtcd, getSqlite, getEtcd };
    const replicas = options.deploymentReplicas ?? 0;
    if (replicas > 0) {
      // The HTTPS servers stop first: the Deployment runs have the machine to themselves.
      for (const s of servers.splice(0)) {
        s.t.close();
        await s.child.stop();
      }
      const timeoutMs = options.deploymentTimeoutMs ?? 120_000;
      options.progress?.(`etcd storage: a Deployment 0 -> ${replicas} on etcd ...`);
      const onEtcd = await deploymentInChild(replicas, { storage: `${etcd.url}?namespace=/deployment-case` as `${string}://${string}`, timeoutMs });
      options.progress?.(`etcd storage: a Deployment 0 -> ${replicas} on sqlite ...`);
      const onSqlite = await deploymentInChild(replicas, { storage: 'sqlite', timeoutMs });
      result.deployment = { etcd: onEtcd, sqlite: onSqlite };
    }
    return result;
  } finally {
    raw.close();
    for (const s of servers) s.t.close();
    await Promise.all(servers.map((s) => s.child.stop()));
    await etcd.stop();
  }
}

/** The etcd storage table: each case's rate, latency and CPU, and its ratios to SQLite and to raw etcd puts (and the Deployment rows). */
export function formatEtcdStorage(r: EtcdBenchResult): string {
  const table = formatRates(r);
  if (!r.deployment) return table;
  const d = (x: PodsProbeResult<DeploymentBenchResult>): string =>
    `${x.result.readyReplicas}/${x.result.replicas} Ready in ${x.result.seconds.toFixed(1)} s${x.result.reached ? '' : ' (timed out)'}, ${(x.result.readyReplicas / Math.max(x.result.seconds, 0.001)).toFixed(0)} pods/s`;
  const { etcd, sqlite } = r.deployment;
  const rate = (x: PodsProbeResult<DeploymentBenchResult>): number => x.result.readyReplicas / Math.max(x.result.seconds, 0.001);
  return `${table}\n\nDeployment 0 -> ${etcd.result.replicas} (in-process control plane, 3 nodes): etcd ${d(etcd)}; sqlite ${d(sqlite)}; etcd ${ratio(rate(etcd), rate(sqlite))} sqlite's pods/s`;
}

function formatRates(r: EtcdBenchResult): string {
  const us = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(0));
  const line = (x: EtcdBenchRow, vsSqlite: EtcdBenchRow | undefined, vsRaw: boolean): string[] => [
    x.name,
    x.result.rps.toFixed(0),
    vsSqlite ? ratio(x.result.rps, vsSqlite.result.rps) : '-',
    vsRaw ? ratio(x.result.rps, r.rawPut.result.rps) : '-',
    x.result.p50Ms.toFixed(1),
    x.result.p99Ms.toFixed(1),
    us(x.serverUsPerReq),
    us(x.etcdUsPerReq),
    String(x.result.errors),
  ];
  return formatTable(
    [
      ['case', 'req/s', 'vs sqlite', 'vs raw put', 'p50 ms', 'p99 ms', 'kplane us/req', 'etcd us/req', 'errors'],
      line(r.rawPut, undefined, false),
      line(r.createSqlite, undefined, true),
      line(r.createEtcd, r.createSqlite, true),
      line(r.getSqlite, undefined, false),
      line(r.getEtcd, r.getSqlite, false),
    ],
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
}

/** What benchDeploymentStorage measured: the same Deployment 0 → N on etcd and on SQLite. */
export interface DeploymentStorageResult {
  etcd: PodsProbeResult<DeploymentBenchResult>;
  sqlite: PodsProbeResult<DeploymentBenchResult>;
  /** The 1-minute load average when each run started. */
  load: { etcd: number; sqlite: number };
}

/**
 * The Deployment 0 → N case alone (`--deployment-storage etcd`): starts a local etcd (the
 * storage testing helper), scales the Deployment on it and then on SQLite, each in a fresh
 * process with the in-process control plane, and stops the etcd.
 */
export async function benchDeploymentStorage(replicas: number, options: { timeoutMs: number; progress?: (line: string) => void }): Promise<DeploymentStorageResult> {
  const { loadavg } = await import('node:os');
  const etcd: TestEtcd = await startEtcd();
  let running = true;
  try {
    const loadEtcd = loadavg()[0]!;
    options.progress?.(`Deployment 0 -> ${replicas} on etcd (load ${loadEtcd.toFixed(2)}) ...`);
    const onEtcd = await deploymentInChild(replicas, { storage: etcd.url as `${string}://${string}`, timeoutMs: options.timeoutMs });
    // etcd stops first: the SQLite run has the machine to itself.
    running = false;
    await etcd.stop();
    const loadSqlite = loadavg()[0]!;
    options.progress?.(`Deployment 0 -> ${replicas} on sqlite (load ${loadSqlite.toFixed(2)}) ...`);
    const onSqlite = await deploymentInChild(replicas, { storage: 'sqlite', timeoutMs: options.timeoutMs });
    return { etcd: onEtcd, sqlite: onSqlite, load: { etcd: loadEtcd, sqlite: loadSqlite } };
  } finally {
    if (running) await etcd.stop();
  }
}

/** The Deployment-on-etcd table: each storage's time to all Ready, pods/s, and etcd's ratio to SQLite. */
export function formatDeploymentStorage(r: DeploymentStorageResult): string {
  const rate = (x: PodsProbeResult<DeploymentBenchResult>): number => x.result.readyReplicas / Math.max(x.result.seconds, 0.001);
  const line = (name: string, x: PodsProbeResult<DeploymentBenchResult>, load: number, vs?: string): string[] => [
    name,
    `${x.result.readyReplicas}/${x.result.replicas}${x.result.reached ? '' : ' (timed out)'}`,
    x.result.seconds.toFixed(1),
    rate(x).toFixed(0),
    vs ?? '-',
    load.toFixed(2),
  ];
  return formatTable(
    [
      ['Deployment 0 -> N (in-process control plane, 3 nodes)', 'Ready', 's', 'pods/s', 'vs sqlite', 'load'],
      line('sqlite (baseline)', r.sqlite, r.load.sqlite),
      line('etcd (one local member)', r.etcd, r.load.etcd, ratio(rate(r.etcd), rate(r.sqlite))),
    ],
    [1, 2, 3, 4, 5],
  );
}
