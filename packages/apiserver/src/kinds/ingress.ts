/** networking.k8s.io/v1 ingresses. */
import { fieldInvalid, fieldNotSupported, fieldRequired, isDNS1035Label, isDNS1123Subdomain, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { PORT_RANGE_MSG, isValidPortName, isValidPortNum } from './pod-validation.js';
import { STANDARD_VERBS, asObj, invalidRendered, objs, str, type Obj } from './util.js';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateBackend(b: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const service = asObj(b.service);
  const resource = asObj(b.resource);
  if (service && resource) return [fieldInvalid(path, '', 'cannot set both resource and service backends')];
  if (!service && !resource) return [fieldInvalid(path, '', 'resource or service backend is required')];
  if (service) {
    const name = str(service.name);
    if (!name) out.push(fieldRequired(`${path}.service.name`));
    else for (const m of isDNS1035Label(name)) out.push(fieldInvalid(`${path}.service.name`, name, m));
    const port = (asObj(service.port) ?? {}) as Obj;
    const portName = str(port.name);
    const hasNumber = port.number !== undefined && port.number !== null && port.number !== 0;
    if (portName && hasNumber) out.push(fieldInvalid(path, '', 'cannot set both port name & port number'));
    else if (portName) for (const m of isValidPortName(portName)) out.push(fieldInvalid(`${path}.service.port.name`, portName, m));
    else if (hasNumber) {
      if (!isValidPortNum(port.number)) out.push(fieldInvalid(`${path}.service.port.number`, port.number, PORT_RANGE_MSG));
    } else out.push(fieldRequired(path, 'port name or number is required'));
  }
  return out;
}

function validateIngress(obj: KubeObject): StatusCause[] {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const out: StatusCause[] = [];
  const rules = objs(spec.rules);
  const defaultBackend = asObj(spec.defaultBackend);
  if (rules.length === 0 && !defaultBackend) {
    out.push(invalidRendered('spec', 'networking.IngressSpec{IngressClassName:(*string)(nil), DefaultBackend:(*networking.IngressBackend)(nil), TLS:[]networking.IngressTLS(nil), Rules:[]networking.IngressRule(nil)}', 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend) out.push(...validateBackend(defaultBackend, 'spec.defaultBackend'));
  const cls = str(spec.ingressClassName);
  if (cls) for (const m of isDNS1123Subdomain(cls)) out.push(fieldInvalid('spec.ingressClassName', cls, m));
  rules.forEach((r, i) => {
    const rp = `spec.rules[${i}]`;
    const host = str(r.host);
    if (host) {
      const check = host.startsWith('*.') ? host.slice(2) : host;
      for (const m of isDNS1123Subdomain(check)) out.push(fieldInvalid(`${rp}.host`, host, m));
    }
    const http = asObj(r.http);
    if (!http) return;
    const paths = objs(http.paths);
    if (paths.length === 0) out.push(fieldRequired(`${rp}.http.paths`));
    paths.forEach((p, j) => {
      const pp = `${rp}.http.paths[${j}]`;
      const pathType = str(p.pathType);
      if (!pathType) out.push(fieldRequired(`${pp}.pathType`, 'pathType must be specified'));
      else if (!PATH_TYPES.includes(pathType)) out.push(fieldNotSupported(`${pp}.pathType`, pathType, PATH_TYPES));
      const path = str(p.path);
      if ((pathType === 'Exact' || pathType === 'Prefix') && !path.startsWith('/')) out.push(fieldInvalid(`${pp}.path`, path, 'must be an absolute path'));
      out.push(...validateBackend((asObj(p.backend) ?? {}) as Obj, `${pp}.backend`));
    });
  });
  objs(spec.tls).forEach((t, i) => {
    for (const [j, h] of (Array.isArray(t.hosts) ? t.hosts : []).entries()) {
      const hs = String(h);
      for (const m of isDNS1123Subdomain(hs.startsWith('*.') ? hs.slice(2) : hs)) out.push(fieldInvalid(`spec.tls[${i}].hosts[${j}]`, hs, m));
    }
  });
  return out;
}

/** printers.go formatHosts: up to three hosts, "*" when none. */
function formatHosts(rules: Obj[]): string {
  const list: string[] = [];
  const max = 3;
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && str(r.host)) list.push(str(r.host));
  }
  if (list.length === 0) return '*';
  const ret = list.join(',');
  return more ? `${ret} + ${rules.length - max} more...` : ret;
}

/** The ingresses resource. */
export function ingressResource(): ResourceType {
  return {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    kind: 'Ingress',
    listKind: 'IngressList',
    singular: 'ingress',
    shortNames: ['ing'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/ingress',
    schemaName: 'io.k8s.api.networking.v1.Ingress',
    strategy: {
      generation: true,
      validate: validateIngress,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Class', type: 'string', description: 'The name of the IngressClass resource that should be used for additional configuration', priority: 0 },
          { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', priority: 0 },
          { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', priority: 0 },
          { name: 'Ports', type: 'string', description: 'Ports of TLS configurations that open', priority: 0 },
          AGE_COLUMN,
        ],
        row(obj, now) {
          const spec = (asObj(obj.spec) ?? {}) as Obj;
          const lb = objs(asObj(asObj(asObj(obj.status)?.loadBalancer))?.ingress);
          const address = [...new Set(lb.map((i) => str(i.ip) || str(i.hostname)).filter(Boolean))].sort().join(',');
          return [
            obj.metadata?.name ?? '',
            str(spec.ingressClassName) || '<none>',
            formatHosts(objs(spec.rules)),
            address,
            objs(spec.tls).length ? '80, 443' : '80',
            translateTimestampSince(obj.metadata?.creationTimestamp, now),
          ];
        },
      },
    },
  };
}
