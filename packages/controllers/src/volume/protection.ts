/**
 * The pvc-protection and pv-protection controllers (kube-controller-manager's
 * pkg/controller/volume/pvcprotection and pvprotection): each adds its finalizer to every live
 * object and removes it from a deleted one once nothing uses it — a claim once no unfinished
 * pod of its namespace mounts it, a volume once it is no longer Bound.
 */
import { ApiError } from '@kplane/api';
import { PersistentVolumeClaims, PersistentVolumes, Pods, type Controller, type KubeObject, type Manager, type PersistentVolume, type PersistentVolumeClaim, type Pod, type Request } from '@kplane/runtime';
import type { ResourceClient } from '@kplane/client';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER, podClaims, podTerminated } from './util.js';

const CLAIM_INDEX = 'pvc-protection:claims';

/** Adds or removes `finalizer` on a fresh copy of the object (conflicts and 404 end the attempt quietly). */
async function setFinalizer<T extends KubeObject>(api: ResourceClient<T>, obj: T, finalizer: string, present: boolean): Promise<void> {
  const finalizers = (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  if (present) finalizers.push(finalizer);
  const next = structuredClone(obj);
  next.metadata = { ...next.metadata, finalizers };
  try {
    await api.update(next, { namespace: obj.metadata?.namespace });
  } catch (err) {
    if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
}

/** Registers the pvc-protection controller on `manager`. */
export function createPvcProtectionController(manager: Manager): Controller {
  const claims = manager.factory.informerFor<PersistentVolumeClaim>(PersistentVolumeClaims);
  const pods = manager.factory.informerFor<Pod>(Pods);
  pods.store.addIndexer(CLAIM_INDEX, (p: Pod) => podClaims(p).map((c) => `${p.metadata?.namespace}/${c}`));
  const api = manager.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims);
  const podApi = manager.client.resource<Pod>(Pods);

  const inUse = async (claim: PersistentVolumeClaim): Promise<boolean> => {
    const key = `${claim.metadata!.namespace}/${claim.metadata!.name}`;
    if (pods.store.byIndex(CLAIM_INDEX, key).some((p) => !podTerminated(p))) return true;
    // The cache may lag behind a pod just created: check the live list, as kube does before removing.
    const live = await podApi.list({ namespace: claim.metadata!.namespace });
    return live.items.some((p) => !podTerminated(p) && podClaims(p).includes(claim.metadata!.name!));
  };

  const reconcile = async (req: Request): Promise<void> => {
    const claim = claims.store.get(req.key);
    if (!claim) return;
    const has = (claim.metadata?.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER);
    if (!claim.metadata?.deletionTimestamp) {
      if (!has) await setFinalizer(api, claim, PVC_PROTECTION_FINALIZER, true);
      return;
    }
    if (has && !(await inUse(claim))) await setFinalizer(api, claim, PVC_PROTECTION_FINALIZER, false);
  };

  return manager
    .controller()
    .named('pvc-protection')
    .for<PersistentVolumeClaim>(PersistentVolumeClaims)
    .watches<Pod>(Pods, (p) => podClaims(p).map((name) => ({ namespace: p.metadata!.namespace!, name })))
    .complete(reconcile);
}

/** Registers the pv-protection controller on `manager`. */
export function createPvProtectionController(manager: Manager): Controller {
  const volumes = manager.factory.informerFor<PersistentVolume>(PersistentVolumes);
  const api = manager.client.resource<PersistentVolume>(PersistentVolumes);
  const reconcile = async (req: Request): Promise<void> => {
    const pv = volumes.store.get(req.key);
    if (!pv) return;
    const has = (pv.metadata?.finalizers ?? []).includes(PV_PROTECTION_FINALIZER);
    if (!pv.metadata?.deletionTimestamp) {
      if (!has) await setFinalizer(api, pv, PV_PROTECTION_FINALIZER, true);
      return;
    }
    if (has && pv.status?.phase !== 'Bound') await setFinalizer(api, pv, PV_PROTECTION_FINALIZER, false);
  };
  return manager.controller().named('pv-protection').for<PersistentVolume>(PersistentVolumes).complete(reconcile);
}
