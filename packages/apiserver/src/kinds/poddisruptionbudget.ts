/**
 * policy/v1 poddisruptionbudgets: validation (minAvailable xor maxUnavailable, selector,
 * unhealthyPodEvictionPolicy), status subresource and its validation, Table columns.
 */
import { fieldInvalid, fieldNotSupported, validateLabelSelector, type KubeObject, type LabelSelectorObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec, WriteRequest } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, invalidRendered, type Obj } from './util.js';

/** The unhealthyPodEvictionPolicy values policy/v1 accepts. */
export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

const specOf = (obj: KubeObject): Obj => (asObj(obj.spec) ?? {}) as Obj;
const statusOf = (obj: KubeObject): Obj => (asObj(obj.status) ?? {}) as Obj;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** Go's %v of an int-or-string value, as field errors render it. */
function renderIntOrString(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : String(v);
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent of one budget field. */
function validateIntOrPercent(v: unknown, path: string): StatusCause[] {
  if (!isSet(v)) return [];
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v)) return [invalidRendered(path, renderIntOrString(v), "must be an integer or percentage (e.g '5%')")];
    if (parseInt(v, 10) > 100) return [invalidRendered(path, renderIntOrString(v), 'must not be greater than 100%')];
    return [];
  }
  if (isInt(v) && v < 0) return [fieldInvalid(path, v, 'must be greater than or equal to 0')];
  return [];
}

/** ValidatePodDisruptionBudgetSpec. */
function validateSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  if (isSet(spec.minAvailable) && isSet(spec.maxUnavailable)) {
    out.push(invalidRendered('spec', `policy.PodDisruptionBudgetSpec{MinAvailable:${renderIntOrString(spec.minAvailable)}, MaxUnavailable:${renderIntOrString(spec.maxUnavailable)}}`, 'minAvailable and maxUnavailable cannot be both set'));
  }
  out.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  out.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  if (isSet(spec.selector)) out.push(...validateLabelSelector(asObj(spec.selector) as LabelSelectorObject, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (isSet(policy) && !UNHEALTHY_POD_EVICTION_POLICIES.includes(String(policy))) {
    out.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  return out;
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1: the counters may not be negative). */
function validateStatus(obj: KubeObject): StatusCause[] {
  const status = statusOf(obj);
  const out: StatusCause[] = [];
  for (const k of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
    const v = status[k];
    if (isInt(v) && v < 0) out.push(fieldInvalid(`status.${k}`, v, 'must be greater than or equal to 0'));
  }
  return out;
}

function validatePdb(obj: KubeObject, old: KubeObject | undefined, _warnings?: string[], req?: WriteRequest): StatusCause[] {
  if (old && req?.subresource === 'status') return validateStatus(obj);
  return validateSpec(specOf(obj));
}

/** kubectl's columns for PodDisruptionBudgets (NAME, MIN AVAILABLE, MAX UNAVAILABLE, ALLOWED DISRUPTIONS, AGE). */
const pdbTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', priority: 0 },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', priority: 0 },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', priority: 0 },
    AGE_COLUMN,
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const cell = (v: unknown) => (isSet(v) ? String(v) : 'N/A');
    const allowed = statusOf(obj).disruptionsAllowed;
    return [obj.metadata?.name ?? '', cell(spec.minAvailable), cell(spec.maxUnavailable), isInt(allowed) ? allowed : 0, translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

/** The poddisruptionbudgets resource (policy/v1). */
export function podDisruptionBudgetResource(): ResourceType {
  return {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    listKind: 'PodDisruptionBudgetList',
    singular: 'poddisruptionbudget',
    shortNames: ['pdb'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/poddisruptionbudgets',
    schemaName: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    strategy: {
      generation: true,
      validate: validatePdb,
      table: pdbTable,
    },
  };
}
