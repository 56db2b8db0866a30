/**
 * Resources as kube-scheduler counts them: a pod's effective requests (containers summed,
 * sidecars added, the largest init container step, plus overhead), the NodeResourcesFit filter
 * with its "Insufficient <resource>" / "Too many pods" reasons, and the NodeResourcesFit
 * (LeastAllocated) and NodeResourcesBalancedAllocation scores.
 */
import type { kinds } from '@kplane/runtime';
import { milliValue, value } from '../quantity.js';

/** Amounts by resource name: cpu in millicores, every other resource in base units. */
export type ResourceAmounts = Record<string, number>;

/** The scheduler's default cpu (millicores) for a container that requests none, in scoring only. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** The scheduler's default memory (bytes) for a container that requests none, in scoring only. */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;
/** The highest score a plugin gives a node. */
export const MAX_NODE_SCORE = 100;

/** What a pod asks of a node. */
export interface PodResources {
  /** Effective requests, as resourcehelper.PodRequests (pods not included). */
  requests: ResourceAmounts;
  /** cpu with 100m for each container that requests none (NonZeroRequested, for scoring). */
  nonZeroCpu: number;
  /** memory with 200Mi for each container that requests none. */
  nonZeroMemory: number;
}

/** The amount of one resource in a quantity (cpu in millicores). */
export function amount(name: string, q: unknown): number {
  return name === 'cpu' ? milliValue(q) : value(q);
}

function amounts(list: Record<string, unknown> | undefined): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [k, v] of Object.entries(list ?? {})) out[k] = amount(k, v);
  return out;
}

function addInto(into: ResourceAmounts, add: ResourceAmounts, sign = 1): void {
  for (const k in add) into[k] = (into[k] ?? 0) + sign * add[k]!;
}

function maxInto(into: ResourceAmounts, other: ResourceAmounts): void {
  for (const k in other) if (other[k]! > (into[k] ?? 0)) into[k] = other[k]!;
}

/**
 * The effective requests of containers (init containers as kube steps through them: a
 * restartable sidecar keeps running and adds to everything after it; a regular init container
 * counts with the sidecars started before it; the largest step wins over the regular containers'
 * sum), plus the pod's overhead; `requestsOf` gives each container's amounts.
 */
function effective(pod: kinds.Pod, requestsOf: (c: kinds.Container) => ResourceAmounts): ResourceAmounts {
  const reqs: ResourceAmounts = {};
  for (const c of pod.spec?.containers ?? []) addInto(reqs, requestsOf(c));
  const sidecars: ResourceAmounts = {};
  const init: ResourceAmounts = {};
  for (const c of pod.spec?.initContainers ?? []) {
    const r = requestsOf(c);
    if (c.restartPolicy === 'Always') {
      addInto(reqs, r);
      addInto(sidecars, r);
      maxInto(init, sidecars);
    } else {
      const step = { ...sidecars };
      addInto(step, r);
      maxInto(init, step);
    }
  }
  maxInto(reqs, init);
  addInto(reqs, amounts(pod.spec?.overhead as Record<string, unknown> | undefined));
  return reqs;
}

/** A pod's effective requests, and its cpu and memory with the scheduler's non-zero defaults. */
export function podResources(pod: kinds.Pod): PodResources {
  const requests = effective(pod, (c) => amounts(c.resources?.requests as Record<string, unknown> | undefined));
  const nonZero = effective(pod, (c) => {
    const r = c.resources?.requests as Record<string, unknown> | undefined;
    return {
      cpu: r && r.cpu !== undefined ? milliValue(r.cpu) : DEFAULT_MILLI_CPU_REQUEST,
      memory: r && r.memory !== undefined ? value(r.memory) : DEFAULT_MEMORY_REQUEST,
    };
  });
  for (const k of Object.keys(requests)) if (requests[k] === 0) delete requests[k];
  return { requests, nonZeroCpu: nonZero.cpu ?? 0, nonZeroMemory: nonZero.memory ?? 0 };
}

/** A node's allocatable amounts (capacity when allocatable is absent) and how many pods it takes. */
export function nodeAllocatable(node: kinds.Node): { allocatable: ResourceAmounts; pods: number } {
  const list = (node.status?.allocatable ?? node.status?.capacity ?? {}) as Record<string, unknown>;
  const allocatable = amounts(list);
  const pods = list.pods === undefined ? 110 : allocatable.pods!;
  delete allocatable.pods;
  return { allocatable, pods };
}

/** What a node has committed to its pods. */
export interface NodeLoad {
  pods: number;
  requested: ResourceAmounts;
  nonZeroCpu: number;
  nonZeroMemory: number;
}

/** An empty load. */
export function emptyLoad(): NodeLoad {
  return { pods: 0, requested: {}, nonZeroCpu: 0, nonZeroMemory: 0 };
}

/** Adds (sign 1) or removes (sign -1) a pod's resources from a load. */
export function applyLoad(load: NodeLoad, r: PodResources, sign: 1 | -1): void {
  load.pods += sign;
  addInto(load.requested, r.requests, sign);
  load.nonZeroCpu += sign * r.nonZeroCpu;
  load.nonZeroMemory += sign * r.nonZeroMemory;
}

const ORDER = ['cpu', 'memory', 'ephemeral-storage'];

/**
 * NodeResourcesFit's filter: the reasons the pod does not fit (empty when it does): "Too many
 * pods", then "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage", then
 * each extended resource, as kube-scheduler's fitsRequest.
 */
export function insufficientResources(pod: PodResources, load: NodeLoad, allocatable: ResourceAmounts, allowedPods: number): string[] {
  let reasons: string[] | undefined;
  if (load.pods + 1 > allowedPods) reasons = ['Too many pods'];
  let extended: string[] | undefined;
  for (const name in pod.requests) if (name !== 'cpu' && name !== 'memory' && name !== 'ephemeral-storage') (extended ??= []).push(name);
  const names = extended ? [...ORDER, ...extended.sort()] : ORDER;
  for (const name of names) {
    const want = pod.requests[name];
    if (want !== undefined && want > 0 && want > (allocatable[name] ?? 0) - (load.requested[name] ?? 0)) (reasons ??= []).push(`Insufficient ${name}`);
  }
  return reasons ?? NONE;
}

const NONE: string[] = [];

function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/**
 * NodeResourcesFit's default score, LeastAllocated over cpu and memory (weight 1 each): the
 * share left free once the pod is added, counting the non-zero defaults.
 */
export function leastAllocatedScore(pod: PodResources, load: NodeLoad, allocatable: ResourceAmounts): number {
  let sum = 0;
  let weights = 0;
  const cpu = allocatable.cpu ?? 0;
  const memory = allocatable.memory ?? 0;
  if (cpu > 0) {
    sum += leastRequested(load.nonZeroCpu + pod.nonZeroCpu, cpu);
    weights++;
  }
  if (memory > 0) {
    sum += leastRequested(load.nonZeroMemory + pod.nonZeroMemory, memory);
    weights++;
  }
  return weights === 0 ? 0 : Math.floor(sum / weights);
}

/**
 * NodeResourcesBalancedAllocation: 100 × (1 − the standard deviation of the cpu and memory
 * fractions requested once the pod is added), favouring nodes whose use stays balanced (a node
 * lacking one of them: 100, one fraction has no deviation). A pod requesting neither (best
 * effort) is not scored (0 everywhere).
 */
export function balancedAllocationScore(pod: PodResources, load: NodeLoad, allocatable: ResourceAmounts): number {
  const wantCpu = pod.requests.cpu ?? 0;
  const wantMemory = pod.requests.memory ?? 0;
  if (wantCpu === 0 && wantMemory === 0) return 0;
  const cpu = allocatable.cpu ?? 0;
  const memory = allocatable.memory ?? 0;
  if (cpu === 0 || memory === 0) return MAX_NODE_SCORE;
  const fc = Math.min(1, ((load.requested.cpu ?? 0) + wantCpu) / cpu);
  const fm = Math.min(1, ((load.requested.memory ?? 0) + wantMemory) / memory);
  return Math.floor((1 - Math.abs((fc - fm) / 2)) * MAX_NODE_SCORE);
}
