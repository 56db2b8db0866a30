/**
 * The persistentvolume-binder controller (kube-controller-manager's pkg/controller/volume/
 * persistentvolume) with a simulated provisioner: binds claims to volumes both ways, provisions
 * `pvc-<claim uid>` for claims of a `kplane.io/simulated` class (at once for Immediate classes,
 * once the scheduler picked a node for WaitForFirstConsumer ones), releases volumes whose claim
 * is gone and reclaims them (Delete removes them, Retain keeps them Released), gives class-less
 * claims the default class, and grows a bound volume when its claim asks for more on an
 * expandable class.
 */
import { ApiError } from '@kplane/api';
import {
  PersistentVolumeClaims, PersistentVolumes, StorageClasses, createEventRecorder,
  type Clock, type Controller, type EventRecorder, type Manager, type PersistentVolume, type PersistentVolumeClaim, type Request, type StorageClass,
} from '@kplane/runtime';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER,
  SIMULATED_PROVISIONER, bestMatch, claimClass, defaultClass, refersTo, requestedBytes, storageBytes,
} from './util.js';

/** Options of createPersistentVolumeBinderController. */
export interface BinderOptions {
  /** Where events go (default: a recorder for "persistentvolume-controller"); false records none. */
  recorder?: EventRecorder | false;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
}

const notFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
const conflictOrGone = (err: unknown): boolean => err instanceof ApiError && (err.code === 404 || err.code === 409);

/** Registers the claim and volume workers of the persistentvolume-binder controller on `manager`. */
export function createPersistentVolumeBinderController(manager: Manager, options: BinderOptions = {}): Controller[] {
  const clock = options.clock ?? manager.clock;
  const claims = manager.factory.informerFor<PersistentVolumeClaim>(PersistentVolumeClaims);
  const volumes = manager.factory.informerFor<PersistentVolume>(PersistentVolumes);
  const classes = manager.factory.informerFor<StorageClass>(StorageClasses);
  const claimApi = manager.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims);
  const volumeApi = manager.client.resource<PersistentVolume>(PersistentVolumes);
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'persistentvolume-controller', clock }));
  const claimEvent = (c: PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...c, apiVersion: 'v1', kind: 'PersistentVolumeClaim' }, type, reason, message);
  };
  const volumeEvent = (v: PersistentVolume, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...v, apiVersion: 'v1', kind: 'PersistentVolume' }, type, reason, message);
  };
  const classOf = (name: string): StorageClass | undefined => (name ? classes.store.get(name) : undefined);

  /** Writes the claim's status when phase, capacity or access modes differ. */
  const setClaimStatus = async (claim: PersistentVolumeClaim, phase: 'Pending' | 'Bound' | 'Lost', pv?: PersistentVolume): Promise<PersistentVolumeClaim> => {
    const status = { ...(claim.status ?? {}), phase };
    if (pv) {
      status.accessModes = pv.spec?.accessModes ?? [];
      status.capacity = { ...(pv.spec?.capacity ?? {}) };
    } else if (phase !== 'Lost') {
      delete status.accessModes;
      delete status.capacity;
    }
    if (JSON.stringify(status) === JSON.stringify(claim.status ?? {})) return claim;
    return claimApi.updateStatus({ ...claim, status }, { namespace: claim.metadata!.namespace });
  };

  /** Binds volume and claim: the volume's claimRef and phase, then the claim's volumeName, annotations and phase. */
  const bind = async (claim: PersistentVolumeClaim, pv: PersistentVolume): Promise<void> => {
    const m = claim.metadata!;
    let volume = pv;
    if (!refersTo(volume, claim) || !volume.spec?.claimRef?.uid) {
      volume = structuredClone(volume);
      volume.spec = { ...volume.spec, claimRef: { kind: 'PersistentVolumeClaim', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'v1', resourceVersion: m.resourceVersion } };
      volume.metadata = { ...volume.metadata, annotations: { ...volume.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' } };
      volume = await volumeApi.update(volume);
    }
    if (volume.status?.phase !== 'Bound') volume = await volumeApi.updateStatus({ ...volume, status: { ...volume.status, phase: 'Bound' } });
    let c = claim;
    const ann = c.metadata?.annotations ?? {};
    if (c.spec?.volumeName !== volume.metadata!.name || ann[ANN_BIND_COMPLETED] !== 'yes') {
      c = structuredClone(c);
      const annotations: Record<string, string> = { ...ann, [ANN_BIND_COMPLETED]: 'yes' };
      if (claim.spec?.volumeName !== volume.metadata!.name) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      c.metadata = { ...c.metadata, annotations };
      c.spec = { ...c.spec, volumeName: volume.metadata!.name };
      c = await claimApi.update(c, { namespace: m.namespace });
    }
    await setClaimStatus(c, 'Bound', volume);
  };

  /** The simulated provisioner: creates the claim's volume, pre-bound to it. */
  const provision = async (claim: PersistentVolumeClaim, cls: StorageClass): Promise<void> => {
    const m = claim.metadata!;
    const name = `pvc-${m.uid}`;
    const node = m.annotations?.[ANN_SELECTED_NODE];
    const pv: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_PROVISIONED_BY]: cls.provisioner } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
        accessModes: claim.spec?.accessModes ?? [],
        persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
        storageClassName: cls.metadata!.name,
        volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'v1', resourceVersion: m.resourceVersion },
        csi: { driver: cls.provisioner, volumeHandle: name },
        ...(cls.mountOptions ? { mountOptions: cls.mountOptions } : {}),
        ...(node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } } : {}),
      },
    };
    try {
      await volumeApi.create(pv);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      return;
    }
    claimEvent(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name} using ${cls.provisioner}`);
  };

  /** syncUnboundClaim. */
  const syncUnbound = async (claim: PersistentVolumeClaim): Promise<void> => {
    const m = claim.metadata!;
    if (claim.spec?.volumeName) {
      // Pre-bound by the user (or half-bound by us): bind to that volume once it exists and is free.
      const pv = volumes.store.get(claim.spec.volumeName);
      if (!pv) {
        await setClaimStatus(claim, 'Pending');
        claimEvent(claim, 'Normal', 'FailedBinding', `volume "${claim.spec.volumeName}" not found`);
        return;
      }
      if (!pv.spec?.claimRef || refersTo(pv, claim)) return bind(claim, pv);
      await setClaimStatus(claim, 'Pending');
      claimEvent(claim, 'Warning', 'FailedBinding', `volume "${claim.spec.volumeName}" already bound to a different claim.`);
      return;
    }
    const cls = classOf(claimClass(claim));
    const delayed = cls?.volumeBindingMode === 'WaitForFirstConsumer' && !m.annotations?.[ANN_SELECTED_NODE];
    const match = bestMatch(claim, volumes.store.list());
    if (match && (!delayed || refersTo(match, claim))) return bind(claim, match);
    if (delayed) {
      await setClaimStatus(claim, 'Pending');
      claimEvent(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      return;
    }
    if (!cls) {
      await setClaimStatus(claim, 'Pending');
      const why = claimClass(claim) ? `storageclass.storage.k8s.io "${claimClass(claim)}" not found` : 'no persistent volumes available for this claim and no storage class is set';
      claimEvent(claim, claimClass(claim) ? 'Warning' : 'Normal', claimClass(claim) ? 'ProvisioningFailed' : 'FailedBinding', why);
      return;
    }
    if (m.annotations?.[ANN_STORAGE_PROVISIONER] !== cls.provisioner) {
      const c = structuredClone(claim);
      c.metadata = { ...c.metadata, annotations: { ...m.annotations, [ANN_STORAGE_PROVISIONER]: cls.provisioner, [ANN_BETA_STORAGE_PROVISIONER]: cls.provisioner } };
      await claimApi.update(c, { namespace: m.namespace });
      return; // the update wakes the claim again
    }
    await setClaimStatus(claim, 'Pending');
    if (cls.provisioner === SIMULATED_PROVISIONER) return provision(claim, cls);
    claimEvent(claim, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${cls.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
  };

  /** syncBoundClaim, with the expansion of a bound claim's volume. */
  const syncBound = async (claim: PersistentVolumeClaim): Promise<void> => {
    const pv = volumes.store.get(claim.spec!.volumeName!);
    if (!pv || !refersTo(pv, claim)) {
      if (claim.status?.phase !== 'Lost') {
        await setClaimStatus(claim, 'Lost');
        claimEvent(claim, 'Warning', 'ClaimLost', pv ? 'Bound claim has lost its PersistentVolume. Data on the volume is lost!' : 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      }
      return;
    }
    if (claim.status?.phase !== 'Bound') return bind(claim, pv);
    // Expansion: a larger request on an expandable class grows the volume, then the claim's capacity.
    const want = requestedBytes(claim);
    const cls = classOf(claimClass(claim));
    const have = storageBytes(pv.spec?.capacity?.storage) ?? 0n;
    const request = claim.spec?.resources?.requests?.storage;
    if (want > have && cls?.allowVolumeExpansion === true && request !== undefined) {
      const grown = structuredClone(pv);
      grown.spec = { ...grown.spec, capacity: { ...grown.spec?.capacity, storage: request } };
      await volumeApi.update(grown);
      claimEvent(claim, 'Normal', 'VolumeResizeSuccessful', 'MountVolume.NodeExpandVolume succeeded for volume ' + `"${pv.metadata!.name}"`);
      return;
    }
    const shown = storageBytes(claim.status?.capacity?.storage) ?? 0n;
    if (shown !== have) await setClaimStatus(claim, 'Bound', pv);
  };

  const syncClaim = async (req: Request): Promise<void> => {
    let claim = claims.store.get(req.key);
    if (!claim) return;
    try {
      if (claim.spec?.storageClassName === undefined || claim.spec.storageClassName === null) {
        // Retroactive default class assignment, for claims created before a default existed.
        const def = !claim.spec?.volumeName && claim.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] === undefined ? defaultClass(classes.store.list()) : undefined;
        if (def) {
          claim = structuredClone(claim);
          claim.spec = { ...claim.spec, storageClassName: def.metadata!.name };
          await claimApi.update(claim, { namespace: req.namespace });
          return;
        }
      }
      if (claim.spec?.volumeName && claim.metadata?.annotations?.[ANN_BIND_COMPLETED] === 'yes') await syncBound(claim);
      else await syncUnbound(claim);
    } catch (err) {
      if (conflictOrGone(err)) return; // a newer version wakes the claim again
      throw err;
    }
  };

  /** syncVolume: Available when free, Released when its claim is gone, then reclaimed. */
  const syncVolume = async (req: Request): Promise<void> => {
    const pv = volumes.store.get(req.key);
    // A volume being deleted is still released when its claim goes (as kube's PV controller
    // does): pv-protection keeps it only while it is Bound.
    if (!pv) return;
    try {
      const ref = pv.spec?.claimRef;
      if (!ref) {
        if (pv.status?.phase !== 'Available') await volumeApi.updateStatus({ ...pv, status: { ...pv.status, phase: 'Available' } });
        return;
      }
      if (!ref.uid) {
        // Pre-bound by the user to a claim: free until that claim binds it.
        if (pv.status?.phase !== 'Available') await volumeApi.updateStatus({ ...pv, status: { ...pv.status, phase: 'Available' } });
        return;
      }
      let claim = claims.store.get(`${ref.namespace}/${ref.name}`);
      if (claim && claim.metadata?.uid !== ref.uid) claim = undefined;
      if (!claim) {
        // The cache may lag: ask the API server before releasing.
        try {
          const fresh = await claimApi.get(ref.name!, { namespace: ref.namespace });
          if (fresh.metadata?.uid === ref.uid) return;
        } catch (err) {
          if (!notFound(err)) throw err;
        }
        return release(pv);
      }
      if (claim.spec?.volumeName === pv.metadata!.name && pv.status?.phase !== 'Bound') {
        await volumeApi.updateStatus({ ...pv, status: { ...pv.status, phase: 'Bound' } });
      }
    } catch (err) {
      if (conflictOrGone(err)) return;
      throw err;
    }
  };

  const release = async (pv: PersistentVolume): Promise<void> => {
    let v = pv;
    if (v.status?.phase !== 'Released' && v.status?.phase !== 'Failed') v = await volumeApi.updateStatus({ ...v, status: { ...v.status, phase: 'Released' } });
    const policy = v.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Delete') {
      if (v.metadata?.deletionTimestamp) return; // already going: pv-protection lets it go once Released
      await volumeApi.delete(v.metadata!.name!, { preconditions: { uid: v.metadata!.uid } });
    } else if (policy === 'Recycle') {
      // The simulated recycler: the volume is scrubbed at once and offered again.
      const freed = structuredClone(v);
      delete freed.spec!.claimRef;
      await volumeApi.update(freed);
      volumeEvent(v, 'Normal', 'RecyclerPod', 'Recycler pod: Successfully assigned the volume for recycling');
    }
  };

  const claimOfVolume = (pv: PersistentVolume) => {
    const ref = pv.spec?.claimRef;
    return ref?.name && ref.namespace ? [{ namespace: ref.namespace, name: ref.name }] : [];
  };
  const claimsOfClass = (sc: StorageClass) =>
    claims.store.list().filter((c) => !c.spec?.volumeName && (claimClass(c) === sc.metadata?.name || c.spec?.storageClassName === undefined)).map((c) => ({ namespace: c.metadata!.namespace!, name: c.metadata!.name! }));
  const pendingClaims = () => claims.store.list().filter((c) => !c.spec?.volumeName).map((c) => ({ namespace: c.metadata!.namespace!, name: c.metadata!.name! }));

  const claimWorker = manager
    .controller()
    .named('persistentvolume-binder-claims')
    .for<PersistentVolumeClaim>(PersistentVolumeClaims)
    .watches<PersistentVolume>(PersistentVolumes, (pv) => (pv.spec?.claimRef ? claimOfVolume(pv) : pendingClaims()))
    .watches<StorageClass>(StorageClasses, claimsOfClass)
    .complete(syncClaim);
  const volumeWorker = manager
    .controller()
    .named('persistentvolume-binder-volumes')
    .for<PersistentVolume>(PersistentVolumes)
    .watches<PersistentVolumeClaim>(PersistentVolumeClaims, (c) => (c.spec?.volumeName ? [{ namespace: '', name: c.spec.volumeName }] : []))
    .complete(syncVolume);
  return [claimWorker, volumeWorker];
}
