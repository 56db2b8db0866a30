/**
 * Test support (not exported from the package): nodes and pods to build a ClusterState from,
 * and one-call decisions.
 */
import type { kinds } from '@kplane/runtime';
import { ClusterState } from './cluster.js';
import { Cycle, place, type Placement } from './framework.js';

/** A Ready node with these labels, allocatable and taints. */
export function node(name: string, labels: Record<string, string> = {}, allocatable: Record<string, string> = {}, spec: kinds.NodeSpec = {}): kinds.Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec,
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110', ...allocatable }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** A pod in namespace `ns` (default "default") with these labels and spec fields. */
export function pod(name: string, spec: Partial<kinds.PodSpec> = {}, labels: Record<string, string> = {}, ns = 'default'): kinds.Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, uid: `uid-${name}`, labels }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } };
}

/** A container spec requesting these resources. */
export function requests(r: Record<string, string>): Partial<kinds.PodSpec> {
  return { containers: [{ name: 'c', image: 'x', resources: { requests: r } }] };
}

/** A cluster of these nodes, with pods placed as [pod, node]. */
export function clusterOf(nodes: kinds.Node[], placed: [kinds.Pod, string][] = [], namespaces: Record<string, Record<string, string>> = {}): ClusterState {
  const c = new ClusterState((ns) => namespaces[ns]);
  for (const n of nodes) c.setNode(n);
  for (const [p, n] of placed) c.setPod(`${p.metadata!.namespace}/${p.metadata!.name}`, p, n);
  return c;
}

/** The decision for a pod. */
export function decide(c: ClusterState, p: kinds.Pod): Placement {
  return place(new Cycle(p, `${p.metadata!.namespace}/${p.metadata!.name}`, c));
}

/** Places pods one after the other, as the scheduler would; returns their nodes (or "-" when none fits). */
export function placeAll(c: ClusterState, pods: kinds.Pod[]): string[] {
  return pods.map((p) => {
    const r = decide(c, p);
    if (!('node' in r)) return '-';
    c.setPod(`${p.metadata!.namespace}/${p.metadata!.name}`, p, r.node);
    return r.node;
  });
}
