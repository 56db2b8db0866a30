/**
 * core/v1 persistentvolumeclaims: defaults, the spec checks a claim must pass (access modes, a
 * storage request), the spec's immutability after creation (but a bound claim's storage
 * request), the status subresource and kubectl's columns. The DefaultStorageClass,
 * StorageObjectInUseProtection and PersistentVolumeClaimResize admission steps
 * (admission/storage.ts) act on claims; the persistentvolume-binder controller binds them.
 */
import { fieldForbidden, fieldNotSupported, fieldRequired, hasOwn, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, semanticEqual, setDefault, str, type Obj } from './util.js';

/** The access modes a volume or claim may ask for. */
export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const SHORT_MODES: [string, string][] = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];

/** SetDefaults_PersistentVolumeClaim(Spec): volumeMode Filesystem, phase Pending (also for claim templates). */
export function defaultClaim(claim: Obj): void {
  setDefault(child(claim, 'spec'), 'volumeMode', 'Filesystem');
  setDefault(child(claim, 'status'), 'phase', 'Pending');
}

/** ValidatePersistentVolumeClaimSpec (the access-mode and storage-request checks). */
export function validateClaimSpec(spec: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) out.push(fieldRequired(`${path}.accessModes`, 'at least 1 access mode is required'));
  for (const m of modes) if (!ACCESS_MODES.includes(str(m))) out.push(fieldNotSupported(`${path}.accessModes`, m, ACCESS_MODES));
  const requests = asObj(asObj(spec.resources)?.requests);
  if (!requests || !hasOwn(requests, 'storage')) out.push(fieldRequired(`${path}.resources[storage]`));
  return out;
}

/** kubectl's access-mode cell: RWO,ROX,RWX,RWOP in that order. */
export function accessModesCell(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  return SHORT_MODES.filter(([m]) => list.includes(m)).map(([, s]) => s).join(',');
}

const IMMUTABLE_MSG = 'spec is immutable after creation except resources.requests for bound claims';

/** ValidatePersistentVolumeClaimUpdate's spec rule: a bound claim may change its storage request; volumeName may be set once. */
function validateClaimUpdate(spec: Obj, old: Obj, bound: boolean): StatusCause[] {
  const n = structuredClone(spec);
  if (!old.volumeName && n.volumeName) delete n.volumeName;
  const o = structuredClone(old);
  if (!o.volumeName) delete o.volumeName;
  if (bound) {
    const oldStorage = asObj(asObj(o.resources)?.requests)?.storage;
    const requests = child(child(n, 'resources'), 'requests');
    if (oldStorage === undefined) delete requests.storage;
    else requests.storage = oldStorage;
  }
  return semanticEqual(n, o) ? [] : [fieldForbidden('spec', IMMUTABLE_MSG)];
}

const claimTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Phase represents the current phase of PersistentVolumeClaim.', priority: 0 },
    { name: 'Volume', type: 'string', description: 'The binding reference to the PersistentVolume backing this claim.', priority: 0 },
    { name: 'Capacity', type: 'string', description: 'The actual resources of the underlying volume.', priority: 0 },
    { name: 'Access Modes', type: 'string', description: 'The actual access modes the volume backing the PVC has.', priority: 0 },
    { name: 'StorageClass', type: 'string', description: 'The name of the StorageClass required by the claim.', priority: 0 },
    { name: 'VolumeAttributesClass', type: 'string', description: 'The name of the VolumeAttributesClass the claim uses.', priority: 0 },
    AGE_COLUMN,
    { name: 'VolumeMode', type: 'string', description: 'Whether the volume is intended to be used with a filesystem or as a raw block device.', priority: 1 },
  ],
  row(obj, now) {
    const spec = (asObj(obj.spec) ?? {}) as Obj;
    const status = (asObj(obj.status) ?? {}) as Obj;
    const phase = obj.metadata?.deletionTimestamp ? 'Terminating' : str(status.phase);
    const volume = str(spec.volumeName);
    const modes = Array.isArray(status.accessModes) ? status.accessModes : [];
    const capacity = volume ? str(asObj(status.capacity)?.storage) : '';
    const storageClass = obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? str(spec.storageClassName);
    return [
      obj.metadata?.name ?? '',
      phase,
      volume,
      capacity,
      volume ? accessModesCell(modes) : '',
      storageClass,
      typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>',
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
    ];
  },
};

/** The persistentvolumeclaims resource. */
export function persistentVolumeClaimResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    listKind: 'PersistentVolumeClaimList',
    singular: 'persistentvolumeclaim',
    shortNames: ['pvc'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/persistentvolumeclaims',
    schemaName: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      defaults: (obj: KubeObject) => defaultClaim(obj as Obj),
      validate(obj, old, _warnings, req) {
        const spec = (asObj(obj.spec) ?? {}) as Obj;
        if (old && req?.subresource === 'status') return [];
        const out = validateClaimSpec(spec, 'spec');
        if (old) out.push(...validateClaimUpdate(spec, (asObj(old.spec) ?? {}) as Obj, str(asObj(old.status)?.phase) === 'Bound'));
        return out;
      },
      table: claimTable,
    },
  };
}
