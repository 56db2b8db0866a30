/**
 * The controller manager and the simulated nodes (scheduler, kubelet) of a control plane, on a
 * transport to its API server: the in-process handler, or a bridge to it from a worker thread.
 * This module loads neither the API server nor (until they start) the controllers or the nodes.
 */
import { serviceAccountUser, transportAs, type Transport } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import type { Simulation } from '@kplane/kubelet';
import type { ControllerManager, ControllerManagerOptions, SecureServingOptions, ServiceAccountClientFactory } from '@kplane/controllers';
import type { ControlPlaneOptions } from './control-plane.js';

/**
 * The controllers' package, loaded when first needed: after the API server answers, so that a
 * start serves before it has compiled the controllers (and a control plane without controllers
 * or nodes never loads them).
 */
export const controllersModule = () => import('@kplane/controllers');

/**
 * The User-Agents of the in-process components: their first segment names their writes in
 * managedFields (kube-controller-manager, kubelet, kube-scheduler), as on a real cluster.
 */
const CONTROLLER_MANAGER_AGENT = 'kube-controller-manager/kplane';
const KUBELET_AGENT = 'kubelet/kplane';
const SCHEDULER_AGENT = 'kube-scheduler/kplane';

/** A transport whose requests carry this User-Agent. */
export function withAgent(transport: Transport, agent: string): Transport {
  return (req) => transport({ ...req, headers: { ...req.headers, 'user-agent': agent } });
}

/**
 * Starts the scheduler and simulated kubelet for `options.nodes` nodes on the in-process
 * transport (none for 0); the API server reads their containers' logs and resource usage directly.
 */
export async function startNodes(serve: Transport, options: ControlPlaneOptions, stop: () => Promise<void>): Promise<Simulation | undefined> {
  if (!options.nodes) return undefined;
  const wrap = options.wrapTransport ?? ((t: Transport) => t);
  try {
    // Imported here: a control plane without nodes does not load the simulation.
    const { nodeUser, SCHEDULER_USER, simulationPolicy, startSimulation } = await import('@kplane/kubelet');
    // The roles of the scheduler's and the nodes' identities (system:kube-scheduler, system:node).
    // (A backend restored from a bootstrapped copy holds them already.)
    const { ensureClusterRole, ensureClusterRoleBinding } = await controllersModule();
    const admin = createClient({ transport: serve });
    const policy = simulationPolicy();
    for (const role of options.bootstrapped ? [] : policy.clusterRoles) await ensureClusterRole(admin, role);
    for (const binding of options.bootstrapped ? [] : policy.clusterRoleBindings) await ensureClusterRoleBinding(admin, binding);
    return await startSimulation({
      client: createClient({ transport: wrap(withAgent(serve, KUBELET_AGENT), 'kubelet') }),
      schedulerClient: createClient({ transport: wrap(withAgent(transportAs(serve, SCHEDULER_USER), SCHEDULER_AGENT), 'kube-scheduler') }),
      clientFor: (node) => createClient({ transport: wrap(withAgent(transportAs(serve, nodeUser(node)), KUBELET_AGENT), `kubelet/${node}`) }),
      nodes: options.nodes,
      config: options.kubeletConfig,
      clock: options.clock,
    });
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts the controller manager; when its HTTPS port is taken, warns and runs without it. */
export async function startControllers(
  serve: Transport,
  options: ControlPlaneOptions,
  serving: SecureServingOptions | undefined,
  serviceAccountTokens: ControllerManagerOptions['serviceAccountTokens'],
  clusterSigning?: ControllerManagerOptions['clusterSigning'],
  rootCA?: string,
): Promise<ControllerManager> {
  const { startControllerManager } = await controllersModule();
  const wrap = options.wrapTransport ?? ((t: Transport) => t);
  const transport = withAgent(serve, CONTROLLER_MANAGER_AGENT);
  const client: Client = createClient({ transport: wrap(transport, 'kube-controller-manager') });
  const serviceAccountClients: ServiceAccountClientFactory | undefined =
    options.useServiceAccountCredentials === false
      ? undefined
      : (account) => createClient({ transport: wrap(transportAs(transport, serviceAccountUser(account.namespace, account.name, account.uid)), account.name) });
  const common: ControllerManagerOptions = {
    client,
    clock: options.clock,
    leaderElection: options.leaderElection,
    log: options.controllerManagerLog,
    serviceAccountClients,
    identitiesExist: options.bootstrapped,
    serviceAccountTokens,
    clusterSigning,
    rootCA,
    horizontalPodAutoscaler: { syncPeriodMs: options.hpaSyncPeriodMs },
    nodeLifecycle: { gracePeriodMs: options.nodeMonitorGracePeriodMs },
    podGarbageCollector: { terminatedPodThreshold: options.terminatedPodGcThreshold, gcCheckPeriodMs: options.podGcPeriodMs, quarantineMs: options.podGcQuarantineMs },
  };
  try {
    return await startControllerManager({ ...common, serving });
  } catch (err) {
    if (!serving || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    process.stderr.write(`kplane controller-manager: port ${serving.port} is in use; running without /metrics and /healthz\n`);
    return startControllerManager(common);
  }
}
