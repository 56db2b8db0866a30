/** scheduling.k8s.io/v1 priorityclasses: the system classes, defaults, validation and Table columns. */
import { fieldForbidden, fieldInvalid, fieldNotSupported, FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, setDefault, type Obj } from './util.js';

/** The highest priority a user-defined class may have (HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** The PriorityClasses kube-apiserver creates at start, with their values and descriptions. */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

/** The PriorityClass objects of the system classes, as kube-apiserver's post-start hook creates them. */
export function systemPriorityClasses(): KubeObject[] {
  return SYSTEM_PRIORITY_CLASSES.map((c) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: c.name },
    value: c.value,
    description: c.description,
    preemptionPolicy: 'PreemptLowerPriority',
  }));
}

/** ValidatePriorityClass / ValidatePriorityClassUpdate. */
function validatePriorityClass(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const o = obj as Obj;
  const name = obj.metadata?.name ?? '';
  const out: StatusCause[] = [];
  const system = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (system) {
    if (o.value !== system.value) out.push(fieldForbidden('metadata.name', `${name} is a system priority class with value ${system.value}`));
  } else if (name.startsWith('system-')) {
    out.push(fieldForbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
  } else if (typeof o.value === 'number' && o.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    out.push(fieldForbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (o.preemptionPolicy !== undefined && !PREEMPTION_POLICIES.includes(String(o.preemptionPolicy))) {
    out.push(fieldNotSupported('preemptionPolicy', o.preemptionPolicy, PREEMPTION_POLICIES));
  }
  if (old) {
    if ((old as Obj).value !== o.value) out.push(fieldForbidden('value', 'may not be changed in an update.'));
    if ((old as Obj).preemptionPolicy !== o.preemptionPolicy) out.push(fieldInvalid('preemptionPolicy', o.preemptionPolicy, FIELD_IMMUTABLE_ERROR_MSG));
  }
  return out;
}

/** The priorityclasses resource. */
export function priorityClassResource(): ResourceType {
  return {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    listKind: 'PriorityClassList',
    singular: 'priorityclass',
    shortNames: ['pc'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/priorityclasses',
    schemaName: 'io.k8s.api.scheduling.v1.PriorityClass',
    strategy: {
      generation: false,
      defaults(obj) {
        setDefault(obj as Obj, 'preemptionPolicy', 'PreemptLowerPriority');
      },
      validate: validatePriorityClass,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Value', type: 'integer', description: 'value represents the integer value of this priority class.', priority: 0 },
          { name: 'Global-Default', type: 'boolean', description: 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.', priority: 0 },
          AGE_COLUMN,
          { name: 'PreemptionPolicy', type: 'string', description: 'preemptionPolicy is the Policy for preempting pods with lower priority.', priority: 0 },
        ],
        row: (obj, now) => {
          const o = obj as Obj;
          return [obj.metadata?.name ?? '', typeof o.value === 'number' ? o.value : 0, o.globalDefault === true, translateTimestampSince(obj.metadata?.creationTimestamp, now), String(o.preemptionPolicy ?? '')];
        },
      },
    },
  };
}
