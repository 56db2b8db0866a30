import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { clientFromKubeconfig, loadKubeconfig } from '@kplane/client';
import { serviceAccountKeys, signingKeyFromPem, signLegacyToken } from '@kplane/apiserver';
import { DEFAULT_SECURE_PORT, KNOWN_CONTROLLERS, loadSigningCa, startControllerManager, tokenRequestServiceAccountClients } from '@kplane/controllers';
import { booleanFlag, caText, checkServingFlags, LEADER_ELECTION_FLAGS, leaderElectionSettings, SERVING_FLAGS, servingCredentials } from './component-flags.js';
import { parseDuration, parseTerminatedPodGcThreshold } from './duration.js';
import { stopOnSignals } from './up.js';

export { parseTerminatedPodGcThreshold };

/** Help of `kplane controller-manager`. */
export const CONTROLLER_MANAGER_USAGE = `Usage: kplane controller-manager --kubeconfig FILE [flags]

Run kplane's controllers against an API server, as kube-controller-manager does.

Flags:
  --kubeconfig FILE             how to reach the API server (default: $KUBECONFIG, then ~/.kube/config)
  --controllers LIST            controllers to run: "*" for all, "name" to enable, "-name" to
                                disable (default "*"); known: ${KNOWN_CONTROLLERS.join(', ')}
  --leader-elect=true|false     elect a leader on the Lease kube-system/kube-controller-manager
                                (default true)
  --leader-elect-lease-duration DURATION
                                how long a standby waits, after it last saw the Lease change,
                                before taking it over (default 15s)
  --leader-elect-renew-deadline DURATION
                                how long the leader retries a failing renewal before it stops
                                (default 10s)
  --leader-elect-retry-period DURATION
                                time between attempts to take or renew the Lease (default 2s)
  --use-service-account-credentials=true|false
                                run each controller as its own ServiceAccount
                                kube-system/<name>-controller, with a token from the TokenRequest
                                API (default false, as kube-controller-manager; kplane up: true);
                                needed when the kubeconfig's user is system:kube-controller-manager
                                (kplane kubeconfig --user system:kube-controller-manager), whose
                                own role only lists, watches and manages those accounts
  --node-monitor-grace-period DURATION
                                how long a node's kubelet may stay silent before the node is
                                Unknown and tainted unreachable (default 40s)
  --secure-port N               HTTPS port of /metrics and /healthz, 0 picks a free one (default ${DEFAULT_SECURE_PORT})
  --bind-address ADDR           address of that port (default 127.0.0.1)
  --tls-cert-file FILE          serving certificate (default: a self-signed one, in memory)
  --tls-private-key-file FILE   its key
  --client-ca-file FILE         CA of the client certificates that name a user (CN) and groups (O)
                                on /metrics (default: the cluster CA of the kubeconfig)
  --cluster-signing-cert-file FILE
                                CA certificate that signs approved CertificateSigningRequests of
                                kubernetes.io/kube-apiserver-client (without it and the key file,
                                the signing controller does not run)
  --cluster-signing-key-file FILE
                                its private key (PEM: PKCS#8, PKCS#1 or SEC1; EC or RSA)
  --cluster-signing-duration DURATION
                                longest validity of a signed certificate (default 8760h)
  --horizontal-pod-autoscaler-sync-period DURATION
                                how often each HorizontalPodAutoscaler is synced (default 15s)
  --terminated-pod-gc-threshold N
                                terminated pods kept before the pod garbage collector deletes
                                the oldest (default 12500; 0 or less: never)
  --service-account-private-key-file FILE
                                key that signs the tokens of kubernetes.io/service-account-token
                                Secrets (the API server's signing key); without it the
                                serviceaccount-token controller does not run
  --root-ca-file FILE           CA bundle written to those Secrets' ca.crt and to each
                                namespace's kube-root-ca.crt ConfigMap (default: the
                                kubeconfig's cluster CA)

/metrics is served to a user the API server allows "get" on the non-resource URL /metrics: a
bearer token is checked with a TokenReview, the permission with a SubjectAccessReview (answers
cached 10s); system:masters is always allowed; /healthz, /livez and /readyz are open.
`;

/** Normalises the bare booleans (`--leader-elect`, `--use-service-account-credentials`) to `=true` so parseArgs can read them as strings. */
function normaliseBooleans(args: string[]): string[] {
  return args.map((a) => (a === '--leader-elect' || a === '--use-service-account-credentials' ? `${a}=true` : a));
}

/** `kplane controller-manager`: runs until SIGINT or SIGTERM. */
export async function controllerManager(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args: normaliseBooleans(args),
    options: {
      kubeconfig: { type: 'string' },
      controllers: { type: 'string', default: '*' },
      ...LEADER_ELECTION_FLAGS,
      'use-service-account-credentials': { type: 'string', default: 'false' },
      'secure-port': { type: 'string', default: String(DEFAULT_SECURE_PORT) },
      'node-monitor-grace-period': { type: 'string', default: '40s' },
      ...SERVING_FLAGS,
      'cluster-signing-cert-file': { type: 'string' },
      'cluster-signing-key-file': { type: 'string' },
      'cluster-signing-duration': { type: 'string', default: '8760h' },
      'horizontal-pod-autoscaler-sync-period': { type: 'string', default: '15s' },
      'terminated-pod-gc-threshold': { type: 'string', default: '12500' },
      'service-account-private-key-file': { type: 'string' },
      'root-ca-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(CONTROLLER_MANAGER_USAGE);
    return;
  }
  const { leaderElect, timing } = leaderElectionSettings(values);
  const useSACredentials = booleanFlag('use-service-account-credentials', values['use-service-account-credentials']);
  const port = Number(values['secure-port']);
  const nodeMonitorGracePeriodMs = parseDuration('--node-monitor-grace-period', values['node-monitor-grace-period']!);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--secure-port: not a port number: ${values['secure-port']}`);
  checkServingFlags(values);
  if (Boolean(values['cluster-signing-cert-file']) !== Boolean(values['cluster-signing-key-file'])) {
    throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
  }
  const signingDurationMs = parseDuration('--cluster-signing-duration', values['cluster-signing-duration']!);
  const clusterSigning = values['cluster-signing-cert-file']
    ? {
        ca: await loadSigningCa(await readFile(values['cluster-signing-cert-file'], 'utf8'), await readFile(values['cluster-signing-key-file']!, 'utf8')),
        durationMs: signingDurationMs,
      }
    : undefined;
  const kubeconfig = loadKubeconfig(values.kubeconfig);
  const client = clientFromKubeconfig(values.kubeconfig, { userAgent: 'kplane-controller-manager' });

  const kubeCa = kubeconfig.transportOptions.ca;
  // As kube-controller-manager without --tls-cert-file: a self-signed certificate for loopback.
  const { cert, key, clientCa } = await servingCredentials(values, 'kplane-controller-manager-ca', kubeCa);

  const saKeyFile = values['service-account-private-key-file'];
  const saKeys = saKeyFile ? serviceAccountKeys(signingKeyFromPem(await readFile(saKeyFile, 'utf8'), saKeyFile)) : undefined;
  const rootCA = values['root-ca-file'] ? await readFile(values['root-ca-file'], 'utf8') : (caText(kubeCa) ?? '');

  const serviceAccountClients =
    useSACredentials ? tokenRequestServiceAccountClients(client, kubeconfig.transportOptions, { userAgent: 'kplane-controller-manager' }) : undefined;
  const cm = await startControllerManager({
    serviceAccountTokens: saKeys ? { rootCA, generateToken: (c) => signLegacyToken(saKeys, c) } : undefined,
    rootCA: rootCA || undefined,
    client,
    serviceAccountClients,
    controllers: values.controllers!.split(',').map((s) => s.trim()).filter(Boolean),
    leaderElect,
    leaderElection: timing,
    serving: { host: values['bind-address'], port, cert, key, clientCa },
    clusterSigning,
    nodeLifecycle: { gracePeriodMs: nodeMonitorGracePeriodMs },
    horizontalPodAutoscaler: { syncPeriodMs: parseDuration('--horizontal-pod-autoscaler-sync-period', values['horizontal-pod-autoscaler-sync-period']!) },
    podGarbageCollector: { terminatedPodThreshold: parseTerminatedPodGcThreshold(values['terminated-pod-gc-threshold']!) },
  });
  let stopping = false;
  stopOnSignals(async () => {
    stopping = true;
    await cm.stop();
    client.transport.close();
    serviceAccountClients?.close();
  });
  await cm.done;
  if (!stopping) {
    // As kube-controller-manager: losing the Lease ends the process; a supervisor restarts it.
    await cm.stop();
    process.exit(1);
  }
}
