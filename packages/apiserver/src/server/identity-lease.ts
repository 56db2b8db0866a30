/**
 * kube-apiserver's identity Leases (the APIServerIdentity feature, on by default): each API
 * server keeps a Lease `kube-system/apiserver-<hash>` labelled
 * `apiserver.kubernetes.io/identity=kube-apiserver` and `kubernetes.io/hostname`, with holder
 * `<lease name>_<uuid>` (new at every start), a duration of 3600 s and its renewTime written
 * every 10 s; every server deletes, every hour, the identity Leases that expired (a server that
 * went away). `kubectl -n kube-system get lease -l apiserver.kubernetes.io/identity=kube-apiserver`
 * counts the API servers.
 *
 * kube hashes the host name alone (one API server per host); kplane hashes the host name and
 * the serving port, so several servers on one machine each have their own Lease.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { ApiError, type KubeObject } from '@kplane/api';
import type { Registry } from '../registry/registry.js';

/** The label that marks an identity Lease, and its value for API servers. */
export const IDENTITY_LEASE_LABEL = 'apiserver.kubernetes.io/identity';
export const KUBE_APISERVER = 'kube-apiserver';
/** kube-apiserver's IdentityLeaseDurationSeconds, IdentityLeaseRenewIntervalPeriod and IdentityLeaseGCPeriod. */
export const IDENTITY_LEASE_DURATION_SECONDS = 3600;
export const IDENTITY_LEASE_RENEW_INTERVAL_MS = 10_000;
export const IDENTITY_LEASE_GC_PERIOD_MS = 3600_000;

/** RFC 4648 base32 without padding, lower-cased (kube's encoding of the hash). */
function base32(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** The identity of an API server: `apiserver-` and the base32 of the first 16 bytes of sha256(`host:port`). */
export function apiServerId(host: string, port: number): string {
  return `apiserver-${base32(createHash('sha256').update(`${host}:${port}`).digest().subarray(0, 16))}`;
}

/** A metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Options of createIdentityLease. */
export interface IdentityLeaseOptions {
  registry: Registry;
  port: number;
  now: () => Date;
  /** The host name in the label and the hash (default the OS's). */
  hostname?: string;
}

/** An API server's identity Lease: `renew()` every 10 s, `collect()` every hour. */
export interface IdentityLease {
  readonly name: string;
  readonly holderIdentity: string;
  /** Creates the Lease or writes its renewTime (and takes it over from a previous holder). */
  renew(): Promise<void>;
  /** Deletes the identity Leases of API servers whose Lease expired. */
  collect(): Promise<void>;
}

/** Creates the identity Lease of one API server. */
export function createIdentityLease(options: IdentityLeaseOptions): IdentityLease {
  const host = options.hostname ?? osHostname();
  const name = apiServerId(host, options.port);
  const holderIdentity = `${name}_${randomUUID()}`;
  const leases = () => options.registry.get('coordination.k8s.io', 'v1', 'leases');
  const labels = { [IDENTITY_LEASE_LABEL]: KUBE_APISERVER, 'kubernetes.io/hostname': host };
  const spec = () => ({ holderIdentity, leaseDurationSeconds: IDENTITY_LEASE_DURATION_SECONDS, renewTime: microTime(options.now().getTime()) });
  return {
    name,
    holderIdentity,
    async renew() {
      const store = leases();
      if (!store) return;
      try {
        await store.guaranteedUpdate('kube-system', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, ...labels } }, spec: { ...(cur.spec as object), ...spec() } }) as KubeObject);
        return;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
      try {
        await store.create('kube-system', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-system', labels }, spec: spec() } as KubeObject);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      }
    },
    async collect() {
      const store = leases();
      if (!store) return;
      const now = options.now().getTime();
      const list = await store.list('kube-system', { labelSelector: `${IDENTITY_LEASE_LABEL}=${KUBE_APISERVER}` });
      for (const lease of list.items) {
        const s = (lease.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
        const renewed = s.renewTime ? Date.parse(s.renewTime) : NaN;
        if (lease.metadata?.name === name || !Number.isFinite(renewed) || renewed + (s.leaseDurationSeconds ?? 0) * 1000 > now) continue;
        try {
          // Guarded by the version read: a Lease renewed meanwhile stays.
          await store.delete('kube-system', lease.metadata!.name!, { preconditions: { resourceVersion: lease.metadata!.resourceVersion } });
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
        }
      }
    },
  };
}
