/**
 * The test control plane: kplane's API server on memory storage, every built-in controller,
 * a scheduler and simulated nodes in the test's own process, on one virtual clock, reached
 * through an in-process transport (or HTTPS on a free port).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transportAs, type Transport, type UserInfo } from '@kplane/api';
import type { ApiServer } from '@kplane/apiserver';
import { startControlPlane as startServer, type ControlPlane as ServerControlPlane, type ControlPlaneOptions as ServerOptions } from 'kplane';
import { createClient, type Client } from '@kplane/client';
import type { KubeletConfig } from '@kplane/kubelet';
import { createMemoryBackend } from '@kplane/storage';
import { createRealTrackingClock, createTestClock, isVirtual, REAL_TIME, type TestClock, type TrackingClock } from './clock.js';
import { settle, type SettleOptions, type SettleProbe } from './settle.js';
import { Traffic } from './traffic.js';

/** Options of `startControlPlane()`. */
export interface TestControlPlaneOptions {
  /** Simulated nodes, with a scheduler and a kubelet (default 3; 0: none, pods stay Pending). */
  nodes?: number;
  /** Run every built-in controller (default true); false: only the API server (and the nodes). */
  controllers?: boolean;
  /** Serve HTTPS on a free port of 127.0.0.1 and write a kubeconfig (default false: in-process only). */
  listen?: boolean;
  /** Folder of the PKI and kubeconfig when listening (default a new temporary folder, removed by `stop()`). */
  dataDir?: string;
  /**
   * Virtual time (default true): one fake clock, `cp.clock`, shared by the API server, the
   * controllers, the scheduler and the kubelet; it moves only through `cp.clock.advance(ms)` or
   * `cp.settle({ advance: true })`. False: the real clock.
   */
  virtualTime?: boolean;
  /** Where virtual time starts, ms since the epoch or a Date (default now, rounded down to the second). */
  startTime?: number | Date;
  /**
   * Wraps every in-process transport the control plane makes, named by who uses it: `admin`
   * (`cp.client`), `user/<name>` (`cp.clientFor`), `kube-controller-manager` (the controllers'
   * caches and leader election), `<name>-controller` (each controller's own ServiceAccount),
   * `kube-scheduler`, `kubelet` and `kubelet/<node>`. Fault injection and recorded calls plug in here.
   */
  wrapTransport?: (transport: Transport, who: string) => Transport;
  /** How simulated pods behave (delays, run durations, failures), as `kplane kubelet --config`. */
  kubeletConfig?: KubeletConfig;
  /**
   * More settings of the server, as `kplane up`'s flags (`eventTTLSeconds`,
   * `nodeMonitorGracePeriodMs`, `podGcPeriodMs`, `authorizationMode`, `leaderElection`...).
   */
  server?: Omit<ServerOptions, 'storage' | 'listen' | 'dataDir' | 'port' | 'backend' | 'bootstrapped' | 'clock' | 'wrapTransport' | 'controllers' | 'nodes' | 'kubeletConfig'>;
}

/** A running test control plane. */
export interface TestControlPlane {
  /** A client acting as the cluster's admin (namespace `default`). */
  readonly client: Client;
  /** A client acting as `user` (a user name, in group system:authenticated, or a whole UserInfo), authorised by RBAC. */
  clientFor(user: string | UserInfo): Client;
  /** The in-process transport, as the admin (wrapped by `wrapTransport` as `admin`). */
  readonly transport: Transport;
  /**
   * The clock of every component: pass it to your own `createManager({ clock: cp.clock })`.
   * Virtual unless `virtualTime: false` (then `advance` throws).
   */
  readonly clock: TestClock;
  /** Runs until idle (see `SettleOptions`); resolves with the virtual ms it moved. */
  settle(options?: SettleOptions): Promise<number>;
  /**
   * Moves virtual time forward by `ms`, letting the control plane run to idle at every timer on
   * the way (`settle({ advance: true, maxVirtualMs: ms })`): what a test usually wants, where
   * `clock.advance(ms)` fires every timer of the window at once before any of their work runs.
   */
  advance(ms: number): Promise<void>;
  /** What is busy now (empty when idle): for a test's own diagnostics. */
  busy(): string[];
  /** https://127.0.0.1:PORT and the admin kubeconfig's path, with `listen: true`. */
  readonly url?: string;
  readonly kubeconfigPath?: string;
  /** The API server serving now (another one after `restartApiServer()`). */
  readonly apiServer: ApiServer;
  /** The composition underneath (controller manager, simulation, backend). */
  readonly server: ServerControlPlane;
  /** Replaces the API server with a new one on the same storage: objects are kept, watches end and clients watch again. */
  restartApiServer(): Promise<void>;
  /** Stops the controller manager (it releases its Lease) and starts a new one, which lists and watches everything again. */
  restartControllerManager(): Promise<void>;
  /**
   * The controller manager loses its Lease, as when another instance takes it: its controllers
   * stop, and a standby controller manager starts, which becomes the leader once the taken Lease
   * expires (15 s of virtual time by default; `settle({ advance: true })` gets there).
   */
  loseLeadership(): Promise<void>;
  /** Stops every component and frees the storage (and the temporary folder). */
  stop(): Promise<void>;
}

/** The name of the Lease holder `loseLeadership()` writes. */
export const USURPER_IDENTITY = 'kplane-testing-usurper';

/**
 * What storage holds once a control plane has bootstrapped (namespaces, the bootstrap RBAC
 * policy, the controllers' ServiceAccounts and roles, the `kubernetes` Service...), by the
 * settings that shape it: a later control plane with the same settings starts from a copy
 * (a warm start) instead of writing it all again. Nodes, Leases, pods and events are left out.
 */
const bootImages = new Map<string, { key: string; value: string }[]>();
const NOT_IN_IMAGE = /^\/registry\/(leases|minions|events|pods)\//;

/** The settings a boot image depends on, or undefined when it must not be used. */
function imageKey(options: TestControlPlaneOptions): string | undefined {
  if (options.startTime !== undefined) return undefined; // restored timestamps would be in its future
  return JSON.stringify({ controllers: options.controllers ?? true, nodes: (options.nodes ?? 3) > 0, server: options.server ?? {} });
}

/** The user info of a user name: an authenticated user in no other group. */
function userInfo(user: string | UserInfo): UserInfo {
  if (typeof user !== 'string') return user.groups.includes('system:authenticated') ? user : { ...user, groups: [...user.groups, 'system:authenticated'] };
  return { username: user, groups: ['system:authenticated'] };
}

/**
 * Starts a control plane for a test: memory storage, the in-process transport (or HTTPS on port
 * 0 with `listen: true`), every built-in controller, 3 simulated nodes and the scheduler, on a
 * virtual clock. Many can run at once in one process; each is independent. Call `stop()` at
 * the end (e.g. in `after`/`afterEach`).
 */
export async function startControlPlane(options: TestControlPlaneOptions = {}): Promise<TestControlPlane> {
  const virtual = options.virtualTime ?? true;
  const start = options.startTime instanceof Date ? options.startTime.getTime() : options.startTime;
  const clock: TrackingClock = virtual ? createTestClock(start) : createRealTrackingClock();
  const traffic = new Traffic();
  const outer = options.wrapTransport ?? ((t: Transport) => t);
  const wrap = (t: Transport, who: string): Transport => traffic.wrap(outer(t, who), who);
  const listen = options.listen ?? false;
  const dataDir = listen ? (options.dataDir ?? (await mkdtemp(join(tmpdir(), 'kplane-test-')))) : undefined;
  const removeDir = listen && !options.dataDir;
  const backend = createMemoryBackend({ now: () => clock.now() });
  const image = imageKey(options);
  const restored = image !== undefined ? bootImages.get(image) : undefined;
  for (const kv of restored ?? []) await backend.create(kv.key, kv.value);
  let server: ServerControlPlane;
  try {
    server = await startServer({
      ...options.server,
      storage: 'memory',
      backend,
      bootstrapped: restored !== undefined,
      listen,
      dataDir,
      port: 0,
      controllerManagerPort: options.server?.controllerManagerPort ?? 0,
      controllerManagerLog: options.server?.controllerManagerLog ?? (() => undefined),
      clock,
      wrapTransport: wrap,
      controllers: options.controllers ?? true,
      nodes: options.nodes ?? 3,
      kubeletConfig: options.kubeletConfig,
    });
  } catch (err) {
    if (removeDir) await rm(dataDir!, { recursive: true, force: true });
    throw err;
  }
  const transport = wrap(server.transport, 'admin');
  const client = createClient({ transport, defaultNamespace: 'default' });
  const probe: SettleProbe = {
    clock,
    busy() {
      const out: string[] = [];
      for (const source of clock.activitySources()) if (source.busy()) out.push(source.name);
      const a = server.apiServer.activity();
      if (a.inFlight > 0) out.push(`${a.inFlight} request(s) in flight in the API server`);
      if (a.unreadWatchers > 0) out.push(`${a.unreadWatchers} watcher(s) with changes to read`);
      if (a.queuedWatchEvents > 0) out.push(`${a.queuedWatchEvents} watch event(s) queued for delivery`);
      for (const r of traffic.inFlight.values()) if (!r.endsWith('?watch')) out.push(`request ${r}`);
      return out;
    },
    progress: () => traffic.started * 1_000_003 + traffic.eventsRead,
  };
  let stopped: Promise<void> | undefined;
  const cp: TestControlPlane = {
    client,
    clientFor: (user) => {
      const info = userInfo(user);
      return createClient({ transport: wrap(transportAs(server.transport, info), `user/${info.username}`), defaultNamespace: 'default' });
    },
    transport,
    clock: (isVirtual(clock) ? clock : { ...notVirtual, ...clock }) as TestClock,
    settle: (o) => settle(probe, o),
    async advance(ms) {
      if (!isVirtual(clock)) throw new Error('the control plane runs on real time (virtualTime: false): it has no advance()');
      await settle(probe, { advance: true, maxVirtualMs: ms });
    },
    busy: () => probe.busy(),
    url: server.url,
    kubeconfigPath: server.kubeconfigPath,
    get apiServer() {
      return server.apiServer;
    },
    server,
    restartApiServer: () => server.restartApiServer(),
    restartControllerManager: () => server.restartControllerManager(),
    loseLeadership: () => loseLeadership(server, probe),
    stop() {
      stopped ??= (async () => {
        try {
          await server.stop();
        } finally {
          if (removeDir) await rm(dataDir!, { recursive: true, force: true });
        }
      })();
      return stopped;
    },
  };
  // Ready when it returns: the controller manager leads, caches are synced, the bootstrap is done.
  try {
    // Some components poll on timers while they start (the garbage collector waits for its
    // graph): time moves only while they wait, and no further than idleness.
    await settle(probe, { advance: true, maxVirtualMs: 10_000, until: () => true });
    if (image !== undefined && !bootImages.has(image)) {
      const items = (await backend.list('/registry/')).items;
      bootImages.set(image, items.filter((kv) => !NOT_IN_IMAGE.test(kv.key)).map(({ key, value }) => ({ key, value })));
    }
  } catch (err) {
    await cp.stop();
    throw err;
  }
  return cp;
}

/** What `cp.clock` offers beyond a Clock on real time: nothing, with a clear error. */
const notVirtual = {
  [REAL_TIME]: true,
  advance(): never {
    throw new Error('the control plane runs on real time (virtualTime: false): it has no advance()');
  },
  async advanceAsync(): Promise<never> {
    throw new Error('the control plane runs on real time (virtualTime: false): it has no advanceAsync()');
  },
  runNext: () => false,
  pendingTimers: () => 0,
  nextTimerAt: () => undefined,
};

const LEASE = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true } as const;

/**
 * Takes the controller manager's Lease for another holder, waits until the controller manager
 * sees it lost (on virtual time, moving the clock by its retry periods), then starts a standby.
 */
async function loseLeadership(server: ServerControlPlane, probe: SettleProbe): Promise<void> {
  const clock = probe.clock;
  const current = server.controllerManager;
  if (!current) throw new Error('loseLeadership: the control plane runs no controller manager');
  const admin = createClient({ transport: server.transport });
  const leases = admin.resource(LEASE);
  const lease = await leases.get('kube-controller-manager', { namespace: 'kube-system' });
  const spec = (lease.spec ?? {}) as Record<string, unknown>;
  const at = new Date(clock.now()).toISOString().replace(/Z$/, '000Z');
  await leases.update({
    ...lease,
    spec: { ...spec, holderIdentity: USURPER_IDENTITY, acquireTime: at, renewTime: at, leaseTransitions: Number(spec.leaseTransitions ?? 0) + 1 },
  });
  let ended = false;
  void current.done.then(() => (ended = true));
  const lost = () => ended || !current.manager.leading();
  if (isVirtual(probe.clock)) await settle(probe, { advance: true, until: lost, maxVirtualMs: 120_000 });
  else while (!lost()) await probe.clock.sleep(50);
  if (!lost()) throw new Error('loseLeadership: the controller manager did not notice that it lost its Lease');
  await current.stop();
  await server.startStandbyControllerManager();
}
