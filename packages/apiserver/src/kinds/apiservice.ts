/**
 * apiregistration.k8s.io/v1 apiservices: the APIService objects kube-apiserver's aggregator
 * keeps, one per served group/version. kplane serves every group itself, so its APIServices are
 * Local (no service) and always Available; one naming a service is proxied to (server/aggregator.ts).
 */
import { fieldInvalid, fieldNotSupported, fieldRequired, isDNS1035Label, isDNS1123Subdomain, nameIsPathSegment, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, num, objs, str, type Obj } from './util.js';

/** The condition a Local APIService gets on create (kube-aggregator's NewLocalAvailableAPIServiceCondition). */
export function localAvailableCondition(now: Date): Obj {
  return {
    type: 'Available',
    status: 'True',
    lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason: 'Local',
    message: 'Local APIServices are always available',
  };
}

/** The bytes a base64 caBundle decodes to. */
function decodedLength(v: unknown): number {
  return typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
}

/** kube-aggregator's ValidateAPIService (metadata is checked by the store). */
export function validateAPIService(obj: KubeObject): StatusCause[] {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const out: StatusCause[] = [];
  const group = str(spec.group);
  const version = str(spec.version);
  const required = `${version}.${group}`;
  const name = obj.metadata?.name ?? '';
  if (nameIsPathSegment(name, false).length === 0 && name !== required) {
    out.push(fieldInvalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group === '' && version !== 'v1') out.push(fieldRequired('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const e of isDNS1123Subdomain(group)) out.push(fieldInvalid('spec.group', group, e));
  for (const e of isDNS1035Label(version)) out.push(fieldInvalid('spec.version', version, e));
  const gp = num(spec.groupPriorityMinimum);
  if (gp <= 0 || gp > 20000) out.push(fieldInvalid('spec.groupPriorityMinimum', gp, 'must be positive and less than 20000'));
  const vp = num(spec.versionPriority);
  if (vp <= 0 || vp > 1000) out.push(fieldInvalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const service = asObj(spec.service);
  const caBytes = decodedLength(spec.caBundle);
  if (!service) {
    if (caBytes !== 0) out.push(fieldInvalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) out.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return out;
  }
  if (!str(service.namespace)) out.push(fieldRequired('spec.service.namespace', ''));
  if (!str(service.name)) out.push(fieldRequired('spec.service.name', ''));
  const port = num(service.port);
  if (!(port >= 1 && port <= 65535)) out.push(fieldInvalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (spec.insecureSkipTLSVerify === true && caBytes > 0) out.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return out;
}

/** kube-aggregator's ValidateAPIServiceStatus: condition statuses are True, False or Unknown. */
function validateStatus(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  objs(asObj(obj.status)?.conditions).forEach((c, i) => {
    const s = str(c.status);
    if (s !== 'True' && s !== 'False' && s !== 'Unknown') out.push(fieldNotSupported(`status.conditions[${i}].status`, s, ['True', 'False', 'Unknown']));
  });
  return out;
}

/** The AVAILABLE cell: the Available condition's status, with its reason when not True. */
function availableCell(obj: KubeObject): string {
  const c = objs(asObj(obj.status)?.conditions).find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True' || !str(c.reason)) return str(c.status);
  return `${str(c.status)} (${str(c.reason)})`;
}

/** The apiservices resource; `now` stamps the Available condition of Local APIServices. */
export function apiServiceResource(now: () => Date = () => new Date()): ResourceType {
  return {
    group: 'apiregistration.k8s.io',
    version: 'v1',
    resource: 'apiservices',
    kind: 'APIService',
    listKind: 'APIServiceList',
    singular: 'apiservice',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/apiregistration.k8s.io/apiservices',
    schemaName: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService',
    strategy: {
      allowUnconditionalUpdate: false,
      generation: false,
      nameValidator: nameIsPathSegment,
      defaults(obj) {
        const service = asObj(asObj(obj.spec)?.service);
        if (service && (service.port === undefined || service.port === null)) service.port = 443;
      },
      validate: (obj, old) => [...validateAPIService(obj), ...(old ? validateStatus(obj) : [])],
      prepareForCreate(obj) {
        // As kube-aggregator: a new APIService's status is cleared, and a Local one is Available.
        const status = child(obj as Obj, 'status');
        if (!asObj(asObj(obj.spec)?.service)) status.conditions = [localAvailableCondition(now())];
      },
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Service', type: 'string', description: 'The reference to the service that hosts this API endpoint.', priority: 0 },
          { name: 'Available', type: 'string', description: 'Whether this service is available.', priority: 0 },
          AGE_COLUMN,
        ],
        row(obj, at) {
          const service = asObj(asObj(obj.spec)?.service);
          return [obj.metadata?.name ?? '', service ? `${str(service.namespace)}/${str(service.name)}` : 'Local', availableCell(obj), translateTimestampSince(obj.metadata?.creationTimestamp, at)];
        },
      },
    },
  };
}
