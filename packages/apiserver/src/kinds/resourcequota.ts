/** core/v1 resourcequotas and limitranges: validation, the status subresource and kubectl's Table columns. */
import { fieldForbidden, fieldInvalid, fieldNotSupported, parseQuantityExact, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, objs, str, type Obj } from './util.js';

/** The quota scopes kube-apiserver accepts. */
export const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];
const SCOPE_OPERATORS = ['DoesNotExist', 'Exists', 'In', 'NotIn'];

/** Each quantity of a resource list must parse and be ≥ 0 (ValidateResourceQuantityValue). */
function nonNegative(list: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries(asObj(list) ?? {})) {
    const q = parseQuantityExact(v);
    if (q && q.nano < 0n) out.push(fieldInvalid(`${path}[${k}]`, v, 'must be greater than or equal to 0'));
  }
  return out;
}

/** ValidateResourceQuota, the parts kubectl users meet: quantities ≥ 0, known scopes and operators, no opposite scopes. */
function validateQuota(obj: KubeObject): StatusCause[] {
  const spec = asObj(obj.spec) ?? {};
  const out = [...nonNegative(spec.hard, 'spec.hard'), ...nonNegative(asObj(obj.status)?.hard, 'status.hard'), ...nonNegative(asObj(obj.status)?.used, 'status.used')];
  const scopes = Array.isArray(spec.scopes) ? (spec.scopes as unknown[]).map(str) : [];
  scopes.forEach((s, i) => {
    if (!QUOTA_SCOPES.includes(s)) out.push(fieldInvalid(`spec.scopes[${i}]`, s, 'unsupported scope'));
  });
  const has = (s: string) => scopes.includes(s);
  if ((has('BestEffort') && has('NotBestEffort')) || (has('Terminating') && has('NotTerminating'))) {
    out.push(fieldInvalid('spec.scopes', scopes, 'conflicting scopes'));
  }
  objs(asObj(spec.scopeSelector)?.matchExpressions).forEach((e, i) => {
    const path = `spec.scopeSelector.matchExpressions[${i}]`;
    if (!QUOTA_SCOPES.includes(str(e.scopeName))) out.push(fieldInvalid(`${path}.scopeName`, e.scopeName, 'unsupported scope'));
    if (!SCOPE_OPERATORS.includes(str(e.operator))) out.push(fieldNotSupported(`${path}.operator`, e.operator, SCOPE_OPERATORS));
    const values = Array.isArray(e.values) ? e.values : [];
    if ((e.operator === 'In' || e.operator === 'NotIn') && !values.length) out.push(fieldInvalid(`${path}.values`, e.values, 'must be at least one value when `operator` is \'In\' or \'NotIn\' for scope selector'));
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length) out.push(fieldInvalid(`${path}.values`, e.values, 'must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector'));
  });
  return out;
}

/** "resource: used/hard, ..." for kubectl's REQUEST and LIMIT columns (limits.* in the second). */
export function quotaColumns(obj: KubeObject): [string, string] {
  const status = asObj(obj.status) ?? {};
  const hard = (asObj(status.hard) ?? {}) as Record<string, string>;
  const used = (asObj(status.used) ?? {}) as Record<string, string>;
  const request: string[] = [];
  const limit: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const pieces = r.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(`${r}: ${used[r] ?? '0'}/${hard[r]}`);
  }
  return [request.join(', '), limit.join(', ')];
}

/** The resourcequotas resource. */
export function resourceQuotaResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    listKind: 'ResourceQuotaList',
    singular: 'resourcequota',
    shortNames: ['quota'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/resourcequotas',
    schemaName: 'io.k8s.api.core.v1.ResourceQuota',
    subresources: { status: true },
    strategy: {
      generation: false,
      returnDeletedObject: true,
      validate: validateQuota,
      table: {
        columns: [
          NAME_COLUMN,
          AGE_COLUMN,
          { name: 'Request', type: 'string', description: '', priority: 0 },
          { name: 'Limit', type: 'string', description: '', priority: 0 },
        ],
        row: (obj, now) => [obj.metadata?.name ?? '', translateTimestampSince(obj.metadata?.creationTimestamp, now), ...quotaColumns(obj)],
      },
    },
  };
}

const LIMIT_TYPES = ['Container', 'PersistentVolumeClaim', 'Pod'];

/** ValidateLimitRange, the common checks: known types, quantities ≥ 0, min ≤ default request ≤ default ≤ max. */
function validateLimitRange(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  objs(asObj(obj.spec)?.limits).forEach((l: Obj, i) => {
    const path = `spec.limits[${i}]`;
    if (!LIMIT_TYPES.includes(str(l.type)) && !str(l.type).includes('/')) out.push(fieldNotSupported(`${path}.type`, l.type, LIMIT_TYPES));
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) out.push(...nonNegative(l[f], `${path}.${f}`));
    if (l.type === 'Pod' && (l.default || l.defaultRequest)) {
      if (l.default) out.push(fieldForbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (l.defaultRequest) out.push(fieldForbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    }
    const min = (asObj(l.min) ?? {}) as Record<string, string>;
    const max = (asObj(l.max) ?? {}) as Record<string, string>;
    const def = (asObj(l.default) ?? {}) as Record<string, string>;
    const defReq = (asObj(l.defaultRequest) ?? {}) as Record<string, string>;
    const lt = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && (parseQuantityExact(a)?.nano ?? 0n) < (parseQuantityExact(b)?.nano ?? 0n);
    for (const k of new Set([...Object.keys(min), ...Object.keys(max), ...Object.keys(def), ...Object.keys(defReq)])) {
      if (lt(max[k], min[k])) out.push(fieldInvalid(`${path}.min[${k}]`, min[k], `min value ${min[k]} is greater than max value ${max[k]}`));
      if (lt(def[k], min[k])) out.push(fieldInvalid(`${path}.default[${k}]`, def[k], `min value ${min[k]} is greater than default value ${def[k]}`));
      if (lt(max[k], def[k])) out.push(fieldInvalid(`${path}.default[${k}]`, def[k], `default value ${def[k]} is greater than max value ${max[k]}`));
      if (lt(defReq[k], min[k])) out.push(fieldInvalid(`${path}.defaultRequest[${k}]`, defReq[k], `min value ${min[k]} is greater than default request value ${defReq[k]}`));
      if (lt(max[k], defReq[k])) out.push(fieldInvalid(`${path}.defaultRequest[${k}]`, defReq[k], `default request value ${defReq[k]} is greater than max value ${max[k]}`));
      if (lt(def[k], defReq[k])) out.push(fieldInvalid(`${path}.defaultRequest[${k}]`, defReq[k], `default request value ${defReq[k]} is greater than default limit value ${def[k]}`));
    }
  });
  return out;
}

/** The limitranges resource. */
export function limitRangeResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'limitranges',
    kind: 'LimitRange',
    listKind: 'LimitRangeList',
    singular: 'limitrange',
    shortNames: ['limits'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/limitranges',
    schemaName: 'io.k8s.api.core.v1.LimitRange',
    strategy: {
      generation: false,
      defaults(obj) {
        // SetDefaults_LimitRangeItem: a Container item's default limit falls back to max, its default request to the default limit, then to min.
        for (const l of objs(asObj(obj.spec)?.limits)) {
          if (l.type !== 'Container') continue;
          const def = { ...((asObj(l.default) ?? {}) as Record<string, unknown>) };
          const req = { ...((asObj(l.defaultRequest) ?? {}) as Record<string, unknown>) };
          for (const [k, v] of Object.entries(asObj(l.max) ?? {})) if (!Object.hasOwn(def, k)) def[k] = v;
          for (const [k, v] of Object.entries(def)) if (!Object.hasOwn(req, k)) req[k] = v;
          for (const [k, v] of Object.entries(asObj(l.min) ?? {})) if (!Object.hasOwn(req, k)) req[k] = v;
          if (Object.keys(def).length) l.default = def;
          if (Object.keys(req).length) l.defaultRequest = req;
        }
      },
      validate: validateLimitRange,
      table: {
        columns: [NAME_COLUMN, { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 }],
        row: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? ''],
      },
    },
  };
}
