import { parseArgs } from 'node:util';
import { clientFromKubeconfig, loadKubeconfig } from '@kplane/client';
import { createScheduler, startElectedScheduler } from '@kplane/kubelet';
import { createDelegatedAuth, createMetrics, serveMetrics, type MetricsServer } from '@kplane/runtime';
import { checkServingFlags, LEADER_ELECTION_FLAGS, leaderElectionSettings, SERVING_FLAGS, servingCredentials } from './component-flags.js';
import { stopOnSignals } from './up.js';

/** Help of `kplane scheduler`. */
export const SCHEDULER_USAGE = `Usage: kplane scheduler --kubeconfig FILE [flags]

Run the scheduler alone, as kube-scheduler: it binds pending pods whose schedulerName is
default-scheduler to nodes. Several schedulers elect a leader on the Lease
kube-system/kube-scheduler; only the leader schedules. Give it its own identity: a kubeconfig
for the user system:kube-scheduler ("kplane kubeconfig --user system:kube-scheduler"), whose
ClusterRole the API server creates.

Flags:
  --kubeconfig FILE       how to reach the API servers (default: $KUBECONFIG, then ~/.kube/config);
                          a kubeconfig listing several servers fails over across them
  --leader-elect=true|false
                          elect a leader on the Lease kube-system/kube-scheduler (default true)
  --leader-elect-lease-duration DURATION
                          how long a standby waits, after it last saw the Lease change, before
                          taking it over (default 15s)
  --leader-elect-renew-deadline DURATION
                          how long the leader retries a failing renewal before it stops
                          scheduling (default 10s)
  --leader-elect-retry-period DURATION
                          time between attempts to take or renew the Lease (default 2s)
  --secure-port N         HTTPS port of /metrics (leader_election_master_status) and /healthz,
                          /livez, /readyz; 0 picks a free one, -1 serves none (default 10259)
  --bind-address ADDR     address of that port (default 127.0.0.1)
  --tls-cert-file FILE    serving certificate (default: a self-signed one, in memory)
  --tls-private-key-file FILE
                          its key
  --client-ca-file FILE   CA of the client certificates that name a user on /metrics (default:
                          the cluster CA of the kubeconfig)

/metrics is served to a user the API server allows "get" on the non-resource URL /metrics
(TokenReview and SubjectAccessReview, as kube-scheduler's delegated authorization).

Losing the Lease ends the process with exit code 1 (a supervisor restarts it, as
kube-scheduler's); SIGINT/SIGTERM release the Lease and exit 0.
`;

/** Normalises a bare `--leader-elect` to `=true` so parseArgs can read it as a string. */
const normalise = (args: string[]): string[] => args.map((a) => (a === '--leader-elect' ? `${a}=true` : a));

/** `kplane scheduler`: runs until SIGINT or SIGTERM, or until the Lease is lost. */
export async function scheduler(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args: normalise(args),
    options: {
      kubeconfig: { type: 'string' },
      ...LEADER_ELECTION_FLAGS,
      'secure-port': { type: 'string', default: '10259' },
      ...SERVING_FLAGS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(SCHEDULER_USAGE);
    return;
  }
  const { leaderElect, timing } = leaderElectionSettings(values);
  const port = Number(values['secure-port']);
  if (!Number.isInteger(port) || port < -1 || port > 65535) throw new Error(`--secure-port: not a port number: ${values['secure-port']}`);
  checkServingFlags(values);
  const client = clientFromKubeconfig(values.kubeconfig, { userAgent: 'kube-scheduler/kplane' });
  const log = (line: string) => process.stderr.write(`kplane scheduler: ${line}\n`);
  const metrics = createMetrics();
  let served: MetricsServer | undefined;
  if (port >= 0) {
    // As kube-scheduler without --tls-cert-file: a self-signed certificate for loopback.
    const { cert, key, clientCa } = await servingCredentials(values, 'kplane-scheduler-ca', loadKubeconfig(values.kubeconfig).transportOptions.ca);
    served = await serveMetrics({ host: values['bind-address'], port, cert, key, clientCa, metrics, auth: createDelegatedAuth({ client }), onError: (err) => log(`metrics server: ${String(err)}`) });
    log(`serving securely on ${served.url}`);
  }
  const onError = (err: unknown) => log(err instanceof Error ? err.message : String(err));
  if (!leaderElect) {
    const s = createScheduler({ client, onError });
    await s.start();
    log('scheduling');
    stopOnSignals(async () => {
      await s.stop();
      await served?.close();
      client.transport.close();
    });
    return;
  }
  const elected = startElectedScheduler({
    client,
    onError,
    metrics,
    ...timing,
    onNewLeader: (holder) => log(holder === elected.identity ? `successfully acquired lease kube-system/kube-scheduler as ${holder}` : `new leader elected: ${holder || '(none)'}`),
  });
  let stopping = false;
  stopOnSignals(async () => {
    stopping = true;
    await elected.stop();
    await served?.close();
    client.transport.close();
  });
  await elected.done;
  if (!stopping) {
    log('leaderelection lost');
    await served?.close();
    client.transport.close();
    process.exit(1);
  }
}
