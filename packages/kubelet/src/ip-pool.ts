/** Pod IPs of one node, handed out from its pod CIDR and given back when pods go. */
import { intToIp, ipToInt } from './node-template.js';

/** A per-node pod IP allocator. */
export interface IpPool {
  /** A free address, or undefined when the CIDR is exhausted. */
  allocate(): string | undefined;
  /** Marks an address as used (a pod that already has it, seen after a restart); false if outside the pool or taken. */
  reserve(ip: string): boolean;
  /** Gives an address back. */
  release(ip: string): void;
  /** Addresses in use. */
  used(): number;
}

/**
 * Creates a pool over `size` addresses starting at `base` + 2 (the network address and the
 * gateway are skipped). Freed addresses are reused only after the never-used ones run out, so
 * a restarted pod rarely gets the address a deleted one just had.
 */
export function createIpPool(base: number, size: number): IpPool {
  const first = base + 2;
  const inUse = new Set<number>();
  const freed: number[] = [];
  let next = 0;
  return {
    allocate() {
      while (next < size) {
        const n = first + next++;
        if (!inUse.has(n)) {
          inUse.add(n);
          return intToIp(n);
        }
      }
      while (freed.length) {
        const n = freed.shift()!;
        if (!inUse.has(n)) {
          inUse.add(n);
          return intToIp(n);
        }
      }
      return undefined;
    },
    reserve(ip) {
      const n = ipToInt(ip);
      if (!(n >= first && n < first + size) || inUse.has(n)) return false;
      inUse.add(n);
      return true;
    },
    release(ip) {
      const n = ipToInt(ip);
      if (inUse.delete(n)) freed.push(n);
    },
    used: () => inUse.size,
  };
}
