/**
 * The Node authorizer's graph, as kube-apiserver's node graph: which objects each node may
 * reach through the pods bound to it (the pod itself, its ServiceAccount, the Secrets,
 * ConfigMaps and PersistentVolumeClaims it references), kept current by the pods' watch cache.
 * A relation is a count per node, so an object two pods of a node reference stays reachable
 * until both are gone.
 */
import type { KubeObject } from '@kplane/api';
import type { Registry } from '../../registry/registry.js';

/** The kinds of objects a node reaches through its pods. */
export type VertexType = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'serviceaccount';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Obj => x !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The objects a pod references, as kube's pod visitors find them: imagePullSecrets; secret,
 * configMap, projected, persistentVolumeClaim, ephemeral and CSI volumes; env and envFrom of
 * every container (init and ephemeral ones included); its ServiceAccount.
 */
export function podReferences(pod: KubeObject): [VertexType, string][] {
  const spec = obj(pod.spec) ?? {};
  const podName = pod.metadata?.name ?? '';
  const out: [VertexType, string][] = [];
  const add = (t: VertexType, name: string) => {
    if (name) out.push([t, name]);
  };
  const sa = str(spec.serviceAccountName);
  if (sa) add('serviceaccount', sa);
  for (const s of arr(spec.imagePullSecrets)) add('secret', str(s.name));
  for (const v of arr(spec.volumes)) {
    add('secret', str(obj(v.secret)?.secretName));
    add('configmap', str(obj(v.configMap)?.name));
    add('persistentvolumeclaim', str(obj(v.persistentVolumeClaim)?.claimName));
    if (obj(v.ephemeral)) add('persistentvolumeclaim', `${podName}-${str(v.name)}`);
    add('secret', str(obj(obj(v.csi)?.nodePublishSecretRef)?.name));
    for (const src of arr(obj(v.projected)?.sources)) {
      add('secret', str(obj(src.secret)?.name));
      add('configmap', str(obj(src.configMap)?.name));
    }
  }
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of arr(list)) {
      for (const e of arr(c.envFrom)) {
        add('secret', str(obj(e.secretRef)?.name));
        add('configmap', str(obj(e.configMapRef)?.name));
      }
      for (const e of arr(c.env)) {
        const from = obj(e.valueFrom);
        add('secret', str(obj(from?.secretKeyRef)?.name));
        add('configmap', str(obj(from?.configMapKeyRef)?.name));
      }
    }
  }
  return out;
}

const key = (t: VertexType, namespace: string, name: string) => `${t}/${namespace}/${name}`;

/** Which objects each node reaches through the pods bound to it. */
export class NodeGraph {
  /** Each bound pod: its node and the keys it adds. */
  private readonly pods = new Map<string, { node: string; keys: string[] }>();
  /** Per node, the keys it reaches with their counts. */
  private readonly nodes = new Map<string, Map<string, number>>();

  /** Adds or replaces a pod (a pod without spec.nodeName is no relation). */
  setPod(pod: KubeObject): void {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    this.deletePod(ns, name);
    const node = str(obj(pod.spec)?.nodeName);
    if (!node) return;
    const keys = [key('pod', ns, name), ...podReferences(pod).map(([t, n]) => key(t, ns, n))];
    let m = this.nodes.get(node);
    if (!m) this.nodes.set(node, (m = new Map()));
    for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
    this.pods.set(`${ns}/${name}`, { node, keys });
  }

  /** Removes a pod and what it made reachable. */
  deletePod(namespace: string, name: string): void {
    const id = `${namespace}/${name}`;
    const old = this.pods.get(id);
    if (!old) return;
    this.pods.delete(id);
    const m = this.nodes.get(old.node)!;
    for (const k of old.keys) {
      const n = (m.get(k) ?? 0) - 1;
      if (n > 0) m.set(k, n);
      else m.delete(k);
    }
    if (m.size === 0) this.nodes.delete(old.node);
  }

  /** The node a pod is bound to, as the pods' watch cache last showed it (undefined: not bound, or not seen yet). */
  nodeOf(namespace: string, name: string): string | undefined {
    return this.pods.get(`${namespace}/${name}`)?.node;
  }

  /** Does the node reach the object through a pod bound to it? */
  related(node: string, type: VertexType, namespace: string, name: string): boolean {
    return this.nodes.get(node)?.has(key(type, namespace, name)) ?? false;
  }
}

/** A running feed of the graph. */
export interface NodeGraphFeed {
  stop(): void;
}

/** Lists the pods into `graph` (resolving when they are in) and follows the pods' watch cache until stopped. */
export async function startNodeGraphFeed(registry: Registry, graph: NodeGraph): Promise<NodeGraphFeed> {
  const stop = new AbortController();
  const store = registry.get('', 'v1', 'pods');
  if (!store) return { stop: () => stop.abort() };
  const known = new Set<string>();
  const relist = async (): Promise<number> => {
    // Page by page (one consistent snapshot): a start on 150,000 stored pods never holds them
    // all as strings and objects at once.
    const { revision, pages } = await store.listPages(undefined, {});
    const now = new Set<string>();
    for await (const items of pages) {
      for (const p of items) {
        const id = `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
        now.add(id);
        known.add(id);
        graph.setPod(p);
      }
    }
    for (const id of known) {
      if (now.has(id)) continue;
      known.delete(id);
      const [ns, name] = id.split('/') as [string, string];
      graph.deletePod(ns, name);
    }
    return revision;
  };
  let rv = await relist();
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        for await (const e of store.cache.watch(rv, stop.signal)) {
          const p = e.object;
          const ns = p.metadata?.namespace ?? '';
          const name = p.metadata?.name ?? '';
          if (e.type === 'DELETED') {
            known.delete(`${ns}/${name}`);
            graph.deletePod(ns, name);
          } else {
            known.add(`${ns}/${name}`);
            graph.setPod(p);
          }
          rv = e.revision;
        }
        if (stop.signal.aborted) return;
      } catch {
        if (stop.signal.aborted) return;
      }
      try {
        rv = await relist();
      } catch {
        return; // storage is gone (the server is closing)
      }
    }
  })();
  return { stop: () => stop.abort() };
}
