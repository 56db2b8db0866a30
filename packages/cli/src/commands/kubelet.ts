import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { clientFromKubeconfig } from '@kplane/client';
import { compileKubeletConfig, DEFAULT_MAX_PODS, DEFAULT_NODE_PREFIX, startSimulation, type KubeletConfig } from '@kplane/kubelet';
import { stopOnSignals } from './up.js';

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
  --node-lease-duration-seconds N
                        leaseDurationSeconds of the nodes' Leases (default 40), renewed every
                        quarter of it, as the kubelet's nodeLeaseDurationSeconds
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

/** Parses a whole number flag. */
function count(flag: string, text: string, min = 0): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}: must be a whole number >= ${min}, not ${text}`);
  return n;
}

/** `kplane kubelet`: runs until SIGINT or SIGTERM. */
export async function kubelet(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      kubeconfig: { type: 'string' },
      nodes: { type: 'string', default: '3' },
      'node-prefix': { type: 'string', default: DEFAULT_NODE_PREFIX },
      'first-node': { type: 'string', default: '0' },
      'max-pods': { type: 'string', default: String(DEFAULT_MAX_PODS) },
      config: { type: 'string' },
      'no-scheduler': { type: 'boolean', default: false },
      'node-lease-duration-seconds': { type: 'string', default: '40' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(KUBELET_USAGE);
    return;
  }
  const nodes = count('nodes', values.nodes);
  const leaseDurationSeconds = count('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const config = values.config ? await loadKubeletConfig(values.config) : undefined;
  const client = clientFromKubeconfig(values.kubeconfig, { userAgent: 'kplane-kubelet' });
  const sim = await startSimulation({
    client,
    nodes,
    namePrefix: values['node-prefix'],
    firstIndex: count('first-node', values['first-node']),
    maxPods: count('max-pods', values['max-pods'], 1),
    config,
    leaseDurationSeconds,
    leaseRenewIntervalMs: leaseDurationSeconds * 250,
    scheduler: values['no-scheduler'] ? false : {},
    onError: (err) => process.stderr.write(`kplane kubelet: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  process.stderr.write(
    nodes === 0
      ? 'kplane kubelet: --nodes 0, nothing to run\n'
      : `kplane kubelet: ${nodes} node(s) ready: ${sim.kubelet.nodeNames.join(', ')}${sim.scheduler ? '; scheduler running' : ''}\n`,
  );
  stopOnSignals(async () => {
    await sim.stop();
    client.transport.close();
  });
}
