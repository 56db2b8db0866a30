/**
 * A controller's history as ControllerRevisions (Kubernetes' pkg/controller/history), shared by
 * the StatefulSet and DaemonSet controllers: building a revision, finding revisions equal to
 * one, ordering them, choosing what to truncate, and the API operations (create with collision
 * handling, renumber, delete, adopt, release).
 */
import { ApiError, type KubeObject, type LabelSelector, type OwnerReference } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import { ControllerRevisions, type ControllerRevision } from '@kplane/runtime';
import { adopt, controllerOf, controllerRefTo, release } from '../replicaset/controller-ref.js';
import { CONTROLLER_REVISION_HASH_LABEL, controllerRevisionName, goJsonMarshal, hashControllerRevision } from './hash.js';

/** The owner of a history, with the apiVersion and kind its references name. */
export interface HistoryParent {
  object: KubeObject;
  apiVersion: string;
  kind: string;
}

/**
 * NewControllerRevision: a revision controlled by the parent, labelled with the template's
 * labels and the hash of its data, named `<parent>-<hash>` (the hash taking `collisionCount`);
 * the data's keys are sorted as Go's encoding sorts them.
 */
export function newControllerRevision(
  parent: HistoryParent,
  templateLabels: Record<string, string> | undefined,
  data: Record<string, unknown>,
  revision: number,
  collisionCount?: number,
): ControllerRevision {
  const hash = hashControllerRevision(data, collisionCount);
  // Stored with its keys in Go's order, so the data reads back byte for byte as kube's raw
  // bytes would (kubectl compares them with its own encoding before a rollback).
  const sorted = JSON.parse(goJsonMarshal(data)) as Record<string, unknown>;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.object.metadata?.name ?? '', hash),
      namespace: parent.object.metadata?.namespace,
      labels: { ...(templateLabels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [controllerRefTo(parent.object, parent.apiVersion, parent.kind)],
    },
    data: sorted,
    revision,
  };
}

/** The hash label read as kube's EqualRevision reads it: a base-10 int32, else undefined. */
function numericHash(rev: ControllerRevision): number | undefined {
  const s = rev.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n >>> 0 : undefined;
}

/**
 * EqualRevision: both absent, or both present with the same data. Hash labels are only
 * compared when both read as numbers (kube parses them as base-10 integers, which safe-encoded
 * hashes made only of digits are).
 */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = numericHash(a);
  const hb = numericHash(b);
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return goJsonMarshal(a.data ?? null) === goJsonMarshal(b.data ?? null);
}

/** FindEqualRevisions: the revisions equal to `needle`, in their order. */
export function findEqualRevisions(revisions: readonly ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

const created = (r: ControllerRevision): number => {
  const t = r.metadata?.creationTimestamp;
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
};

/** SortControllerRevisions: by revision number, then creation time, then name (a new array). */
export function sortControllerRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort((a, b) => {
    if (a.revision !== b.revision) return a.revision - b.revision;
    const ta = created(a);
    const tb = created(b);
    if (ta !== tb) return ta - tb;
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** The revision number after the last of sorted revisions (1 for an empty history). */
export function nextRevision(sorted: readonly ControllerRevision[]): number {
  return sorted.length === 0 ? 1 : sorted[sorted.length - 1]!.revision + 1;
}

/**
 * ListControllerRevisions' filter: the revisions (of the parent's namespace) that match the
 * selector and are controlled by the parent or by nobody (the candidates for adoption).
 */
export function ownedOrOrphanRevisions(parent: KubeObject, selector: LabelSelector, revisions: readonly ControllerRevision[]): ControllerRevision[] {
  const uid = parent.metadata?.uid;
  const ns = parent.metadata?.namespace ?? '';
  return revisions.filter((r) => {
    if ((r.metadata?.namespace ?? '') !== ns || !selector.matches(r.metadata?.labels)) return false;
    const ref = controllerOf(r);
    return !ref || ref.uid === uid;
  });
}

/**
 * The revisions to delete to keep at most `limit` of the non-live ones (live: names of the
 * current and update revisions and of every revision a pod still runs): the oldest first, from
 * sorted revisions. Live revisions are never chosen, whatever the limit.
 */
export function revisionsToTruncate(sorted: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): ControllerRevision[] {
  const history = sorted.filter((r) => !live.has(r.metadata?.name ?? ''));
  const excess = history.length - Math.max(0, limit);
  return excess > 0 ? history.slice(0, excess) : [];
}

/** The API side of a history (kube's history.Interface). */
export interface ControllerHistory {
  /**
   * CreateControllerRevision: creates the revision under `<parent>-<hash>`, the hash taking
   * `collisionCount`. A name taken by a revision with the same data returns that revision; a
   * name taken by other data bumps the count and tries the next name. Returns the revision and
   * the count reached (to store in the parent's status.collisionCount).
   */
  create(parent: KubeObject, revision: ControllerRevision, collisionCount: number): Promise<{ revision: ControllerRevision; collisionCount: number }>;
  /** UpdateControllerRevision: sets the revision number (re-reading and retrying on conflicts). */
  update(revision: ControllerRevision, newRevision: number): Promise<ControllerRevision>;
  /** DeleteControllerRevision (a revision already gone is not an error). */
  delete(revision: ControllerRevision): Promise<void>;
  /** AdoptControllerRevision: makes the parent its controller; refuses one another controller owns. */
  adopt(parent: HistoryParent, revision: ControllerRevision): Promise<ControllerRevision>;
  /** ReleaseControllerRevision: removes the parent's reference; false when already gone or not owned. */
  release(parent: KubeObject, revision: ControllerRevision): Promise<boolean>;
}

const isCode = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

/** Most attempts of an update that keeps meeting conflicts (client-go's retry.DefaultBackoff steps). */
const UPDATE_ATTEMPTS = 4;

/** A ControllerHistory writing through `api` (the apps/v1 controllerrevisions client). */
export function createControllerHistory(api: ResourceClient<ControllerRevision>): ControllerHistory {
  if (api.descriptor.resource !== ControllerRevisions.resource) throw new Error('createControllerHistory needs the controllerrevisions client');
  return {
    async create(parent, revision, collisionCount) {
      const ns = parent.metadata?.namespace;
      let count = collisionCount;
      for (;;) {
        const name = controllerRevisionName(parent.metadata?.name ?? '', hashControllerRevision(revision.data, count));
        const clone: ControllerRevision = structuredClone(revision);
        clone.metadata = { ...(clone.metadata ?? {}), name, namespace: ns };
        try {
          return { revision: await api.create(clone, { namespace: ns }), collisionCount: count };
        } catch (err) {
          if (!isCode(err, 409) || (err as ApiError).reason !== 'AlreadyExists') throw err;
          const exists = await api.get(name, { namespace: ns });
          if (goJsonMarshal(exists.data ?? null) === goJsonMarshal(revision.data ?? null)) return { revision: exists, collisionCount: count };
          count++;
        }
      }
    },
    async update(revision, newRevision) {
      let current = revision;
      for (let attempt = 1; ; attempt++) {
        if (current.revision === newRevision) return current;
        try {
          return await api.update({ ...structuredClone(current), revision: newRevision }, { namespace: current.metadata?.namespace });
        } catch (err) {
          if (!isCode(err, 409) || attempt >= UPDATE_ATTEMPTS) throw err;
          current = await api.get(current.metadata?.name ?? '', { namespace: current.metadata?.namespace });
        }
      }
    },
    async delete(revision) {
      try {
        await api.delete(revision.metadata?.name ?? '', { namespace: revision.metadata?.namespace });
      } catch (err) {
        if (!isCode(err, 404)) throw err;
      }
    },
    async adopt(parent, revision) {
      const owner = controllerOf(revision);
      if (owner) throw new Error(`attempt to adopt revision owned by ${JSON.stringify(owner)}`);
      const ref: OwnerReference = controllerRefTo(parent.object, parent.apiVersion, parent.kind);
      return adopt(api, revision, ref);
    },
    release(parent, revision) {
      return release(api, revision, parent.metadata?.uid ?? '');
    },
  };
}
