/**
 * The Greeting operator as a program: the controller, its webhooks and its metrics, against the
 * cluster of $KUBECONFIG (or --kubeconfig), e.g. one started with `kplane up`.
 *
 *   node dist/main.js [--kubeconfig FILE] [--namespace NS] [--records FILE] [--dns-latency MS]
 *                     [--metrics-bind-address ADDR] [--health-probe-bind-address ADDR]
 *                     [--webhook-port PORT] [--cert-dir DIR]
 *                     [--leader-elect] [--leader-election-namespace NS]
 *
 * --records (default greeting-records.txt) is the file of DNS records the finalizer cleans;
 * --dns-latency makes each change of it take that long, as a provider's API would.
 * --metrics-bind-address (default :8080, "0" off) serves /metrics; --health-probe-bind-address
 * (default off) /healthz and /readyz. --webhook-port (default off) serves the defaulting and
 * validating webhooks over HTTPS with a certificate kept in --cert-dir (default
 * greeting-operator-certs, generated on the first run), where webhooks.json holds the two
 * configurations to `kubectl apply -f` so that the API server calls them. --leader-elect makes
 * the copies elect a leader on the Lease greeting-operator in --leader-election-namespace
 * (default greeting-system): only the leader reconciles; every copy serves the webhooks.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clientFromKubeconfig } from '@kplane/client';
import { createManager, createWebhookServer, generateWebhookCertificates, webhookConfigurations, type WebhookServer } from '@kplane/runtime';
import { addGreetingController } from './controller.js';
import { Greetings } from './kind.js';
import { DEFAULT_NAMESPACE, OPERATOR_NAME } from './rbac.js';
import { fileRecords } from './records.js';
import { greetingDefaulter, greetingValidator } from './webhook.js';

const { values: opts } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    records: { type: 'string', default: 'greeting-records.txt' },
    'dns-latency': { type: 'string', default: '0' },
    'metrics-bind-address': { type: 'string', default: ':8080' },
    'health-probe-bind-address': { type: 'string', default: '0' },
    'webhook-port': { type: 'string' },
    'cert-dir': { type: 'string', default: 'greeting-operator-certs' },
    'leader-elect': { type: 'boolean', default: false },
    'leader-election-namespace': { type: 'string', default: DEFAULT_NAMESPACE },
  },
});

/** The serving certificate in `dir` (tls.crt, tls.key, ca.crt), generated and written there when absent. */
async function certificates(dir: string): Promise<{ cert: string; key: string; caCert: string }> {
  const files = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), caCert: join(dir, 'ca.crt') };
  try {
    return { cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8'), caCert: await readFile(files.caCert, 'utf8') };
  } catch {
    const made = generateWebhookCertificates();
    await mkdir(dir, { recursive: true });
    await writeFile(files.cert, made.cert);
    await writeFile(files.key, made.key, { mode: 0o600 });
    await writeFile(files.caCert, made.caCert);
    return { cert: made.cert, key: made.key, caCert: made.caCert };
  }
}

const client = clientFromKubeconfig(opts.kubeconfig);
const mgr = createManager({
  client,
  ...(opts.namespace ? { namespace: opts.namespace } : {}),
  metricsBindAddress: opts['metrics-bind-address'],
  healthProbeBindAddress: opts['health-probe-bind-address'],
  ...(opts['leader-elect'] ? { leaderElection: { namespace: opts['leader-election-namespace']!, name: OPERATOR_NAME } } : {}),
});
const latencyMs = Number(opts['dns-latency']);
addGreetingController(mgr, { records: fileRecords(opts.records!, { latencyMs }) });

let webhooks: WebhookServer | undefined;
if (opts['webhook-port'] !== undefined) {
  const greetings = mgr.factory.informerFor(Greetings); // the controller's cache, shared
  webhooks = createWebhookServer({ port: Number(opts['webhook-port']), ...(await certificates(opts['cert-dir']!)), registry: mgr.metrics.registry })
    .forKind(Greetings, { defaulter: greetingDefaulter, validator: greetingValidator(() => greetings.store.list()) });
  const url = await webhooks.start();
  const { mutating, validating } = webhookConfigurations(webhooks, { mutatingName: OPERATOR_NAME, validatingName: OPERATOR_NAME });
  const path = join(opts['cert-dir']!, 'webhooks.json');
  await writeFile(path, `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [mutating, validating] }, null, 2)}\n`);
  console.log(`webhooks: ${url} (kubectl apply -f ${path})`);
}

const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => stop.abort());
if (opts['leader-elect']) {
  // Runs only while this copy holds the Lease.
  mgr.add({ needLeaderElection: true, start: async () => console.log(`leading: lease ${opts['leader-election-namespace']}/${OPERATOR_NAME} held as ${mgr.identity}`) });
}
const running = mgr.start(stop.signal);
const { metrics, healthProbe } = await mgr.serving();
if (metrics) console.log(`metrics: ${metrics}/metrics`);
if (healthProbe) console.log(`health probes: ${healthProbe}/healthz, ${healthProbe}/readyz`);
console.log(`greeting-operator started: Greetings in ${opts.namespace ?? 'all namespaces'}, DNS records in ${opts.records}`);
try {
  await running; // on stop: reconciles in flight finish first
} finally {
  await webhooks?.stop();
  client.transport.close();
}
