/**
 * Simulated resource usage, as kwok's usage-from-annotation: every running container uses its
 * requests (or a small default), unless the pod's annotations say otherwise. Reported in the
 * shapes of metrics.k8s.io/v1beta1 (PodMetrics, NodeMetrics), as metrics-server serves them.
 */
import type { kinds } from '@kplane/runtime';
import { rfc3339 } from '@kplane/api';
import { parseQuantity } from './quantity.js';

/** `kplane.io/cpu-usage`: CPU every running container of the pod uses (a quantity: "250m", "1.5"). */
export const CPU_USAGE_ANNOTATION = 'kplane.io/cpu-usage';
/** `kplane.io/memory-usage`: memory every running container of the pod uses (a quantity: "64Mi"). */
export const MEMORY_USAGE_ANNOTATION = 'kplane.io/memory-usage';
/** CPU of a container that requests none: 1m. */
export const DEFAULT_CPU_USAGE_NANOCORES = 1_000_000;
/** Memory of a container that requests none: 1Mi. */
export const DEFAULT_MEMORY_USAGE_BYTES = 2 ** 20;
/** CPU a node uses besides its pods (its system daemons): 50m. */
export const NODE_BASE_CPU_NANOCORES = 50_000_000;
/** Memory a node uses besides its pods: 128Mi. */
export const NODE_BASE_MEMORY_BYTES = 128 * 2 ** 20;
/** The window a usage sample covers (metrics-server's resolution). */
export const USAGE_WINDOW = '10s';

/** Usage of one container: CPU in nanocores, memory in bytes. */
export interface ContainerUsage {
  name: string;
  nanoCores: number;
  memoryBytes: number;
}

/** metrics.k8s.io/v1beta1 PodMetrics. */
export interface PodMetrics {
  apiVersion: 'metrics.k8s.io/v1beta1';
  kind: 'PodMetrics';
  metadata: { name: string; namespace: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  containers: { name: string; usage: { cpu: string; memory: string } }[];
}

/** metrics.k8s.io/v1beta1 NodeMetrics. */
export interface NodeMetrics {
  apiVersion: 'metrics.k8s.io/v1beta1';
  kind: 'NodeMetrics';
  metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  usage: { cpu: string; memory: string };
}

function annotated(pod: kinds.Pod, key: string, container: string): number | undefined {
  const a = pod.metadata?.annotations ?? {};
  for (const raw of [a[`${key}.${container}`], a[key]]) {
    const v = parseQuantity(raw);
    if (v !== undefined && v >= 0) return v;
  }
  return undefined;
}

/**
 * What one container uses: `kplane.io/cpu-usage.<container>` (or `kplane.io/cpu-usage`), else
 * its CPU request, else 1m; the same for memory (`kplane.io/memory-usage`, request, 1Mi).
 */
export function containerUsage(pod: kinds.Pod, c: kinds.Container): ContainerUsage {
  const cpu = annotated(pod, CPU_USAGE_ANNOTATION, c.name) ?? parseQuantity(c.resources?.requests?.cpu);
  const memory = annotated(pod, MEMORY_USAGE_ANNOTATION, c.name) ?? parseQuantity(c.resources?.requests?.memory);
  return {
    name: c.name,
    nanoCores: cpu !== undefined ? Math.round(cpu * 1e9) : DEFAULT_CPU_USAGE_NANOCORES,
    memoryBytes: memory !== undefined ? Math.round(memory) : DEFAULT_MEMORY_USAGE_BYTES,
  };
}

/** The usage of a pod's running containers (sidecars included), from its status; empty when none runs. */
export function podUsage(pod: kinds.Pod): ContainerUsage[] {
  const running = new Set([...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].filter((s) => s.state?.running).map((s) => s.name));
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].filter((c) => running.has(c.name)).map((c) => containerUsage(pod, c));
}

const cpuQuantity = (nano: number) => `${nano}n`;
const memoryQuantity = (bytes: number) => `${Math.ceil(bytes / 1024)}Ki`;

/** A pod's PodMetrics at `now` (clock ms), or undefined when it is not Running or nothing in it runs. */
export function podMetrics(pod: kinds.Pod, now: number): PodMetrics | undefined {
  if (pod.status?.phase !== 'Running') return undefined;
  const usage = podUsage(pod);
  if (!usage.length) return undefined;
  const m = pod.metadata ?? {};
  return {
    apiVersion: 'metrics.k8s.io/v1beta1',
    kind: 'PodMetrics',
    metadata: { name: m.name ?? '', namespace: m.namespace ?? '', creationTimestamp: rfc3339(now), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: rfc3339(now),
    window: USAGE_WINDOW,
    containers: usage.map((u) => ({ name: u.name, usage: { cpu: cpuQuantity(u.nanoCores), memory: memoryQuantity(u.memoryBytes) } })),
  };
}

/** A node's NodeMetrics at `now`: a base (50m, 128Mi) plus what the running containers of its pods use. */
export function nodeMetrics(node: kinds.Node, pods: Iterable<kinds.Pod>, now: number): NodeMetrics {
  let nano = NODE_BASE_CPU_NANOCORES;
  let bytes = NODE_BASE_MEMORY_BYTES;
  for (const p of pods) {
    if (p.status?.phase !== 'Running') continue;
    for (const u of podUsage(p)) {
      nano += u.nanoCores;
      bytes += u.memoryBytes;
    }
  }
  const labels = node.metadata?.labels;
  return {
    apiVersion: 'metrics.k8s.io/v1beta1',
    kind: 'NodeMetrics',
    metadata: { name: node.metadata?.name ?? '', creationTimestamp: rfc3339(now), ...(labels ? { labels } : {}) },
    timestamp: rfc3339(now),
    window: USAGE_WINDOW,
    usage: { cpu: cpuQuantity(nano), memory: memoryQuantity(bytes) },
  };
}
