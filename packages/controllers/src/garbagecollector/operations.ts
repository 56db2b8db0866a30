/**
 * The collector's API calls: metadata GETs, deletes with preconditions, owner-reference and
 * finalizer patches. Every call names its object by identity, mapped to a resource through
 * the REST mapper of the last discovery.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, type KubeObject, type ObjectMeta, type OwnerReference } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import type { RestMapper, ResourceInfo } from './discovery.js';
import type { Identity } from './graph.js';

/** Thrown when an apiVersion/kind is not (yet) known to discovery; the item is retried. */
export class RestMappingError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`unable to get REST mapping for ${kind}/${apiVersion}.`);
    this.name = 'RestMappingError';
  }
}

/** How a delete propagates to dependents. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

const isCode = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;
/** True for a 404. */
export const isNotFound = (err: unknown): boolean => isCode(err, 404);
/** True for a 409. */
export const isConflict = (err: unknown): boolean => isCode(err, 409);

/** The API calls of the collector. */
export class Operations {
  constructor(
    /** Writes (delete, patch). */
    private readonly client: Client,
    /** Metadata-only reads. */
    private readonly metaClient: Client,
    private readonly mapper: () => RestMapper,
    /** Called when a mapping is missing (discovery may be stale). */
    private readonly onMappingMiss: () => void,
  ) {}

  /** The resource serving apiVersion/kind; throws RestMappingError when unknown. */
  resolve(apiVersion: string, kind: string): ResourceInfo {
    const r = this.mapper().resolve(apiVersion, kind);
    if (!r) {
      this.onMappingMiss();
      throw new RestMappingError(apiVersion, kind);
    }
    return r;
  }

  private api(c: Client, r: ResourceInfo): ResourceClient<KubeObject> {
    return c.resource<KubeObject>({ group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced, kind: r.kind });
  }

  /** GETs the metadata of the object named by `id`. A namespaced kind without a namespace is a 404. */
  async getMeta(id: Pick<Identity, 'apiVersion' | 'kind' | 'name' | 'namespace'>): Promise<ObjectMeta> {
    const r = this.resolve(id.apiVersion, id.kind);
    if (r.namespaced && !id.namespace) throw new ApiError(404, 'NotFound', `${r.resource} "${id.name}" not found`);
    const obj = await this.api(this.metaClient, r).get(id.name, { namespace: r.namespaced ? id.namespace : undefined });
    return obj.metadata ?? {};
  }

  /**
   * Deletes the object with uid (and, when given, resourceVersion) preconditions. When only the
   * resourceVersion moved and the owner references are unchanged, deletes again with the uid
   * precondition only.
   */
  async delete(id: Identity, resourceVersion: string | undefined, ownersAtVersion: OwnerReference[] | undefined, policy: PropagationPolicy): Promise<void> {
    const r = this.resolve(id.apiVersion, id.kind);
    const namespace = r.namespaced ? id.namespace : undefined;
    try {
      await this.api(this.client, r).delete(id.name, {
        namespace,
        propagationPolicy: policy,
        preconditions: resourceVersion ? { uid: id.uid, resourceVersion } : { uid: id.uid },
      });
    } catch (err) {
      if (!isConflict(err) || !resourceVersion) throw err;
      const live = await this.getMeta(id);
      if (live.uid === id.uid && live.resourceVersion !== resourceVersion && isDeepStrictEqual(live.ownerReferences ?? [], ownersAtVersion ?? [])) {
        return this.delete(id, undefined, undefined, policy);
      }
      throw err;
    }
  }

  /**
   * Changes the object's owner references: a strategic merge patch `smp` where the kind has
   * one, else (415, custom resources) a JSON merge patch of `transform(current)` guarded by
   * the resourceVersion read, retried on conflicts.
   */
  async patchOwnerRefs(id: Identity, smp: unknown, transform: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const r = this.resolve(id.apiVersion, id.kind);
    const namespace = r.namespaced ? id.namespace : undefined;
    try {
      await this.api(this.client, r).patch(id.name, smp, 'strategic', { namespace });
      return;
    } catch (err) {
      if (!isCode(err, 415)) throw err;
    }
    for (let attempt = 0; ; attempt++) {
      const m = await this.getMeta(id);
      if (m.uid !== id.uid) throw new ApiError(404, 'NotFound', `${r.resource} "${id.name}" not found`);
      const refs = m.ownerReferences ?? [];
      const next = transform(refs);
      if (isDeepStrictEqual(next, refs)) return;
      try {
        await this.api(this.client, r).patch(id.name, { metadata: { ownerReferences: next.length ? next : null, uid: id.uid, resourceVersion: m.resourceVersion } }, 'merge', { namespace });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }

  /** Removes the owner references to `ownerUids` from the object `id`. */
  removeOwnerRefs(id: Identity, ownerUids: string[]): Promise<void> {
    const smp = { metadata: { ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })), uid: id.uid } };
    const drop = new Set(ownerUids);
    return this.patchOwnerRefs(id, smp, (refs) => refs.filter((ref) => !drop.has(ref.uid)));
  }

  /** Sets blockOwnerDeletion to false on every blocking owner reference of the object `id`. */
  unblockOwnerRefs(id: Identity, refs: OwnerReference[]): Promise<void> {
    const blocking = refs.filter((ref) => ref.blockOwnerDeletion === true);
    if (blocking.length === 0) return Promise.resolve();
    const smp = { metadata: { ownerReferences: blocking.map((ref) => ({ ...ref, blockOwnerDeletion: false })), uid: id.uid } };
    return this.patchOwnerRefs(id, smp, (current) => current.map((ref) => (ref.blockOwnerDeletion === true ? { ...ref, blockOwnerDeletion: false } : ref)));
  }

  /** Removes `finalizer` from the object `id` (a no-op when it is gone or has none), retrying conflicts. */
  async removeFinalizer(id: Identity, finalizer: string): Promise<void> {
    const r = this.resolve(id.apiVersion, id.kind);
    const namespace = r.namespaced ? id.namespace : undefined;
    for (let attempt = 0; ; attempt++) {
      let m: ObjectMeta;
      try {
        m = await this.getMeta(id);
      } catch (err) {
        if (isNotFound(err)) return;
        throw new Error(`cannot finalize owner ${id.kind} ${id.name}, because cannot get it: ${(err as Error).message}. The garbage collector will retry later.`);
      }
      if (m.uid !== id.uid) return;
      const finalizers = m.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      try {
        await this.api(this.client, r).patch(id.name, { metadata: { finalizers: rest.length ? rest : null, resourceVersion: m.resourceVersion } }, 'merge', { namespace });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
        if (attempt >= 4) throw new Error(`updateMaxRetries(5) has reached. The garbage collector will retry later for owner ${id.kind} ${id.name}.`);
      }
    }
  }
}
