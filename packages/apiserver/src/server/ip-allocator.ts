/** Allocates Service ClusterIPs from a CIDR, never handing out one in use. */
export interface ClusterIPAllocator {
  allocate(): Promise<string>;
  release(ip: string): void;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/**
 * Creates an allocator over an IPv4 CIDR. `inUse` lists the addresses stored Services hold, so
 * allocations survive restarts without a separate bitmap; addresses handed out but not yet
 * stored are remembered in memory. The network address and the first host (the `kubernetes`
 * Service's address) are never allocated.
 */
export function createClusterIPAllocator(cidr: string, inUse: () => Promise<string[]>): ClusterIPAllocator {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (!base || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`invalid service CIDR ${cidr}`);
  const size = 2 ** (32 - bits);
  const first = Math.floor(ipToInt(base) / size) * size;
  const pending = new Set<string>();
  let next = 2;
  return {
    async allocate() {
      const used = new Set([...(await inUse()), ...pending]);
      for (let i = 0; i < size - 3; i++) {
        const offset = 2 + ((next - 2 + i) % (size - 3));
        const ip = intToIp(first + offset);
        if (!used.has(ip)) {
          next = offset + 1;
          pending.add(ip);
          if (pending.size > 1024) pending.delete(pending.values().next().value!);
          return ip;
        }
      }
      throw new Error(`range is full: no ClusterIP left in ${cidr}`);
    },
    release(ip) {
      pending.delete(ip);
    },
  };
}
