/**
 * Claiming dependents by label selector, with Kubernetes' ControllerRefManager rules
 * (pkg/controller/controller_ref_manager.go): keep what we control and still match, release
 * what we control and no longer matches, adopt matching orphans — never while the owner is
 * being deleted, never an object that is being deleted, and only after a fresh read of the
 * owner proves it still exists under the same uid.
 *
 * Writes are JSON patches guarded by a `test` of the dependent's uid (the uid precondition
 * Kubernetes' strategic-merge patches carry), so a dependent deleted and recreated under the
 * same name is never adopted or released by mistake.
 */
import { ApiError, conflict, type KubeObject, type OwnerReference } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';

/** The owner reference that makes `owner` the controller of a dependent. */
export function controllerRefTo(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The controller owner reference of an object, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** Options of claimObjects. */
export interface ClaimOptions<T extends KubeObject> {
  /** The controller (a fresh-enough copy from the cache). */
  owner: KubeObject;
  /** apiVersion and kind written in adopted objects' references. */
  ownerApiVersion: string;
  ownerKind: string;
  /** Candidates (from the cache, same namespace). */
  objects: T[];
  /** Does the object belong to the owner by labels? */
  match(obj: T): boolean;
  /** Where to patch the dependents. */
  api: ResourceClient<T>;
  /**
   * Re-reads the owner from the API server (not the cache); throws when it is gone or being
   * deleted. Called at most once, before the first adoption.
   */
  recheckOwner(): Promise<void>;
}

const isCode = (err: unknown, ...codes: number[]): boolean => err instanceof ApiError && codes.includes(err.code);

/** Patches `obj` so that `ref` is its controller reference (a JSON patch guarded by uid). */
export async function adopt<T extends KubeObject>(api: ResourceClient<T>, obj: T, ref: OwnerReference): Promise<T> {
  const meta = obj.metadata ?? {};
  const refs = meta.ownerReferences;
  const ops: unknown[] = [{ op: 'test', path: '/metadata/uid', value: meta.uid }];
  const same = refs?.findIndex((r) => r.uid === ref.uid) ?? -1;
  if (!refs) {
    // Adding the whole list replaces one a concurrent writer may have added: guard with the version read.
    ops.push({ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion });
    ops.push({ op: 'add', path: '/metadata/ownerReferences', value: [ref] });
  } else if (same >= 0) {
    ops.push({ op: 'test', path: `/metadata/ownerReferences/${same}/uid`, value: ref.uid });
    ops.push({ op: 'replace', path: `/metadata/ownerReferences/${same}`, value: ref });
  } else {
    ops.push({ op: 'add', path: '/metadata/ownerReferences/-', value: ref });
  }
  try {
    return await api.patch(meta.name ?? '', ops, 'json', { namespace: meta.namespace });
  } catch (err) {
    // A failed `test`: the cached copy is behind the object. Report it as the conflict it is.
    if (isCode(err, 422)) throw conflict(api.descriptor.group, api.descriptor.resource, meta.name ?? '');
    throw err;
  }
}

/** Removes the owner's reference from `obj` (a JSON patch guarded by uid); false when the object is gone or changed. */
export async function release<T extends KubeObject>(api: ResourceClient<T>, obj: T, ownerUid: string): Promise<boolean> {
  const meta = obj.metadata ?? {};
  const i = meta.ownerReferences?.findIndex((r) => r.uid === ownerUid) ?? -1;
  if (i < 0) return false;
  const ops = [
    { op: 'test', path: '/metadata/uid', value: meta.uid },
    { op: 'test', path: `/metadata/ownerReferences/${i}/uid`, value: ownerUid },
    { op: 'remove', path: `/metadata/ownerReferences/${i}` },
  ];
  try {
    await api.patch(meta.name ?? '', ops, 'json', { namespace: meta.namespace });
    return true;
  } catch (err) {
    // Gone, or changed under us (recreated, or the reference moved): nothing of ours to release.
    if (isCode(err, 404, 422)) return false;
    throw err;
  }
}

/**
 * True for errors a sync should answer with a quick, quiet retry: a write that met a newer
 * version of an object (409 Conflict), or the owner itself just gone (404 on its own name).
 */
export function isStaleCacheError(err: unknown, ownerName: string): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 409 && err.reason === 'Conflict') return true;
  return err.code === 404 && err.details?.name === ownerName;
}

/**
 * Returns the objects the owner controls after adoption and release. Errors of adoptions and
 * releases other than "not found" are thrown after every object was tried.
 */
export async function claimObjects<T extends KubeObject>(options: ClaimOptions<T>): Promise<T[]> {
  const { owner, api } = options;
  const ownerUid = owner.metadata?.uid ?? '';
  const ownerDeleting = Boolean(owner.metadata?.deletionTimestamp);
  const ownerNs = owner.metadata?.namespace ?? '';
  let recheck: Promise<void> | undefined;
  const claimed: T[] = [];
  const errors: unknown[] = [];
  const work: Promise<void>[] = [];
  for (const obj of options.objects) {
    const ref = controllerOf(obj);
    if (ref) {
      if (ref.uid !== ownerUid) continue; // someone else's
      if (options.match(obj)) {
        claimed.push(obj);
        continue;
      }
      if (ownerDeleting) continue; // a deleting owner releases nothing
      work.push(release(api, obj, ownerUid).then(() => undefined, (err) => void errors.push(err)));
      continue;
    }
    // An orphan.
    if (ownerDeleting || !options.match(obj)) continue;
    if (obj.metadata?.deletionTimestamp) continue;
    if (ownerNs && (obj.metadata?.namespace ?? '') !== ownerNs) continue;
    const ownerRef = controllerRefTo(owner, options.ownerApiVersion, options.ownerKind);
    work.push(
      (async () => {
        recheck ??= options.recheckOwner();
        await recheck;
        try {
          claimed.push(await adopt(api, obj, ownerRef));
        } catch (err) {
          if (!isCode(err, 404)) throw err;
        }
      })().catch((err) => void errors.push(err)),
    );
  }
  await Promise.all(work);
  if (errors.length > 0) throw errors[0];
  return claimed;
}

/**
 * A recheckOwner for claimObjects: reads the owner through `api` and fails, with Kubernetes'
 * messages, when its uid changed or it is being deleted.
 */
export function recheckOwnerWith<T extends KubeObject>(api: ResourceClient<T>, owner: KubeObject, kind: string): () => Promise<void> {
  return async () => {
    const ns = owner.metadata?.namespace ?? '';
    const name = owner.metadata?.name ?? '';
    const fresh = await api.get(name, { namespace: ns });
    if (fresh.metadata?.uid !== owner.metadata?.uid) {
      throw new Error(`original ${kind} ${ns}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${owner.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp) {
      throw new Error(`${kind} ${ns}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  };
}
