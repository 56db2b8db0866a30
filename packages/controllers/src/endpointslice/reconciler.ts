/**
 * The endpointslice controller's reconciler, as a pure function: from a Service, the pods it
 * selects and the slices it has, the slices to create, update and delete. Endpoints with the same
 * resolved ports share slices of at most `maxEndpointsPerSlice`; slices keep their endpoints in
 * place while they stay, new endpoints fill free room before new slices are made, and a Service
 * without endpoints keeps one empty placeholder slice (reused, not replaced, once endpoints come).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Endpoint, EndpointSlice, Node, Pod, Service } from '@kplane/runtime';
import {
  MANAGED_BY, MANAGED_BY_LABEL, SERVICE_NAME_LABEL, TRIGGER_TIME_ANNOTATION, hostnameFor, isPodReady, podIPs, resolvePorts, serviceLabels,
  shouldPodBeInEndpoints, type ResolvedPort,
} from './pods.js';

/** kube-controller-manager's --max-endpoints-per-slice default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;
/** The node label naming its zone. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What the controller writes. Slices to create carry `metadata.generateName`. */
export interface SliceChanges {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
}

/** Inputs of reconcileSlices. */
export interface SliceInputs {
  service: Service;
  /** The pods the Service selects. */
  pods: readonly Pod[];
  /** The Service's managed slices. */
  existing: readonly EndpointSlice[];
  /** Node lookup, for zones. */
  node?: (name: string) => Node | undefined;
  maxEndpointsPerSlice?: number;
  /** The endpoints.kubernetes.io/last-change-trigger-time value for written slices. */
  triggerTime?: string;
}

type AddressType = 'IPv4' | 'IPv6';

/** The address type of the Service's slices (its first IP family). */
export function addressTypeOf(svc: Service): AddressType {
  return svc.spec?.ipFamilies?.[0] === 'IPv6' ? 'IPv6' : 'IPv4';
}

/** podToEndpoint: addresses of the slice's family, the conditions, node, zone, hostname, targetRef. */
export function podToEndpoint(pod: Pod, svc: Service, addressType: AddressType, node?: Node): Endpoint | undefined {
  const addresses = podIPs(pod).filter((ip) => (addressType === 'IPv6') === ip.includes(':'));
  if (addresses.length === 0) return undefined;
  const publish = svc.spec?.publishNotReadyAddresses === true;
  const serving = publish || isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  // "ready" is never true for a terminating pod, unless publishNotReadyAddresses is set.
  const ready = publish || (serving && !terminating);
  const ep: Endpoint = { addresses: [addresses[0]!], conditions: { ready, serving, terminating } };
  const hostname = hostnameFor(pod, svc);
  if (hostname) ep.hostname = hostname;
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  ep.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  const zone = node?.metadata?.labels?.[ZONE_LABEL];
  if (zone) ep.zone = zone;
  return ep;
}

const portsKey = (ports: readonly { name?: string; port?: number; protocol?: string; appProtocol?: string }[] | undefined): string =>
  (ports ?? []).map((p) => `${p.name ?? ''}/${p.port ?? ''}/${p.protocol ?? 'TCP'}/${p.appProtocol ?? ''}`).join(',');

const endpointKey = (ep: Endpoint): string => ep.targetRef?.uid ?? ep.addresses[0] ?? '';

// One collator for every comparison (localeCompare with options builds one per call), made at
// first use: building it costs about 10 ms, too much to pay on every import.
let numericOrder: Intl.Collator | undefined;
const byAddress = (a: Endpoint, b: Endpoint): number => (numericOrder ??= new Intl.Collator('en', { numeric: true })).compare(a.addresses[0] ?? '', b.addresses[0] ?? '');

/** The metadata every managed slice of the Service carries. */
function sliceMeta(svc: Service, triggerTime: string | undefined): NonNullable<EndpointSlice['metadata']> {
  const labels = { ...serviceLabels(svc), [SERVICE_NAME_LABEL]: svc.metadata!.name!, [MANAGED_BY_LABEL]: MANAGED_BY };
  const meta: NonNullable<EndpointSlice['metadata']> = {
    namespace: svc.metadata!.namespace,
    labels,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata!.name!, uid: svc.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
  };
  if (triggerTime) meta.annotations = { [TRIGGER_TIME_ANNOTATION]: triggerTime };
  return meta;
}

/**
 * The endpoint of each pod, kept while the pod, the Service and the node are the same objects
 * (cached objects are replaced, never changed, when they change): a sync of a Service of
 * thousands of pods recomputes only the pods that changed.
 */
interface PodEndpoint {
  ep: Endpoint;
  ports: ResolvedPort[];
  key: string;
}
const endpointCache = new WeakMap<Pod, { svc: Service; node: Node | undefined; value: PodEndpoint | undefined }>();

function cachedEndpoint(pod: Pod, svc: Service, node: Node | undefined, compute: () => PodEndpoint | undefined): PodEndpoint | undefined {
  const hit = endpointCache.get(pod);
  if (hit && hit.svc === svc && hit.node === node) return hit.value;
  const value = compute();
  endpointCache.set(pod, { svc, node, value });
  return value;
}

/** Computes the slice writes that bring the Service's slices to its pods. */
export function reconcileSlices(input: SliceInputs): SliceChanges {
  const { service: svc } = input;
  const max = input.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
  const addressType = addressTypeOf(svc);
  const meta = sliceMeta(svc, input.triggerTime);

  // The desired endpoints, grouped by the ports they serve.
  const desired = new Map<string, { ports: ResolvedPort[]; endpoints: Map<string, Endpoint> }>();
  for (const pod of input.pods) {
    const node = pod.spec?.nodeName ? input.node?.(pod.spec.nodeName) : undefined;
    const found = cachedEndpoint(pod, svc, node, () => {
      const ep = shouldPodBeInEndpoints(pod, true) ? podToEndpoint(pod, svc, addressType, node) : undefined;
      if (!ep) return undefined;
      const ports = resolvePorts(svc, pod);
      return { ep, ports, key: portsKey(ports) };
    });
    if (!found) continue;
    const { ep, ports, key } = found;
    let group = desired.get(key);
    if (!group) desired.set(key, (group = { ports, endpoints: new Map() }));
    group.endpoints.set(endpointKey(ep), ep);
  }

  const changes: SliceChanges = { create: [], update: [], delete: [] };
  const kept: EndpointSlice[] = [];
  const existingByKey = new Map<string, EndpointSlice[]>();
  for (const s of input.existing) {
    if (s.addressType !== addressType) {
      changes.delete.push(s);
      continue;
    }
    const k = portsKey(s.ports);
    existingByKey.set(k, [...(existingByKey.get(k) ?? []), s]);
  }
  const withMeta = (s: EndpointSlice, endpoints: Endpoint[], ports: ResolvedPort[] | undefined): EndpointSlice => ({
    ...s,
    metadata: { ...s.metadata, labels: meta.labels, ownerReferences: meta.ownerReferences, annotations: { ...s.metadata?.annotations, ...meta.annotations } },
    addressType,
    endpoints,
    ports: ports as EndpointSlice['ports'],
  });
  const metaChanged = (s: EndpointSlice) =>
    !isDeepStrictEqual(s.metadata?.labels ?? {}, meta.labels) || !isDeepStrictEqual(s.metadata?.ownerReferences ?? [], meta.ownerReferences);

  for (const [key, group] of desired) {
    const slices = existingByKey.get(key) ?? [];
    existingByKey.delete(key);
    const placed = new Set<string>();
    const open: { slice: EndpointSlice; endpoints: Endpoint[]; changed: boolean }[] = [];
    for (const s of slices) {
      const endpoints: Endpoint[] = [];
      let changed = false;
      for (const ep of s.endpoints ?? []) {
        const k = endpointKey(ep);
        const want = group.endpoints.get(k);
        if (!want || placed.has(k)) {
          changed = true;
          continue;
        }
        placed.add(k);
        if (!isDeepStrictEqual(ep, want)) changed = true;
        endpoints.push(want);
      }
      open.push({ slice: s, endpoints, changed: changed || metaChanged(s) });
    }
    const rest = [...group.endpoints].filter(([k]) => !placed.has(k)).map(([, ep]) => ep).sort(byAddress);
    // Fill the room slices have before making new ones.
    for (const o of open) {
      while (o.endpoints.length < max && rest.length > 0 && o.endpoints.length > 0) {
        o.endpoints.push(rest.shift()!);
        o.changed = true;
      }
    }
    for (const o of open) {
      if (o.endpoints.length === 0) changes.delete.push(o.slice);
      else if (o.changed) changes.update.push(withMeta(o.slice, o.endpoints, group.ports));
      else kept.push(o.slice);
    }
    for (let i = 0; i < rest.length; i += max) {
      changes.create.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { ...meta, generateName: `${svc.metadata!.name}-` },
        addressType,
        endpoints: rest.slice(i, i + max),
        ports: group.ports as EndpointSlice['ports'],
      });
    }
  }
  for (const slices of existingByKey.values()) changes.delete.push(...slices);

  // The placeholder: kept while nothing else exists, reused when the first slice is made.
  const isPlaceholder = (s: EndpointSlice) => (s.endpoints ?? []).length === 0 && (s.ports ?? []).length === 0;
  const placeholderIndex = changes.delete.findIndex(isPlaceholder);
  const placeholder = placeholderIndex >= 0 ? changes.delete[placeholderIndex] : undefined;
  if (changes.create.length > 0 && placeholder) {
    changes.delete.splice(placeholderIndex, 1);
    const first = changes.create.shift()!;
    changes.update.push(withMeta(placeholder, first.endpoints, first.ports as ResolvedPort[]));
  } else if (changes.create.length === 0 && changes.update.length === 0 && kept.length === 0) {
    if (placeholder) {
      changes.delete.splice(placeholderIndex, 1);
      if (metaChanged(placeholder)) changes.update.push(withMeta(placeholder, [], undefined));
    } else {
      changes.create.push({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { ...meta, generateName: `${svc.metadata!.name}-` }, addressType, endpoints: [] });
    }
  }
  return changes;
}
