/**
 * kube-apiserver's lease endpoint reconciler (`--endpoint-reconciler-type=lease`): every API
 * server keeps a record of its address under `/registry/masterleases/` in storage with a TTL
 * (15 s), refreshed every reconcile (10 s); the `kubernetes` Service's Endpoints and
 * EndpointSlice in `default` then list exactly the addresses whose records are alive. An API
 * server that dies stops refreshing, its record expires (storage's TTL, on storage's clock) and
 * the next reconcile of any other server drops it; one that stops cleanly deletes its record
 * first. Every server computes the same content from the same records, so they never fight.
 *
 * kplane keys a record by address and port (kube keys it by address alone, every server sharing
 * one port), so several servers on one machine with distinct ports are told apart: the
 * Endpoints then have one subset per port, and each further port gets its own EndpointSlice
 * `kubernetes-<port>` beside `kubernetes`.
 */
import { ApiError, type KubeObject } from '@kplane/api';
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type Backend } from '@kplane/storage';
import type { Registry } from '../registry/registry.js';
import { upsertDefault } from './kubernetes-service.js';

/** Where the records live in storage (kube-apiserver's `/masterleases/` under the etcd prefix). */
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';
/** kube-apiserver's DefaultEndpointReconcilerTTL. */
export const DEFAULT_ENDPOINT_RECONCILER_TTL_SECONDS = 15;
/** kube-apiserver's DefaultEndpointReconcilerInterval. */
export const DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS = 10_000;

/** Where one API server is reached. */
export interface ApiServerEndpoint {
  address: string;
  port: number;
}

/** Options of createLeaseEndpointReconciler. */
export interface LeaseEndpointReconcilerOptions {
  backend: Backend;
  registry: Registry;
  /** TTL of each record (default 15 s). */
  ttlSeconds?: number;
}

/** See createLeaseEndpointReconciler. */
export interface LeaseEndpointReconciler {
  /** Refreshes `self`'s record, then makes the Endpoints and EndpointSlices list every live server; resolves with them. */
  reconcile(self: ApiServerEndpoint): Promise<ApiServerEndpoint[]>;
  /** Deletes `self`'s record and reconciles without it (a clean shutdown); later reconciles are no-ops. */
  remove(self: ApiServerEndpoint): Promise<void>;
  /** The servers whose records are alive, sorted by address then port. */
  live(): Promise<ApiServerEndpoint[]>;
}

type Obj = Record<string, any>;

const recordName = (e: ApiServerEndpoint): string => `${e.address}:${e.port}`;

/** The ports of the `kubernetes` Service's endpoints, as kube-apiserver publishes them. */
export const endpointPorts = (port: number) => [{ name: 'https', port, protocol: 'TCP' }];

/** Compares addresses as kube sorts them (lexicographically), then ports. */
function byAddress(a: ApiServerEndpoint, b: ApiServerEndpoint): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port;
}

/** The Endpoints subsets for these servers: one per port (ascending), addresses sorted. */
export function endpointSubsets(servers: readonly ApiServerEndpoint[]): Obj[] {
  const byPort = new Map<number, Set<string>>();
  for (const s of servers) {
    const set = byPort.get(s.port) ?? new Set<string>();
    set.add(s.address);
    byPort.set(s.port, set);
  }
  return [...byPort.keys()]
    .sort((a, b) => a - b)
    .map((port) => ({ addresses: [...byPort.get(port)!].sort().map((ip) => ({ ip })), ports: endpointPorts(port) }));
}

/** Creates the lease endpoint reconciler of one API server. */
export function createLeaseEndpointReconciler(options: LeaseEndpointReconcilerOptions): LeaseEndpointReconciler {
  const { backend, registry } = options;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_ENDPOINT_RECONCILER_TTL_SECONDS;
  let stopped = false;
  // Reconciles run one at a time (kube's reconcilingLock).
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  /** Writes (or refreshes the TTL of) `self`'s record. */
  async function updateLease(self: ApiServerEndpoint): Promise<void> {
    const key = MASTER_LEASES_PREFIX + recordName(self);
    const value = JSON.stringify({
      kind: 'Endpoints',
      apiVersion: 'v1',
      metadata: { name: recordName(self) },
      subsets: [{ addresses: [{ ip: self.address }], ports: endpointPorts(self.port) }],
    });
    for (let attempt = 0; ; attempt++) {
      try {
        const current = await backend.get(key);
        if (current) await backend.update(key, value, current.modRevision, { ttlSeconds });
        else await backend.create(key, value, { ttlSeconds });
        return;
      } catch (err) {
        const raced = err instanceof RevisionMismatchError || err instanceof KeyNotFoundError || err instanceof KeyExistsError;
        if (!raced || attempt >= 3) throw err;
      }
    }
  }

  async function live(): Promise<ApiServerEndpoint[]> {
    const out: ApiServerEndpoint[] = [];
    for (const kv of (await backend.list(MASTER_LEASES_PREFIX)).items) {
      try {
        const subset = (JSON.parse(kv.value) as Obj).subsets?.[0];
        const ip = subset?.addresses?.[0]?.ip;
        const port = subset?.ports?.[0]?.port;
        if (typeof ip === 'string' && ip && typeof port === 'number') out.push({ address: ip, port });
      } catch {
        // A record that is not JSON names no server.
      }
    }
    return out.sort(byAddress);
  }

  /** Makes Endpoints and EndpointSlices list the live servers (never none: kube refuses to erase them all). */
  async function publish(): Promise<ApiServerEndpoint[]> {
    const servers = await live();
    if (servers.length === 0) return servers;
    const subsets = endpointSubsets(servers);
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      // Not mirrored to EndpointSlices by the mirroring controller: the slices are written here.
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    } as KubeObject;
    await upsertDefault(registry, 'endpoints', '', 'v1', endpoints, (cur) => JSON.stringify((cur as Obj).subsets) === JSON.stringify(subsets) && cur.metadata?.labels?.['endpointslice.kubernetes.io/skip-mirror'] === 'true');
    const wanted = new Set<string>();
    for (const [i, subset] of subsets.entries()) {
      const port = subset.ports[0].port as number;
      const name = i === 0 ? 'kubernetes' : `kubernetes-${port}`;
      wanted.add(name);
      const addresses = (subset.addresses as { ip: string }[]).map((a) => a.ip);
      const slice = {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: addresses[0]!.includes(':') ? 'IPv6' : 'IPv4',
        endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: subset.ports,
      } as KubeObject;
      await upsertDefault(registry, 'endpointslices', 'discovery.k8s.io', 'v1', slice, (cur) => {
        const c = cur as Obj;
        return JSON.stringify(c.endpoints) === JSON.stringify((slice as Obj).endpoints) && JSON.stringify(c.ports) === JSON.stringify((slice as Obj).ports);
      });
    }
    // Slices of ports no live server uses any more.
    const slices = registry.get('discovery.k8s.io', 'v1', 'endpointslices');
    if (!slices) return servers;
    const current = await slices.list('default', { labelSelector: 'kubernetes.io/service-name=kubernetes' });
    for (const s of current.items) {
      const name = s.metadata?.name ?? '';
      if (wanted.has(name) || !/^kubernetes-\d+$/.test(name)) continue;
      try {
        await slices.delete('default', name);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return servers;
  }

  /**
   * {@link publish}, again from a fresh read when another API server wrote the same objects in
   * between (a 409 Conflict or AlreadyExists: servers starting together all publish).
   */
  async function publishRetrying(): Promise<ApiServerEndpoint[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await publish();
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409) || attempt >= 4) throw err;
      }
    }
  }

  return {
    live,
    reconcile: (self) =>
      serial(async () => {
        if (stopped) return [];
        // The record first, whatever happens next: some server will publish this one.
        await updateLease(self);
        return publishRetrying();
      }),
    remove: (self) =>
      serial(async () => {
        stopped = true;
        try {
          await backend.delete(MASTER_LEASES_PREFIX + recordName(self));
        } catch (err) {
          if (!(err instanceof KeyNotFoundError)) throw err;
        }
        await publishRetrying();
      }),
  };
}
