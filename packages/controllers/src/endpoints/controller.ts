/**
 * The endpoints controller (kube-controller-manager's endpoints-controller): keeps the core/v1
 * Endpoints object of every Service with a selector (same name) listing its pods: ready pods in
 * `addresses`, the others in `notReadyAddresses` (all ready with publishNotReadyAddresses),
 * grouped into subsets by the ports they serve. Deleting the Service deletes its Endpoints.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '@kplane/api';
import {
  Endpoints, NAMESPACE_INDEX, Pods, Services,
  type Controller, type EndpointAddress, type EndpointSubset, type Endpoints as EndpointsObject, type Manager, type Pod, type Request, type Service,
} from '@kplane/runtime';
import { servicesSelecting } from '../endpointslice/controller.js';
import {
  TRIGGER_TIME_ANNOTATION, TriggerTimeTracker, hostnameFor, isPodReady, podIPs, resolvePorts, selects, serviceLabels, serviceSelector, shouldPodBeInEndpoints,
} from '../endpointslice/pods.js';

/** Options of createEndpointsController. */
export interface EndpointsControllerOptions {
  /** Controller and workqueue name (default "endpoint"). */
  name?: string;
  /** Services synced in parallel (default 5, --concurrent-endpoint-syncs). */
  workers?: number;
  /** Batching of pod changes per Service (ms, default 0: --endpoint-updates-batch-period). */
  batchPeriodMs?: number;
}

/** Addresses an Endpoints object holds at most (kube's maxCapacity). */
export const MAX_ENDPOINTS_ADDRESSES = 1000;
/** Set to "truncated" on Endpoints cut to MAX_ENDPOINTS_ADDRESSES. */
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';

/**
 * kube's truncateEndpoints: past the capacity, not-ready addresses go first, then ready ones,
 * each subset keeping a share proportional to its size. Returns whether anything was cut.
 */
export function truncateSubsets(subsets: EndpointSubset[], max = MAX_ENDPOINTS_ADDRESSES): boolean {
  const totalReady = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const totalNotReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  if (totalReady + totalNotReady <= max) return false;
  const truncateReady = totalReady > max;
  const room = truncateReady ? max : max - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = room;
  for (const s of subsets) {
    const inSubset = truncateReady ? (s.addresses?.length ?? 0) : (s.notReadyAddresses?.length ?? 0);
    const toAdd = Math.min(Math.ceil((inSubset / numTotal) * room), canBeAdded);
    if (truncateReady) {
      s.addresses = (s.addresses ?? []).slice(0, toAdd);
      delete s.notReadyAddresses;
      canBeAdded -= s.addresses.length;
    } else {
      s.notReadyAddresses = (s.notReadyAddresses ?? []).slice(0, toAdd);
      canBeAdded -= s.notReadyAddresses.length;
    }
    if (s.addresses?.length === 0) delete s.addresses;
    if (s.notReadyAddresses?.length === 0) delete s.notReadyAddresses;
  }
  return true;
}

/** kube's LessEndpointAddress: the IPs compared as strings (byte by byte), then the pods' uids. */
const ipCompare = (a: EndpointAddress, b: EndpointAddress): number => {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? '';
  const ub = b.targetRef?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
};

interface PodAddress {
  address: EndpointAddress;
  ports: EndpointSubset['ports'];
  /** The ports as one string: the subset the address goes to. */
  key: string;
  ready: boolean;
}

/**
 * Each pod's address, kept while the pod and the Service are the same objects (cached objects
 * are replaced, never changed): a sync of a Service of thousands of pods recomputes only the
 * pods that changed.
 */
const addressCache = new WeakMap<Pod, { svc: Service; value: PodAddress | undefined }>();

function podAddress(pod: Pod, svc: Service, publish: boolean): PodAddress | undefined {
  const hit = addressCache.get(pod);
  if (hit && hit.svc === svc) return hit.value;
  const value = computePodAddress(pod, svc, publish);
  addressCache.set(pod, { svc, value });
  return value;
}

function computePodAddress(pod: Pod, svc: Service, publish: boolean): PodAddress | undefined {
  if (!shouldPodBeInEndpoints(pod, publish)) return undefined;
  const ip = podIPs(pod).find((a) => (svc.spec?.ipFamilies?.[0] === 'IPv6') === a.includes(':'));
  if (!ip) return undefined;
  const address: EndpointAddress = { ip };
  const hostname = hostnameFor(pod, svc);
  if (hostname) address.hostname = hostname;
  if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
  address.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  const ports = resolvePorts(svc, pod)
    .map((p) => {
      const out: NonNullable<EndpointSubset['ports']>[number] = { port: p.port, protocol: p.protocol as 'TCP' };
      if (p.name) out.name = p.name;
      if (p.appProtocol) out.appProtocol = p.appProtocol;
      return out;
    })
    .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port);
  // A Service with ports whose pod serves none of them is left out, as kube does.
  if ((svc.spec?.ports?.length ?? 0) > 0 && ports.length === 0) return undefined;
  return { address, ports, key: JSON.stringify(ports), ready: publish || isPodReady(pod) };
}

/**
 * The subsets of the Service's Endpoints (kube's RepackSubsets): one per distinct set of
 * ports, addresses sorted by IP, ports by name.
 */
export function endpointSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const publish = svc.spec?.publishNotReadyAddresses === true;
  const groups = new Map<string, { ports: EndpointSubset['ports']; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const pod of pods) {
    const entry = podAddress(pod, svc, publish);
    if (!entry) continue;
    let group = groups.get(entry.key);
    if (!group) groups.set(entry.key, (group = { ports: entry.ports, ready: [], notReady: [] }));
    if (entry.ready) group.ready.push(entry.address);
    else group.notReady.push(entry.address);
  }
  const subsets: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const subset: EndpointSubset = {};
    if (g.ready.length) subset.addresses = g.ready.sort(ipCompare);
    if (g.notReady.length) subset.notReadyAddresses = g.notReady.sort(ipCompare);
    if (g.ports?.length) subset.ports = g.ports;
    subsets.push(subset);
  }
  return subsets.sort((a, b) => JSON.stringify(a.ports ?? []).localeCompare(JSON.stringify(b.ports ?? [])));
}

/** Registers the endpoints controller on `manager`. */
export function createEndpointsController(manager: Manager, options: EndpointsControllerOptions = {}): Controller {
  const services = manager.factory.informerFor<Service>(Services);
  const pods = manager.factory.informerFor<Pod>(Pods);
  const endpoints = manager.factory.informerFor<EndpointsObject>(Endpoints);
  const api = manager.client.resource<EndpointsObject>(Endpoints);
  const triggers = new TriggerTimeTracker();

  const reconcile = async (req: Request): Promise<void> => {
    const key = `${req.namespace}/${req.name}`;
    const svc = services.store.get(key);
    if (!svc) {
      triggers.forget(req.namespace, req.name);
      // The Service is gone: so are its Endpoints (they have no owner reference), unless they
      // serve as a leader-election lock (kube leaves those too).
      if (endpoints.store.get(key)?.metadata?.annotations?.['control-plane.alpha.kubernetes.io/leader'] !== undefined) return;
      try {
        await api.delete(req.name, { namespace: req.namespace });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
      return;
    }
    if (!serviceSelector(svc)) return; // Endpoints of a Service without a selector are its owner's to write
    const selected = pods.store.byIndex(NAMESPACE_INDEX, req.namespace ?? '').filter((p) => selects(svc, p));
    const subsets = endpointSubsets(svc, selected);
    const truncated = truncateSubsets(subsets);
    const labels = serviceLabels(svc);
    const current = endpoints.store.get(key);
    const trigger = triggers.compute(svc, selected);
    const wasTruncated = current?.metadata?.annotations?.[OVER_CAPACITY_ANNOTATION] === 'truncated';
    if (current && wasTruncated === truncated && isDeepStrictEqual(current.subsets ?? [], subsets) && isDeepStrictEqual(current.metadata?.labels ?? {}, labels)) return;
    const annotations: Record<string, string> = { ...(current?.metadata?.annotations ?? {}) };
    if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    // Without a known change (a resync, a label change) the annotation is dropped, as kube does.
    if (trigger) annotations[TRIGGER_TIME_ANNOTATION] = trigger;
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    const desired: EndpointsObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { ...current?.metadata, name: req.name, namespace: req.namespace, labels, annotations },
    };
    if (subsets.length > 0) desired.subsets = subsets;
    try {
      if (current) await api.update(desired, { namespace: req.namespace });
      else await api.create(desired, { namespace: req.namespace });
    } catch (err) {
      // A stale cache: the watch brings the current object and wakes the Service again.
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) {
        if (!current && err.code === 409) {
          const fresh = await api.get(req.name, { namespace: req.namespace });
          await api.update({ ...desired, metadata: { ...fresh.metadata, labels, annotations: { ...fresh.metadata?.annotations, ...annotations } } }, { namespace: req.namespace });
        }
        return;
      }
      throw err;
    }
  };

  const batchWindowMs = options.batchPeriodMs && options.batchPeriodMs > 0 ? options.batchPeriodMs : undefined;
  return manager
    .controller()
    .named(options.name ?? 'endpoint')
    .for<Service>(Services)
    .watches<EndpointsObject>(Endpoints, (ep) => [{ namespace: ep.metadata!.namespace!, name: ep.metadata!.name! }])
    .watches<Pod>(Pods, (pod) => servicesSelecting(services.store.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? ''), pod), { batchWindowMs })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
