/** core/v1 services (ClusterIP allocation, port defaults, validation) and endpoints. */
import { isIP } from 'node:net';
import {
  nameIsDNS1035Label, fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, isDNS1123Subdomain, validateLabels,
  invalid, type KubeObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType, StrategyContext } from '../registry/resource.js';
import { AllocationError } from '../server/ip-allocator.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { PORT_RANGE_MSG, isValidPortName, isValidPortNum } from './pod-validation.js';
import { STANDARD_VERBS, asObj, child, formatLabels, goStringSlice, invalidRendered, objs, setDefault, str, type Obj } from './util.js';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function needsClusterIP(spec: Obj): boolean {
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

function needsNodePorts(spec: Obj): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

/** Applies Service defaults (SetDefaults_Service plus the REST layer's IP family fields). */
export function defaultService(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = child(child(spec, 'sessionAffinityConfig'), 'clientIP');
    setDefault(cfg, 'timeoutSeconds', 10800);
  }
  for (const p of objs(spec.ports)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (spec.type !== 'ExternalName') {
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    const headlessWithoutSelector = spec.clusterIP === 'None' && Object.keys(asObj(spec.selector) ?? {}).length === 0;
    setDefault(spec, 'ipFamilyPolicy', headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack');
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
    if (spec.clusterIP === 'None') setDefault(spec, 'clusterIPs', ['None']);
    else if (str(spec.clusterIP) && (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0)) spec.clusterIPs = [spec.clusterIP];
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
  // status.loadBalancer is a struct, not a pointer, in Kubernetes: every Service shows it.
  child(child(obj as Obj, 'status'), 'loadBalancer');
}

/** The ClusterIPs a Service holds (none for headless and ExternalName). */
export function serviceClusterIPs(spec: Obj): string[] {
  const ips = Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0 ? (spec.clusterIPs as unknown[]) : [spec.clusterIP];
  return ips.map((ip) => str(ip)).filter((ip) => ip && ip !== 'None');
}

/** The NodePorts a Service holds. */
export function serviceNodePorts(spec: Obj): number[] {
  return objs(spec.ports).map((p) => p.nodePort).filter((n): n is number => typeof n === 'number' && n > 0);
}

/** The ClusterIPs and NodePorts a Service's spec holds, as far as its type uses them. */
function held(spec: Obj): { ips: string[]; ports: number[] } {
  return { ips: needsClusterIP(spec) ? serviceClusterIPs(spec) : [], ports: needsNodePorts(spec) ? serviceNodePorts(spec) : [] };
}

/** What `a` holds and `b` does not. */
function beyond(a: { ips: string[]; ports: number[] }, b: { ips: string[]; ports: number[] }): { ips: string[]; ports: number[] } {
  return { ips: a.ips.filter((ip) => !b.ips.includes(ip)), ports: a.ports.filter((p) => !b.ports.includes(p)) };
}

/**
 * Allocates what the Service's spec needs and `kept` (what the stored Service holds, on an
 * update) does not have (kube's REST layer): the requested ClusterIP or a free one, the
 * requested NodePorts or free ones. A refusal is a 422 worded as kube-apiserver's; what this
 * call took is given back first.
 */
async function allocate(obj: KubeObject, ctx: StrategyContext, kept: { ips: string[]; ports: number[] } = { ips: [], ports: [] }): Promise<void> {
  const alloc = ctx.dryRun ? ctx.serviceAllocator?.dryRun : ctx.serviceAllocator;
  if (!alloc) return;
  const spec = child(obj as Obj, 'spec');
  const name = obj.metadata?.name ?? '';
  const took = { ips: [] as string[], ports: [] as number[] };
  const fail = async (cause: StatusCause): Promise<never> => {
    await alloc.release(took.ips, took.ports);
    throw invalid('', 'Service', name, [cause]);
  };
  if (needsClusterIP(spec)) {
    const requested = serviceClusterIPs(spec)[0];
    if (!requested || !kept.ips.includes(requested)) {
      try {
        const ip = await alloc.allocateIP(requested);
        took.ips.push(ip);
        spec.clusterIP = ip;
        if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = [ip];
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        if (!requested) await fail({ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Internal error: failed to allocate a serviceIP: ${err.message}` });
        await fail(invalidRendered('spec.clusterIPs', goStringSlice(spec.clusterIPs ?? [requested]), `failed to allocate IP ${requested}: ${err.message}`));
      }
    }
  }
  if (needsNodePorts(spec)) {
    const ports = objs(spec.ports);
    for (const [i, p] of ports.entries()) {
      if (typeof p.nodePort !== 'number' || p.nodePort === 0 || kept.ports.includes(p.nodePort) || took.ports.includes(p.nodePort)) continue;
      try {
        took.ports.push(await alloc.allocateNodePort(p.nodePort));
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        await fail(fieldInvalid(`spec.ports[${i}].nodePort`, p.nodePort, err.message));
      }
    }
    // A port number exposed over two protocols shares one NodePort, as kube-apiserver allocates it.
    const byPort = new Map<unknown, number>();
    for (const p of ports) if (typeof p.nodePort === 'number' && p.nodePort > 0) byPort.set(p.port, p.nodePort);
    for (const p of ports) {
      if (typeof p.nodePort === 'number' && p.nodePort > 0) continue;
      const shared = byPort.get(p.port);
      if (shared) {
        p.nodePort = shared;
        continue;
      }
      try {
        p.nodePort = await alloc.allocateNodePort();
        took.ports.push(p.nodePort as number);
        byPort.set(p.port, p.nodePort as number);
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        await fail({ reason: 'FieldValueInvalid', field: 'spec.ports', message: `Internal error: failed to allocate a nodePort: ${err.message}` });
      }
    }
  }
}

/**
 * kube's dropTypeDependentFields: a type change that leaves the old ClusterIP or NodePorts in
 * place (as `kubectl edit` or a patch of spec.type does) drops them when the new type has no use
 * for them, so they are released instead of refused.
 */
function dropTypeDependentFields(obj: KubeObject, old: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  const oldSpec = specOf(old);
  if (needsClusterIP(oldSpec) && !needsClusterIP(spec) && spec.type === 'ExternalName') {
    const same = JSON.stringify(serviceClusterIPs(spec)) === JSON.stringify(serviceClusterIPs(oldSpec));
    if (same) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
      delete spec.internalTrafficPolicy;
    }
  }
  if (needsNodePorts(oldSpec) && !needsNodePorts(spec)) {
    const oldPorts = new Set(serviceNodePorts(oldSpec));
    for (const p of objs(spec.ports)) if (typeof p.nodePort === 'number' && oldPorts.has(p.nodePort)) delete p.nodePort;
  }
  if (oldSpec.type === 'NodePort' || oldSpec.type === 'LoadBalancer') {
    if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer' && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) delete spec.externalTrafficPolicy;
  }
}

function validateService(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = specOf(obj);
  const type = str(spec.type);
  if (!TYPES.includes(type)) out.push(fieldNotSupported('spec.type', type, TYPES));
  const ports = objs(spec.ports);
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && type !== 'ExternalName') out.push(fieldRequired('spec.ports'));
  if (type === 'ExternalName') {
    const ext = str(spec.externalName);
    if (!ext) out.push(fieldRequired('spec.externalName'));
    else for (const m of isDNS1123Subdomain(ext.replace(/\.$/, ''))) out.push(fieldInvalid('spec.externalName', ext, m));
    if (str(spec.clusterIP) && !headless) out.push(fieldInvalid('spec.clusterIP', spec.clusterIP, 'may not be set for ExternalName services'));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const pp = `spec.ports[${i}]`;
    const pn = str(p.name);
    if (ports.length > 1 && !pn) out.push(fieldRequired(`${pp}.name`));
    if (pn) {
      for (const m of isDNS1123Label(pn)) out.push(fieldInvalid(`${pp}.name`, pn, m));
      if (names.has(pn)) out.push(fieldDuplicate(`${pp}.name`, pn));
      names.add(pn);
    }
    if (!isValidPortNum(p.port)) out.push(fieldInvalid(`${pp}.port`, p.port ?? 0, PORT_RANGE_MSG));
    const proto = str(p.protocol);
    if (!proto) out.push(fieldRequired(`${pp}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(proto)) out.push(fieldNotSupported(`${pp}.protocol`, proto, ['SCTP', 'TCP', 'UDP']));
    const target = p.targetPort;
    if (typeof target === 'number' && !isValidPortNum(target)) out.push(fieldInvalid(`${pp}.targetPort`, target, PORT_RANGE_MSG));
    if (typeof target === 'string') for (const m of isValidPortName(target)) out.push(fieldInvalid(`${pp}.targetPort`, target, m));
    if (p.nodePort !== undefined && p.nodePort !== 0 && !isValidPortNum(p.nodePort)) out.push(fieldInvalid(`${pp}.nodePort`, p.nodePort, PORT_RANGE_MSG));
    if (p.nodePort && type === 'ClusterIP') out.push({ reason: 'FieldValueForbidden', field: `${pp}.nodePort`, message: 'Forbidden: may not be used when `type` is \'ClusterIP\'' });
    const key = `${String(p.port)}/${proto}`;
    if (keys.has(key)) out.push(fieldDuplicate(pp, `${p.port}/${proto}`));
    keys.add(key);
  });
  const affinity = str(spec.sessionAffinity);
  if (affinity && affinity !== 'ClientIP' && affinity !== 'None') out.push(fieldNotSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  out.push(...validateLabels(asObj(spec.selector) as Record<string, string> | undefined, 'spec.selector'));
  const ips = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [];
  ips.forEach((ip, i) => {
    if (ip !== 'None' && !isIP(String(ip))) out.push(fieldInvalid(`spec.clusterIPs[${i}]`, String(ip), 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  if (old) {
    const oldIPs = specOf(old).clusterIPs;
    const oldFirst = Array.isArray(oldIPs) ? oldIPs[0] : undefined;
    if (oldFirst && ips.length > 0 && ips[0] !== oldFirst && type !== 'ExternalName' && specOf(old).type !== 'ExternalName') {
      out.push(invalidRendered('spec.clusterIPs[0]', goStringSlice(ips), 'may not change once set'));
    }
  }
  return out;
}

function externalIP(spec: Obj, status: Obj): string {
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as string[]) : [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set(objs(asObj(status.loadBalancer)?.ingress).map((i) => str(i.ip) || str(i.hostname)).filter(Boolean))].sort();
      if (external.length) return [...lb, ...external].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function portsCell(spec: Obj): string {
  const s = objs(spec.ports)
    .map((p) => (typeof p.nodePort === 'number' && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${str(p.protocol)}` : `${p.port}/${str(p.protocol)}`))
    .join(',');
  return s || '<none>';
}

/** The services resource. */
export function serviceResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    listKind: 'ServiceList',
    singular: 'service',
    shortNames: ['svc'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/services/specs',
    schemaName: 'io.k8s.api.core.v1.Service',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      nameValidator: nameIsDNS1035Label,
      defaults: defaultService,
      async prepareForCreate(obj, ctx) {
        await allocate(obj, ctx);
      },
      admitUpdate(obj, old, req) {
        if (req.subresource === '') dropTypeDependentFields(obj, old);
      },
      async prepareForUpdate(obj, old, ctx) {
        const spec = child(obj as Obj, 'spec');
        const oldSpec = specOf(old);
        if (needsClusterIP(spec) && serviceClusterIPs(spec).length === 0 && serviceClusterIPs(oldSpec).length > 0) {
          spec.clusterIP = oldSpec.clusterIP;
          spec.clusterIPs = oldSpec.clusterIPs ?? [oldSpec.clusterIP];
        }
        if (needsNodePorts(spec)) {
          const oldPorts = objs(oldSpec.ports);
          for (const p of objs(spec.ports)) {
            if (p.nodePort) continue;
            const prev = oldPorts.find((o) => o.port === p.port && str(o.protocol) === str(p.protocol));
            if (prev?.nodePort) p.nodePort = prev.nodePort;
          }
        }
        await allocate(obj, ctx, held(oldSpec));
      },
      async afterUpdate(obj, old, ctx, stored) {
        const now = held(specOf(obj));
        const before = held(specOf(old));
        // Stored: what the new spec no longer holds goes back (a type change, a dropped port);
        // not stored: what this write took does.
        const free = stored ? beyond(before, now) : beyond(now, before);
        if (!ctx.dryRun) await ctx.serviceAllocator?.release(free.ips, free.ports);
      },
      async afterDelete(obj, ctx) {
        const { ips, ports } = held(specOf(obj));
        if (!ctx.dryRun) await ctx.serviceAllocator?.release(ips, ports);
      },
      validate: validateService,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Type', type: 'string', description: 'type determines how the Service is exposed.', priority: 0 },
          { name: 'Cluster-IP', type: 'string', description: 'clusterIP is the IP address of the service.', priority: 0 },
          { name: 'External-IP', type: 'string', description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.', priority: 0 },
          { name: 'Port(s)', type: 'string', description: 'The list of ports that are exposed by this service.', priority: 0 },
          AGE_COLUMN,
          { name: 'Selector', type: 'string', description: 'Route service traffic to pods with label keys and values matching this selector.', priority: 1 },
        ],
        row(obj, now) {
          const spec = specOf(obj);
          const status = (asObj(obj.status) ?? {}) as Obj;
          const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
          return [
            obj.metadata?.name ?? '',
            str(spec.type),
            ips.length > 0 ? String(ips[0]) : '<none>',
            externalIP(spec, status),
            portsCell(spec),
            translateTimestampSince(obj.metadata?.creationTimestamp, now),
            formatLabels(spec.selector),
          ];
        },
      },
    },
  };
}

/** printers.go formatEndpoints: up to three ip:port pairs, then " + N more...". */
export function formatEndpoints(obj: KubeObject): string {
  const subsets = objs((obj as Obj).subsets);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  const hostPort = (ip: string, port: unknown) => (ip.includes(':') ? `[${ip}]:${String(port)}` : `${ip}:${String(port)}`);
  for (const ss of subsets) {
    const addrs = objs(ss.addresses);
    const ports = objs(ss.ports);
    if (ports.length === 0) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(str(a.ip));
      }
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(hostPort(str(a.ip), p.port));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

/** The endpoints resource. */
export function endpointsResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'endpoints',
    kind: 'Endpoints',
    listKind: 'EndpointsList',
    singular: 'endpoints',
    shortNames: ['ep'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/services/endpoints',
    schemaName: 'io.k8s.api.core.v1.Endpoints',
    strategy: {
      generation: false,
      defaults(obj) {
        for (const ss of objs((obj as Obj).subsets)) for (const p of objs(ss.ports)) if (!p.protocol) p.protocol = 'TCP';
      },
      validate(obj) {
        const out: StatusCause[] = [];
        objs((obj as Obj).subsets).forEach((ss, i) => {
          for (const key of ['addresses', 'notReadyAddresses']) {
            objs(ss[key]).forEach((a, j) => {
              const ip = str(a.ip);
              if (!isIP(ip)) out.push(fieldInvalid(`subsets[${i}].${key}[${j}].ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
            });
          }
          objs(ss.ports).forEach((p, j) => {
            if (!isValidPortNum(p.port)) out.push(fieldInvalid(`subsets[${i}].ports[${j}].port`, p.port ?? 0, PORT_RANGE_MSG));
          });
        });
        return out;
      },
      table: {
        columns: [NAME_COLUMN, { name: 'Endpoints', type: 'string', description: 'The set of all endpoints is the union of all subsets.', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', formatEndpoints(obj), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}
