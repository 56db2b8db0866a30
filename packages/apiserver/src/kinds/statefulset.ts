/**
 * apps/v1 statefulsets: defaults (pkg/apis/apps/v1 SetDefaults_StatefulSet), validation
 * (ValidateStatefulSet, ValidateStatefulSetUpdate, ValidateStatefulSetStatusUpdate), Table
 * columns, status and scale subresources.
 *
 * `spec.updateStrategy.rollingUpdate.maxUnavailable` (the MaxUnavailableStatefulSet feature,
 * alpha and off by default in Kubernetes 1.32, where the field is then dropped) is kept and
 * validated when given, but never defaulted: a StatefulSet reads as on a default 1.32 cluster
 * unless it asks for the field.
 */
import {
  fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, labelSelectorFromObject, validateLabelSelector,
  type KubeObject, type LabelSelectorObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { defaultClaim } from './persistentvolumeclaim.js';
import {
  STANDARD_VERBS, asObj, child, containerCells, goLabelSelector, goStringMap, invalidRendered, num, objs, semanticEqual, setDefault, str, type Obj,
} from './util.js';

const specOf = (obj: KubeObject): Obj => (asObj(obj.spec) ?? {}) as Obj;
const statusOf = (obj: KubeObject): Obj => (asObj(obj.status) ?? {}) as Obj;

/** SetDefaults_StatefulSet, with the pod template's and the claim templates' defaults. */
export function defaultStatefulSet(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    setDefault(strategy, 'rollingUpdate', {});
  }
  const ru = asObj(strategy.rollingUpdate);
  if (strategy.type === 'RollingUpdate' && ru) setDefault(ru, 'partition', 0);
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodSpec(child(child(spec, 'template'), 'spec'));
  for (const claim of objs(spec.volumeClaimTemplates)) {
    // kube-apiserver writes the embedded claims' apiVersion and kind (tools that diff against
    // manifests without them know this well).
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    defaultClaim(claim);
  }
  // replicas and availableReplicas are not omitempty in apps/v1: a new StatefulSet reads with both 0.
  const status = child(obj as Obj, 'status');
  setDefault(status, 'replicas', 0);
  setDefault(status, 'availableReplicas', 0);
}

const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** validateRollingUpdateStatefulSet: partition ≥ 0; maxUnavailable a positive int or percent, at most 100%. */
function validateRollingUpdate(ru: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const partition = ru.partition;
  if (typeof partition === 'number' && partition < 0) out.push(fieldInvalid(`${path}.partition`, partition, 'must be greater than or equal to 0'));
  const mu = ru.maxUnavailable;
  if (mu === undefined || mu === null) return out;
  const mp = `${path}.maxUnavailable`;
  let value: number | undefined;
  if (typeof mu === 'number') {
    if (mu < 0) out.push(fieldInvalid(mp, mu, 'must be greater than or equal to 0'));
    value = mu;
  } else if (typeof mu === 'string') {
    if (!/^[0-9]+%$/.test(mu)) out.push(fieldInvalid(mp, mu, PERCENT_MSG));
    else value = parseInt(mu, 10);
  }
  if (value === 0) out.push(fieldInvalid(mp, mu, 'cannot be 0'));
  if (typeof mu === 'string' && /^[0-9]+%$/.test(mu) && parseInt(mu, 10) > 100) out.push(fieldInvalid(mp, mu, 'must not be greater than 100%'));
  return out;
}

/** Go's %#v of the internal RollingUpdateStatefulSetStrategy, as the OnDelete message prints it. */
function goRollingUpdate(ru: Obj): string {
  const mu = ru.maxUnavailable;
  const maxUnavailable = mu === undefined || mu === null ? '(*intstr.IntOrString)(nil)' : '(*intstr.IntOrString)(0xc000000000)';
  return `apps.RollingUpdateStatefulSetStrategy{Partition:${num(ru.partition)}, MaxUnavailable:${maxUnavailable}}`;
}

function validateRetentionType(v: unknown, path: string): StatusCause[] {
  return v === 'Retain' || v === 'Delete' ? [] : [fieldNotSupported(path, v ?? '', ['Delete', 'Retain'])];
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const pmp = spec.podManagementPolicy;
  if (!pmp) out.push(fieldRequired('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') out.push(fieldInvalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));

  const strategy = (asObj(spec.updateStrategy) ?? {}) as Obj;
  const ru = asObj(strategy.rollingUpdate);
  switch (strategy.type ?? '') {
    case '':
      out.push(fieldRequired('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (ru) out.push(invalidRendered('spec.updateStrategy.rollingUpdate', goRollingUpdate(ru), "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (ru) out.push(...validateRollingUpdate(ru, 'spec.updateStrategy.rollingUpdate'));
      break;
    default:
      out.push(invalidRendered('spec.updateStrategy', `apps.StatefulSetUpdateStrategy{Type:"${str(strategy.type)}", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(${ru ? '0xc000000000' : 'nil'})}`, "must be 'RollingUpdate' or 'OnDelete'"));
  }

  const retention = asObj(spec.persistentVolumeClaimRetentionPolicy);
  if (retention) {
    out.push(...validateRetentionType(retention.whenDeleted, 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted'));
    out.push(...validateRetentionType(retention.whenScaled, 'spec.persistentVolumeClaimRetentionPolicy.whenScaled'));
  }
  for (const k of ['replicas', 'minReadySeconds']) {
    const v = spec[k];
    if (typeof v === 'number' && v < 0) out.push(fieldInvalid(`spec.${k}`, v, 'must be greater than or equal to 0'));
  }
  const start = asObj(spec.ordinals)?.start;
  if (typeof start === 'number' && start < 0) out.push(fieldInvalid('spec.ordinals.start', start, 'must be greater than or equal to 0'));

  const selector = asObj(spec.selector) as LabelSelectorObject | undefined;
  if (!selector) out.push(fieldRequired('spec.selector'));
  else {
    out.push(...validateLabelSelector(selector, 'spec.selector'));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      out.push(invalidRendered('spec.selector', goLabelSelector(selector), 'empty selector is invalid for statefulset'));
    }
  }
  const template = (asObj(spec.template) ?? {}) as Obj;
  const podSpec = (asObj(template.spec) ?? {}) as Obj;
  let parsed: ReturnType<typeof labelSelectorFromObject> | undefined;
  try {
    parsed = labelSelectorFromObject(selector);
  } catch {
    out.push(invalidRendered('spec.selector', goLabelSelector(selector), ''));
  }
  if (parsed) {
    const labels = asObj(asObj(template.metadata)?.labels) as Record<string, string> | undefined;
    if (!parsed.empty && !parsed.matches(labels)) {
      out.push(invalidRendered('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
    }
    out.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  }
  if (podSpec.restartPolicy !== 'Always') out.push(fieldNotSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    out.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return out;
}

/** The spec fields an update may change (ValidateStatefulSetUpdate). */
const UPDATABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
const FORBIDDEN_UPDATE_MSG =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** ValidateStatefulSetUpdate's own check: nothing but the updatable fields changed. */
export function validateStatefulSetSpecUpdate(spec: Obj, old: Obj): StatusCause[] {
  const strip = (s: Obj): Obj => {
    const c: Obj = { ...s };
    for (const k of UPDATABLE) delete c[k];
    return c;
  };
  return semanticEqual(strip(spec), strip(old)) ? [] : [fieldForbidden('spec', FORBIDDEN_UPDATE_MSG)];
}

/** ValidateStatefulSetStatusUpdate. */
export function validateStatefulSetStatus(status: Obj, old: Obj | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  for (const k of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']) {
    const v = status[k];
    if (typeof v === 'number' && v < 0) out.push(fieldInvalid(`status.${k}`, v, 'must be greater than or equal to 0'));
  }
  const replicas = num(status.replicas);
  for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) {
    if (num(status[k]) > replicas) out.push(fieldInvalid(`status.${k}`, num(status[k]), 'cannot be greater than status.replicas'));
  }
  if (num(status.availableReplicas) > num(status.readyReplicas)) {
    out.push(fieldInvalid('status.availableReplicas', num(status.availableReplicas), 'cannot be greater than status.readyReplicas'));
  }
  const oldCount = old?.collisionCount;
  if (typeof oldCount === 'number' && (typeof status.collisionCount !== 'number' || status.collisionCount < oldCount)) {
    out.push(fieldInvalid('status.collisionCount', num(status.collisionCount), 'cannot be decremented'));
  }
  return out;
}

const statefulSetTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', priority: 0 },
    AGE_COLUMN,
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const [names, images] = containerCells(asObj(asObj(spec.template)?.spec)?.containers);
    return [
      obj.metadata?.name ?? '',
      `${num(statusOf(obj).readyReplicas)}/${num(spec.replicas)}`,
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
    ];
  },
};

/** The statefulsets resource. */
export function statefulSetResource(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    listKind: 'StatefulSetList',
    singular: 'statefulset',
    shortNames: ['sts'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
    storagePrefix: '/registry/statefulsets',
    schemaName: 'io.k8s.api.apps.v1.StatefulSet',
    strategy: {
      generation: true,
      defaults: defaultStatefulSet,
      validate(obj, old, _warnings, req) {
        if (old && req?.subresource === 'status') return validateStatefulSetStatus(statusOf(obj), asObj(old.status));
        const out = validateStatefulSetSpec(specOf(obj));
        if (old) out.push(...validateStatefulSetSpecUpdate(specOf(obj), specOf(old)));
        return out;
      },
      table: statefulSetTable,
    },
  };
}
