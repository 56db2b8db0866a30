/** apps/v1 deployments and replicasets: defaults, validation, Table columns, scale subresource. */
import { fieldInvalid, fieldNotSupported, fieldRequired, labelSelectorFromObject, validateLabelSelector, FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type LabelSelectorObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import {
  STANDARD_VERBS, asObj, child, containerCells, formatLabelSelector, goLabelSelector, goStringMap, invalidRendered, num, selectorString, semanticEqual, setDefault, type Obj,
} from './util.js';

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function statusOf(obj: KubeObject): Obj {
  return (asObj(obj.status) ?? {}) as Obj;
}

function defaultTemplate(spec: Obj): void {
  const template = child(spec, 'template');
  defaultPodSpec(child(template, 'spec'));
}

/** Validates replicas, selector and template of a Deployment or ReplicaSet spec (ValidateDeploymentSpec / ValidateReplicaSetSpec). */
function validateWorkloadSpec(spec: Obj, kindLower: string): StatusCause[] {
  const out: StatusCause[] = [];
  const replicas = spec.replicas;
  if (typeof replicas === 'number' && replicas < 0) out.push(fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) {
    out.push(fieldInvalid('spec.minReadySeconds', spec.minReadySeconds, 'must be greater than or equal to 0'));
  }
  const selector = asObj(spec.selector) as LabelSelectorObject | undefined;
  if (!selector) {
    out.push(fieldRequired('spec.selector'));
  } else {
    out.push(...validateLabelSelector(selector, 'spec.selector'));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      out.push(invalidRendered('spec.selector', goLabelSelector(selector), `empty selector is invalid for ${kindLower}`));
    }
  }
  let parsed: ReturnType<typeof labelSelectorFromObject> | undefined;
  try {
    parsed = labelSelectorFromObject(selector);
  } catch {
    out.push(invalidRendered('spec.selector', goLabelSelector(selector), 'invalid label selector'));
  }
  const template = asObj(spec.template) ?? {};
  if (parsed) {
    const labels = asObj(asObj(template.metadata)?.labels) as Record<string, string> | undefined;
    if (!parsed.empty && !parsed.matches(labels)) {
      out.push(invalidRendered('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
    }
    const podSpec = (asObj(template.spec) ?? {}) as Obj;
    out.push(...validatePodSpec(podSpec, 'spec.template.spec'));
    const restart = podSpec.restartPolicy;
    if (restart && restart !== 'Always') out.push(fieldNotSupported('spec.template.spec.restartPolicy', restart, ['Always']));
    if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
      out.push(fieldInvalid('spec.template.spec.activeDeadlineSeconds', podSpec.activeDeadlineSeconds, 'activeDeadlineSeconds in ReplicaSet is not Supported'));
    }
  }
  return out;
}

function selectorImmutable(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  if (!old) return [];
  const sel = specOf(obj).selector;
  if (semanticEqual(sel, specOf(old).selector)) return [];
  return [invalidRendered('spec.selector', goLabelSelector(sel), FIELD_IMMUTABLE_ERROR_MSG)];
}

/** Validates a Deployment's rolling-update parameters. */
function validateStrategy(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const strategy = (asObj(spec.strategy) ?? {}) as Obj;
  const type = strategy.type;
  if (type !== 'Recreate' && type !== 'RollingUpdate') {
    out.push(fieldNotSupported('spec.strategy.type', type ?? '', ['Recreate', 'RollingUpdate']));
  } else if (type === 'Recreate' && strategy.rollingUpdate) {
    out.push({ reason: 'FieldValueForbidden', field: 'spec.strategy.rollingUpdate', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" });
  }
  const ru = asObj(strategy.rollingUpdate);
  if (ru) {
    const isZero = (v: unknown) => v === 0 || v === '0%' || v === '0';
    if (isZero(ru.maxSurge) && isZero(ru.maxUnavailable)) {
      out.push(fieldInvalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
    for (const k of ['maxSurge', 'maxUnavailable']) {
      const v = ru[k];
      if (typeof v === 'number' && v < 0) out.push(fieldInvalid(`spec.strategy.rollingUpdate.${k}`, v, 'must be greater than or equal to 0'));
      if (typeof v === 'string' && !/^\d+%$/.test(v)) out.push(fieldInvalid(`spec.strategy.rollingUpdate.${k}`, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
      if (k === 'maxUnavailable' && typeof v === 'string' && /^\d+%$/.test(v) && parseInt(v, 10) > 100) {
        out.push(fieldInvalid('spec.strategy.rollingUpdate.maxUnavailable', v, 'must not be greater than 100%'));
      }
    }
  }
  for (const k of ['revisionHistoryLimit', 'progressDeadlineSeconds']) {
    const v = spec[k];
    if (typeof v === 'number' && v < 0) out.push(fieldInvalid(`spec.${k}`, v, 'must be greater than or equal to 0'));
  }
  const pds = spec.progressDeadlineSeconds;
  const mrs = spec.minReadySeconds;
  if (typeof pds === 'number' && typeof mrs === 'number' && pds <= mrs) {
    out.push(fieldInvalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return out;
}

const CONTAINERS_COLUMN = { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 };
const IMAGES_COLUMN = { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 };

const deploymentTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', priority: 0 },
    { name: 'Up-to-date', type: 'string', description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', priority: 0 },
    { name: 'Available', type: 'string', description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', priority: 0 },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    { name: 'Selector', type: 'string', description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const status = statusOf(obj);
    const [names, images] = containerCells(asObj(asObj(spec.template)?.spec)?.containers);
    return [
      obj.metadata?.name ?? '',
      `${num(status.readyReplicas)}/${num(spec.replicas)}`,
      num(status.updatedReplicas),
      num(status.availableReplicas),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      selectorString(spec.selector),
    ];
  },
};

const replicaSetTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired replicas.', priority: 0 },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of replicas.', priority: 0 },
    { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replica set.', priority: 0 },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    { name: 'Selector', type: 'string', description: 'Selector is a label query over pods that should match the replica count.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const status = statusOf(obj);
    const [names, images] = containerCells(asObj(asObj(spec.template)?.spec)?.containers);
    return [
      obj.metadata?.name ?? '',
      num(spec.replicas),
      num(status.replicas),
      num(status.readyReplicas),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

const SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' };

/** The deployments resource. */
export function deploymentResource(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    listKind: 'DeploymentList',
    singular: 'deployment',
    shortNames: ['deploy'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true, scale: SCALE },
    storagePrefix: '/registry/deployments',
    schemaName: 'io.k8s.api.apps.v1.Deployment',
    strategy: {
      generation: true,
      defaults(obj) {
        const spec = child(obj as Obj, 'spec');
        setDefault(spec, 'replicas', 1);
        const strategy = child(spec, 'strategy');
        setDefault(strategy, 'type', 'RollingUpdate');
        if (strategy.type === 'RollingUpdate') {
          const ru = child(strategy, 'rollingUpdate');
          setDefault(ru, 'maxUnavailable', '25%');
          setDefault(ru, 'maxSurge', '25%');
        }
        setDefault(spec, 'revisionHistoryLimit', 10);
        setDefault(spec, 'progressDeadlineSeconds', 600);
        defaultTemplate(spec);
      },
      validate(obj, old) {
        const spec = specOf(obj);
        return [...validateWorkloadSpec(spec, 'deployment'), ...validateStrategy(spec), ...selectorImmutable(obj, old)];
      },
      table: deploymentTable,
    },
  };
}

/** The replicasets resource. */
export function replicaSetResource(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    listKind: 'ReplicaSetList',
    singular: 'replicaset',
    shortNames: ['rs'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true, scale: SCALE },
    storagePrefix: '/registry/replicasets',
    schemaName: 'io.k8s.api.apps.v1.ReplicaSet',
    strategy: {
      generation: true,
      defaults(obj) {
        const spec = child(obj as Obj, 'spec');
        setDefault(spec, 'replicas', 1);
        defaultTemplate(spec);
      },
      validate(obj, old) {
        return [...validateWorkloadSpec(specOf(obj), 'replicaset'), ...selectorImmutable(obj, old)];
      },
      table: replicaSetTable,
      fieldSelectors: { 'status.replicas': (o) => String(num(statusOf(o).replicas)) },
    },
  };
}
