/**
 * Custom resources against built-in ones: create throughput and LIST time of Greetings (a CRD
 * with a structural schema, defaults and CEL rules) next to ConfigMaps, on the same server in
 * the same run, interleaved.
 */
import type { RawResponse, Transport } from '@kplane/api';
import { until } from '@kplane/api/testing';
import { greeting, greetingCrd, GREETING_CRD_NAME, GREETING_GROUP } from './greeting-crd.js';
import { expectStatus } from './list-bench.js';
import { median, runPool } from './load.js';
import { formatTable } from './report.js';

/** Options of benchCustomResources. */
export interface CrdBenchOptions {
  /** Objects of each kind to create, then list. */
  count: number;
  /** Creates kept in flight. */
  concurrency: number;
  /** The creates are split into this many rounds, ConfigMaps and Greetings alternating (default 4). */
  rounds?: number;
  /** LISTs of each kind, alternating (default 5; the median counts). */
  listRuns?: number;
  /** Builds a ConfigMap. */
  configMap: (name: string, namespace: string) => object;
  /** Namespace of both kinds (default "bench-crd"). */
  namespace?: string;
  /** CPU time the server has used so far in ms, for the CPU per request column (optional). */
  serverCpuMs?: () => number | undefined;
  /** Gives up waiting for the CRD to be served after this long (default 30 000 ms). */
  establishTimeoutMs?: number;
}

/** What one kind measured. */
export interface KindResult {
  /** Wall time of all its creates, in ms. */
  createMs: number;
  createsPerSec: number;
  /** Server CPU per create in microseconds (undefined when unknown). */
  createServerUs?: number;
  /** Time of every full LIST, in ms (including the client's JSON.parse). */
  listRuns: number[];
  listMedianMs: number;
  /** Size of one LIST response. */
  listBytes: number;
}

/** What benchCustomResources measured. */
export interface CrdBenchResult {
  count: number;
  /** From POSTing the CRD until its collection answered LIST, in ms. */
  establishMs: number;
  configMaps: KindResult;
  greetings: KindResult;
}

/** Targets: creates at least `minCreateRatio` of ConfigMaps' rate, LIST at most `maxListRatio` of their time. */
export interface CrdTargets {
  minCreateRatio: number;
  maxListRatio: number;
}

const HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));
const itemsOf = (r: RawResponse): number => (JSON.parse(Buffer.from(r.body!).toString('utf8')) as { items: unknown[] }).items.length;

/** Creates the Greeting CRD (or finds it) and waits until it is Established and its collection answers LIST. */
export async function establishGreetings(t: Transport, namespace: string, timeoutMs = 30_000): Promise<number> {
  const t0 = performance.now();
  await expectStatus(t({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', headers: HEADERS, body: encode(greetingCrd()) }), 201, 409);
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${GREETING_CRD_NAME}`;
  await until(
    `${GREETING_CRD_NAME} to be Established and served`,
    async () => {
      const crd = JSON.parse(Buffer.from((await expectStatus(t({ method: 'GET', path: crdPath, headers: HEADERS }), 200)).body!).toString('utf8')) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
      return established && (await t({ method: 'GET', path: greetingsPath(namespace), query: { limit: '1' }, headers: HEADERS })).status === 200;
    },
    { timeoutMs, intervalMs: 20 },
  );
  return performance.now() - t0;
}

/** Collection path of Greetings in `namespace`. */
export const greetingsPath = (namespace: string): string => `/apis/${GREETING_GROUP}/v1/namespaces/${namespace}/greetings`;
const configMapsPath = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;

/**
 * Sends a Greeting that breaks a CEL rule and expects 422, so that the measured creates are
 * known to run the CRD's validation rules.
 */
export async function checkCelEnforced(t: Transport, namespace: string): Promise<void> {
  const bad = greeting('cel-check', namespace) as { spec: Record<string, unknown> };
  bad.spec.host = 'cel-check.example.org';
  const r = await t({ method: 'POST', path: greetingsPath(namespace), headers: HEADERS, body: encode(bad) });
  const text = Buffer.from(r.body ?? []).toString('utf8');
  if (r.status !== 422 || !text.includes('host must be in the apps.example.com zone')) {
    throw new Error(`a Greeting breaking a CEL rule got HTTP ${r.status}, want 422 with the rule's message: ${text.slice(0, 300)}`);
  }
}

/**
 * Creates the Greeting CRD and a namespace, then `count` ConfigMaps and `count` Greetings in
 * `rounds` interleaved rounds (which kind goes first alternates), then LISTs each kind
 * `listRuns` times, alternating. Every create must answer 201 and every LIST return `count` items.
 */
export async function benchCustomResources(t: Transport, options: CrdBenchOptions): Promise<CrdBenchResult> {
  const { count, concurrency } = options;
  const namespace = options.namespace ?? 'bench-crd';
  const rounds = Math.max(1, Math.min(options.rounds ?? 4, count));
  const listRuns = Math.max(1, options.listRuns ?? 5);
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
  await expectStatus(t({ method: 'POST', path: '/api/v1/namespaces', headers: HEADERS, body: encode(ns) }), 201, 409);
  const establishMs = await establishGreetings(t, namespace, options.establishTimeoutMs);
  await checkCelEnforced(t, namespace);

  interface Acc { ms: number; cpuMs: number; cpuKnown: boolean; list: number[]; bytes: number }
  const acc = (): Acc => ({ ms: 0, cpuMs: 0, cpuKnown: options.serverCpuMs !== undefined, list: [], bytes: 0 });
  const kinds = [
    { acc: acc(), path: configMapsPath(namespace), make: options.configMap },
    { acc: acc(), path: greetingsPath(namespace), make: greeting },
  ];
  let created = 0;
  for (let r = 0; r < rounds; r++) {
    const from = created;
    const to = Math.round(((r + 1) * count) / rounds);
    for (const k of r % 2 === 0 ? kinds : [...kinds].reverse()) {
      const cpu0 = options.serverCpuMs?.();
      const t0 = performance.now();
      await runPool(to - from, concurrency, async (i) => {
        await expectStatus(t({ method: 'POST', path: k.path, headers: HEADERS, body: encode(k.make(`obj-${from + i}`, namespace)) }), 201);
      });
      k.acc.ms += performance.now() - t0;
      const cpu1 = options.serverCpuMs?.();
      if (cpu0 === undefined || cpu1 === undefined) k.acc.cpuKnown = false;
      else k.acc.cpuMs += cpu1 - cpu0;
    }
    created = to;
  }
  for (let i = 0; i < listRuns; i++) {
    for (const k of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const t0 = performance.now();
      const res = await expectStatus(t({ method: 'GET', path: k.path, headers: HEADERS }), 200);
      const got = itemsOf(res);
      k.acc.list.push(performance.now() - t0);
      if (got !== count) throw new Error(`LIST ${k.path} returned ${got} items, want ${count}`);
      k.acc.bytes = res.body!.byteLength;
    }
  }
  const result = (a: Acc): KindResult => {
    const r: KindResult = { createMs: a.ms, createsPerSec: (count * 1000) / a.ms, listRuns: a.list, listMedianMs: median(a.list), listBytes: a.bytes };
    if (a.cpuKnown) r.createServerUs = (a.cpuMs * 1000) / count;
    return r;
  };
  return { count, establishMs, configMaps: result(kinds[0]!.acc), greetings: result(kinds[1]!.acc) };
}

/** The custom-resource table, then one line per target with its reading (met / MISSED). */
export function formatCustomResources(r: CrdBenchResult, targets: CrdTargets): string {
  const runs = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(', ');
  const us = (k: KindResult): string => (k.createServerUs === undefined ? '-' : k.createServerUs.toFixed(0));
  const row = (name: string, k: KindResult): string[] => [
    name,
    k.createsPerSec.toFixed(0),
    us(k),
    k.listMedianMs.toFixed(0),
    runs(k.listRuns),
    (k.listBytes / 1e6).toFixed(2),
  ];
  const table = formatTable(
    [
      ['kind', 'creates/s', 'server us/create', 'LIST ms', 'LIST runs (ms)', 'LIST MB'],
      row(`ConfigMap (${r.count})`, r.configMaps),
      row(`Greeting, CRD + CEL (${r.count})`, r.greetings),
    ],
    [1, 2, 3, 5],
  );
  const createRatio = r.greetings.createsPerSec / r.configMaps.createsPerSec;
  const listRatio = r.greetings.listMedianMs / r.configMaps.listMedianMs;
  const reading = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  return [
    table,
    '',
    `creates: Greeting / ConfigMap = ${createRatio.toFixed(2)}x (target >= ${targets.minCreateRatio}x: ${reading(createRatio >= targets.minCreateRatio)})`,
    `LIST:    Greeting / ConfigMap time = ${listRatio.toFixed(2)}x (target <= ${targets.maxListRatio}x: ${reading(listRatio <= targets.maxListRatio)})`,
    `CRD served ${r.establishMs.toFixed(0)} ms after its POST; a Greeting breaking a CEL rule was refused with 422 before the run`,
  ].join('\n');
}
