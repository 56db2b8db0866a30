/** core/v1 replicationcontrollers and podtemplates: defaults, validation, Table columns, scale subresource. */
import { fieldInvalid, fieldNotSupported, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, containerCells, formatLabels, goStringMap, invalidRendered, num, setDefault, type Obj } from './util.js';

const specOf = (obj: KubeObject): Obj => (asObj(obj.spec) ?? {}) as Obj;
const statusOf = (obj: KubeObject): Obj => (asObj(obj.status) ?? {}) as Obj;
const stringMap = (v: unknown): Record<string, string> => (asObj(v) ?? {}) as Record<string, string>;

/**
 * SetDefaults_ReplicationController: an empty selector and empty labels are taken from the
 * template's labels; replicas defaults to 1; the template's pod spec gets the pod defaults.
 */
export function defaultReplicationController(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  const template = asObj(spec.template);
  const labels = asObj(asObj(template?.metadata)?.labels);
  if (labels && Object.keys(labels).length > 0) {
    if (Object.keys(stringMap(spec.selector)).length === 0) spec.selector = { ...labels };
    const meta = child(obj as Obj, 'metadata');
    if (Object.keys(stringMap(meta.labels)).length === 0) meta.labels = { ...labels };
  }
  setDefault(spec, 'replicas', 1);
  if (template) defaultPodSpec(child(template, 'spec'));
}

/** ValidateReplicationControllerSpec: replicas, minReadySeconds, a non-empty selector matching the template's labels, the template. */
export function validateReplicationControllerSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  if (typeof spec.replicas === 'number' && spec.replicas < 0) out.push(fieldInvalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) {
    out.push(fieldInvalid('spec.minReadySeconds', spec.minReadySeconds, 'must be greater than or equal to 0'));
  }
  const selector = stringMap(spec.selector);
  if (Object.keys(selector).length === 0) out.push(fieldRequired('spec.selector'));
  const template = asObj(spec.template);
  if (!template) {
    out.push(fieldRequired('spec.template'));
    return out;
  }
  const labels = asObj(asObj(template.metadata)?.labels) as Record<string, string> | undefined;
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels?.[k] === v)) {
    out.push(invalidRendered('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  }
  const podSpec = (asObj(template.spec) ?? {}) as Obj;
  out.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  if (podSpec.restartPolicy && podSpec.restartPolicy !== 'Always') out.push(fieldNotSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    out.push(fieldInvalid('spec.template.spec.activeDeadlineSeconds', podSpec.activeDeadlineSeconds, 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return out;
}

const CONTAINERS_COLUMN = { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 };
const IMAGES_COLUMN = { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 };

/** The replicationcontrollers resource (short name rc). */
export function replicationControllerResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    listKind: 'ReplicationControllerList',
    singular: 'replicationcontroller',
    shortNames: ['rc'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector', labelSelectorIsMap: true } },
    storagePrefix: '/registry/controllers',
    schemaName: 'io.k8s.api.core.v1.ReplicationController',
    strategy: {
      generation: true,
      defaults: defaultReplicationController,
      validate: (obj) => validateReplicationControllerSpec(specOf(obj)),
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired replicas.', priority: 0 },
          { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of replicas.', priority: 0 },
          { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replication controller.', priority: 0 },
          AGE_COLUMN,
          CONTAINERS_COLUMN,
          IMAGES_COLUMN,
          { name: 'Selector', type: 'string', description: 'Selector is a label query over pods that should match the Replicas count.', priority: 1 },
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
            formatLabels(spec.selector),
          ];
        },
      },
      fieldSelectors: { 'status.replicas': (o) => String(num(statusOf(o).replicas)) },
    },
  };
}

/** The podtemplates resource: a plain namespaced kind holding a pod template. */
export function podTemplateResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'podtemplates',
    kind: 'PodTemplate',
    listKind: 'PodTemplateList',
    singular: 'podtemplate',
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/podtemplates',
    schemaName: 'io.k8s.api.core.v1.PodTemplate',
    strategy: {
      generation: false,
      defaults(obj) {
        const template = asObj((obj as Obj).template);
        if (template) defaultPodSpec(child(template, 'spec'));
      },
      validate(obj) {
        const template = asObj((obj as Obj).template);
        if (!template) return [];
        return validatePodSpec((asObj(template.spec) ?? {}) as Obj, 'template.spec');
      },
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 0 },
          { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 0 },
          { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', priority: 0 },
        ],
        row(obj) {
          const template = asObj((obj as Obj).template);
          const [names, images] = containerCells(asObj(template?.spec)?.containers);
          return [obj.metadata?.name ?? '', names, images, formatLabels(asObj(template?.metadata)?.labels)];
        },
      },
    },
  };
}
