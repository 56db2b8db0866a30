/**
 * What kube-apiserver does for Services at start: the allocators' repair (rebuild the stored
 * ClusterIP and NodePort bitmaps from the stored Services, reporting duplicates, addresses out
 * of range and values the bitmaps lacked as Warning Events), the `default/kubernetes` Service at the range's
 * first address (its Endpoints and EndpointSlice are the lease endpoint reconciler's:
 * endpoint-reconciler.ts).
 */
import { networkInterfaces } from 'node:os';
import { ApiError, rfc3339, type KubeObject } from '@kplane/api';
import type { Registry } from '../registry/registry.js';
import { serviceClusterIPs, serviceNodePorts } from '../kinds/service.js';
import { RepairRaceError, type AllocatedService, type RepairProblem, type ServiceAllocator } from './ip-allocator.js';

/** The `kubernetes` Service's labels, as kube-apiserver sets them. */
export const KUBERNETES_SERVICE_LABELS = { component: 'apiserver', provider: 'kubernetes' } as const;

type Obj = Record<string, any>;

/**
 * Rebuilds the allocations from the stored Services (oldest first, so the older of two
 * Services holding one value keeps it) and records a Warning Event per problem.
 */
export async function repairServiceAllocations(registry: Registry, allocator: ServiceAllocator, now: () => Date, options: { retries?: number } = {}): Promise<RepairProblem[]> {
  const services = registry.get('', 'v1', 'services');
  if (!services) return [];
  const repair = () =>
    allocator.repair(async () => {
      // Read from storage (not the watch cache), after the allocator read its bitmaps.
      const list = await services.list(undefined);
      const items = [...list.items].sort((a, b) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? '')));
      return items.map(allocatedService);
    });
  let problems: RepairProblem[];
  // At start kube-apiserver runs the repair until it succeeds: API servers starting together
  // over one storage race each other's repairs.
  for (let attempt = 0; ; attempt++) {
    try {
      problems = await repair();
      break;
    } catch (err) {
      if (!(err instanceof RepairRaceError) || attempt >= (options.retries ?? 0)) throw err;
    }
  }
  const events = registry.get('', 'v1', 'events');
  let seq = 0;
  for (const p of problems) {
    console.error(`kplane: service allocation repair: ${p.service}: ${p.message}`);
    const [namespace, name] = p.service.split('/') as [string, string];
    const t = rfc3339(now());
    try {
      await events?.create(namespace, {
        apiVersion: 'v1',
        kind: 'Event',
        // Named as client-go's recorder names events: <object>.<nanoseconds in hex>.
        metadata: { name: `${name}.${(BigInt(now().getTime()) * 1_000_000n + BigInt(seq++)).toString(16)}`, namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Service', namespace, name, uid: p.owner },
        reason: p.reason,
        message: p.message,
        type: 'Warning',
        source: { component: p.reason.startsWith('Port') ? 'portallocator-repair-controller' : 'ipallocator-repair-controller' },
        firstTimestamp: t,
        lastTimestamp: t,
        count: 1,
        reportingComponent: '',
        reportingInstance: '',
      });
    } catch (err) {
      console.error('kplane: recording a repair event failed:', err);
    }
  }
  return problems;
}

/** What a stored Service holds, as the allocators see it. */
export function allocatedService(s: KubeObject): AllocatedService {
  const spec = (s.spec ?? {}) as Obj;
  return {
    owner: s.metadata?.uid ?? '',
    name: `${s.metadata?.namespace}/${s.metadata?.name}`,
    clusterIPs: spec.type === 'ExternalName' ? [] : serviceClusterIPs(spec),
    nodePorts: serviceNodePorts(spec),
  };
}

/** The address the endpoint reconciler publishes for a bind host (an unspecified host: the first external IPv4). */
export function advertiseAddress(host: string): string {
  if (host && host !== '0.0.0.0' && host !== '::') return host;
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** Creates `default/<name>` of a resource, or merges `desired` into it unless `same` says it already matches. */
export async function upsertDefault(registry: Registry, resource: string, group: string, version: string, desired: KubeObject, same: (cur: KubeObject) => boolean): Promise<void> {
  const store = registry.get(group, version, resource);
  if (!store) return;
  const name = desired.metadata!.name!;
  // Again from a fresh read when another API server wrote it in between (servers starting
  // together all write it; a create can also lose the Service's ClusterIP to the other's).
  for (let attempt = 0; ; attempt++) {
    try {
      let current: KubeObject | undefined;
      try {
        current = await store.get('default', name);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
      if (!current) {
        await store.create('default', desired);
        return;
      }
      if (same(current)) return;
      await store.guaranteedUpdate('default', name, (cur) => ({ ...cur, ...desired, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, ...desired.metadata?.labels } } }));
      return;
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 422)) || attempt >= 10) throw err;
    }
  }
}

/**
 * Creates or repairs `default/kubernetes` (port 443 "https" → `port`, at the range's first
 * address). A target port that is some live API server's (`livePorts`, from the lease endpoint
 * reconciler) is left alone, so servers on distinct ports do not rewrite it in turn.
 */
export async function reconcileKubernetesService(registry: Registry, allocator: ServiceAllocator, port: number, livePorts: readonly number[] = []): Promise<void> {
  const ports = [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }];
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { ...KUBERNETES_SERVICE_LABELS } },
    spec: { type: 'ClusterIP', sessionAffinity: 'None', clusterIP: allocator.kubernetesIP, clusterIPs: [allocator.kubernetesIP], ports },
  };
  await upsertDefault(registry, 'services', '', 'v1', service, (cur) => {
    const spec = (cur.spec ?? {}) as Obj;
    if (spec.type !== 'ClusterIP') return false;
    if (JSON.stringify(spec.ports) === JSON.stringify(ports)) return true;
    const target = spec.ports?.length === 1 ? spec.ports[0].targetPort : undefined;
    return livePorts.includes(target) && JSON.stringify(spec.ports) === JSON.stringify([{ ...ports[0], targetPort: target }]);
  });
}
