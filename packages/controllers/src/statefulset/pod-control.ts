/**
 * The StatefulSet controller's writes (kube's StatefulPodControl): pods and their claims, with
 * kube's events ("create Pod web-0 in StatefulSet web successful", "create Claim data-web-0 Pod
 * web-0 in StatefulSet web success", and the failed forms with the error).
 */
import { ApiError, type KubeObject } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import type { PersistentVolumeClaim, Pod, StatefulSet } from '@kplane/runtime';
import { aggregate, type PodOps } from './control.js';
import {
  SET_API_VERSION, SET_KIND, claimIsStale, claimsFor, identityMatches, isClaimOwnerUpToDate, storageMatches, updateIdentity, updateStorage, withPolicyOwnerRefs,
} from './utils.js';

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const isCode = (err: unknown, code: number, reason?: string): boolean => err instanceof ApiError && err.code === code && (!reason || err.reason === reason);
const title = (verb: string): string => verb.charAt(0).toUpperCase() + verb.slice(1);

/** What the pod control needs. */
export interface PodControlOptions {
  podApi: ResourceClient<Pod>;
  claimApi: ResourceClient<PersistentVolumeClaim>;
  /** The cached claim `namespace/name`, if any. */
  cachedClaim(key: string): PersistentVolumeClaim | undefined;
  /** The cached pod `namespace/name`, if any (re-read after a conflicting update). */
  cachedPod(key: string): Pod | undefined;
  /** Records an event about the set. */
  event(set: StatefulSet, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** The PodOps of the real controller, writing through the API. */
export function createPodControl(o: PodControlOptions): PodOps {
  const setRef = (set: StatefulSet): StatefulSet => ({ ...set, apiVersion: SET_API_VERSION, kind: SET_KIND });
  const podEvent = (verb: string, set: StatefulSet, pod: Pod, err?: unknown): void => {
    const name = pod.metadata?.name ?? '';
    const setName = set.metadata?.name ?? '';
    if (err === undefined) o.event(setRef(set), 'Normal', `Successful${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${setName} successful`);
    else o.event(setRef(set), 'Warning', `Failed${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${setName} failed error: ${errorMessage(err)}`);
  };
  const claimEvent = (verb: string, set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, err?: unknown): void => {
    const c = claim.metadata?.name ?? '';
    const p = pod.metadata?.name ?? '';
    const s = set.metadata?.name ?? '';
    if (err === undefined) o.event(setRef(set), 'Normal', `Successful${title(verb)}`, `${verb} Claim ${c} Pod ${p} in StatefulSet ${s} success`);
    else o.event(setRef(set), 'Warning', `Failed${title(verb)}`, `${verb} Claim ${c} for Pod ${p} in StatefulSet ${s} failed error: ${errorMessage(err)}`);
  };
  const key = (obj: KubeObject): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

  /** createPersistentVolumeClaims: every missing claim created; a claim being deleted is an error. */
  const createClaims = async (set: StatefulSet, pod: Pod): Promise<void> => {
    const errors: unknown[] = [];
    for (const claim of claimsFor(set, pod).values()) {
      const cached = o.cachedClaim(key(claim));
      if (!cached) {
        try {
          await o.claimApi.create(claim, { namespace: claim.metadata?.namespace });
          claimEvent('create', set, pod, claim);
        } catch (err) {
          if (!isCode(err, 409, 'AlreadyExists')) {
            errors.push(new Error(`failed to create PVC ${claim.metadata?.name}: ${errorMessage(err)}`));
            claimEvent('create', set, pod, claim, err);
          }
        }
      } else if (cached.metadata?.deletionTimestamp) {
        errors.push(new Error(`pvc ${claim.metadata?.name} is being deleted`));
      }
    }
    if (errors.length > 0) throw aggregate(errors);
  };

  const updateClaimsForPolicy = async (set: StatefulSet, pod: Pod): Promise<void> => {
    for (const wanted of claimsFor(set, pod).values()) {
      const claim = o.cachedClaim(key(wanted));
      if (!claim || isClaimOwnerUpToDate(claim, set, pod)) continue;
      try {
        await o.claimApi.update(withPolicyOwnerRefs(claim, set, pod), { namespace: claim.metadata?.namespace });
      } catch (err) {
        throw new Error(`could not update claim ${claim.metadata?.name} for delete policy ownerRefs: ${errorMessage(err)}`);
      }
    }
  };

  const claimsMatchPolicy = (set: StatefulSet, pod: Pod): boolean => {
    for (const wanted of claimsFor(set, pod).values()) {
      const claim = o.cachedClaim(key(wanted));
      if (claim && !isClaimOwnerUpToDate(claim, set, pod)) return false;
    }
    return true;
  };

  return {
    async createPod(set, pod) {
      try {
        await createClaims(set, pod);
      } catch (err) {
        podEvent('create', set, pod, err);
        throw err;
      }
      let created: Pod;
      try {
        created = await o.podApi.create(pod, { namespace: pod.metadata?.namespace });
      } catch (err) {
        if (!isCode(err, 409, 'AlreadyExists')) podEvent('create', set, pod, err);
        throw err;
      }
      try {
        await updateClaimsForPolicy(set, created);
      } catch (err) {
        podEvent('update', set, pod, err);
        throw err;
      }
      podEvent('create', set, pod);
    },
    async deletePod(set, pod) {
      try {
        await o.podApi.delete(pod.metadata?.name ?? '', { namespace: pod.metadata?.namespace });
        podEvent('delete', set, pod);
      } catch (err) {
        podEvent('delete', set, pod, err);
        throw err;
      }
    },
    async updatePod(set, pod) {
      let current = pod;
      for (let attempt = 0; ; attempt++) {
        let consistent = true;
        if (!identityMatches(set, current)) {
          updateIdentity(set, current);
          consistent = false;
        }
        if (!storageMatches(set, current)) {
          updateStorage(set, current);
          consistent = false;
        }
        try {
          await createClaims(set, current);
          if (!claimsMatchPolicy(set, current)) {
            await updateClaimsForPolicy(set, current);
            consistent = false;
          }
        } catch (err) {
          podEvent('update', set, current, err);
          throw err;
        }
        if (consistent) return;
        try {
          await o.podApi.update(current, { namespace: current.metadata?.namespace });
          podEvent('update', set, current);
          return;
        } catch (err) {
          const fresh = o.cachedPod(key(current));
          if (!isCode(err, 409) || attempt >= 9 || !fresh) {
            podEvent('update', set, current, err);
            throw err;
          }
          current = structuredClone(fresh);
        }
      }
    },
    createMissingClaims: async (set, pod) => {
      await createClaims(set, pod);
      await updateClaimsForPolicy(set, pod);
    },
    claimsMatchPolicy,
    updateClaimsForPolicy,
    podClaimIsStale(set, pod) {
      for (const wanted of claimsFor(set, pod).values()) {
        const claim = o.cachedClaim(key(wanted));
        if (claim && claimIsStale(set, pod, claim)) return true;
      }
      return false;
    },
  };
}
