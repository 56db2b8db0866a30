/** What the volume controllers share: annotations, finalizers, storage sizes, claim-to-volume matching. */
import { labelSelectorFromObject } from '@kplane/api';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@kplane/runtime';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const ANN_IS_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** The provisioner kplane simulates: its volumes exist only as API objects. */
export const SIMULATED_PROVISIONER = 'kplane.io/simulated';

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** A storage quantity in bytes, rounded up (as resource.Quantity's Value); undefined when malformed. */
export function storageBytes(q: unknown): bigint | undefined {
  if (typeof q === 'number') return BigInt(Math.ceil(q));
  if (typeof q !== 'string') return undefined;
  const m = /^(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|m|[kMGTPE]|[eE]\d+)?$/.exec(q.trim());
  if (!m) return undefined;
  const frac = m[2] ?? '';
  const digits = BigInt(m[1]! + frac);
  const scale = 10n ** BigInt(frac.length);
  const suffix = m[3] ?? '';
  let num: bigint;
  let den = scale;
  if (suffix in BINARY) num = digits * BINARY[suffix]!;
  else if (suffix === 'm') {
    num = digits;
    den = scale * 1000n;
  } else if (/^[eE]/.test(suffix)) num = digits * 10n ** BigInt(suffix.slice(1));
  else num = digits * 10n ** BigInt(DECIMAL[suffix] ?? 0);
  return (num + den - 1n) / den;
}

/** The claim's class: the beta annotation first, then spec.storageClassName ("" when none). */
export function claimClass(claim: PersistentVolumeClaim): string {
  return claim.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS] ?? claim.spec?.storageClassName ?? '';
}

/** The volume's class: the beta annotation first, then spec.storageClassName ("" when none). */
export function volumeClass(pv: PersistentVolume): string {
  return pv.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS] ?? pv.spec?.storageClassName ?? '';
}

/** The storage the claim asks for, in bytes (0 when absent). */
export function requestedBytes(claim: PersistentVolumeClaim): bigint {
  return storageBytes(claim.spec?.resources?.requests?.storage) ?? 0n;
}

/** Does the volume's claimRef name this claim (same uid when the ref has one)? */
export function refersTo(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/**
 * findBestMatchForClaim: the smallest volume of the claim's class and volume mode that offers
 * its access modes, size and selector, free or pre-bound to it. A volume pre-bound to the claim
 * wins whatever its size.
 */
export function bestMatch(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[]): PersistentVolume | undefined {
  const want = requestedBytes(claim);
  const cls = claimClass(claim);
  const modes = claim.spec?.accessModes ?? [];
  const mode = claim.spec?.volumeMode ?? 'Filesystem';
  const selector = claim.spec?.selector ? labelSelectorFromObject(claim.spec.selector) : undefined;
  let best: PersistentVolume | undefined;
  let bestSize = 0n;
  for (const pv of volumes) {
    if (pv.metadata?.deletionTimestamp) continue;
    const size = storageBytes(pv.spec?.capacity?.storage) ?? 0n;
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== mode) continue;
    const prebound = refersTo(pv, claim);
    if (prebound && size >= want) return pv;
    if (pv.spec?.claimRef) continue;
    if (pv.status?.phase !== 'Available' && pv.status?.phase !== 'Pending') continue;
    if (volumeClass(pv) !== cls) continue;
    if (!modes.every((m) => (pv.spec?.accessModes ?? []).includes(m))) continue;
    if (size < want) continue;
    if (selector && !selector.matches(pv.metadata?.labels)) continue;
    if (pv.spec?.nodeAffinity && !claim.metadata?.annotations?.[ANN_SELECTED_NODE]) continue;
    if (!best || size < bestSize) {
      best = pv;
      bestSize = size;
    }
  }
  return best;
}

/** The claims a pod uses (persistentVolumeClaim volumes and generic ephemeral ones), by name. */
export function podClaims(pod: Pod): string[] {
  const out: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) out.push(`${pod.metadata?.name}-${v.name}`);
  }
  return out;
}

/** Is the pod finished (Succeeded or Failed), so that it no longer uses its claims? */
export function podTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** The class marked default (newest first), as the DefaultStorageClass step picks it. */
export function defaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter((c) => c.metadata?.annotations?.[ANN_IS_DEFAULT_CLASS] === 'true' || c.metadata?.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true');
  defaults.sort((a, b) => {
    const ta = a.metadata?.creationTimestamp ?? '';
    const tb = b.metadata?.creationTimestamp ?? '';
    return ta !== tb ? (ta < tb ? 1 : -1) : (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  });
  return defaults[0];
}
