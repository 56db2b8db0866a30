/**
 * The controller manager: kplane's kube-controller-manager. It runs the built-in controllers
 * in one runtime manager (shared informers, one Lease for leader election) and serves their
 * metrics and health over HTTPS.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Client } from '@kplane/client';
import { LeaderElectionLostError, createDelegatedAuth, createManager, serveMetrics, type Clock, type DelegatedAuthOptions, type Manager } from '@kplane/runtime';
import { createGarbageCollector, type GarbageCollectorOptions } from './garbagecollector/index.js';
import { createNamespaceController, type NamespaceControllerOptions } from './namespace/index.js';
import { createServiceAccountController, createTokensController, type TokensControllerOptions } from './serviceaccount/index.js';
import { createReplicaSetController } from './replicaset/index.js';
import { createReplicationControllerController } from './replicationcontroller/index.js';
import { createHorizontalPodAutoscalerController, type HorizontalPodAutoscalerControllerOptions } from './podautoscaler/index.js';
import { createDeploymentController } from './deployment/index.js';
import { createDaemonSetController } from './daemonset/index.js';
import { createStatefulSetController } from './statefulset/index.js';
import { createRootCACertPublisher } from './rootcacertpublisher/index.js';
import { createJobController } from './job/index.js';
import { createTtlAfterFinishedController } from './ttlafterfinished/index.js';
import { createEndpointsController } from './endpoints/index.js';
import { createEndpointSliceController } from './endpointslice/index.js';
import { CONTROLLER_ACCOUNT_NAMESPACE, controllerIdentity } from './identity/policy.js';
import { ensureControllerIdentity, existingAccounts, type ServiceAccountClientFactory } from './identity/reconcile.js';
import { createClusterRoleAggregationController } from './clusterrole-aggregation/index.js';
import { createCsrCleanerController, createCsrSigningController } from './certificates/index.js';
import { createCronJobController } from './cronjob/index.js';
import { createNodeLifecycleController, createTaintEvictionController, type NodeLifecycleOptions } from './nodelifecycle/index.js';
import { createDisruptionController } from './disruption/index.js';
import { createResourceQuotaController } from './resourcequota/index.js';
import { createPersistentVolumeBinderController, createPvProtectionController, createPvcProtectionController } from './volume/index.js';
import { createPodGarbageCollector, type PodGarbageCollectorOptions } from './podgc/index.js';
import type { SigningCa } from './certificates/sign.js';

/** Canonical controller names, as kube-controller-manager names them. */
export const CONTROLLER_NAMES = {
  garbageCollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  serviceAccount: 'serviceaccount-controller',
  serviceAccountToken: 'serviceaccount-token-controller',
  replicaSet: 'replicaset-controller',
  deployment: 'deployment-controller',
  daemonSet: 'daemonset-controller',
  statefulSet: 'statefulset-controller',
  clusterRoleAggregation: 'clusterrole-aggregation-controller',
  csrSigning: 'certificatesigningrequest-signing-controller',
  csrCleaner: 'certificatesigningrequest-cleaner-controller',
  rootCACertPublisher: 'root-ca-certificate-publisher-controller',
  replicationController: 'replicationcontroller-controller',
  horizontalPodAutoscaler: 'horizontal-pod-autoscaler-controller',
  job: 'job-controller',
  ttlAfterFinished: 'ttl-after-finished-controller',
  endpoints: 'endpoints-controller',
  endpointSlice: 'endpointslice-controller',
  cronJob: 'cronjob-controller',
  nodeLifecycle: 'node-lifecycle-controller',
  taintEviction: 'taint-eviction-controller',
  disruption: 'disruption-controller',
  resourceQuota: 'resourcequota-controller',
  persistentVolumeBinder: 'persistentvolume-binder-controller',
  pvcProtection: 'persistentvolumeclaim-protection-controller',
  pvProtection: 'persistentvolume-protection-controller',
  podGarbageCollector: 'pod-garbage-collector-controller',
} as const;

/** Every controller this manager knows, by canonical name. */
export const KNOWN_CONTROLLERS: readonly string[] = [
  CONTROLLER_NAMES.csrCleaner,
  CONTROLLER_NAMES.csrSigning,
  CONTROLLER_NAMES.clusterRoleAggregation,
  CONTROLLER_NAMES.cronJob,
  CONTROLLER_NAMES.daemonSet,
  CONTROLLER_NAMES.deployment,
  CONTROLLER_NAMES.disruption,
  CONTROLLER_NAMES.endpoints,
  CONTROLLER_NAMES.endpointSlice,
  CONTROLLER_NAMES.garbageCollector,
  CONTROLLER_NAMES.horizontalPodAutoscaler,
  CONTROLLER_NAMES.job,
  CONTROLLER_NAMES.namespace,
  CONTROLLER_NAMES.nodeLifecycle,
  CONTROLLER_NAMES.persistentVolumeBinder,
  CONTROLLER_NAMES.pvProtection,
  CONTROLLER_NAMES.pvcProtection,
  CONTROLLER_NAMES.podGarbageCollector,
  CONTROLLER_NAMES.replicaSet,
  CONTROLLER_NAMES.replicationController,
  CONTROLLER_NAMES.resourceQuota,
  CONTROLLER_NAMES.rootCACertPublisher,
  CONTROLLER_NAMES.serviceAccount,
  CONTROLLER_NAMES.serviceAccountToken,
  CONTROLLER_NAMES.statefulSet,
  CONTROLLER_NAMES.taintEviction,
  CONTROLLER_NAMES.ttlAfterFinished,
];

/** The older names --controllers also accepts, mapped to canonical names. */
export const CONTROLLER_ALIASES: Readonly<Record<string, string>> = {
  garbagecollector: CONTROLLER_NAMES.garbageCollector,
  namespace: CONTROLLER_NAMES.namespace,
  serviceaccount: CONTROLLER_NAMES.serviceAccount,
  'serviceaccount-token': CONTROLLER_NAMES.serviceAccountToken,
  replicaset: CONTROLLER_NAMES.replicaSet,
  deployment: CONTROLLER_NAMES.deployment,
  daemonset: CONTROLLER_NAMES.daemonSet,
  statefulset: CONTROLLER_NAMES.statefulSet,
  'clusterrole-aggregation': CONTROLLER_NAMES.clusterRoleAggregation,
  csrsigning: CONTROLLER_NAMES.csrSigning,
  csrcleaner: CONTROLLER_NAMES.csrCleaner,
  'root-ca-cert-publisher': CONTROLLER_NAMES.rootCACertPublisher,
  replicationcontroller: CONTROLLER_NAMES.replicationController,
  horizontalpodautoscaling: CONTROLLER_NAMES.horizontalPodAutoscaler,
  job: CONTROLLER_NAMES.job,
  'ttl-after-finished': CONTROLLER_NAMES.ttlAfterFinished,
  endpoint: CONTROLLER_NAMES.endpoints,
  endpointslice: CONTROLLER_NAMES.endpointSlice,
  cronjob: CONTROLLER_NAMES.cronJob,
  nodelifecycle: CONTROLLER_NAMES.nodeLifecycle,
  disruption: CONTROLLER_NAMES.disruption,
  resourcequota: CONTROLLER_NAMES.resourceQuota,
  'persistentvolume-binder': CONTROLLER_NAMES.persistentVolumeBinder,
  'pvc-protection': CONTROLLER_NAMES.pvcProtection,
  'pv-protection': CONTROLLER_NAMES.pvProtection,
  podgc: CONTROLLER_NAMES.podGarbageCollector,
};

/** The Lease kube-controller-manager elects its leader with. */
export const CONTROLLER_MANAGER_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager' } as const;

/** The default HTTPS port of the controller manager (kube-controller-manager's --secure-port). */
export const DEFAULT_SECURE_PORT = 10257;

/**
 * Checks --controllers selectors ("*", "name", "-name", canonical names or aliases) and returns
 * one message per unknown name, worded as kube-controller-manager's validation.
 */
export function validateControllerSelectors(selectors: readonly string[]): string[] {
  const errors: string[] = [];
  for (const selector of selectors) {
    if (selector === '*') continue;
    const name = selector.startsWith('-') ? selector.slice(1) : selector;
    if (!KNOWN_CONTROLLERS.includes(CONTROLLER_ALIASES[name] ?? name)) errors.push(`"${name}" is not in the list of known controllers`);
  }
  return errors;
}

/**
 * Is a controller (canonical name) enabled by the selectors? The first selector naming it
 * decides ("name" on, "-name" off); otherwise "*" enables every controller that is not
 * disabled by default. Aliases count as their canonical names.
 */
export function isControllerEnabled(name: string, selectors: readonly string[], disabledByDefault: readonly string[] = []): boolean {
  let star = false;
  for (const selector of selectors) {
    const off = selector.startsWith('-');
    const raw = off ? selector.slice(1) : selector;
    if (raw === '*' && !off) {
      star = true;
      continue;
    }
    if ((CONTROLLER_ALIASES[raw] ?? raw) === name) return !off;
  }
  return star && !disabledByDefault.includes(name);
}

/** HTTPS serving of /metrics and the health endpoints. */
export interface SecureServingOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 10257); 0 picks a free one. */
  port?: number;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** CA whose client certificates name a user (CN) and groups (O) for /metrics (PEM). */
  clientCa?: string;
  /**
   * Delegated authentication and authorization of /metrics (kube-controller-manager's
   * --authentication-* / --authorization-* flags): TokenReview and SubjectAccessReview through
   * the manager's client, cached 10 s; system:masters always allowed; /healthz, /livez and
   * /readyz open to all.
   */
  delegation?: Omit<DelegatedAuthOptions, 'client' | 'clock'>;
}

/** Options of startControllerManager. */
export interface ControllerManagerOptions {
  client: Client;
  /** --controllers selectors (default ["*"]). */
  controllers?: readonly string[];
  /** Elect a leader on the Lease kube-system/kube-controller-manager (default true). */
  leaderElect?: boolean;
  /** Leader election identity and timing (client-go defaults: 15 s lease, 10 s renew deadline, 2 s retry). */
  leaderElection?: { identity?: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Serve /metrics, /healthz, /livez and /readyz over HTTPS; absent: no server. */
  serving?: SecureServingOptions;
  /** Time source (default the real clock). */
  clock?: Clock;
  /** Tuning of the namespace controller. */
  namespaceController?: Omit<NamespaceControllerOptions, 'manager'>;
  /** The node lifecycle controller's grace periods (--node-monitor-grace-period, --node-startup-grace-period). */
  nodeLifecycle?: Pick<NodeLifecycleOptions, 'gracePeriodMs' | 'startupGracePeriodMs'>;
  /** Tuning of the horizontal-pod-autoscaler controller (its sync period: --horizontal-pod-autoscaler-sync-period). */
  horizontalPodAutoscaler?: Pick<HorizontalPodAutoscalerControllerOptions, 'syncPeriodMs' | 'tolerance'>;
  /** Tuning of the pod garbage collector (its threshold: --terminated-pod-gc-threshold). */
  podGarbageCollector?: Pick<PodGarbageCollectorOptions, 'terminatedPodThreshold' | 'gcCheckPeriodMs' | 'quarantineMs'>;
  /** Tuning of the garbage collector. */
  garbageCollector?: Omit<GarbageCollectorOptions, 'manager' | 'client' | 'clock' | 'metrics'>;
  /**
   * The cluster CA certificate (PEM) the root CA certificate publisher puts in each namespace's
   * kube-root-ca.crt; absent: that controller does not run.
   */
  rootCA?: string;
  /** Log lines (default: stderr). */
  log?: (message: string) => void;
  /**
   * Run each controller as its own ServiceAccount (kube-controller-manager's
   * --use-service-account-credentials): at start the accounts `kube-system/<name>-controller`,
   * their ClusterRoles and bindings are created or reconciled through `client`, and each
   * controller's writes go through the client this factory builds for its account. The shared
   * caches and leader election keep using `client`. Absent: every controller uses `client`.
   */
  serviceAccountClients?: ServiceAccountClientFactory;
  /**
   * The controllers' ServiceAccounts, ClusterRoles and ClusterRoleBindings already exist as
   * this controller manager would make them (storage restored from a copy taken after such a
   * start): the accounts are read with one list of kube-system's ServiceAccounts instead of
   * being ensured one request at a time. An account missing from that list is ensured as usual.
   */
  identitiesExist?: boolean;
  /**
   * The CA the CSR signer signs with (--cluster-signing-cert-file / --cluster-signing-key-file);
   * absent: the signing controller is not started.
   */
  clusterSigning?: { ca: SigningCa; durationMs?: number };
  /**
   * The token controller's signer and CA bundle (kube-controller-manager's
   * --service-account-private-key-file and --root-ca-file); absent: that controller does not run.
   */
  serviceAccountTokens?: Omit<TokensControllerOptions, 'manager'>;
}

/** A running controller manager. */
export interface ControllerManager {
  readonly manager: Manager;
  /** Canonical names of the controllers started. */
  readonly controllers: readonly string[];
  /** The leader election identity. */
  readonly identity: string;
  /** The HTTPS port and base URL, when serving. */
  readonly port?: number;
  readonly url?: string;
  /** Resolves once every controller has stopped. */
  readonly done: Promise<void>;
  /** Stops the controllers (releasing the Lease) and the HTTPS server. */
  stop(): Promise<void>;
}

/**
 * The manager a controller is registered on: the shared one, or, with service account
 * credentials, a view of it whose client acts as the controller's account (same caches,
 * metrics, clock and runnables).
 */
async function managerFor(controller: string, manager: Manager, options: ControllerManagerOptions, log: (m: string) => void, existing?: ReadonlyMap<string, string>): Promise<Manager> {
  const id = controllerIdentity(controller);
  if (!options.serviceAccountClients || !id) return manager;
  const uid = existing?.get(id.account);
  if (uid !== undefined) return { ...manager, client: await options.serviceAccountClients({ namespace: CONTROLLER_ACCOUNT_NAMESPACE, name: id.account, uid }) };
  // The API server may still be starting (a separate controller manager): try again a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      const account = await ensureControllerIdentity(options.client, id);
      return { ...manager, client: await options.serviceAccountClients(account) };
    } catch (err) {
      if (attempt >= 5) throw err;
      log(`creating the identity of ${controller} failed (retrying): ${err instanceof Error ? err.message : String(err)}`);
      await manager.clock.sleep(Math.min(500 * 2 ** attempt, 8000));
    }
  }
}

/**
 * Starts the controller manager: validates the selectors, registers the enabled controllers,
 * starts the HTTPS server (if asked) and runs the runtime manager in the background. Resolves
 * once serving; the controllers start when the caches have synced and, with leader election,
 * once this process holds the Lease.
 *
 * Errors: throws on unknown controller names (nothing is started) and when the HTTPS port
 * cannot be bound.
 */
export async function startControllerManager(options: ControllerManagerOptions): Promise<ControllerManager> {
  const selectors = options.controllers ?? ['*'];
  const errors = validateControllerSelectors(selectors);
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  const log = options.log ?? ((m: string) => process.stderr.write(`kplane controller-manager: ${m}\n`));
  const leaderElect = options.leaderElect ?? true;
  const identity = options.leaderElection?.identity ?? `${hostname()}_${randomUUID()}`;
  const lease = `${CONTROLLER_MANAGER_LEASE.namespace}/${CONTROLLER_MANAGER_LEASE.name}`;
  const manager = createManager({
    client: options.client,
    clock: options.clock,
    leaderElection: leaderElect ? { ...CONTROLLER_MANAGER_LEASE, ...options.leaderElection, identity } : undefined,
    onLeadershipLost: () => undefined,
    onCacheError: (resource, err) => log(`watch of ${resource} failed (retrying): ${err instanceof Error ? err.message : String(err)}`),
  });

  const enabled: string[] = [];
  const starters: Record<string, (m: Manager) => void> = {
    [CONTROLLER_NAMES.namespace]: (m) => createNamespaceController({ ...options.namespaceController, manager: m }),
    [CONTROLLER_NAMES.serviceAccount]: (m) => createServiceAccountController({ manager: m }),
    ...(options.serviceAccountTokens ? { [CONTROLLER_NAMES.serviceAccountToken]: (m: Manager) => createTokensController({ ...options.serviceAccountTokens!, manager: m }) } : {}),
    // The collector follows the resources the controllers cache through their informers (one watch each).
    [CONTROLLER_NAMES.garbageCollector]: (m) => m.add(createGarbageCollector({ informers: m.factory, ...options.garbageCollector, manager: m })),
    [CONTROLLER_NAMES.replicaSet]: (m) => createReplicaSetController(m),
    [CONTROLLER_NAMES.deployment]: (m) => createDeploymentController(m),
    [CONTROLLER_NAMES.replicationController]: (m) => createReplicationControllerController(m),
    [CONTROLLER_NAMES.horizontalPodAutoscaler]: (m) => createHorizontalPodAutoscalerController(m, options.horizontalPodAutoscaler),
    [CONTROLLER_NAMES.daemonSet]: (m) => createDaemonSetController(m),
    [CONTROLLER_NAMES.job]: (m) => createJobController(m),
    [CONTROLLER_NAMES.ttlAfterFinished]: (m) => createTtlAfterFinishedController(m),
    [CONTROLLER_NAMES.resourceQuota]: (m) => createResourceQuotaController(m),
    [CONTROLLER_NAMES.endpoints]: (m) => createEndpointsController(m),
    [CONTROLLER_NAMES.endpointSlice]: (m) => createEndpointSliceController(m),
    [CONTROLLER_NAMES.statefulSet]: (m) => createStatefulSetController(m),
    [CONTROLLER_NAMES.clusterRoleAggregation]: (m) => createClusterRoleAggregationController({ manager: m }),
    [CONTROLLER_NAMES.csrCleaner]: (m) => createCsrCleanerController({ manager: m }),
    [CONTROLLER_NAMES.cronJob]: (m) => createCronJobController(m),
    [CONTROLLER_NAMES.nodeLifecycle]: (m) => createNodeLifecycleController(m, options.nodeLifecycle),
    [CONTROLLER_NAMES.taintEviction]: (m) => createTaintEvictionController(m),
    [CONTROLLER_NAMES.disruption]: (m) => createDisruptionController(m),
    [CONTROLLER_NAMES.persistentVolumeBinder]: (m) => createPersistentVolumeBinderController(m),
    [CONTROLLER_NAMES.pvcProtection]: (m) => createPvcProtectionController(m),
    [CONTROLLER_NAMES.pvProtection]: (m) => createPvProtectionController(m),
    [CONTROLLER_NAMES.podGarbageCollector]: (m) => m.add(createPodGarbageCollector(m, options.podGarbageCollector)),
    ...(options.rootCA !== undefined ? { [CONTROLLER_NAMES.rootCACertPublisher]: (m: Manager) => createRootCACertPublisher({ manager: m, rootCA: options.rootCA! }) } : {}),
  };
  const signing = options.clusterSigning;
  if (signing) starters[CONTROLLER_NAMES.csrSigning] = (m) => createCsrSigningController({ manager: m, ca: signing.ca, durationMs: signing.durationMs });
  const accounts = options.identitiesExist && options.serviceAccountClients ? await existingAccounts(options.client) : undefined;
  for (const name of KNOWN_CONTROLLERS) {
    const start = starters[name];
    if (!start || !isControllerEnabled(name, selectors)) continue;
    start(await managerFor(name, manager, options, log, accounts));
    enabled.push(name);
  }
  if (leaderElect) {
    manager.add({
      needLeaderElection: true,
      async start(signal) {
        log(`successfully acquired lease ${lease} as ${identity}; started ${enabled.join(', ') || 'no controllers'}`);
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      },
    });
  }

  const serving = options.serving;
  const served = serving
    ? await serveMetrics({
        ...serving,
        port: serving.port ?? DEFAULT_SECURE_PORT,
        metrics: manager.metrics,
        healthy: () => manager.healthy(),
        auth: createDelegatedAuth({ ...serving.delegation, client: options.client, clock: options.clock }),
        onError: (err) => log(`metrics server: ${err instanceof Error ? err.message : String(err)}`),
      })
    : undefined;
  if (served) log(`serving securely on ${served.url}`);
  if (leaderElect) log(`attempting to acquire leader lease ${lease}...`);
  else log(`leader election disabled; starting ${enabled.join(', ') || 'no controllers'}`);
  const abort = new AbortController();
  const done = manager.start(abort.signal).then(
    () => {
      if (!abort.signal.aborted) log('leaderelection lost');
    },
    // A lost Lease ends `done`; whoever started the controller manager decides what follows.
    (err: unknown) => log(err instanceof LeaderElectionLostError ? 'leaderelection lost' : `stopped: ${err instanceof Error ? err.message : String(err)}`),
  );
  let stopping: Promise<void> | undefined;
  return {
    manager,
    controllers: enabled,
    identity,
    port: served?.port,
    url: served?.url,
    done,
    stop() {
      stopping ??= (async () => {
        abort.abort();
        try {
          await done;
        } finally {
          await served?.close();
        }
      })();
      return stopping;
    },
  };
}
