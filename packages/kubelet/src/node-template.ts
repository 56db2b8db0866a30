/**
 * What a simulated node looks like: its name, addresses, pod CIDR, the Node object it
 * registers and the Lease it renews.
 */
import type { kinds } from '@kplane/runtime';

/** The node shape options of a simulated kubelet. */
export interface NodeTemplateOptions {
  /** Node names are `<prefix><index>` (default "kplane-node-"). */
  namePrefix?: string;
  /** Allocatable and capacity cpu (default "32"). */
  cpu?: string;
  /** Allocatable and capacity memory (default "256Gi"). */
  memory?: string;
  /** Pods per node (default 5000; a real kubelet's default is 110). */
  maxPods?: number;
  /** Extra labels on every node. */
  labels?: Record<string, string>;
  /** Taints on every node. */
  taints?: kinds.Taint[];
  /** status.nodeInfo.kubeletVersion (default v1.32.0). */
  kubeletVersion?: string;
  /**
   * The InternalIP of every node, where the API server reaches its kubelet (default: node i's
   * own 172.18.0.<i+2>, which nothing serves; in-process kubelets need no address).
   */
  address?: string;
  /** status.daemonEndpoints.kubeletEndpoint.Port, the kubelet's HTTPS port (default 10250). */
  port?: number;
}

/** The kubelet version simulated nodes report. */
export const KUBELET_VERSION = 'v1.32.0';
/** Default node name prefix. */
export const DEFAULT_NODE_PREFIX = 'kplane-node-';
/** Default pods per node. */
export const DEFAULT_MAX_PODS = 5000;
/** How many nodes the pod CIDR layout has room for (10.128.0.0/9 in /19 blocks). */
export const MAX_NODES = 1024;
/** Addresses in one node's pod CIDR, minus the network and the gateway. */
export const POD_IPS_PER_NODE = 8192 - 2;

/** Name of the index-th node. */
export function nodeName(index: number, prefix = DEFAULT_NODE_PREFIX): string {
  return `${prefix}${index}`;
}

/** Dotted-quad form of a 32-bit address. */
export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** 32-bit value of a dotted-quad address (NaN when malformed). */
export function ipToInt(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4) return NaN;
  return parts.reduce((acc, o) => {
    const v = Number(o);
    return Number.isInteger(v) && v >= 0 && v < 256 ? acc * 256 + v : NaN;
  }, 0);
}

/** First address of the index-th node's pod CIDR (a /19 inside 10.128.0.0/9). */
export function podCidrBase(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_NODES) throw new RangeError(`node index ${index} out of range 0..${MAX_NODES - 1}`);
  return ipToInt('10.128.0.0') + index * 8192;
}

/** The index-th node's pod CIDR, e.g. 10.128.32.0/19 for node 1. */
export function podCidr(index: number): string {
  return `${intToIp(podCidrBase(index))}/19`;
}

/** The index-th node's InternalIP (172.18.0.2 for node 0, as kind numbers its nodes). */
export function nodeInternalIp(index: number): string {
  return intToIp(ipToInt('172.18.0.2') + index);
}

/** Deterministic hex id of a string, for machineID / systemUUID / bootID. */
function hexId(seed: string, length = 32): string {
  let h1 = 0x811c9dc5;
  let out = '';
  while (out.length < length) {
    for (let i = 0; i < seed.length; i++) {
      h1 ^= seed.charCodeAt(i);
      h1 = Math.imul(h1, 0x01000193) >>> 0;
    }
    out += h1.toString(16).padStart(8, '0');
    seed += out;
  }
  return out.slice(0, length);
}

function uuid(seed: string): string {
  const h = hexId(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The usual node conditions, all healthy, with both timestamps set to `time`. */
export function healthyNodeConditions(time: string): kinds.NodeCondition[] {
  const c = (type: string, status: 'True' | 'False', reason: string, message: string): kinds.NodeCondition => ({
    type,
    status,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
    reason,
    message,
  });
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** The Node object the index-th simulated kubelet registers, Ready as of `time` (RFC 3339). */
export function buildNode(index: number, time: string, options: NodeTemplateOptions = {}): kinds.Node {
  const name = nodeName(index, options.namePrefix);
  const capacity = {
    cpu: options.cpu ?? '32',
    'ephemeral-storage': '100Gi',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: options.memory ?? '256Gi',
    pods: String(options.maxPods ?? DEFAULT_MAX_PODS),
  };
  const cidr = podCidr(index);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        type: 'kplane',
        ...options.labels,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr], ...(options.taints?.length ? { taints: options.taints } : {}) },
    status: {
      capacity,
      allocatable: { ...capacity },
      conditions: healthyNodeConditions(time),
      addresses: [
        { type: 'InternalIP', address: options.address ?? nodeInternalIp(index) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: options.port ?? 10250 } },
      nodeInfo: {
        machineID: hexId(`machine/${name}`),
        systemUUID: uuid(`system/${name}`),
        bootID: uuid(`boot/${name}/${time}`),
        kernelVersion: '6.8.0-kplane',
        osImage: 'kplane simulated node',
        containerRuntimeVersion: 'kplane://0.1.0',
        kubeletVersion: options.kubeletVersion ?? KUBELET_VERSION,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** The heartbeat Lease of a node (kube-node-lease/<node>), owned by the Node. */
export function buildNodeLease(node: kinds.Node, renewTime: string, leaseDurationSeconds = 40): kinds.Lease {
  const name = node.metadata!.name!;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: 'kube-node-lease',
      ownerReferences: node.metadata?.uid ? [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }] : undefined,
    },
    spec: { holderIdentity: name, leaseDurationSeconds, renewTime },
  };
}
