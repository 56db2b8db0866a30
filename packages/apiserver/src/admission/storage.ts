/**
 * The storage admission steps of kube-apiserver: DefaultStorageClass (a new claim without a
 * class gets the default one), StorageObjectInUseProtection (the pv- and pvc-protection
 * finalizers on every new volume and claim) and PersistentVolumeClaimResize (only a bound claim
 * of a class that allows expansion may grow).
 */
import { forbidden, type KubeObject } from '@kplane/api';
import { compareQuantity, parseQuantity } from '../kinds/quantity.js';
import type { AdmissionObjects } from './objects.js';
import type { AdmissionAttributes, MutatingStep, ValidatingStep } from './types.js';

/** The finalizer that holds a claim while a pod uses it. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
/** The finalizer that holds a volume while a claim is bound to it. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** The annotation that makes a StorageClass the default (and its beta spelling). */
const IS_DEFAULT = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];
/** The claim's class in its old annotation form, which still wins over spec.storageClassName. */
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

interface ClaimSpec {
  storageClassName?: string | null;
  volumeName?: string;
  resources?: { requests?: Record<string, unknown> };
}

function isCore(attrs: AdmissionAttributes, resource: string): boolean {
  return attrs.resource.group === '' && attrs.resource.resource === resource && attrs.subresource === '';
}

function claimSpec(obj: KubeObject | undefined): ClaimSpec {
  const spec = obj?.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as ClaimSpec) : {};
}

/** GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
function claimClass(obj: KubeObject | undefined): string {
  const ann = obj?.metadata?.annotations?.[BETA_CLASS_ANNOTATION];
  if (ann !== undefined) return ann;
  return claimSpec(obj).storageClassName ?? '';
}

/** The default class among `classes`: the newest one annotated as default (then the first by name). */
export function pickDefaultStorageClass(classes: readonly KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter((c) => IS_DEFAULT.some((a) => c.metadata?.annotations?.[a] === 'true'));
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
    return ta !== tb ? tb - ta : (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  });
  return defaults[0];
}

/**
 * The DefaultStorageClass admission plugin: a new claim with no storageClassName at all (an
 * empty one stays: it asks for no class) and no beta class annotation gets the default
 * class's name; with no default class it is left as it is.
 */
export function defaultStorageClassAdmission(objects: AdmissionObjects): MutatingStep {
  return {
    name: 'DefaultStorageClass',
    operations: ['CREATE'],
    async admit(attrs) {
      if (!isCore(attrs, 'persistentvolumeclaims') || !attrs.object) return;
      const spec = claimSpec(attrs.object);
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      if (attrs.object.metadata?.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
      const def = pickDefaultStorageClass(await objects.list('storage.k8s.io', 'v1', 'storageclasses', ''));
      if (!def?.metadata?.name) return;
      if (attrs.object.spec === undefined) (attrs.object as { spec?: unknown }).spec = spec;
      spec.storageClassName = def.metadata.name;
    },
  };
}

/**
 * The StorageObjectInUseProtection admission plugin: every new PersistentVolume gets the
 * pv-protection finalizer and every new claim the pvc-protection one (once).
 */
export function storageObjectInUseProtection(): MutatingStep {
  return {
    name: 'StorageObjectInUseProtection',
    operations: ['CREATE'],
    admit(attrs) {
      const finalizer = isCore(attrs, 'persistentvolumes') ? PV_PROTECTION_FINALIZER : isCore(attrs, 'persistentvolumeclaims') ? PVC_PROTECTION_FINALIZER : undefined;
      const obj = attrs.object;
      if (!finalizer || !obj) return;
      const meta = (obj.metadata ??= {});
      const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}

/**
 * The PersistentVolumeClaimResize admission plugin: a claim's storage request may grow only
 * when the claim is bound, its class (unchanged) allows volume expansion, and its volume
 * exists; otherwise kube's 403.
 */
export function persistentVolumeClaimResize(objects: AdmissionObjects): ValidatingStep {
  return {
    name: 'PersistentVolumeClaimResize',
    operations: ['UPDATE'],
    async validate(attrs) {
      if (!isCore(attrs, 'persistentvolumeclaims') || !attrs.object || !attrs.oldObject) return;
      const size = (o: KubeObject) => parseQuantity(claimSpec(o).resources?.requests?.storage ?? '0');
      if (compareQuantity(size(attrs.object), size(attrs.oldObject)) <= 0) return;
      const refuse = (message: string) => forbidden('', 'persistentvolumeclaims', attrs.name, message);
      const phase = (attrs.oldObject.status as { phase?: string } | undefined)?.phase;
      if (phase !== 'Bound') throw refuse('Only bound persistent volume claims can be expanded');
      const cls = claimClass(attrs.object);
      const oldCls = claimClass(attrs.oldObject);
      let allowed = false;
      if (cls !== '' && cls === oldCls) {
        const sc = (await objects.list('storage.k8s.io', 'v1', 'storageclasses', '')).find((c) => c.metadata?.name === cls);
        allowed = (sc as { allowVolumeExpansion?: boolean } | undefined)?.allowVolumeExpansion === true;
      }
      if (!allowed) throw refuse('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      const volume = claimSpec(attrs.object).volumeName;
      const pv = volume ? (await objects.list('', 'v1', 'persistentvolumes', '')).find((v) => v.metadata?.name === volume) : undefined;
      if (!pv) throw refuse('Error updating persistent volume claim because fetching associated persistent volume failed');
    },
  };
}
