/**
 * Admission: create throughput of ConfigMaps with no dynamic admission, with one validating
 * webhook (a local HTTPS server allowing everything) and with one ValidatingAdmissionPolicy (a
 * CEL check), on the same server in the same run, interleaved. Each case writes to a namespace
 * of its own, which the webhook's namespaceSelector and the policy binding's select.
 */
import type { RawResponse, Transport } from '@kplane/api';
import { until } from '@kplane/api/testing';
import { expectStatus } from './list-bench.js';
import { mergeResults, runLoad, type LoadResult } from './load.js';
import { formatTable, ratio } from './report.js';

/** The webhook name, as the configuration and kplane's /metrics name it. */
export const BENCH_WEBHOOK = 'allow.bench.kplane.io';
/** The name of the webhook configuration, the policy and its binding. */
export const BENCH_ADMISSION = 'bench-admission';

/** Options of benchAdmission. */
export interface AdmissionBenchOptions {
  /** Where the allow-all webhook listens, and the CA bundle that verifies it. */
  webhook: { url: string; caBundle: string };
  /** Creates kept in flight. */
  concurrency: number;
  /** Interleaved rounds (each case once per round, the order rotating; default 5). */
  rounds?: number;
  /** Measured time of one case in one round, in ms (default 1000). */
  roundMs?: number;
  /** Unmeasured time at the start of each case's round, in ms (default 300). */
  warmupMs?: number;
  /** Builds a ConfigMap. */
  configMap: (name: string, namespace: string) => object;
  /** Prefix of the three namespaces (default "bench-admission"). */
  prefix?: string;
  /** CPU time the server has used so far in ms, for the CPU per create column (optional). */
  serverCpuMs?: () => number | undefined;
  /** Gives up waiting for the webhook to be called after this long (default 30 000 ms). */
  readyTimeoutMs?: number;
}

/** One case's numbers. */
export interface AdmissionCase {
  name: string;
  result: LoadResult;
  /** Server CPU per create in microseconds (undefined when unknown). */
  serverUsPerCreate?: number;
}

/** What benchAdmission measured. */
export interface AdmissionBenchResult {
  none: AdmissionCase;
  webhook: AdmissionCase;
  policy: AdmissionCase;
  /** Webhook calls kplane counted during the webhook case's rounds, and the creates sent in them. */
  webhookCalls: number;
  webhookCreates: number;
}

/** Targets: the webhook case at least `minWebhookRatio` of no admission's creates/s, the policy case `minPolicyRatio`. */
export interface AdmissionTargets {
  minWebhookRatio: number;
  minPolicyRatio: number;
}

const HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));
const text = (r: RawResponse): string => Buffer.from(r.body ?? []).toString('utf8');
const REG = '/apis/admissionregistration.k8s.io/v1';

/** The count of allowed calls of the bench webhook in kplane's /metrics (0 before the first). */
export async function webhookCallsCounted(t: Transport): Promise<number> {
  const metrics = text(await expectStatus(t({ method: 'GET', path: '/metrics', headers: { accept: 'text/plain' } }), 200));
  const series = `apiserver_admission_webhook_request_total{name="${BENCH_WEBHOOK}",type="validating",operation="CREATE",code="200",rejected="false"} `;
  const line = metrics.split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.slice(series.length)) : 0;
}

function objects(prefix: string, webhook: AdmissionBenchOptions['webhook']) {
  const selecting = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });
  const configMapCreates = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] };
  return {
    webhookConfiguration: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: BENCH_ADMISSION },
      webhooks: [
        {
          name: BENCH_WEBHOOK,
          clientConfig: { url: webhook.url, caBundle: webhook.caBundle },
          rules: [configMapCreates],
          namespaceSelector: selecting(`${prefix}-webhook`),
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    policy: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: BENCH_ADMISSION },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [configMapCreates] },
        validations: [{ expression: "!has(object.metadata.labels) || !('bench-deny' in object.metadata.labels)", message: 'ConfigMaps labelled bench-deny are refused' }],
      },
    },
    binding: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: BENCH_ADMISSION },
      spec: { policyName: BENCH_ADMISSION, validationActions: ['Deny'], matchResources: { namespaceSelector: selecting(`${prefix}-policy`) } },
    },
  };
}

/**
 * Creates the three namespaces, the webhook configuration, the policy and its binding; checks
 * that the webhook is called (kplane's /metrics counts it) and that the policy refuses a
 * ConfigMap breaking its rule; then runs the three cases in interleaved rounds, and removes the
 * configuration, policy and binding again.
 */
export async function benchAdmission(t: Transport, options: AdmissionBenchOptions): Promise<AdmissionBenchResult> {
  const prefix = options.prefix ?? 'bench-admission';
  const rounds = Math.max(1, options.rounds ?? 5);
  const roundMs = options.roundMs ?? 1000;
  const warmupMs = options.warmupMs ?? 300;
  const post = (path: string, body: object) => t({ method: 'POST', path, headers: HEADERS, body: encode(body) });
  for (const c of ['none', 'webhook', 'policy']) await expectStatus(post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${prefix}-${c}` } }), 201, 409);
  const o = objects(prefix, options.webhook);
  await expectStatus(post(`${REG}/validatingwebhookconfigurations`, o.webhookConfiguration), 201);
  await expectStatus(post(`${REG}/validatingadmissionpolicies`, o.policy), 201);
  await expectStatus(post(`${REG}/validatingadmissionpolicybindings`, o.binding), 201);
  const cmPath = (c: string) => `/api/v1/namespaces/${prefix}-${c}/configmaps`;
  try {
    let probe = 0;
    await until(
      `${BENCH_WEBHOOK} to be called`,
      async () => {
        await expectStatus(post(cmPath('webhook'), options.configMap(`probe-${probe++}`, `${prefix}-webhook`)), 201);
        return (await webhookCallsCounted(t)) > 0;
      },
      { timeoutMs: options.readyTimeoutMs ?? 30_000, intervalMs: 20 },
    );
    const denied = options.configMap('denied', `${prefix}-policy`) as { metadata: { labels?: Record<string, string> } };
    denied.metadata.labels = { ...denied.metadata.labels, 'bench-deny': 'yes' };
    const refused = await post(cmPath('policy'), denied);
    if (refused.status === 201 || !text(refused).includes(`ValidatingAdmissionPolicy '${BENCH_ADMISSION}'`)) {
      throw new Error(`a ConfigMap breaking the policy got HTTP ${refused.status}, want a denial by ${BENCH_ADMISSION}: ${text(refused).slice(0, 300)}`);
    }

    interface Acc { name: string; ns: string; rounds: LoadResult[]; cpuMs: number; cpuKnown: boolean }
    const cases: Acc[] = [
      { name: 'no admission webhook or policy (baseline)', ns: 'none', rounds: [], cpuMs: 0, cpuKnown: options.serverCpuMs !== undefined },
      { name: 'one validating webhook (allows all)', ns: 'webhook', rounds: [], cpuMs: 0, cpuKnown: options.serverCpuMs !== undefined },
      { name: 'one ValidatingAdmissionPolicy (CEL)', ns: 'policy', rounds: [], cpuMs: 0, cpuKnown: options.serverCpuMs !== undefined },
    ];
    let webhookCalls = 0;
    let webhookCreates = 0;
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(k + r) % cases.length]!;
        const calls0 = c.ns === 'webhook' ? await webhookCallsCounted(t) : 0;
        const cpu0 = options.serverCpuMs?.();
        const result = await runLoad({
          send: (i) => post(cmPath(c.ns), options.configMap(`c-${r}-${i}`, `${prefix}-${c.ns}`)),
          concurrency: options.concurrency,
          durationMs: roundMs,
          warmupMs,
          expectStatus: 201,
        });
        const cpu1 = options.serverCpuMs?.();
        if (cpu0 === undefined || cpu1 === undefined) c.cpuKnown = false;
        else c.cpuMs += cpu1 - cpu0;
        c.rounds.push(result);
        if (c.ns === 'webhook') {
          webhookCalls += (await webhookCallsCounted(t)) - calls0;
          webhookCreates += result.sent;
        }
      }
    }
    const done = (c: Acc): AdmissionCase => {
      const out: AdmissionCase = { name: c.name, result: mergeResults(c.rounds) };
      const sent = c.rounds.reduce((n, x) => n + x.sent, 0);
      if (c.cpuKnown && sent > 0) out.serverUsPerCreate = (c.cpuMs * 1000) / sent;
      return out;
    };
    return { none: done(cases[0]!), webhook: done(cases[1]!), policy: done(cases[2]!), webhookCalls, webhookCreates };
  } finally {
    for (const path of [`validatingadmissionpolicybindings/${BENCH_ADMISSION}`, `validatingadmissionpolicies/${BENCH_ADMISSION}`, `validatingwebhookconfigurations/${BENCH_ADMISSION}`]) {
      await expectStatus(t({ method: 'DELETE', path: `${REG}/${path}`, headers: HEADERS }), 200, 404);
    }
  }
}

/** The admission table, then one line per target with its reading (met / MISSED). */
export function formatAdmission(r: AdmissionBenchResult, targets: AdmissionTargets): string {
  const base = r.none.result.rps;
  const row = (c: AdmissionCase, target?: number): string[] => [
    c.name,
    c.result.rps.toFixed(0),
    ratio(c.result.rps, base),
    target === undefined ? '' : `>= ${target}x ${c.result.rps / base >= target ? 'met' : 'MISSED'}`,
    c.result.p50Ms.toFixed(1),
    c.result.p99Ms.toFixed(1),
    c.serverUsPerCreate === undefined ? '-' : c.serverUsPerCreate.toFixed(0),
    String(c.result.errors),
  ];
  const table = formatTable(
    [['case', 'creates/s', 'vs none', 'target', 'p50 ms', 'p99 ms', 'server us/create', 'errors'], row(r.none), row(r.webhook, targets.minWebhookRatio), row(r.policy, targets.minPolicyRatio)],
    [1, 2, 4, 5, 6, 7],
  );
  return [
    table,
    '',
    `the webhook was called ${r.webhookCalls} times for ${r.webhookCreates} creates of its case (kplane's /metrics); a ConfigMap breaking the policy was refused before the run`,
  ].join('\n');
}
