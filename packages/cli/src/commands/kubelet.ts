import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { clientFromKubeconfig, loadKubeconfig } from '@kplane/client';
import { compileKubeletConfig, DEFAULT_MAX_PODS, DEFAULT_NODE_PREFIX, nodeName, startSimulation, type Kubelet, type KubeletConfig } from '@kplane/kubelet';
import { nodeClients } from './node-credentials.js';
import { parsePortForwards, stopOnSignals } from './up.js';
import { kubeletServingCertificate, startKubeletServer, type KubeletServer } from './kubelet-server.js';

/** Help of `kplane kubelet`. */
export const KUBELET_USAGE = `Usage: kplane kubelet --kubeconfig FILE [flags]

Run simulated nodes (no containers, as kwok does) and a scheduler against an API server:
Ready Nodes with heartbeat Leases in kube-node-lease, pods bound to them and moved through
their lifecycle.

Flags:
  --kubeconfig FILE     how to reach the API server (default: $KUBECONFIG, then ~/.kube/config)
  --nodes N             simulated nodes (default 3)
  --node-prefix P       node names are P0, P1, ... (default ${DEFAULT_NODE_PREFIX})
  --first-node N        index of the first node (default 0), to run nodes in several processes
  --max-pods N          pods per node (default ${DEFAULT_MAX_PODS})
  --config FILE         pod behaviour (YAML or JSON): defaults and rules for delays, run times,
                        exit codes, crash-loop backoff and failures
  --no-scheduler        do not run the scheduler (another process binds pods)
  --leader-elect=true|false
                        run the scheduler behind leader election on the Lease
                        kube-system/kube-scheduler, so that it may run in several processes
                        (default true, as kube-scheduler)
  --node-lease-duration-seconds N
                        leaseDurationSeconds of the nodes' Leases (default 40), renewed every
                        quarter of it, as the kubelet's nodeLeaseDurationSeconds
  --data-dir DIR        the data dir of "kplane up": its CA signs this kubelet's serving
                        certificate and checks the API server's client certificate; without it
                        the kubelet serves no port, and logs, exec and port-forward of its pods
                        are unavailable
  --address IP          where the kubelet serves, reported as its nodes' InternalIP (default
                        127.0.0.1)
  --port N              the kubelet's HTTPS port, reported in its Nodes' status.daemonEndpoints
                        (default 10250; 0 picks a free one)
  --exec-local          "kubectl exec" into its pods runs the command as a local process, in
                        this process's working directory
  --port-forward POD_PORT=HOST:PORT[,...]
                        "kubectl port-forward" to its pods' POD_PORT reaches HOST:PORT
  --shared-credentials  every node acts as the kubeconfig's user (default: each node gets its
                        own client certificate, CN=system:node:NAME O=system:nodes, through a
                        CertificateSigningRequest the kubeconfig's user approves)
`;

/** Reads and checks a kubelet behaviour file (YAML or JSON). */
export async function loadKubeletConfig(path: string): Promise<KubeletConfig> {
  const config = parseYaml(await readFile(path, 'utf8')) as KubeletConfig | null;
  try {
    compileKubeletConfig(config ?? {});
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return config ?? {};
}

/** The kubelet's serving certificate and the client CA, from the data dir's CA; undefined without one. */
async function servingCredentials(dataDir: string, address: string): Promise<{ cert: string; key: string; clientCa: string } | undefined> {
  let caCert: string;
  let caKey: string;
  try {
    [caCert, caKey] = await Promise.all([readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8'), readFile(join(dataDir, 'pki', 'ca.key'), 'utf8')]);
  } catch {
    return undefined;
  }
  return { ...(await kubeletServingCertificate(caCert, caKey, address)), clientCa: caCert };
}

/** Parses a whole number flag. */
function count(flag: string, text: string, min = 0): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}: must be a whole number >= ${min}, not ${text}`);
  return n;
}

/** `kplane kubelet`: runs until SIGINT or SIGTERM. */
export async function kubelet(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args: args.map((a) => (a === '--leader-elect' ? `${a}=true` : a)),
    options: {
      kubeconfig: { type: 'string' },
      nodes: { type: 'string', default: '3' },
      'node-prefix': { type: 'string', default: DEFAULT_NODE_PREFIX },
      'first-node': { type: 'string', default: '0' },
      'max-pods': { type: 'string', default: String(DEFAULT_MAX_PODS) },
      config: { type: 'string' },
      'no-scheduler': { type: 'boolean', default: false },
      'leader-elect': { type: 'string', default: 'true' },
      'node-lease-duration-seconds': { type: 'string', default: '40' },
      'data-dir': { type: 'string' },
      address: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '10250' },
      'exec-local': { type: 'boolean', default: false },
      'port-forward': { type: 'string', multiple: true },
      'shared-credentials': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(KUBELET_USAGE);
    return;
  }
  const leaderElect = values['leader-elect'];
  if (leaderElect !== 'true' && leaderElect !== 'false') throw new Error(`--leader-elect: must be true or false, not ${leaderElect}`);
  const nodes = count('nodes', values.nodes);
  const leaseDurationSeconds = count('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const config = values.config ? await loadKubeletConfig(values.config) : undefined;
  const client = clientFromKubeconfig(values.kubeconfig, { userAgent: 'kplane-kubelet' });
  const local = { execDir: values['exec-local'] ? process.cwd() : undefined, portForward: parsePortForwards(values['port-forward'] ?? []) };
  const tls = values['data-dir'] === undefined ? undefined : await servingCredentials(values['data-dir'], values.address);
  if (values['data-dir'] !== undefined && !tls) throw new Error(`--data-dir: cannot read ${join(values['data-dir'], 'pki', 'ca.crt')} and ca.key`);
  // The port is bound before the nodes register, so they report it; the kubelet comes after.
  let server: KubeletServer | undefined;
  let running: Kubelet | undefined;
  if (tls) {
    server = await startKubeletServer({
      kubelet: () => running,
      ...tls,
      host: values.address,
      port: count('port', values.port),
      local,
    });
    process.stderr.write(`kplane kubelet: serving on https://${values.address}:${server.port}\n`);
  }
  const prefix = values['node-prefix'];
  const first = count('first-node', values['first-node']);
  // Each node acts as itself (system:node:NAME), as a kubelet after its TLS bootstrap.
  const perNode = values['shared-credentials'] || nodes === 0
    ? undefined
    : await nodeClients(
        { bootstrap: client, server: loadKubeconfig(values.kubeconfig).transportOptions, userAgent: 'kplane-kubelet' },
        Array.from({ length: nodes }, (_, i) => nodeName(first + i, prefix)),
      );
  const sim = await startSimulation({
    client,
    ...(perNode ? { clientFor: perNode.clientFor } : {}),
    nodes,
    namePrefix: prefix,
    firstIndex: first,
    maxPods: count('max-pods', values['max-pods'], 1),
    config,
    leaseDurationSeconds,
    leaseRenewIntervalMs: leaseDurationSeconds * 250,
    scheduler: values['no-scheduler'] ? false : {},
    leaderElection: leaderElect === 'true',
    ...(server ? { address: values.address, port: server.port } : { port: 0 }),
    onError: (err) => process.stderr.write(`kplane kubelet: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  running = sim.kubelet;
  process.stderr.write(
    nodes === 0
      ? 'kplane kubelet: --nodes 0, nothing to run\n'
      : `kplane kubelet: ${nodes} node(s) ready: ${sim.kubelet.nodeNames.join(', ')}${sim.election ? '; scheduler contending for the Lease kube-system/kube-scheduler' : sim.scheduler ? '; scheduler running' : ''}\n`,
  );
  stopOnSignals(async () => {
    await server?.close();
    await sim.stop();
    perNode?.close();
    client.transport.close();
  });
}
