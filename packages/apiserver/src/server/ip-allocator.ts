/**
 * Service ClusterIP and NodePort allocation, as kube-apiserver 1.32's bitmap allocators do it by
 * default: one range of addresses (`--service-cluster-ip-range`) and one of ports
 * (`--service-node-port-range`), each split into a low static block (handed out only on
 * request, or when the rest is full) and the dynamic block random allocations come from first.
 *
 * Each range is a bitmap kept in storage as a `RangeAllocation` (`/registry/ranges/serviceips`,
 * `/registry/ranges/servicenodeports`), so that every API server over one storage shares it:
 * an allocation or a release is a compare-and-swap of the whole bitmap at the revision last
 * read, read again and retried when another API server wrote it first. The repair loop rebuilds
 * the bitmap from the stored Services (`repair`).
 */
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type Backend } from '@kplane/storage';

/** A refused allocation; the message is kube-apiserver's. */

/** A repair that lost a race with an allocation (or another server's repair): it must run again on a fresh read. */
export class RepairRaceError extends Error {
  override name = 'RepairRaceError';
}

export class AllocationError extends Error {}

/** kube-apiserver's allocator messages. */
export const IP_ALREADY_ALLOCATED = 'provided IP is already allocated';
export const PORT_ALREADY_ALLOCATED = 'provided port is already allocated';

/** Storage keys of the two ranges, as kube-apiserver's. */
export const SERVICE_IPS_KEY = '/registry/ranges/serviceips';
export const SERVICE_NODE_PORTS_KEY = '/registry/ranges/servicenodeports';

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function isIPv4(ip: string): boolean {
  const parts = ip.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** How many repairs in a row must find a value held by no Service before it is released (kube's numRepairsBeforeLeakCleanup). */
export const LEAK_REPAIRS = 3;

/** How many times a write of a range is tried against concurrent writers before it fails. */
const CAS_ATTEMPTS = 32;

const has = (bits: Uint8Array, offset: number): boolean => (bits[offset >> 3]! & (1 << (offset & 7))) !== 0;
const set = (bits: Uint8Array, offset: number): void => {
  bits[offset >> 3]! |= 1 << (offset & 7);
};
const clear = (bits: Uint8Array, offset: number): void => {
  bits[offset >> 3]! &= ~(1 << (offset & 7));
};

/**
 * The stored form of a range: kube's RangeAllocation, `data` the bitmap as the big-endian bytes
 * of an integer whose bit N is offset N (Go's big.Int.Bytes()), base64 in JSON.
 */
function encodeRange(range: string, bits: Uint8Array): string {
  let top = bits.length - 1;
  while (top >= 0 && bits[top] === 0) top--;
  const bytes = Buffer.from(bits.subarray(0, top + 1)).reverse();
  return JSON.stringify({ kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: null }, range, data: bytes.toString('base64') });
}

/** The bitmap of a stored RangeAllocation of `range` (an empty one when it names another range). */
function decodeRange(value: string, range: string, size: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(size / 8));
  const stored = JSON.parse(value) as { range?: string; data?: string };
  if (stored.range !== range) return bits;
  const bytes = Buffer.from(stored.data ?? '', 'base64').reverse();
  bits.set(bytes.subarray(0, bits.length));
  // Bits past the range's end (a stored map of a larger range) are not ours.
  for (let o = size; o < bits.length * 8; o++) clear(bits, o);
  return bits;
}

/** A range's bitmap as read, with its revision (0: never stored). */
interface RangeSnapshot {
  bits: Uint8Array;
  revision: number;
}

/**
 * A range of `size` values (offsets 0..size-1) with a static block of the first `staticSize`:
 * its bitmap, in storage when a backend is given (else in memory only).
 */
class Range {
  private bits: Uint8Array;
  /** The stored bitmap's modRevision; 0: not stored yet; -1: read it again. */
  private revision = -1;
  private readonly leaks = new Map<number, number>();
  leaksReleased = 0;

  constructor(
    readonly size: number,
    readonly staticSize: number,
    private readonly random: () => number,
    private readonly range: string,
    private readonly backend?: Backend,
    private readonly key?: string,
  ) {
    this.bits = new Uint8Array(Math.ceil(size / 8));
    if (!backend) this.revision = 0;
  }

  private async load(): Promise<void> {
    const kv = await this.backend!.get(this.key!);
    this.bits = kv ? decodeRange(kv.value, this.range, this.size) : new Uint8Array(Math.ceil(this.size / 8));
    this.revision = kv ? kv.modRevision : 0;
  }

  /**
   * Applies `change` to a copy of the bitmap and stores it guarded by the revision read
   * (kube's GuaranteedUpdate); `change` runs again on the fresh bitmap after a conflict. A
   * change that returns `changed: false` writes nothing.
   */
  private update<T>(change: (bits: Uint8Array) => { result: T; changed: boolean }, dryRun = false): Promise<T> {
    if (dryRun) return this.check(change);
    // One write at a time from this API server: only other API servers' writes conflict.
    const run = this.queue.then(() => this.tryUpdate(change));
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private queue: Promise<void> = Promise.resolve();

  /** A dry run of `change` on the bitmap as stored now: its answer, nothing written. */
  private async check<T>(change: (bits: Uint8Array) => { result: T; changed: boolean }): Promise<T> {
    if (!this.backend) return change(this.bits.slice()).result;
    const kv = await this.backend.get(this.key!);
    return change(kv ? decodeRange(kv.value, this.range, this.size) : new Uint8Array(this.bits.length)).result;
  }

  private async tryUpdate<T>(change: (bits: Uint8Array) => { result: T; changed: boolean }): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const fresh = this.revision < 0;
      if (fresh) await this.load();
      const next = this.bits.slice();
      const { result, changed } = change(next);
      if (!changed) {
        // Nothing to write (a value held, a full range) as far as the copy last read tells:
        // another API server may have released since, so only a fresh read answers.
        if (fresh || !this.backend) return result;
        this.revision = -1;
        continue;
      }
      if (!this.backend) {
        this.bits = next;
        return result;
      }
      const value = encodeRange(this.range, next);
      try {
        const kv = this.revision === 0 ? await this.backend.create(this.key!, value) : await this.backend.update(this.key!, value, this.revision);
        this.bits = next;
        this.revision = kv.modRevision;
        return result;
      } catch (err) {
        if (!(err instanceof RevisionMismatchError || err instanceof KeyExistsError || err instanceof KeyNotFoundError)) throw err;
        this.revision = -1;
        if (attempt >= CAS_ATTEMPTS) throw new Error(`cannot allocate resources of type ${this.key} at this time`);
      }
    }
  }

  /** Takes `offset`: false when it is held already. A dry run only checks. */
  async take(offset: number, dryRun = false): Promise<boolean> {
    return this.update((bits) => {
      if (has(bits, offset)) return { result: false, changed: false };
      set(bits, offset);
      return { result: true, changed: true };
    }, dryRun);
  }

  /** A free offset (dynamic block first, from a random start), taken; undefined when full. */
  async next(dryRun = false): Promise<number | undefined> {
    return this.update((bits) => {
      const scan = (from: number, to: number): number | undefined => {
        const n = to - from;
        if (n <= 0) return undefined;
        const start = Math.floor(this.random() * n);
        for (let i = 0; i < n; i++) {
          const o = from + ((start + i) % n);
          if (!has(bits, o)) return o;
        }
        return undefined;
      };
      const o = scan(this.staticSize, this.size) ?? scan(0, this.staticSize);
      if (o !== undefined) set(bits, o);
      return { result: o, changed: o !== undefined };
    }, dryRun);
  }

  /** Releases the offsets. */
  async release(offsets: readonly number[]): Promise<void> {
    if (offsets.length === 0) return;
    await this.update((bits) => {
      let changed = false;
      for (const o of offsets) {
        if (has(bits, o)) {
          clear(bits, o);
          changed = true;
        }
      }
      return { result: undefined, changed };
    });
  }

  /** The bitmap as stored now, for a repair: read it before the Services are listed. */
  async snapshot(): Promise<RangeSnapshot> {
    if (this.backend) await this.load();
    return { bits: this.bits, revision: this.revision };
  }

  /**
   * kube's repair, given the bitmap read before the Services were listed: `rebuild` marks what
   * the Services hold (told by `stored` whether the snapshot had it); a value no Service holds
   * is kept for LEAK_REPAIRS repairs (a create between the snapshot and the listing holds one
   * for a moment) and then released; the result is stored at the snapshot's revision, so a
   * conflict (someone allocated meanwhile) fails this repair and the next one runs again.
   */
  async repair(snapshot: RangeSnapshot, rebuild: (bits: Uint8Array, stored: (offset: number) => boolean) => void): Promise<void> {
    const stored = snapshot.bits;
    const next = new Uint8Array(stored.length);
    // A range never stored (a new cluster, or data kept from before ranges were stored) has
    // nothing to tell: every Service's values are taken in silently.
    rebuild(next, (o) => snapshot.revision === 0 || has(stored, o));
    let released = 0;
    for (const o of [...this.leaks.keys()]) if (has(next, o) || !has(stored, o)) this.leaks.delete(o);
    for (let o = 0; o < this.size; o++) {
      if (!has(stored, o) || has(next, o)) continue;
      const seen = (this.leaks.get(o) ?? 0) + 1;
      if (seen >= LEAK_REPAIRS) {
        this.leaks.delete(o);
        released++;
      } else {
        this.leaks.set(o, seen);
        set(next, o);
      }
    }
    if (this.backend) {
      const value = encodeRange(this.range, next);
      try {
        const kv = snapshot.revision === 0 ? await this.backend.create(this.key!, value) : await this.backend.update(this.key!, value, snapshot.revision);
        this.revision = kv.modRevision;
      } catch (err) {
        if (err instanceof RevisionMismatchError || err instanceof KeyExistsError || err instanceof KeyNotFoundError) {
          this.revision = -1;
          throw new RepairRaceError(`${this.key} changed during the repair; it runs again at the next interval`);
        }
        throw err;
      }
    }
    this.bits = next;
    this.leaksReleased += released;
  }

  /** How many values the bitmap last read holds. */
  get used(): number {
    let n = 0;
    for (const b of this.bits) for (let v = b; v; v &= v - 1) n++;
    return n;
  }
}

/** A stored Service as repair reads it. */
export interface AllocatedService {
  /** The owner key (the Service's uid). */
  owner: string;
  /** namespace/name, for messages. */
  name: string;
  clusterIPs: string[];
  nodePorts: number[];
}

/** A problem repair found, as kube-apiserver's repair controllers report them (an Event on the Service). */
export interface RepairProblem {
  service: string;
  owner: string;
  reason: 'ClusterIPOutOfRange' | 'ClusterIPAlreadyAllocated' | 'ClusterIPNotAllocated' | 'PortOutOfRange' | 'PortAlreadyAllocated' | 'PortNotAllocated';
  message: string;
}

/** The ClusterIP and NodePort allocators of one API server. */
export interface ServiceAllocator {
  /** The Service CIDR, e.g. 10.96.0.0/12. */
  readonly cidr: string;
  /** The NodePort range as kube prints it, e.g. 30000-32767. */
  readonly portRange: string;
  /** The `kubernetes` Service's address: the range's first. */
  readonly kubernetesIP: string;
  /** Allocates `requested` (or any free address); rejects with AllocationError and kube's message. */
  allocateIP(requested?: string): Promise<string>;
  /** Allocates `requested` (or any free port); rejects with AllocationError and kube's message. */
  allocateNodePort(requested?: number): Promise<number>;
  /** Releases these values. */
  release(ips: readonly string[], ports: readonly number[]): Promise<void>;
  /**
   * Rebuilds the allocations from the stored Services (`list` gives them, oldest first, and is
   * called after the bitmaps were read); returns the problems found. A value no Service holds is
   * released at the LEAK_REPAIRS-th repair in a row that finds it so.
   */
  repair(list: () => Promise<readonly AllocatedService[]>): Promise<RepairProblem[]>;
  /** How many leaked values repairs released so far. */
  readonly leaksReleased: number;
  /** Addresses and ports in use as last read (for metrics and tests). */
  usage(): { ips: number; ports: number };
  /**
   * The allocators of a dry run (kube's dry-run allocators): allocations are checked against
   * the bitmaps as stored and answered, nothing is written, releases do nothing.
   */
  readonly dryRun: ServiceAllocator;
}

/** Parses a NodePort range "30000-32767" (or a single port) into [base, size]. */
export function parsePortRange(range: string): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
  const lo = Number(m?.[1]);
  const hi = m?.[2] === undefined ? lo : Number(m[2]);
  if (!m || lo < 1 || hi > 65535 || hi < lo) throw new Error(`invalid port range ${range}`);
  return [lo, hi - lo + 1];
}

/** Options of createServiceAllocator. */
export interface ServiceAllocatorOptions {
  cidr?: string;
  portRange?: string;
  random?: () => number;
  /** Where the two bitmaps are kept (shared by every API server over it); absent: in memory only. */
  backend?: Backend;
}

/**
 * Creates the allocators over an IPv4 CIDR and a NodePort range. The network and broadcast
 * addresses are never handed out; offset 0 is the `kubernetes` Service's address.
 */
export function createServiceAllocator(options: ServiceAllocatorOptions = {}): ServiceAllocator {
  const cidr = options.cidr ?? '10.96.0.0/12';
  const portRange = options.portRange ?? '30000-32767';
  const random = options.random ?? Math.random;
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (!base || !isIPv4(base) || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`invalid service CIDR ${cidr}`);
  const total = 2 ** (32 - bits);
  const network = Math.floor(ipToInt(base) / total) * total;
  const ipSize = total - 2;
  const [portBase, portSize] = parsePortRange(portRange);
  // kube's static subranges: min(max(16, size/16), 256) addresses, min(max(16, size/32), 128) ports.
  const ipRange = `${intToIp(network)}/${bits}`;
  const ips = new Range(ipSize, Math.min(Math.max(16, Math.floor(ipSize / 16)), 256), random, ipRange, options.backend, SERVICE_IPS_KEY);
  const portRangeText = `${portBase}-${portBase + portSize - 1}`;
  const ports = new Range(portSize, Math.min(Math.max(16, Math.floor(portSize / 32)), 128), random, portRangeText, options.backend, SERVICE_NODE_PORTS_KEY);
  const ipOffset = (ip: string): number | undefined => {
    if (!isIPv4(ip)) return undefined;
    const offset = ipToInt(ip) - network - 1;
    return offset >= 0 && offset < ipSize ? offset : undefined;
  };
  const portOffset = (port: number): number | undefined => (port >= portBase && port < portBase + portSize ? port - portBase : undefined);
  const ipNotInRange = (ip: string) => `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${cidr}`;
  const portNotInRange = () => `provided port is not in the valid range. The range of valid ports is ${portRange}`;
  const offsets = <T>(values: readonly T[], of: (v: T) => number | undefined): number[] => values.map(of).filter((o): o is number => o !== undefined);

  const allocator = (dry: boolean): ServiceAllocator => ({
    cidr,
    portRange,
    kubernetesIP: intToIp(network + 1),
    async allocateIP(requested) {
      if (requested) {
        const offset = ipOffset(requested);
        if (offset === undefined) throw new AllocationError(ipNotInRange(requested));
        if (!(await ips.take(offset, dry))) throw new AllocationError(IP_ALREADY_ALLOCATED);
        return requested;
      }
      const offset = await ips.next(dry);
      if (offset === undefined) throw new AllocationError('range is full');
      return intToIp(network + 1 + offset);
    },
    async allocateNodePort(requested) {
      if (requested) {
        const offset = portOffset(requested);
        if (offset === undefined) throw new AllocationError(portNotInRange());
        if (!(await ports.take(offset, dry))) throw new AllocationError(PORT_ALREADY_ALLOCATED);
        return requested;
      }
      const offset = await ports.next(dry);
      if (offset === undefined) throw new AllocationError('range is full');
      return portBase + offset;
    },
    async release(releaseIPs, releasePorts) {
      if (dry) return;
      await ips.release(offsets(releaseIPs, ipOffset));
      await ports.release(offsets([...new Set(releasePorts)], portOffset));
    },
    async repair(list) {
      const problems: RepairProblem[] = [];
      // Both bitmaps first, then the Services: whatever was allocated before is in the list.
      const ipSnapshot = await ips.snapshot();
      const portSnapshot = await ports.snapshot();
      const services = await list();
      await ips.repair(ipSnapshot, (next, stored) => {
        for (const s of services) {
          for (const ip of s.clusterIPs) {
            const offset = ipOffset(ip);
            if (offset === undefined) {
              problems.push({ service: s.name, owner: s.owner, reason: 'ClusterIPOutOfRange', message: `Cluster IP [IPv4]: ${ip} is not within the configured Service CIDR ${cidr}; please recreate service` });
            } else if (has(next, offset)) {
              problems.push({ service: s.name, owner: s.owner, reason: 'ClusterIPAlreadyAllocated', message: `Cluster IP [IPv4]:${ip} was assigned to multiple services; please recreate service` });
            } else {
              if (!stored(offset)) problems.push({ service: s.name, owner: s.owner, reason: 'ClusterIPNotAllocated', message: `Cluster IP [IPv4]:${ip} is not allocated; repairing` });
              set(next, offset);
            }
          }
        }
      });
      await ports.repair(portSnapshot, (next, stored) => {
        for (const s of services) {
          for (const port of new Set(s.nodePorts)) {
            const offset = portOffset(port);
            if (offset === undefined) {
              problems.push({ service: s.name, owner: s.owner, reason: 'PortOutOfRange', message: `Port ${port} is not within the port range ${portRange}; please recreate service` });
            } else if (has(next, offset)) {
              problems.push({ service: s.name, owner: s.owner, reason: 'PortAlreadyAllocated', message: `Port ${port} was assigned to multiple services; please recreate service` });
            } else {
              if (!stored(offset)) problems.push({ service: s.name, owner: s.owner, reason: 'PortNotAllocated', message: `Port ${port} is not allocated; repairing` });
              set(next, offset);
            }
          }
        }
      });
      return problems;
    },
    get leaksReleased() {
      return ips.leaksReleased + ports.leaksReleased;
    },
    usage: () => ({ ips: ips.used, ports: ports.used }),
    get dryRun() {
      return dry ? this : allocator(true);
    },
  });
  return allocator(false);
}
