/**
 * core/v1 persistentvolumes: defaults (reclaim policy Retain, volumeMode Filesystem, phase
 * Pending), validation of the spec (capacity, access modes, exactly one volume source, reclaim
 * policy) and of updates (source and volume mode fixed), the status subresource and kubectl's
 * columns.
 */
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, hasOwn, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { ACCESS_MODES, accessModesCell } from './persistentvolumeclaim.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, semanticEqual, setDefault, str, type Obj } from './util.js';

/** The volume sources a PersistentVolumeSpec may name (exactly one). */
const VOLUME_SOURCES = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'csi', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'glusterfs',
  'hostPath', 'iscsi', 'local', 'nfs', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO', 'storageos', 'vsphereVolume',
];
const RECLAIM = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];

/** SetDefaults_PersistentVolume. */
export function defaultVolume(pv: Obj): void {
  const spec = child(pv, 'spec');
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  setDefault(spec, 'volumeMode', 'Filesystem');
  setDefault(child(pv, 'status'), 'phase', 'Pending');
}

/** The class a volume (or claim) belongs to: the beta annotation first, then spec.storageClassName. */
export function volumeClass(obj: KubeObject): string {
  return obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? str(asObj(obj.spec)?.storageClassName);
}

/** ValidatePersistentVolumeSpec (the checks a simulated cluster can make). */
export function validateVolumeSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) out.push(fieldRequired('spec.accessModes'));
  for (const m of modes) if (!ACCESS_MODES.includes(str(m))) out.push(fieldNotSupported('spec.accessModes', m, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) out.push(fieldForbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  const capacity = asObj(spec.capacity);
  if (!capacity || Object.keys(capacity).length === 0) out.push(fieldRequired('spec.capacity'));
  else if (!hasOwn(capacity, 'storage') || Object.keys(capacity).length > 1) {
    out.push(fieldNotSupported('spec.capacity', Object.keys(capacity).find((k) => k !== 'storage') ?? '', ['storage']));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && !RECLAIM.includes(str(policy))) out.push(fieldNotSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(str(spec.volumeMode))) out.push(fieldNotSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  const sources = VOLUME_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  if (sources.length === 0) out.push(fieldRequired('spec', 'must specify a volume type'));
  else if (sources.length > 1) out.push(fieldForbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'));
  const hostPath = asObj(spec.hostPath);
  if (hostPath && !str(hostPath.path)) out.push(fieldRequired('spec.hostPath.path'));
  const csi = asObj(spec.csi);
  if (csi && !str(csi.driver)) out.push(fieldRequired('spec.csi.driver'));
  if (csi && !str(csi.volumeHandle)) out.push(fieldRequired('spec.csi.volumeHandle'));
  if (spec.local !== undefined && !spec.nodeAffinity) out.push(fieldRequired('spec.nodeAffinity', 'Local volume requires node affinity'));
  const cls = spec.storageClassName;
  if (typeof cls === 'string' && cls !== '' && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(cls)) {
    out.push(fieldInvalid('spec.storageClassName', cls, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  }
  return out;
}

/** ValidatePersistentVolumeUpdate's spec rules: the volume source and mode are fixed, node affinity once set. */
function validateVolumeUpdate(spec: Obj, old: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const source = (s: Obj) => Object.fromEntries(VOLUME_SOURCES.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  if (!semanticEqual(source(spec), source(old))) out.push(fieldForbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (spec.volumeMode !== old.volumeMode) out.push(fieldInvalid('spec.volumeMode', spec.volumeMode, 'field is immutable'));
  if (old.nodeAffinity && !semanticEqual(spec.nodeAffinity, old.nodeAffinity)) out.push(fieldInvalid('spec.nodeAffinity', '', 'field is immutable'));
  return out;
}

const volumeTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Capacity', type: 'string', description: 'A description of the persistent volume\'s resources and capacity.', priority: 0 },
    { name: 'Access Modes', type: 'string', description: 'AccessModes contains all ways the volume can be mounted.', priority: 0 },
    { name: 'Reclaim Policy', type: 'string', description: 'What happens to a persistent volume when released from its claim.', priority: 0 },
    { name: 'Status', type: 'string', description: 'Phase indicates if a volume is available, bound to a claim, or released by a claim.', priority: 0 },
    { name: 'Claim', type: 'string', description: 'ClaimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.', priority: 0 },
    { name: 'StorageClass', type: 'string', description: 'StorageClassName is the name of StorageClass to which this persistent volume belongs.', priority: 0 },
    { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClassName is the name of the VolumeAttributesClass the volume uses.', priority: 0 },
    { name: 'Reason', type: 'string', description: 'Reason is a brief CamelCase string that describes any failure.', priority: 0 },
    AGE_COLUMN,
    { name: 'VolumeMode', type: 'string', description: 'Whether the volume is intended to be used with a filesystem or as a raw block device.', priority: 1 },
  ],
  row(obj, now) {
    const spec = (asObj(obj.spec) ?? {}) as Obj;
    const status = (asObj(obj.status) ?? {}) as Obj;
    const ref = asObj(spec.claimRef);
    return [
      obj.metadata?.name ?? '',
      str(asObj(spec.capacity)?.storage),
      accessModesCell(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      obj.metadata?.deletionTimestamp ? 'Terminating' : str(status.phase),
      ref ? `${str(ref.namespace)}/${str(ref.name)}` : '',
      volumeClass(obj),
      typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>',
      str(status.reason),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
    ];
  },
};

/** The persistentvolumes resource. */
export function persistentVolumeResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    listKind: 'PersistentVolumeList',
    singular: 'persistentvolume',
    shortNames: ['pv'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/persistentvolumes',
    schemaName: 'io.k8s.api.core.v1.PersistentVolume',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      defaults: (obj: KubeObject) => defaultVolume(obj as Obj),
      validate(obj, old, _warnings, req) {
        if (old && req?.subresource === 'status') return [];
        const spec = (asObj(obj.spec) ?? {}) as Obj;
        const out = validateVolumeSpec(spec);
        if (old) out.push(...validateVolumeUpdate(spec, (asObj(old.spec) ?? {}) as Obj));
        return out;
      },
      table: volumeTable,
    },
  };
}
