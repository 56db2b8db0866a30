/**
 * The owner graph: one node per uid (observed objects, and "virtual" nodes for owners that
 * dependents name but no watch has shown yet), each knowing its owner references and its
 * dependents. Owners are matched by uid only: an owner recreated under the same name is
 * another node.
 */
import type { OwnerReference } from '@kplane/api';

/** The coordinates of an object (kube's objectReference: an owner reference plus a namespace). */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
}

/** The finalizer a Foreground deletion sets. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer an Orphan deletion sets. */
export const ORPHAN_FINALIZER = 'orphan';

/** Kubernetes' textual form of an identity: "[v1/ConfigMap, namespace: ns, name: n, uid: u]". */
export function identityString(id: Identity): string {
  return `[${id.apiVersion}/${id.kind}, namespace: ${id.namespace}, name: ${id.name}, uid: ${id.uid}]`;
}

/** True when the two identities are the same coordinates. */
export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

/** True when the reference's uid, name, kind and apiVersion match the identity's. */
export function refMatchesCoordinates(ref: OwnerReference, id: Identity): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

/** One object (or virtual owner) of the graph. */
export class GraphNode {
  /** Objects whose ownerReferences name this node's uid. */
  readonly dependents = new Set<GraphNode>();
  /** Set once an object with this uid has been seen deleting (a one-way trip). */
  beingDeleted = false;
  /** Set when the object is deleting with the foregroundDeletion finalizer. */
  deletingDependents = false;

  constructor(
    public identity: Identity,
    /** The object's ownerReferences as last observed (none for a virtual node). */
    public owners: OwnerReference[],
    /** True until an object with this uid is observed by a watch. */
    public virtual: boolean,
  ) {}

  /** Dependents whose reference to this node has blockOwnerDeletion: true. */
  blockingDependents(): GraphNode[] {
    const out: GraphNode[] = [];
    for (const dep of this.dependents) {
      if (dep.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true)) out.push(dep);
    }
    return out;
  }
}

/**
 * Splits `dependents` into those whose reference to `owner.uid` matches every coordinate of
 * `owner` (and whose namespace can hold a reference to it), and those that do not. A dependent
 * with several references to the uid may be in both.
 */
export function partitionDependents(dependents: Iterable<GraphNode>, owner: Identity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (refMatchesCoordinates(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

function compareIdentity(a: Identity, b: Identity): number {
  for (const k of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}

/**
 * Another identity the dependents use for the uid of `absent` (a different name, kind,
 * apiVersion or namespace): the first one ordered after `absent`, else the first one; undefined
 * when there is none.
 */
export function alternateOwnerIdentity(dependents: Iterable<GraphNode>, absent: Identity): Identity | undefined {
  const clusterScoped = absent.namespace === '';
  let first: Identity | undefined;
  let firstAfter: Identity | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (refMatchesCoordinates(ref, absent) && (clusterScoped || absent.namespace === dep.identity.namespace)) continue;
      const id: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: dep.identity.namespace };
      // That apiVersion/kind is known to be cluster-scoped.
      if (clusterScoped && id.apiVersion === absent.apiVersion && id.kind === absent.kind) id.namespace = '';
      if (sameIdentity(id, absent)) continue;
      if (!first || compareIdentity(id, first) < 0) first = id;
      if (compareIdentity(absent, id) < 0 && (!firstAfter || compareIdentity(id, firstAfter) < 0)) firstAfter = id;
    }
  }
  return firstAfter ?? first;
}

/** A bounded set of identities known to be absent (least recently used dropped first). */
export class AbsentOwnerCache {
  private readonly entries = new Set<string>();
  constructor(private readonly size = 500) {}

  private static key(id: Identity): string {
    return JSON.stringify([id.apiVersion, id.kind, id.namespace, id.name, id.uid]);
  }
  /** Records `id` as absent. */
  add(id: Identity): void {
    const k = AbsentOwnerCache.key(id);
    this.entries.delete(k);
    this.entries.add(k);
    while (this.entries.size > this.size) this.entries.delete(this.entries.values().next().value!);
  }
  /** True when `id` was recorded as absent (and marks it recently used). */
  has(id: Identity): boolean {
    const k = AbsentOwnerCache.key(id);
    if (!this.entries.has(k)) return false;
    this.entries.delete(k);
    this.entries.add(k);
    return true;
  }
}
