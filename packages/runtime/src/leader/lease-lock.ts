/**
 * A coordination.k8s.io/v1 Lease used as a leader-election lock, in the manner of client-go's
 * resourcelock.LeaseLock: the election record lives in the Lease's spec, and every write
 * carries the resourceVersion of the last read (optimistic concurrency).
 */
import type { Client, ResourceClient } from '@kplane/client';
import type { Lease } from '../kinds/builtin/index.js';

/** What the election stores in a Lease spec (client-go's LeaderElectionRecord), times in ms. */
export interface LeaderElectionRecord {
  /** Identity of the holder; "" when released or never held. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** spec.acquireTime in epoch ms, when present. */
  acquireTime?: number;
  /** spec.renewTime in epoch ms, when present. */
  renewTime?: number;
  leaseTransitions: number;
}

/** The coordination.k8s.io/v1 Lease the lock reads and writes (the built-in kind's type). */
export type { Lease };

/** Where the lock lives. */
export interface LeaseLockOptions {
  client: Client;
  namespace: string;
  name: string;
}

/** The lock: get/create/update of the record, remembering the Lease last read or written. */
export interface LeaseLock {
  /** Reads the Lease; throws the client's ApiError (404 when absent). */
  get(signal?: AbortSignal): Promise<LeaderElectionRecord>;
  /** Creates the Lease holding `record`; a 409 AlreadyExists means another contender won. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /**
   * Replaces the spec of the Lease last read or written, with that object's resourceVersion;
   * a 409 Conflict means someone wrote it since. Throws if nothing was read yet.
   */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** "namespace/name", for messages. */
  describe(): string;
}

/** The leases resource of coordination.k8s.io/v1. */
export const leaseResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  namespaced: true,
  kind: 'Lease',
} as const;

/** Formats epoch ms as a metav1.MicroTime: RFC 3339 in UTC with six fraction digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Parses an RFC 3339 time (any fraction precision) to epoch ms; undefined when absent or invalid. */
export function parseMicroTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Reads the election record out of a Lease spec (absent fields are zero / empty). */
export function leaseToRecord(lease: Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  const record: LeaderElectionRecord = {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
  };
  const acquireTime = parseMicroTime(spec.acquireTime);
  if (acquireTime !== undefined) record.acquireTime = acquireTime;
  const renewTime = parseMicroTime(spec.renewTime);
  if (renewTime !== undefined) record.renewTime = renewTime;
  return record;
}

/** Writes the record as a Lease spec (the whole spec is replaced, as client-go does). */
export function recordToLeaseSpec(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  const spec: NonNullable<Lease['spec']> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  spec.leaseTransitions = record.leaseTransitions;
  return spec;
}

/** A canonical string of a record, to tell whether the Lease changed between two reads. */
export function recordKey(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaseTransitions,
  ]);
}

/** Creates a LeaseLock on `namespace/name`. */
export function createLeaseLock(options: LeaseLockOptions): LeaseLock {
  const { namespace, name } = options;
  const leases: ResourceClient<Lease> = options.client.resource<Lease>(leaseResource);
  let lease: Lease | undefined;

  return {
    async get(signal) {
      const got = await leases.get(name, { namespace, signal });
      lease = got;
      return leaseToRecord(got);
    },
    async create(record, signal) {
      const obj: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: recordToLeaseSpec(record),
      };
      lease = await leases.create(obj, { namespace, signal });
    },
    async update(record, signal) {
      if (lease === undefined) throw new Error('lease not initialized, call get or create first');
      const next: Lease = { ...lease, spec: recordToLeaseSpec(record) };
      lease = await leases.update(next, { namespace, signal });
    },
    describe: () => `${namespace}/${name}`,
  };
}
