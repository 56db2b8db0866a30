/**
 * Service ClusterIP and NodePort allocation, as kube-apiserver's bitmap allocators do it: one
 * range of addresses (`--service-cluster-ip-range`) and one of ports
 * (`--service-node-port-range`), each split into a low static block (handed out only on
 * request, or when the rest is full) and the dynamic block random allocations come from first.
 * Each value is held by an owner (the Service's uid), so a retried write allocates the same
 * values again and a failed create gives back exactly what it took. The allocations live in
 * memory, rebuilt from the stored Services at start and every few minutes after (`repair`).
 */

/** A refused allocation; the message is kube-apiserver's. */
export class AllocationError extends Error {}

/** kube-apiserver's allocator messages. */
export const IP_ALREADY_ALLOCATED = 'provided IP is already allocated';
export const PORT_ALREADY_ALLOCATED = 'provided port is already allocated';

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

/** A range of `size` values (offsets 0..size-1) with a static block of the first `staticSize`. */
class Bitmap {
  private readonly owners = new Map<number, string>();
  constructor(
    readonly size: number,
    readonly staticSize: number,
    private readonly random: () => number,
  ) {}

  ownerOf(offset: number): string | undefined {
    return this.owners.get(offset);
  }

  /** Takes `offset` for `owner`; false when another owner holds it. */
  take(offset: number, owner: string): boolean {
    const held = this.owners.get(offset);
    if (held !== undefined && held !== owner) return false;
    this.owners.set(offset, owner);
    return true;
  }

  /** A free offset (dynamic block first, from a random start), or undefined when full. */
  next(owner: string): number | undefined {
    const scan = (from: number, to: number): number | undefined => {
      const n = to - from;
      if (n <= 0) return undefined;
      const start = Math.floor(this.random() * n);
      for (let i = 0; i < n; i++) {
        const offset = from + ((start + i) % n);
        if (!this.owners.has(offset)) return offset;
      }
      return undefined;
    };
    const offset = scan(this.staticSize, this.size) ?? scan(0, this.staticSize);
    if (offset !== undefined) this.owners.set(offset, owner);
    return offset;
  }

  release(offset: number, owner?: string): void {
    if (owner === undefined || this.owners.get(offset) === owner) this.owners.delete(offset);
  }

  /** The offsets `owner` holds. */
  heldBy(owner: string): number[] {
    return [...this.owners].filter(([, o]) => o === owner).map(([k]) => k);
  }

  /**
   * Rebuilds the map from what the stored Services hold (`rebuild` takes their values): an
   * offset held before that no Service holds now is a leak, kept for `LEAK_REPAIRS` repairs (a
   * create between the listing and the repair holds one for a moment) and then released.
   */
  repair(rebuild: () => void): number {
    const before = new Map(this.owners);
    this.owners.clear();
    rebuild();
    let released = 0;
    for (const offset of [...this.leaks.keys()]) if (this.owners.has(offset) || !before.has(offset)) this.leaks.delete(offset);
    for (const [offset, owner] of before) {
      if (this.owners.has(offset)) continue;
      const seen = (this.leaks.get(offset) ?? 0) + 1;
      if (seen >= LEAK_REPAIRS) {
        this.leaks.delete(offset);
        released++;
      } else {
        this.leaks.set(offset, seen);
        this.owners.set(offset, owner);
      }
    }
    return released;
  }

  private readonly leaks = new Map<number, number>();

  get used(): number {
    return this.owners.size;
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
  reason: 'ClusterIPOutOfRange' | 'ClusterIPAlreadyAllocated' | 'PortOutOfRange' | 'PortAlreadyAllocated';
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
  /** Allocates `requested` (or any free address) to `owner`; throws AllocationError with kube's message. */
  allocateIP(owner: string, requested?: string): string;
  /** Allocates `requested` (or any free port) to `owner`; throws AllocationError with kube's message. */
  allocateNodePort(owner: string, requested?: number): number;
  /** Releases what `owner` holds beyond `ips` and `ports`. */
  retain(owner: string, ips: readonly string[], ports: readonly number[]): void;
  /** Releases everything `owner` holds. */
  releaseAll(owner: string): void;
  /**
   * Takes the values a stored Service holds (one another API server over the same storage
   * allocated), where they are free; releases nothing (a value it no longer holds is a leak the
   * repair releases) and reports nothing (the repair reports duplicates).
   */
  observe(service: AllocatedService): void;
  /**
   * Rebuilds the allocations from the stored Services (oldest first); returns the problems found.
   * A value no Service holds is released at the LEAK_REPAIRS-th repair in a row that finds it so.
   */
  repair(services: readonly AllocatedService[]): RepairProblem[];
  /** How many leaked values repairs released so far. */
  readonly leaksReleased: number;
  /** Addresses and ports in use (for metrics and tests). */
  usage(): { ips: number; ports: number };
}

/** Parses a NodePort range "30000-32767" (or a single port) into [base, size]. */
export function parsePortRange(range: string): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
  const lo = Number(m?.[1]);
  const hi = m?.[2] === undefined ? lo : Number(m[2]);
  if (!m || lo < 1 || hi > 65535 || hi < lo) throw new Error(`invalid port range ${range}`);
  return [lo, hi - lo + 1];
}

/**
 * Creates the allocators over an IPv4 CIDR and a NodePort range. The network and broadcast
 * addresses are never handed out; offset 0 is the `kubernetes` Service's address.
 */
export function createServiceAllocator(options: { cidr?: string; portRange?: string; random?: () => number } = {}): ServiceAllocator {
  const cidr = options.cidr ?? '10.96.0.0/12';
  const portRange = options.portRange ?? '30000-32767';
  const random = options.random ?? Math.random;
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (!base || !isIPv4(base) || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`invalid service CIDR ${cidr}`);
  const total = 2 ** (32 - bits);
  const network = Math.floor(ipToInt(base) / total) * total;
  const ipSize = total - 2;
  // kube's static subranges: min(max(16, size/16), 256) addresses, min(max(16, size/32), 128) ports.
  const ips = new Bitmap(ipSize, Math.min(Math.max(16, Math.floor(ipSize / 16)), 256), random);
  const [portBase, portSize] = parsePortRange(portRange);
  const ports = new Bitmap(portSize, Math.min(Math.max(16, Math.floor(portSize / 32)), 128), random);
  const ipOffset = (ip: string): number | undefined => {
    if (!isIPv4(ip)) return undefined;
    const offset = ipToInt(ip) - network - 1;
    return offset >= 0 && offset < ipSize ? offset : undefined;
  };
  const portOffset = (port: number): number | undefined => (port >= portBase && port < portBase + portSize ? port - portBase : undefined);
  const ipNotInRange = (ip: string) => `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${cidr}`;
  const portNotInRange = () => `provided port is not in the valid range. The range of valid ports is ${portRange}`;

  let leaksReleased = 0;
  return {
    cidr,
    portRange,
    kubernetesIP: intToIp(network + 1),
    allocateIP(owner, requested) {
      if (requested) {
        const offset = ipOffset(requested);
        if (offset === undefined) throw new AllocationError(ipNotInRange(requested));
        if (!ips.take(offset, owner)) throw new AllocationError(IP_ALREADY_ALLOCATED);
        return requested;
      }
      const offset = ips.next(owner);
      if (offset === undefined) throw new AllocationError('range is full');
      return intToIp(network + 1 + offset);
    },
    allocateNodePort(owner, requested) {
      if (requested) {
        const offset = portOffset(requested);
        if (offset === undefined) throw new AllocationError(portNotInRange());
        if (!ports.take(offset, owner)) throw new AllocationError(PORT_ALREADY_ALLOCATED);
        return requested;
      }
      const offset = ports.next(owner);
      if (offset === undefined) throw new AllocationError('range is full');
      return portBase + offset;
    },
    retain(owner, keepIPs, keepPorts) {
      const ipSet = new Set(keepIPs.map(ipOffset));
      for (const o of ips.heldBy(owner)) if (!ipSet.has(o)) ips.release(o, owner);
      const portSet = new Set(keepPorts.map(portOffset));
      for (const o of ports.heldBy(owner)) if (!portSet.has(o)) ports.release(o, owner);
    },
    releaseAll(owner) {
      for (const o of ips.heldBy(owner)) ips.release(o, owner);
      for (const o of ports.heldBy(owner)) ports.release(o, owner);
    },
    observe(service) {
      for (const ip of service.clusterIPs) {
        const offset = ipOffset(ip);
        if (offset !== undefined && ips.ownerOf(offset) === undefined) ips.take(offset, service.owner);
      }
      for (const port of service.nodePorts) {
        const offset = portOffset(port);
        if (offset !== undefined && ports.ownerOf(offset) === undefined) ports.take(offset, service.owner);
      }
    },
    repair(services) {
      const problems: RepairProblem[] = [];
      const rebuildIPs = () => {
        for (const s of services) {
          for (const ip of s.clusterIPs) {
            const offset = ipOffset(ip);
            if (offset === undefined) {
              problems.push({ service: s.name, owner: s.owner, reason: 'ClusterIPOutOfRange', message: `Cluster IP [IPv4]: ${ip} is not within the configured Service CIDR ${cidr}; please recreate service` });
            } else if (!ips.take(offset, s.owner)) {
              problems.push({ service: s.name, owner: s.owner, reason: 'ClusterIPAlreadyAllocated', message: `Cluster IP [IPv4]:${ip} was assigned to multiple services; please recreate service` });
            }
          }
        }
      };
      const rebuildPorts = () => {
        for (const s of services) {
          for (const port of new Set(s.nodePorts)) {
            const offset = portOffset(port);
            if (offset === undefined) {
              problems.push({ service: s.name, owner: s.owner, reason: 'PortOutOfRange', message: `Port ${port} is not within the port range ${portRange}; please recreate service` });
            } else if (!ports.take(offset, s.owner)) {
              problems.push({ service: s.name, owner: s.owner, reason: 'PortAlreadyAllocated', message: `Port ${port} was assigned to multiple services; please recreate service` });
            }
          }
        }
      };
      leaksReleased += ips.repair(rebuildIPs) + ports.repair(rebuildPorts);
      return problems;
    },
    get leaksReleased() {
      return leaksReleased;
    },
    usage: () => ({ ips: ips.used, ports: ports.used }),
  };
}
