/**
 * Where metrics.k8s.io reads resource usage: the kubelets register a source here (as they
 * register their containers' logs in nodes.ts), and GET on metrics.k8s.io/v1beta1 pods and
 * nodes answers from the sources' current objects, as metrics-server answers from its scrapes.
 */
import { ApiError, notFound, parseLabelSelector, type KubeObject } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';

/** What a kubelet reports: metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics objects. */
export interface ResourceMetricsSource {
  metrics(): { nodes: readonly KubeObject[]; pods: readonly KubeObject[] };
}

/** The registered sources of resource metrics. */
export interface ResourceMetrics {
  /** Adds a source; returns the function that removes it. */
  register(source: ResourceMetricsSource): () => void;
  /** The objects of every source, for one resource. */
  read(resource: 'pods' | 'nodes'): KubeObject[];
}

/** An empty set of metrics sources. */
export function createResourceMetrics(): ResourceMetrics {
  const sources = new Set<ResourceMetricsSource>();
  return {
    register(source) {
      sources.add(source);
      return () => sources.delete(source);
    },
    read(resource) {
      const out: KubeObject[] = [];
      for (const s of sources) out.push(...s.metrics()[resource]);
      return out;
    },
  };
}

/**
 * Reads a GET of a read-only resource: the list (by namespace and `labelSelector`) or one
 * object by name (404 `<resource>.<group> "<name>" not found`, metrics-server's message).
 */
export function readObjects(type: ResourceType, namespace: string | undefined, name: string | undefined, q: Record<string, string>): KubeObject {
  const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
  let items = (type.read?.() ?? []).filter((o) => !type.namespaced || namespace === undefined || o.metadata?.namespace === namespace);
  if (name !== undefined) {
    const found = items.find((o) => o.metadata?.name === name);
    if (!found) throw notFound(type.group, type.resource, name);
    return found;
  }
  if (q.labelSelector) {
    let sel;
    try {
      sel = parseLabelSelector(q.labelSelector);
    } catch (err) {
      throw new ApiError(400, 'BadRequest', err instanceof Error ? err.message : String(err));
    }
    items = items.filter((o) => sel.matches(o.metadata?.labels));
  }
  if (q.fieldSelector) {
    const m = /^metadata\.name(==?)(.*)$/.exec(q.fieldSelector);
    if (m) items = items.filter((o) => o.metadata?.name === m[2]);
  }
  items.sort((a, b) => `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`.localeCompare(`${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`));
  return { kind: type.listKind, apiVersion, metadata: {}, items };
}
