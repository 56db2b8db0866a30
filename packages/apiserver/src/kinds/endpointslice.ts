/** discovery.k8s.io/v1 endpointslices: defaults, validation and kubectl's Table columns. */
import { isIP } from 'node:net';
import {
  fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany, isDNS1123Label, isDNS1123Subdomain,
  type KubeObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { PORT_RANGE_MSG, isValidPortNum } from './pod-validation.js';
import { STANDARD_VERBS, objs, str, type Obj } from './util.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;

/** SetDefaults_EndpointPort: protocol TCP and an empty name when absent. */
export function defaultEndpointSlice(obj: KubeObject): void {
  for (const p of objs((obj as Obj).ports)) {
    if (p.protocol === undefined || p.protocol === null) p.protocol = 'TCP';
    if (p.name === undefined || p.name === null) p.name = '';
  }
}

function validateAddress(type: string, address: string, path: string): StatusCause[] {
  if (type === 'IPv4') return isIP(address) === 4 ? [] : [fieldInvalid(path, address, 'must be a valid IPv4 address')];
  if (type === 'IPv6') return isIP(address) === 6 ? [] : [fieldInvalid(path, address, 'must be a valid IPv6 address')];
  if (type === 'FQDN') {
    if (!address.includes('.')) return [fieldInvalid(path, address, 'should be a domain with at least two segments separated by dots')];
    return isDNS1123Subdomain(address).map((m) => fieldInvalid(path, address, m));
  }
  return [];
}

/** ValidateEndpointSlice (and the update rule: addressType is immutable). */
export function validateEndpointSlice(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const o = obj as Obj;
  const type = str(o.addressType);
  if (!type) out.push(fieldRequired('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) out.push(fieldNotSupported('addressType', type, ADDRESS_TYPES));
  const endpoints = objs(o.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) out.push(fieldTooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else {
    endpoints.forEach((ep, i) => {
      const path = `endpoints[${i}]`;
      const addresses = Array.isArray(ep.addresses) ? (ep.addresses as unknown[]) : [];
      if (addresses.length === 0) out.push(fieldRequired(`${path}.addresses`, 'must contain at least 1 address'));
      else if (addresses.length > MAX_ADDRESSES) out.push(fieldTooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
      else addresses.forEach((a, j) => out.push(...validateAddress(type, String(a), `${path}.addresses[${j}]`)));
      const hostname = str(ep.hostname);
      if (hostname) for (const m of isDNS1123Label(hostname)) out.push(fieldInvalid(`${path}.hostname`, hostname, m));
      const nodeName = str(ep.nodeName);
      if (nodeName) for (const m of isDNS1123Subdomain(nodeName)) out.push(fieldInvalid(`${path}.nodeName`, nodeName, m));
    });
  }
  const ports = objs(o.ports);
  if (ports.length > MAX_PORTS) out.push(fieldTooMany('ports', ports.length, MAX_PORTS));
  else {
    const names = new Set<string>();
    ports.forEach((p, i) => {
      const path = `ports[${i}]`;
      const name = str(p.name);
      if (name) for (const m of isDNS1123Label(name)) out.push(fieldInvalid(`${path}.name`, name, m));
      if (names.has(name)) out.push(fieldDuplicate(`${path}.name`, name));
      names.add(name);
      const proto = str(p.protocol);
      if (!proto) out.push(fieldRequired(`${path}.protocol`));
      else if (!PROTOCOLS.includes(proto)) out.push(fieldNotSupported(`${path}.protocol`, proto, PROTOCOLS));
      if (p.port !== undefined && p.port !== null && !isValidPortNum(p.port)) out.push(fieldInvalid(`${path}.port`, p.port, PORT_RANGE_MSG));
    });
  }
  if (old && str((old as Obj).addressType) !== type) out.push(fieldInvalid('addressType', type, 'field is immutable'));
  return out;
}

/** printers.go listWithMoreString: the first three, then " + N more...", or <unset>. */
function listWithMore(list: string[], count: number, max = 3): string {
  const shown = list.slice(0, max).join(',');
  if (count > max) return `${shown} + ${count - max} more...`;
  return shown || '<unset>';
}

/** The PORTS cell: port numbers, else names, else "*". */
export function formatSlicePorts(obj: KubeObject): string {
  const ports = objs((obj as Obj).ports);
  return listWithMore(ports.map((p) => (typeof p.port === 'number' ? String(p.port) : str(p.name) || '*')), ports.length);
}

/** The ENDPOINTS cell: every endpoint's addresses. */
export function formatSliceEndpoints(obj: KubeObject): string {
  const addresses = objs((obj as Obj).endpoints).flatMap((ep) => (Array.isArray(ep.addresses) ? ep.addresses.map(String) : []));
  return listWithMore(addresses, addresses.length);
}

/** The endpointslices resource. */
export function endpointSliceResource(): ResourceType {
  return {
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    listKind: 'EndpointSliceList',
    singular: 'endpointslice',
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/endpointslices',
    schemaName: 'io.k8s.api.discovery.v1.EndpointSlice',
    strategy: {
      // Every change bumps metadata.generation, as kube's endpointslice strategy does.
      generation: true,
      defaults: defaultEndpointSlice,
      validate: validateEndpointSlice,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'AddressType', type: 'string', description: 'addressType specifies the type of address carried by this EndpointSlice.', priority: 0 },
          { name: 'Ports', type: 'string', description: 'ports specifies the list of network ports exposed by each endpoint in this slice.', priority: 0 },
          { name: 'Endpoints', type: 'string', description: 'endpoints is a list of unique endpoints in this slice.', priority: 0 },
          AGE_COLUMN,
        ],
        row: (obj, now) => [obj.metadata?.name ?? '', str((obj as Obj).addressType), formatSlicePorts(obj), formatSliceEndpoints(obj), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}
