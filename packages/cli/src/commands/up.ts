import { parseArgs } from 'node:util';
import { startControlPlane } from '../control-plane.js';
import { parseDuration, parseTerminatedPodGcThreshold } from './duration.js';
import type { ForwardTarget } from '@kplane/apiserver';
import { API_SERVER_FLAGS, API_SERVER_FLAGS_USAGE, apiServerSettings } from './apiserver-flags.js';

/** Help of `kplane up`. */
export const UP_USAGE = `Usage: kplane up [flags]

Start a control plane: storage, the API server (HTTPS on 127.0.0.1) and the controller
manager (namespace, serviceaccount, ... controllers).

Flags:
  --data-dir DIR          database, PKI and kubeconfig (default ./.kplane)
  --port N                HTTPS port, 0 picks a free one (default 6443)
  --storage sqlite|memory|URL
                          storage driver (default sqlite, in the data dir), or a storage URL:
                          etcd://HOST:PORT[,HOST:PORT...][?prefix=/registry] (etcds:// or
                          ?cafile=&certfile=&keyfile= for TLS), sqlite://PATH, memory://
  --no-controllers        start without the controllers (run "kplane controller-manager" instead)
  --controllers-in-worker run the controllers and the simulated nodes in a worker thread (a
                          second core), on an in-memory bridge to the API server; the API
                          server then serves no logs or metrics of the simulated containers
  --controller-manager-port N
                          HTTPS port of the controllers' /metrics and /healthz (default 10257,
                          or 0, a free one, when --port is 0)
  --horizontal-pod-autoscaler-sync-period DURATION
                          how often each HorizontalPodAutoscaler is synced (default 15s)
  --terminated-pod-gc-threshold N
                          terminated pods kept before the pod garbage collector deletes the
                          oldest (default 12500; 0 or less: never)
  --pod-gc-period DURATION, --pod-gc-quarantine DURATION
                          kplane only: how often the pod garbage collector runs (default 20s)
                          and how long a missing node's pods wait before they are deleted
                          (default 40s); shorter values suit tests
  --nodes N               simulated nodes, with a scheduler and kubelet (default 3; 0: none,
                          pods stay Pending)
  --kubelet-config FILE   pod behaviour of the simulated kubelet (see "kplane kubelet --help")
  --node-monitor-grace-period DURATION
                          how long a node's kubelet may stay silent (no Lease renewal, no
                          status) before the node is Unknown and tainted unreachable (default 40s)
  --cluster-signing-duration DURATION
                          longest validity of a certificate signed for a
                          CertificateSigningRequest, with the data dir's CA (default 8760h)
  --exec-local            "kubectl exec" into a simulated container runs the command as a local
                          process of this user, in the current folder (default: a clear error)
  --port-forward POD_PORT=HOST:PORT[,...]
                          forward these pod ports to local addresses, for every pod
                          ("kubectl port-forward", client libraries; default: a clear error)
${API_SERVER_FLAGS_USAGE}
The data dir is made owner-only (0700); the database, the private keys and the kubeconfig are
0600.
`;

/** `kplane up`: runs until SIGINT or SIGTERM. */
export async function up(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string', default: '.kplane' },
      port: { type: 'string', default: '6443' },
      storage: { type: 'string', default: 'sqlite' },
      'no-controllers': { type: 'boolean', default: false },
      'controllers-in-worker': { type: 'boolean', default: false },
      'controller-manager-port': { type: 'string' },
      nodes: { type: 'string', default: '3' },
      'horizontal-pod-autoscaler-sync-period': { type: 'string', default: '15s' },
      'terminated-pod-gc-threshold': { type: 'string', default: '12500' },
      'pod-gc-period': { type: 'string', default: '20s' },
      'pod-gc-quarantine': { type: 'string', default: '40s' },
      'kubelet-config': { type: 'string' },
      'node-monitor-grace-period': { type: 'string', default: '40s' },
      'cluster-signing-duration': { type: 'string', default: '8760h' },
      'exec-local': { type: 'boolean', default: false },
      'port-forward': { type: 'string', multiple: true },
      ...API_SERVER_FLAGS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(UP_USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
  const storage = values.storage;
  if (storage !== 'sqlite' && storage !== 'memory' && !/^[a-z][a-z0-9+.-]*:\/\/./i.test(storage ?? '')) {
    throw new Error(`--storage: must be sqlite, memory or a storage URL (etcd://host:port), not ${storage}`);
  }
  const cmPortText = values['controller-manager-port'] ?? (port === 0 ? '0' : undefined);
  const controllerManagerPort = cmPortText === undefined ? undefined : Number(cmPortText);
  if (controllerManagerPort !== undefined && (!Number.isInteger(controllerManagerPort) || controllerManagerPort < 0 || controllerManagerPort > 65535)) {
    throw new Error(`--controller-manager-port: not a port number: ${cmPortText}`);
  }
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 0) throw new Error(`--nodes: must be a whole number >= 0, not ${values.nodes}`);
  const settings = apiServerSettings(values);
  const nodeMonitorGracePeriodMs = parseDuration('--node-monitor-grace-period', values['node-monitor-grace-period']);
  const clusterSigningDurationMs = parseDuration('--cluster-signing-duration', values['cluster-signing-duration']);
  const hpaSyncPeriodMs = parseDuration('--horizontal-pod-autoscaler-sync-period', values['horizontal-pod-autoscaler-sync-period']);
  if (hpaSyncPeriodMs < 1) throw new Error(`--horizontal-pod-autoscaler-sync-period: must be positive, not ${values['horizontal-pod-autoscaler-sync-period']}`);
  const podGcPeriodMs = parseDuration('--pod-gc-period', values['pod-gc-period']);
  if (podGcPeriodMs < 1) throw new Error(`--pod-gc-period: must be positive, not ${values['pod-gc-period']}`);
  // The kubelet command's module (and the simulation) loads only for --kubelet-config.
  const kubeletConfig = values['kubelet-config'] ? await (await import('./kubelet.js')).loadKubeletConfig(values['kubelet-config']) : undefined;
  const cp = await startControlPlane({
    ...settings,
    dataDir: values['data-dir'],
    port,
    storage: storage as 'sqlite' | 'memory' | `${string}://${string}`,
    controllers: !values['no-controllers'],
    controllersInWorker: values['controllers-in-worker'],
    controllerManagerPort,
    hpaSyncPeriodMs,
    terminatedPodGcThreshold: parseTerminatedPodGcThreshold(values['terminated-pod-gc-threshold']!),
    podGcPeriodMs,
    podGcQuarantineMs: parseDuration('--pod-gc-quarantine', values['pod-gc-quarantine']),
    nodes,
    kubeletConfig,
    nodeMonitorGracePeriodMs,
    clusterSigningDurationMs,
    localStreams: {
      execDir: values['exec-local'] ? process.cwd() : undefined,
      portForward: parsePortForwards(values['port-forward'] ?? []),
    },
  });
  process.stdout.write(`kubeconfig: ${cp.kubeconfigPath}\nready: ${cp.url}\nexport KUBECONFIG=${cp.kubeconfigPath}\n`);
  stopOnSignals(() => cp.stop());
}

/** Parses `--port-forward` values: `POD_PORT=HOST:PORT` (or `=PORT` for 127.0.0.1), comma-separated or repeated. */
export function parsePortForwards(values: string[]): Map<number, ForwardTarget> {
  const out = new Map<number, ForwardTarget>();
  const port = (s: string | undefined, what: string) => {
    const n = Number(s);
    if (!s || !Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`--port-forward: ${what} is not a port number in "${s}"`);
    return n;
  };
  for (const item of values.flatMap((v) => v.split(',')).filter(Boolean)) {
    const m = /^(\d+)=(?:(.*):)?(\d+)$/.exec(item);
    if (!m) throw new Error(`--port-forward: expected POD_PORT=HOST:PORT, not "${item}"`);
    out.set(port(m[1], 'the pod port'), { host: m[2]?.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port: port(m[3], 'the local port') });
  }
  return out;
}

/** Calls `stop` once on SIGINT or SIGTERM, then exits 0 (1 if stopping failed). */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`kplane: ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`kplane: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
