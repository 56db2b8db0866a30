/**
 * `npm run bench`: GET and CREATE throughput of kplane next to a bare Node JSON server, and
 * the time to LIST many ConfigMaps. Each server runs in a child process of its own; this
 * process only generates load, over keep-alive HTTPS with a fixed number of requests in flight.
 *
 * The cases run in short rounds, interleaved (every case once per round), so that a slow drift
 * of the machine's background load hits all of them alike.
 *
 * Then, in the same run: custom resources (a CRD with CEL rules) against ConfigMaps, an
 * informer caching many ConfigMaps (kplane's and client-node's, each in a fresh child process),
 * the workqueue's operations per second, the control plane's startup time, the garbage
 * collector's background delete, and pods reaching Ready (created directly, and through a
 * Deployment scaled by the in-process controllers), each of the last in a fresh child process.
 *
 * Flags: --seconds N (measured time per case, default 5), --rounds N (default 5), --warmup N
 * (unmeasured seconds at the start of every round, default 0.3), --concurrency N (default 32),
 * --throughput 0 (skips the GET/CREATE rounds), --list N (ConfigMaps for the LIST case, default
 * 10000; 0 skips it), --informer N (ConfigMaps for the informer case, default 100000; 0 skips
 * it), --informer-runs N (runs per informer, default 3), --informer-paged 0 (skips the
 * paged kplane informer row), --workqueue 0 (skips the workqueue case), --startup N (fresh
 * processes for the startup case, default 5; 0 skips it), --crd N (objects of each kind for the
 * custom-resource case, default 1000; 0 skips it), --gc N (dependents for the garbage-collector
 * case, default 10000; 0 skips it), --pods-rate N (pods for the Ready rate, default 2000; 0
 * skips it), --pods N (pods for the Ready ramp, default 10000; 0 skips it), --pods-storage
 * memory|sqlite (default memory), --deployment N (replicas the Deployment is scaled to,
 * default 10000; 0 skips it), --deployment-timeout N (seconds, default 60), --deployment-worker 0
 * (skips the same Deployment with controllersInWorker, run after it), --safety-patches N
 * (merge patches of the 0.9 MiB ConfigMap in the safety case, default 400; 0 skips the case),
 * --safety-watchers N (idle watchers, default 1000), --safety-compaction-interval N (seconds
 * between the safety server's own compactions, default 2), --fuzz N (fuzzed requests of the long fuzz
 * run, default 200000; 0 skips it), --fuzz-seed N (default: random, printed), --statefulset N
 * (replicas of the StatefulSet case and of its Deployment, default 500; 0 skips it), --job N (completions of the Job case,
 * parallelism N/10, default 1000; 0 skips it), --daemonset N (simulated nodes of the DaemonSet case, default
 * 1000; 0 skips it), --daemonset-timeout N (seconds per rollout, default 240), --endpoints N (pods behind the Service of the Endpoints
 * case, default 5000; 0 skips it), --scheduler N (nodes of the scheduler case, default 1000; 0 skips it), --scheduler-pods N
 * (pods per batch of the scheduler case, default 1000), --admission 0 (skips the admission case: creates with a validating
 * webhook and with a ValidatingAdmissionPolicy against none), --etcd 0 (skips the etcd storage case;
 * it is skipped too when no etcd binary is installed), --etcd-deployment N (replicas of its
 * Deployment 0 -> N on etcd and on sqlite, default 1000; 0 skips them), --scale N (pods of the scale case, default
 * 150000; 0 skips it), --scale-nodes N (its nodes, default 5000), --up N (replicas of the
 * Deployment scaled through a separate `kplane up` process over HTTPS, default 10000; 0 skips it),
 * --up-storage memory|sqlite (default memory), --up-cpu-prof DIR (writes that server's V8 CPU profile to DIR),
 * --up-worker 0 (skips the second `kplane up` run, with --controllers-in-worker), --fanout-watchers N (watchers of the
 * fan-out case, default 2000; 0 skips it), --fanout-rate N (creates per second, default 500), --fanout-seconds N
 * (default 5), --deployment-storage etcd (runs only the Deployment 0 -> N case, N = --deployment,
 * on a local etcd and then on SQLite, and prints etcd's ratio to SQLite; deadline
 * --deployment-timeout, at least 900 s).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHttpsTransport, loadKubeconfig, type HttpsTransport } from '@kplane/client';
import { runInChild, startChild, type Child } from './child.js';
import { benchInformers, formatInformers, type InformerResults } from './informer-bench.js';
import { benchList, expectStatus, fillNamespace } from './list-bench.js';
import { mergeResults, runLoad, type LoadResult } from './load.js';
import { formatThroughput, formatTimings, type CpuUse, type ThroughputRow } from './report.js';
import type { KplaneInfo } from './server-kplane.js';
import { benchStartup, formatStartup } from './startup-bench.js';
import { benchTestingStartup, formatTestingStartup } from './testing-startup-bench.js';
import { benchCustomResources, formatCustomResources, type CrdBenchResult } from './crd-bench.js';
import { formatGarbageCollector, garbageCollectorInChild } from './gc-bench.js';
import { deploymentInChild } from './deployment-child.js';
import { formatWorkerSpeedup } from './worker-bench.js';
import { benchUpStartup, formatUpStartup } from './up-startup-bench.js';
import { benchUpDeployment, formatUp, type UpBenchResult } from './up-bench.js';
import { daemonSetInChild, formatDaemonSet } from './daemonset-bench.js';
import { formatStatefulSetCase, statefulSetCaseInChildren, type StatefulSetCase } from './statefulset-bench.js';
import { formatPods, podsReadyInChild, type DeploymentBenchResult, type PodsRows } from './pods-bench.js';
import { formatWorkqueue, type WorkqueueRow } from './workqueue-bench.js';
import { formatAuthorization, type AuthzRow } from './authz-bench.js';
import { benchSafety, formatSafety, type SafetyBenchResult } from './safety-bench.js';
import { benchFanout, formatFanout, type FanoutBenchResult } from './fanout-bench.js';
import type { FuzzRunResult } from './probe-fuzz.js';
import { formatJob, jobInChild } from './job-bench.js';
import { endpointsInChild, formatEndpoints } from './endpoints-bench.js';
import { formatScheduler, schedulerInChild } from './scheduler-bench.js';
import { benchAdmission, formatAdmission, type AdmissionBenchResult } from './admission-bench.js';
import { benchEtcdStorage, formatEtcdStorage, type EtcdBenchResult } from './etcd-bench.js';
import { findEtcd } from '@kplane/storage/testing';
import { benchScale, formatListStream, formatScale, listStreamInChildren, type ScaleBenchResult } from './scale-bench.js';

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '0.3' },
    concurrency: { type: 'string', default: '32' },
    list: { type: 'string', default: '10000' },
    throughput: { type: 'string', default: '1' },
    informer: { type: 'string', default: '100000' },
    'informer-runs': { type: 'string', default: '3' },
    'informer-paged': { type: 'string', default: '1' },
    workqueue: { type: 'string', default: '1' },
    authz: { type: 'string', default: '2000' },
    startup: { type: 'string', default: '5' },
    crd: { type: 'string', default: '1000' },
    gc: { type: 'string', default: '10000' },
    'pods-rate': { type: 'string', default: '2000' },
    pods: { type: 'string', default: '10000' },
    'pods-storage': { type: 'string', default: 'memory' },
    deployment: { type: 'string', default: '10000' },
    'deployment-timeout': { type: 'string', default: '60' },
    'deployment-worker': { type: 'string', default: '1' },
    up: { type: 'string', default: '10000' },
    'up-storage': { type: 'string', default: 'memory' },
    'up-cpu-prof': { type: 'string', default: '' },
    'up-worker': { type: 'string', default: '1' },
    daemonset: { type: 'string', default: '1000' },
    'daemonset-timeout': { type: 'string', default: '240' },
    'safety-patches': { type: 'string', default: '400' },
    'safety-watchers': { type: 'string', default: '1000' },
    'safety-compaction-interval': { type: 'string', default: '2' },
    fuzz: { type: 'string', default: '200000' },
    'fuzz-seed': { type: 'string', default: '' },
    statefulset: { type: 'string', default: '500' },
    job: { type: 'string', default: '1000' },
    endpoints: { type: 'string', default: '5000' },
    scheduler: { type: 'string', default: '1000' },
    etcd: { type: 'string', default: '1' },
    'etcd-deployment': { type: 'string', default: '1000' },
    'scheduler-pods': { type: 'string', default: '1000' },
    admission: { type: 'string', default: '1' },
    scale: { type: 'string', default: '150000' },
    'scale-nodes': { type: 'string', default: '5000' },
    'fanout-watchers': { type: 'string', default: '2000' },
    'fanout-rate': { type: 'string', default: '500' },
    'fanout-seconds': { type: 'string', default: '5' },
    'deployment-storage': { type: 'string', default: '' },
  },
});
const rounds = Math.max(1, Number(flags.rounds));
const roundMs = (Number(flags.seconds) * 1000) / rounds;
const warmupMs = Number(flags.warmup) * 1000;
const concurrency = Number(flags.concurrency);
const listCount = Number(flags.list);
const informerCount = Number(flags.informer);
const startupProcesses = Number(flags.startup);
const crdCount = Number(flags.crd);
const gcDependents = Number(flags.gc);
const podsRate = Number(flags['pods-rate']);
const podsRamp = Number(flags.pods);
const podsStorage = flags['pods-storage'] === 'sqlite' ? 'sqlite' : 'memory';
const deploymentReplicas = Number(flags.deployment);
const deploymentTimeoutMs = Number(flags['deployment-timeout']) * 1000;
const daemonSetNodes = Number(flags.daemonset);
const upReplicas = Number(flags.up);
const upStorage = flags['up-storage'] === 'sqlite' ? 'sqlite' : 'memory';
const safetyPatches = Number(flags['safety-patches']);
const safetyWatchers = Number(flags['safety-watchers']);
const safetyCompactionMs = Number(flags['safety-compaction-interval']) * 1000;
const fuzzRequests = Number(flags.fuzz);
const jobCompletions = Number(flags.job);
const endpointsReplicas = Number(flags.endpoints);
const schedulerNodes = Number(flags.scheduler);
const schedulerPods = Number(flags['scheduler-pods']);
const fanoutWatchers = Number(flags['fanout-watchers']);
const fanoutRate = Number(flags['fanout-rate']);
const fanoutSeconds = Number(flags['fanout-seconds']);

/** Targets of the extra cases: kplane's informer at most half of client-node's memory and twice its speed; 1M workqueue ops/s. */
const INFORMER_TARGETS = { maxMemoryRatio: 0.5, minSpeedup: 2 };
const WORKQUEUE_TARGET_OPS = 1_000_000;
/** Targets of issues 4 to 6: background GC of 10,000 dependents in 10 s; 500 pods Ready/s and 10,000 in 20 s; custom resources within 30% of ConfigMaps. */
const GC_MAX_SECONDS = 10;
const PODS_TARGETS = { minPodsPerSecond: 500, maxRampSeconds: 20 };
/** Target of issue 19: through `kplane up` over HTTPS, a Deployment 0 -> 10,000 all Ready in 12 s (800 pods/s). */
const UP_TARGETS = { maxSeconds: 12, minPodsPerSecond: 800 };
const CRD_TARGETS = { minCreateRatio: 0.7, maxListRatio: 1.3 };
/** Admission targets: creates with one allow-all validating webhook at least 0.5x the rate without, with one ValidatingAdmissionPolicy at least 0.8x. */
const ADMISSION_TARGETS = { minWebhookRatio: 0.5, minPolicyRatio: 0.8 };
/** Safety targets: server peak RSS under 1 GiB, database at most 10x the live data after compaction, /readyz delayed under 100 ms by a pathological pattern. */
const SAFETY_TARGETS = { maxPeakRssBytes: 1024 ** 3, maxDbRatio: 10, maxReadyzDelayMs: 100 };

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const GET_NAME = 'bench-get';
const LIST_NAMESPACE = 'bench-list';
const INFORMER_NAMESPACE = 'bench-informer';

/** A ConfigMap of a typical size (a few hundred bytes of data, two labels). */
function configMap(name: string, namespace: string): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench', tier: 'backend' } },
    data: {
      'app.properties': 'log.level=info\nlisten.port=8080\ncache.size=512\nfeature.retry=true\nupstream=http://svc.default:80\n',
      'settings.json': JSON.stringify({ replicas: 3, timeoutSeconds: 30, regions: ['eu-west-1', 'us-east-1'], tracing: { enabled: false } }),
      owner: 'team-platform',
    },
  };
}

const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));
const collectionPath = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;

/** A server under test: its child process and a keep-alive transport to it. */
interface Target {
  child: Child<unknown>;
  t: HttpsTransport;
}

/** One row of the throughput table and what has been measured for it so far. */
interface Case {
  name: string;
  target: Target;
  kind: 'get' | 'create';
  /** The case this one is compared with (itself for a baseline). */
  baseline?: Case;
  /** Smallest acceptable ratio to the baseline. */
  goal?: number;
  rounds: LoadResult[];
  serverMs: number;
  clientMs: number;
  wallMs: number;
  cpuKnown: boolean;
}

/** Runs one short round of a case and adds its numbers, and the CPU both sides used, to the case. */
async function runRound(c: Case, round: number): Promise<void> {
  const { child, t } = c.target;
  const send =
    c.kind === 'get'
      ? () => t({ method: 'GET', path: `${collectionPath('default')}/${GET_NAME}`, headers: JSON_HEADERS })
      : (i: number) => t({ method: 'POST', path: collectionPath('default'), headers: JSON_HEADERS, body: encode(configMap(`load-${round}-${i}`, 'default')) });
  const server0 = child.cpuMs();
  const client0 = process.cpuUsage();
  const wall0 = performance.now();
  const result = await runLoad({ send, concurrency, durationMs: roundMs, warmupMs, expectStatus: c.kind === 'get' ? 200 : 201 });
  c.wallMs += performance.now() - wall0;
  const client = process.cpuUsage(client0);
  c.clientMs += (client.user + client.system) / 1000;
  const server1 = child.cpuMs();
  if (server0 === undefined || server1 === undefined) c.cpuKnown = false;
  else c.serverMs += server1 - server0;
  c.rounds.push(result);
}

function cpuOf(c: Case): CpuUse | undefined {
  const sent = c.rounds.reduce((n, r) => n + r.sent, 0);
  if (!c.cpuKnown || sent === 0 || c.wallMs === 0) return undefined;
  return { serverCores: c.serverMs / c.wallMs, clientCores: c.clientMs / c.wallMs, serverUsPerReq: (c.serverMs * 1000) / sent };
}

function toRow(c: Case): ThroughputRow {
  const base = c.baseline ?? c;
  const row: ThroughputRow = { name: c.name, result: mergeResults(c.rounds), baselineRps: mergeResults(base.rounds).rps };
  const cpu = cpuOf(c);
  if (cpu) row.cpu = cpu;
  const baseCpu = cpuOf(base);
  if (baseCpu) row.baselineUsPerReq = baseCpu.serverUsPerReq;
  if (c.goal !== undefined) row.target = c.goal;
  return row;
}

/** Forks a kplane child, connects with its admin kubeconfig and creates the ConfigMap that GET reads. */
async function startKplane(storage: 'sqlite' | 'memory' | `sqlite://${string}`, dataDir: string): Promise<Target & { info: KplaneInfo; getBody: Uint8Array }> {
  const child = await startChild<KplaneInfo>(new URL('./server-kplane.js', import.meta.url), [storage, dataDir]);
  const t = createHttpsTransport({ ...loadKubeconfig(child.info.kubeconfigPath).transportOptions, maxSockets: concurrency });
  await expectStatus(t({ method: 'POST', path: collectionPath('default'), headers: JSON_HEADERS, body: encode(configMap(GET_NAME, 'default')) }), 201);
  const got = await expectStatus(t({ method: 'GET', path: `${collectionPath('default')}/${GET_NAME}`, headers: JSON_HEADERS }), 200);
  return { child, t, info: child.info, getBody: got.body! };
}

async function startBare(mode: 'https' | 'http', getBodyFile: string, pkiDir: string, ca: string): Promise<Target> {
  const child = await startChild<{ url: string }>(new URL('./server-bare.js', import.meta.url), [mode, getBodyFile, pkiDir]);
  return { child, t: createHttpsTransport({ server: child.info.url, maxSockets: concurrency, ca }) };
}

/** Fills a namespace of the memory kplane with `--informer` ConfigMaps and runs the informer children against it. */
async function runInformers(memory: Target & { info: KplaneInfo }): Promise<InformerResults & { fillMs: number }> {
  console.log(`informer: creating ${informerCount} ConfigMaps ...`);
  const fillMs = await fillNamespace(memory.t, { namespace: INFORMER_NAMESPACE, count: informerCount, concurrency, configMap });
  const results = await benchInformers({
    kubeconfig: memory.info.kubeconfigPath,
    namespace: INFORMER_NAMESPACE,
    count: informerCount,
    runs: Math.max(1, Number(flags['informer-runs'])),
    paged: flags['informer-paged'] !== '0',
    progress: (line) => console.log(line),
  });
  return { ...results, fillMs };
}

/** `--deployment-storage etcd`: the Deployment 0 -> N case on a local etcd against SQLite, alone. */
async function deploymentStorageOnly(storage: string): Promise<void> {
  if (storage !== 'etcd') throw new Error(`--deployment-storage: only etcd is compared with sqlite (got ${storage})`);
  if (!findEtcd()) throw new Error('--deployment-storage etcd: no etcd binary (apt-get install etcd-server)');
  const { benchDeploymentStorage, formatDeploymentStorage } = await import('./etcd-bench.js');
  const result = await benchDeploymentStorage(deploymentReplicas, { timeoutMs: Math.max(deploymentTimeoutMs, 900_000), progress: (line) => console.log(line) });
  console.log(`\n${formatDeploymentStorage(result)}`);
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(
    `kplane bench: node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), ${concurrency} in flight, ` +
      `per case ${rounds} rounds of ${flags.warmup}s warm-up + ${(roundMs / 1000).toFixed(1)}s, cases interleaved; ` +
      `load average before start ${loadavg()[0]!.toFixed(2)}`,
  );
  if (flags['deployment-storage']) {
    await deploymentStorageOnly(flags['deployment-storage']);
    return;
  }
  const tmp = await mkdtemp(join(tmpdir(), 'kplane-bench-'));
  const targets: Target[] = [];
  /** Stops every server started so far (once). */
  const stopServers = async (): Promise<void> => {
    const running = targets.splice(0);
    for (const target of running) target.t.close();
    await Promise.all(running.map((target) => target.child.stop()));
  };
  try {
    const sqlite = await startKplane('sqlite', join(tmp, 'sqlite'));
    targets.push(sqlite);
    const memory = await startKplane('memory', join(tmp, 'memory'));
    targets.push(memory);
    // For information: the same SQLite store answering at its COMMIT, before the fsync (not durable on power loss).
    const sqliteNormal = await startKplane(`sqlite://${join(tmp, 'sqlite-normal', 'state.db')}?synchronous=normal`, join(tmp, 'sqlite-normal'));
    targets.push(sqliteNormal);
    const getBodyFile = join(tmp, 'get-body.json');
    await writeFile(getBodyFile, sqlite.getBody);
    const ca = await readFile(join(sqlite.info.pkiDir, 'ca.crt'), 'utf8');
    const bareHttps = await startBare('https', getBodyFile, sqlite.info.pkiDir, ca);
    targets.push(bareHttps);
    const bareHttp = await startBare('http', getBodyFile, sqlite.info.pkiDir, ca);
    targets.push(bareHttp);

    const mk = (name: string, target: Target, kind: Case['kind'], baseline?: Case, goal?: number): Case => {
      const c: Case = { name, target, kind, rounds: [], serverMs: 0, clientMs: 0, wallMs: 0, cpuKnown: true };
      if (baseline) c.baseline = baseline;
      if (goal !== undefined) c.goal = goal;
      return c;
    };
    const bareGet = mk('bare node:https GET (baseline)', bareHttps, 'get');
    const barePost = mk('bare node:https POST (baseline)', bareHttps, 'create');
    const cases = [
      bareGet,
      barePost,
      mk('bare node:http GET (no TLS, info)', bareHttp, 'get', bareGet),
      mk('bare node:http POST (no TLS, info)', bareHttp, 'create', barePost),
      mk('kplane GET (sqlite)', sqlite, 'get', bareGet, 0.5),
      mk('kplane CREATE (sqlite)', sqlite, 'create', barePost, 0.5),
      mk('kplane CREATE (sqlite, no fsync, info)', sqliteNormal, 'create', barePost),
      mk('kplane GET (memory, info)', memory, 'get', bareGet),
      mk('kplane CREATE (memory, info)', memory, 'create', barePost),
    ];
    const throughput = flags.throughput !== '0';
    for (let r = 0; throughput && r < rounds; r++) {
      process.stdout.write(`round ${r + 1}/${rounds} ...\n`);
      for (const c of cases) await runRound(c, r);
    }
    const list = listCount > 0 ? (console.log(`LIST: creating ${listCount} ConfigMaps ...`), await benchList(sqlite.t, { namespace: LIST_NAMESPACE, count: listCount, concurrency, configMap })) : [];
    let crd: CrdBenchResult | undefined;
    if (crdCount > 0) {
      console.log(`custom resources: ${crdCount} Greetings and ${crdCount} ConfigMaps ...`);
      crd = await benchCustomResources(sqlite.t, { count: crdCount, concurrency, configMap, serverCpuMs: () => sqlite.child.cpuMs() });
    }
    let admission: AdmissionBenchResult | undefined;
    if (flags.admission !== '0') {
      console.log('admission: creates with no webhook or policy, one validating webhook, one ValidatingAdmissionPolicy ...');
      const webhook = await startChild<{ url: string; caBundle: string }>(new URL('./server-webhook.js', import.meta.url));
      try {
        admission = await benchAdmission(sqlite.t, { webhook: webhook.info, concurrency, rounds, roundMs, warmupMs, configMap, serverCpuMs: () => sqlite.child.cpuMs() });
      } finally {
        await webhook.stop();
      }
    }
    const informers = informerCount > 0 ? await runInformers(memory) : undefined;
    // The cases below run in processes of their own: the servers (whose controllers may still be
    // catching up with the objects created so far) must not compete with them for the CPU.
    await stopServers();
    const workqueue = flags.workqueue !== '0' ? (console.log('workqueue ...'), await runInChild<WorkqueueRow[]>(new URL('./probe-workqueue.js', import.meta.url))) : undefined;
    const authz = flags.authz !== '0' ? (console.log('authorization ...'), await runInChild<AuthzRow[]>(new URL('./probe-authz.js', import.meta.url), [flags.authz!])) : undefined;
    const startup = startupProcesses > 0 ? (console.log('startup ...'), await benchStartup(startupProcesses, 3)) : undefined;
    const upStartup = startupProcesses > 0 ? (console.log('kplane up startup ...'), await benchUpStartup(startupProcesses)) : undefined;
    const testStartup = startupProcesses > 0 ? (console.log('test control plane startup ...'), await benchTestingStartup(startupProcesses, 3)) : undefined;
    const gc = gcDependents > 0 ? (console.log('garbage collector ...'), await garbageCollectorInChild(gcDependents)) : undefined;
    const pods: PodsRows = {};
    if (podsRate > 0) {
      console.log(`pods Ready: ${podsRate} pods ...`);
      pods.rate = await podsReadyInChild(podsRate, podsStorage);
    }
    if (podsRamp > 0) {
      console.log(`pods Ready: ${podsRamp} pods ...`);
      pods.ramp = await podsReadyInChild(podsRamp, podsStorage);
    }
    if (deploymentReplicas > 0) {
      console.log(`Deployment: 0 -> ${deploymentReplicas} replicas (at most ${deploymentTimeoutMs / 1000} s) ...`);
      pods.deployment = await deploymentInChild(deploymentReplicas, { storage: podsStorage, timeoutMs: deploymentTimeoutMs });
    }
    const workerDeployment =
      deploymentReplicas > 0 && flags['deployment-worker'] !== '0'
        ? (console.log(`Deployment: 0 -> ${deploymentReplicas} replicas, controllers and nodes in a worker thread ...`),
          await deploymentInChild(deploymentReplicas, { storage: podsStorage, timeoutMs: deploymentTimeoutMs, controllersInWorker: true }))
        : undefined;
    let up: UpBenchResult | undefined;
    let upWorker: UpBenchResult | undefined;
    let upBaseline: DeploymentBenchResult | undefined;
    if (upReplicas > 0) {
      // The baseline is the in-process Deployment case of this run, with as many replicas (run here when the pods case used another count).
      upBaseline = pods.deployment?.result.replicas === upReplicas && podsStorage === upStorage ? pods.deployment.result : undefined;
      if (!upBaseline) {
        console.log(`Deployment (in-process, baseline of kplane up): 0 -> ${upReplicas} replicas ...`);
        upBaseline = (await deploymentInChild(upReplicas, { storage: upStorage, timeoutMs: deploymentTimeoutMs })).result;
      }
      console.log(`kplane up --storage ${upStorage}: Deployment 0 -> ${upReplicas} replicas over HTTPS (at most ${deploymentTimeoutMs / 1000} s) ...`);
      up = await benchUpDeployment({ replicas: upReplicas, storage: upStorage, timeoutMs: deploymentTimeoutMs, ...(flags['up-cpu-prof'] ? { cpuProfDir: flags['up-cpu-prof'] } : {}) });
      if (flags['up-worker'] !== '0') {
        console.log(`kplane up --storage ${upStorage} --controllers-in-worker: Deployment 0 -> ${upReplicas} replicas over HTTPS ...`);
        upWorker = await benchUpDeployment({ replicas: upReplicas, storage: upStorage, timeoutMs: deploymentTimeoutMs, controllersInWorker: true });
      }
    }
    const daemonSet =
      daemonSetNodes > 0
        ? (console.log(`DaemonSet over ${daemonSetNodes} nodes, against a Deployment of ${daemonSetNodes} replicas ...`), await daemonSetInChild(daemonSetNodes, Number(flags['daemonset-timeout']) * 1000))
        : undefined;
    const statefulSetReplicas = Number(flags.statefulset);
    let statefulSet: StatefulSetCase | undefined;
    if (statefulSetReplicas > 0) {
      console.log(`StatefulSet (OrderedReady) and Deployment: 0 -> ${statefulSetReplicas} replicas ...`);
      statefulSet = await statefulSetCaseInChildren(statefulSetReplicas, podsStorage);
    }
    const job = jobCompletions > 0 ? (console.log(`Job: ${jobCompletions} completions, parallelism ${Math.max(1, Math.round(jobCompletions / 10))} ...`), await jobInChild(jobCompletions, Math.max(1, Math.round(jobCompletions / 10)))) : undefined;
    const endpoints = endpointsReplicas > 0 ? (console.log(`Endpoints: a Service of ${endpointsReplicas} pods ...`), await endpointsInChild(endpointsReplicas)) : undefined;
    const scheduler =
      schedulerNodes > 0 && schedulerPods > 0
        ? (console.log(`Scheduler: ${schedulerPods} pods per batch on ${schedulerNodes} nodes ...`), await schedulerInChild(schedulerNodes, schedulerPods))
        : undefined;
    let etcdStorage: EtcdBenchResult | undefined;
    if (flags.etcd !== '0') {
      if (!findEtcd()) console.log('etcd storage: skipped, no etcd binary (apt-get install etcd-server)');
      else {
        console.log('etcd storage: kplane on etcd and on sqlite, raw etcd puts ...');
        etcdStorage = await benchEtcdStorage({
          dir: join(tmp, 'etcd-case'),
          rounds,
          roundMs,
          warmupMs,
          concurrency,
          configMap,
          deploymentReplicas: Number(flags['etcd-deployment']),
          deploymentTimeoutMs: Math.max(deploymentTimeoutMs, 120_000),
          progress: (line) => console.log(line),
        });
      }
    }
    let safety: SafetyBenchResult | undefined;
    if (safetyPatches > 0) {
      console.log(`safety: ${safetyPatches} patches of a 0.9 MiB ConfigMap, ${safetyWatchers} idle and 10 stalled watchers ...`);
      safety = await benchSafety({ dataDir: join(tmp, 'safety'), patches: safetyPatches, idleWatchers: safetyWatchers, compactionIntervalMs: safetyCompactionMs, progress: (line) => console.log(line) });
    }
    const fanout: FanoutBenchResult[] = [];
    if (fanoutWatchers > 0) {
      for (const protocol of ['h2', 'http1.1'] as const) {
        console.log(`fan-out: ${fanoutWatchers} watchers over ${protocol}, ${fanoutRate} creates/s for ${fanoutSeconds} s ...`);
        fanout.push(await benchFanout(join(tmp, `fanout-${protocol}`), { watchers: fanoutWatchers, writesPerSecond: fanoutRate, seconds: fanoutSeconds, protocol, progress: (line) => console.log(line) }));
      }
    }
    let fuzz: FuzzRunResult | undefined;
    if (fuzzRequests > 0) {
      console.log(`fuzz: ${fuzzRequests} requests ...`);
      const args = [String(fuzzRequests), ...(flags['fuzz-seed'] ? [flags['fuzz-seed']] : [])];
      fuzz = await runInChild<FuzzRunResult>(new URL('./probe-fuzz.js', import.meta.url), args, { timeoutMs: 60 * 60_000 });
    }

    const scalePods = Number(flags.scale);
    let scale: ScaleBenchResult | undefined;
    let listStream: Awaited<ReturnType<typeof listStreamInChildren>> | undefined;
    if (scalePods > 0) {
      console.log(`scale: LIST of ${scalePods} pods in-process, streamed and built whole ...`);
      listStream = await listStreamInChildren(scalePods);
      console.log(`scale: ${scalePods} pods and ${flags['scale-nodes']} nodes on one kplane (sqlite, over HTTPS) ...`);
      scale = await benchScale({ pods: scalePods, nodes: Number(flags['scale-nodes']), concurrency, dataDir: join(tmp, 'scale') });
    }

    const rows = throughput ? cases.map(toRow) : [];
    if (throughput) {
      console.log(`\nThroughput (GET rows compared with bare https GET, POST/CREATE rows with bare https POST)\n`);
      console.log(formatThroughput(rows));
    }
    if (etcdStorage) {
      console.log(`\netcd storage: ConfigMap CREATE and GET through kplane (HTTPS, a child process each) on etcd and on sqlite, and raw puts of the same JSON to the same etcd with the etcd3 client, ${concurrency} in flight, ${rounds} interleaved rounds\n`);
      console.log(formatEtcdStorage(etcdStorage));
    }
    if (list.length > 0) {
      console.log(`\nLIST (kplane, sqlite; times include the client's JSON.parse)\n`);
      console.log(formatTimings(list));
    }
    if (listStream) {
      console.log(`\nLIST of ${scalePods} pods, in-process on memory storage (and streamed on SQLite), each in a fresh process: streamed as storage is read, against built whole\n`);
      console.log(formatListStream(listStream));
    }
    if (scale) {
      console.log(`\nScale: ${scalePods} pods and ${flags['scale-nodes']} nodes in one kplane process (sqlite, over HTTPS; 2,000 pods created through the API, ${concurrency} in flight, the rest through storage)\n`);
      console.log(formatScale(scale));
    }
    if (crd) {
      console.log(`\nCustom resources: ${crdCount} Greetings (CRD with a structural schema, defaults and CEL rules) next to ${crdCount} ConfigMaps, kplane on sqlite over HTTPS, ${concurrency} in flight, creates in 4 interleaved rounds, LIST median of 5\n`);
      console.log(formatCustomResources(crd, CRD_TARGETS));
    }
    if (admission) {
      console.log(`\nAdmission: ConfigMap creates on kplane (sqlite, over HTTPS), ${concurrency} in flight, ${rounds} interleaved rounds of ${flags.warmup}s warm-up + ${(roundMs / 1000).toFixed(1)}s per case; the webhook is a node:https server in a process of its own\n`);
      console.log(formatAdmission(admission, ADMISSION_TARGETS));
    }
    if (informers) {
      console.log(
        `\nInformer: first sync of ${informerCount} ConfigMaps from kplane (memory storage) over HTTPS, each informer in a fresh process; ` +
          `memory after a forced GC (filled in ${(informers.fillMs / 1000).toFixed(1)} s, ${((informerCount * 1000) / informers.fillMs).toFixed(0)} creates/s)\n`,
      );
      console.log(formatInformers(informers.kplane, informers.clientNode, INFORMER_TARGETS, informers.extra));
    }
    if (authz) {
      console.log(`\nAuthorization: GET of one ConfigMap by a user bound through a RoleBinding, in-process, RBAC (${flags.authz} RoleBindings of other users) against AlwaysAllow, the median ratio of 21 interleaved rounds\n`);
      console.log(formatAuthorization(authz));
    }
    if (workqueue) {
      console.log(`\nWorkqueue: createWorkqueue() from @kplane/runtime, in a fresh process; add, get and done each count as one operation\n`);
      console.log(formatWorkqueue(workqueue, WORKQUEUE_TARGET_OPS));
    }
    if (startup) {
      console.log(`\nStartup: startControlPlane({ storage: 'memory', listen: false }) from kplane\n`);
      console.log(formatStartup(startup));
    }
    if (upStartup) {
      console.log(`\nkplane up startup: fresh \`kplane up\` processes (every controller, 3 nodes), from spawn to GET /readyz answering 200 over HTTPS: --storage memory (its data dir's PKI made by an earlier start), SQLite on a new data dir and its restart; and startControlPlane() in a fresh process\n`);
      console.log(formatUpStartup(upStartup));
    }
    if (testStartup) {
      console.log(`\nTest control plane startup: startControlPlane() from @kplane/testing (every controller, 3 nodes, virtual time, resolved once idle; warm starts copy the bootstrapped storage)\n`);
      console.log(formatTestingStartup(testStartup.samples, testStartup.nodeStartMs));
    }
    if (gc) {
      console.log(`\nGarbage collector: benchGarbageCollector(${gcDependents}) from @kplane/controllers, in a fresh process (in-process API server, memory storage)\n`);
      console.log(formatGarbageCollector(gc, GC_MAX_SECONDS));
    }
    if (up) {
      console.log(`\nkplane up: a separate \`kplane up --storage ${upStorage} --port 0 --nodes 3\` process, the client in the bench process over HTTPS; against the in-process Deployment case (containers start at once there, after 100 ms in kplane up)\n`);
      console.log(formatUp(up, upBaseline, UP_TARGETS, upWorker));
    }
    if (pods.rate || pods.ramp || pods.deployment) {
      console.log(`\nPods Ready: each run in a fresh process on startControlPlane({ storage: '${podsStorage}', listen: false }), 3 simulated nodes, containers start at once\n`);
      console.log(formatPods(pods, PODS_TARGETS));
    }
    if (pods.deployment && workerDeployment) {
      console.log(`\nBoth cores: the Deployment case again with controllersInWorker (controllers and simulated nodes in a worker thread, on a MessagePort bridge to the API server), in a fresh process\n`);
      console.log(formatWorkerSpeedup(pods.deployment.result, workerDeployment.result));
    }
    if (daemonSet) {
      console.log(`\nDaemonSet: in a fresh process on startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: ${daemonSetNodes} }), containers start at once; a Deployment of as many replicas first, then the DaemonSet, each timed to all pods Ready\n`);
      console.log(formatDaemonSet(daemonSet));
    }
    if (job) {
      console.log(`\nJob: in a fresh process on startControlPlane({ storage: 'memory', listen: false }), 3 simulated nodes, containers start and exit at once; a Deployment of as many replicas scaled from 0 first, on the same control plane, is the baseline\n`);
      console.log(formatJob(job));
    }
    if (endpoints) {
      console.log(`\nEndpoints: in a fresh process on startControlPlane({ storage: 'memory', listen: false }), 3 simulated nodes, containers start at once; a Service selecting a Deployment scaled from 0, its pods becoming Ready are the baseline\n`);
      console.log(formatEndpoints(endpoints));
    }
    if (scheduler) {
      console.log(`\nScheduler: in a fresh process on startControlPlane({ storage: 'memory', listen: false, nodes: 0 }) with ${schedulerNodes} Node objects in 10 zones (no kubelet); each batch of pending pods bound by a scheduler started after them, timed from its start to the last binding\n`);
      console.log(formatScheduler(scheduler));
    }
    if (statefulSet) {
      console.log(`\nStatefulSet: ${statefulSetReplicas} replicas, OrderedReady, against a Deployment of ${statefulSetReplicas}, each in a fresh process on startControlPlane({ storage: '${podsStorage}', listen: false }), 3 simulated nodes, containers start at once\n`);
      console.log(formatStatefulSetCase(statefulSet));
    }
    if (safety) {
      console.log(
        `\nSafety: kplane on sqlite over HTTPS (a child process), ${safety.patches} merge patches of a ${(safety.configMapBytes / 1024 / 1024).toFixed(2)} MiB ConfigMap ` +
          `with ${safety.idleWatchers} idle and ${safety.stalledWatchers} stalled watchers open; the server compacts its storage itself every ${(safety.compactionIntervalMs / 1000).toFixed(1)} s ` +
          `and the database (file, WAL, shared memory) is read while it runs, once it has compacted at its last revision; ` +
          `/readyz probed while 20 writes were checked against ^(a+)+$ (CRD pattern and CEL matches())\n`,
      );
      console.log(formatSafety(safety, SAFETY_TARGETS));
    }
    if (fanout.length) {
      console.log(
        `\nWatch fan-out: kplane on memory storage over HTTPS (a child process); watchers of one namespace multiplexed over HTTP/2 (500 streams a connection) ` +
          `or each on its own HTTP/1.1 connection; creates sent open-loop at the rate asked; delivery latency from sending a create to each watcher reading its event (target p99 ≤ 100 ms)\n`,
      );
      console.log(formatFanout(fanout));
    }
    if (fuzz) {
      console.log(`\nFuzz: ${fuzz.requests} requests over every served kind and verb (in-process, memory storage), seed ${fuzz.seed} (replay with --fuzz-seed ${fuzz.seed} or KPLANE_FUZZ_SEED=${fuzz.seed} in the test)\n`);
      console.log(`${(fuzz.ms / 1000).toFixed(1)} s, ${((fuzz.requests * 1000) / fuzz.ms).toFixed(0)} requests/s; answers ${JSON.stringify(fuzz.statuses)}`);
      console.log(`answers of 500 or more (the designed 504 aside): ${fuzz.failures}; canaries changed: ${fuzz.canaryProblems.length}; server error log lines: ${fuzz.serverErrorLines}`);
      for (const f of [...fuzz.firstFailures, ...fuzz.canaryProblems.slice(0, 5)]) console.log(`  ${f}`);
    }
    const failures = rows.filter((r) => r.result.errors > 0 || r.result.firstError);
    for (const r of failures) console.log(`\n${r.name}: ${r.result.errors} errors; first: ${r.result.firstError ?? ''}`);
    if (failures.some((r) => r.result.errors > 0)) process.exitCode = 1;
  } finally {
    await stopServers();
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
