/**
 * How the API server reaches the containers of a node: kube-apiserver dials the kubelet's port
 * (Node status.daemonEndpoints); kplane's simulated kubelets in the same process register here
 * and the `pods/log` handler reads their logs directly; the nodes of a kubelet in another
 * process are reached through `remote` (kubelet-client.ts).
 */

/** How to read a container's log (the checked query of `pods/log`). */
export interface ContainerLogQuery {
  previous?: boolean;
  follow?: boolean;
  timestamps?: boolean;
  tailLines?: number;
  /** Clock ms: only lines at or after it. */
  sinceMs?: number;
  signal?: AbortSignal;
}

/** The containers of the nodes a kubelet runs, as the API server sees them. */
export interface NodeContainers {
  /**
   * The log of a container of the pod with this uid: text chunks, or why there is none
   * (`NoContainer`: the container has not started on this node; `NoPrevious`: it never restarted).
   */
  read(podUid: string, container: string, query: ContainerLogQuery, pod?: { namespace: string; name: string }): LogRead | Promise<LogRead>;
}

/** A log as text chunks, or why there is none. */
export type LogRead = AsyncIterable<string> | { reason: 'NoContainer' | 'NoPrevious' };

/** The kubelets this API server can reach, by node name. */
export interface NodeConnections {
  /** Serves the containers of `nodes` from `source`; returns the function that unregisters them. */
  register(nodes: readonly string[], source: NodeContainers): () => void;
  /** The kubelet of a node, if one registered. */
  get(node: string): NodeContainers | undefined;
  /** The kubelet of a node no kubelet registered, reached over the network (set by the API server when it has kubelet credentials). */
  remote?: (node: string) => Promise<NodeContainers | undefined>;
}

/** An empty set of node connections. */
export function createNodeConnections(): NodeConnections {
  const byNode = new Map<string, NodeContainers>();
  const connections: NodeConnections = {
    register(nodes, source) {
      for (const n of nodes) byNode.set(n, source);
      return () => {
        for (const n of nodes) if (byNode.get(n) === source) byNode.delete(n);
      };
    },
    get: (node) => byNode.get(node),
  };
  return connections;
}
