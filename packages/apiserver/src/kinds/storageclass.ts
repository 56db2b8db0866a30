/**
 * storage.k8s.io/v1 storageclasses: defaults (reclaimPolicy Delete, volumeBindingMode
 * Immediate), validation (provisioner, parameters, reclaim policy and binding mode fixed after
 * creation), kubectl's columns, and the default class kplane creates at start.
 */
import { createIfMissing } from '../registry/create-if-missing.js';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, isQualifiedName, type KubeObject, type StatusCause } from '@kplane/api';
import type { Registry } from '../registry/registry.js';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, semanticEqual, setDefault, type Obj } from './util.js';

/** The annotation that makes a class the cluster's default (and its beta spelling). */
export const IS_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

/** The provisioner of kplane's simulated volumes. */
export const SIMULATED_PROVISIONER = 'kplane.io/simulated';

/** Is the class marked as the default one (either annotation "true")? */
export function isDefaultClass(obj: KubeObject): boolean {
  const a = obj.metadata?.annotations ?? {};
  return a[IS_DEFAULT_CLASS] === 'true' || a[BETA_IS_DEFAULT_CLASS] === 'true';
}

/** The default StorageClass kplane creates at start: `standard`, simulated, expandable. */
export function defaultStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { [IS_DEFAULT_CLASS]: 'true' } },
    provisioner: SIMULATED_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  };
}

/** Creates the default StorageClass unless it exists (kplane's storage add-on, run at start). */
export async function ensureDefaultStorageClass(registry: Registry): Promise<void> {
  const store = registry.get('storage.k8s.io', 'v1', 'storageclasses');
  if (!store) return;
  await createIfMissing(store, defaultStorageClass());
}

const RECLAIM = ['Delete', 'Retain'];
const BINDING = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PROVISIONER_LENGTH = 63;
const MAX_PARAMETERS = 512;

/** ValidateStorageClass / ValidateStorageClassUpdate (metadata is checked by the store). */
export function validateStorageClass(obj: Obj, old?: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const provisioner = typeof obj.provisioner === 'string' ? obj.provisioner : '';
  if (provisioner === '') out.push(fieldRequired('provisioner'));
  else {
    if (provisioner.length > MAX_PROVISIONER_LENGTH) out.push(fieldTooLong('provisioner', MAX_PROVISIONER_LENGTH));
    for (const msg of isQualifiedName(provisioner.toLowerCase())) out.push(fieldInvalid('provisioner', provisioner, msg));
  }
  const params = asObj(obj.parameters) ?? {};
  if (Object.keys(params).length > MAX_PARAMETERS) out.push(fieldInvalid('parameters', '', `must have less than ${MAX_PARAMETERS} parameters`));
  for (const k of Object.keys(params)) if (k === '') out.push(fieldInvalid('parameters', '', 'key must not be empty'));
  if (obj.reclaimPolicy !== undefined && !RECLAIM.includes(String(obj.reclaimPolicy))) out.push(fieldNotSupported('reclaimPolicy', obj.reclaimPolicy, RECLAIM));
  if (obj.volumeBindingMode === undefined || obj.volumeBindingMode === null) out.push(fieldRequired('volumeBindingMode'));
  else if (!BINDING.includes(String(obj.volumeBindingMode))) out.push(fieldNotSupported('volumeBindingMode', obj.volumeBindingMode, BINDING));
  if (old) {
    if (!semanticEqual(obj.parameters ?? {}, old.parameters ?? {})) out.push(fieldForbidden('parameters', 'updates to parameters are forbidden.'));
    if (obj.provisioner !== old.provisioner) out.push(fieldForbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (obj.reclaimPolicy !== old.reclaimPolicy) out.push(fieldForbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    if (obj.volumeBindingMode !== old.volumeBindingMode) out.push(fieldInvalid('volumeBindingMode', obj.volumeBindingMode, 'field is immutable'));
  }
  return out;
}

const storageClassTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Provisioner', type: 'string', description: 'Indicates the type of the provisioner.', priority: 0 },
    { name: 'ReclaimPolicy', type: 'string', description: 'Indicates the type of the reclaim policy.', priority: 0 },
    { name: 'VolumeBindingMode', type: 'string', description: 'Indicates how PersistentVolumeClaims should be provisioned and bound.', priority: 0 },
    { name: 'AllowVolumeExpansion', type: 'string', description: 'Shows whether the storage class allow volume expand.', priority: 0 },
    AGE_COLUMN,
  ],
  row(obj, now) {
    const o = obj as Obj;
    const name = obj.metadata?.name ?? '';
    return [
      isDefaultClass(obj) ? `${name} (default)` : name,
      typeof o.provisioner === 'string' ? o.provisioner : '',
      typeof o.reclaimPolicy === 'string' ? o.reclaimPolicy : 'Delete',
      typeof o.volumeBindingMode === 'string' ? o.volumeBindingMode : 'Immediate',
      o.allowVolumeExpansion === true ? 'true' : 'false',
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};

/** The storageclasses resource. */
export function storageClassResource(): ResourceType {
  return {
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    kind: 'StorageClass',
    listKind: 'StorageClassList',
    singular: 'storageclass',
    shortNames: ['sc'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/storageclasses',
    schemaName: 'io.k8s.api.storage.v1.StorageClass',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      defaults(obj) {
        setDefault(obj as Obj, 'reclaimPolicy', 'Delete');
        setDefault(obj as Obj, 'volumeBindingMode', 'Immediate');
      },
      validate: (obj, old) => validateStorageClass(obj as Obj, old as Obj | undefined),
      table: storageClassTable,
    },
  };
}
