/**
 * The graph builder: turns observed changes (and "virtual" deletions the collector confirmed
 * with the API server) into changes of the owner graph, and queues the uids that need a
 * decision: objects whose owner went away, owners deleting in foreground or orphaning, and
 * dependents whose references look wrong. Kube's GraphBuilder, on one event loop: changes are
 * applied synchronously as they arrive, so there is no graph-changes queue.
 */
import type { ObjectMeta, OwnerReference } from '@kplane/api';
import type { Workqueue } from '@kplane/runtime';
import {
  AbsentOwnerCache,
  FOREGROUND_FINALIZER,
  GraphNode,
  ORPHAN_FINALIZER,
  alternateOwnerIdentity,
  partitionDependents,
  refMatchesCoordinates,
  sameIdentity,
  type Identity,
} from './graph.js';

/** What kind of object an observed change is about. */
export interface ObservedKind {
  apiVersion: string;
  kind: string;
}

/** Options of GraphBuilder. */
export interface GraphBuilderOptions {
  /** Uids to check for deletion (and owners waiting on their dependents). */
  attemptToDelete: Workqueue;
  /** Uids of owners whose dependents must be orphaned. */
  attemptToOrphan: Workqueue;
  absentOwnerCache: AbsentOwnerCache;
  /** Told when `dependent` names an owner that exists in another namespace. */
  onInvalidNamespace(dependent: GraphNode, ref: OwnerReference): void;
}

const beingDeleted = (m: ObjectMeta | undefined): boolean => !!m?.deletionTimestamp;
const hasFinalizer = (m: ObjectMeta | undefined, f: string): boolean => !!m?.finalizers?.includes(f);

/** True when `m` is deleting with `finalizer` and `old` (if any) was not. */
function deletionStartsWith(old: ObjectMeta | undefined, m: ObjectMeta, finalizer: string): boolean {
  if (!beingDeleted(m) || !hasFinalizer(m, finalizer)) return false;
  return !old || !beingDeleted(old) || !hasFinalizer(old, finalizer);
}

function referencesDiff(old: OwnerReference[], next: OwnerReference[]): { added: OwnerReference[]; removed: OwnerReference[]; changed: [OwnerReference, OwnerReference][] } {
  const byUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: [OwnerReference, OwnerReference][] = [];
  for (const r of next) {
    const o = byUid.get(r.uid);
    if (!o) added.push(r);
    else {
      if (o.apiVersion !== r.apiVersion || o.kind !== r.kind || o.name !== r.name || o.controller !== r.controller || o.blockOwnerDeletion !== r.blockOwnerDeletion) changed.push([o, r]);
      byUid.delete(r.uid);
    }
  }
  return { added, removed: [...byUid.values()], changed };
}

/** The owner graph and the rules that keep it, and the work queues, up to date. */
export class GraphBuilder {
  /** Every node by uid. */
  readonly nodes = new Map<string, GraphNode>();

  constructor(private readonly o: GraphBuilderOptions) {}

  private enqueue(n: GraphNode): void {
    this.o.attemptToDelete.add(n.identity.uid);
  }

  /** Applies an observed add or update of an object of `kind` (`old` is its previous state, if known). */
  observe(kind: ObservedKind, m: ObjectMeta, old: ObjectMeta | undefined): void {
    const uid = m.uid;
    if (!uid) return;
    const observed: Identity = { apiVersion: kind.apiVersion, kind: kind.kind, name: m.name ?? '', uid, namespace: m.namespace ?? '' };
    const owners = m.ownerReferences ?? [];
    let node = this.nodes.get(uid);
    if (node?.virtual) {
      if (!sameIdentity(node.identity, observed)) {
        // Dependents that named this uid by other coordinates: check them again.
        for (const dep of partitionDependents(node.dependents, observed).nonmatching) {
          if (observed.namespace && dep.identity.namespace !== observed.namespace) this.reportInvalidNamespace(dep, uid);
          this.enqueue(dep);
        }
        node.identity = observed;
      }
      node.virtual = false;
    }
    if (!node) {
      node = new GraphNode(observed, [...owners], false);
      node.beingDeleted = beingDeleted(m);
      node.deletingDependents = beingDeleted(m) && hasFinalizer(m, FOREGROUND_FINALIZER);
      this.nodes.set(uid, node);
      this.addDependentToOwners(node, owners);
      this.processTransitions(old, m, node);
      return;
    }
    if (node.identity.apiVersion !== observed.apiVersion || node.identity.kind !== observed.kind) {
      node.identity = { ...node.identity, apiVersion: observed.apiVersion, kind: observed.kind };
    }
    const { added, removed, changed } = referencesDiff(node.owners, owners);
    if (added.length || removed.length || changed.length) {
      // An owner waiting for its blocking dependents may have been unblocked.
      for (const r of removed) if (r.blockOwnerDeletion === true) this.enqueueUid(r.uid);
      for (const [was, now] of changed) if (was.blockOwnerDeletion === true && now.blockOwnerDeletion !== true) this.enqueueUid(now.uid);
      node.owners = [...owners];
      this.addDependentToOwners(node, added);
      this.removeDependentFromOwners(node, removed);
    }
    if (beingDeleted(m)) node.beingDeleted = true;
    this.processTransitions(old, m, node);
  }

  private enqueueUid(uid: string): void {
    const n = this.nodes.get(uid);
    if (n) this.enqueue(n);
  }

  /** Applies an observed deletion of the object with metadata `m`. */
  observeDelete(m: ObjectMeta): void {
    const node = m.uid ? this.nodes.get(m.uid) : undefined;
    if (node) this.removeAndRequeue(node, node.identity);
  }

  /**
   * Applies a deletion the collector confirmed with the API server (a GET found nothing with
   * `deleted`'s coordinates): a virtual node other dependents know by other coordinates stays.
   */
  virtualDelete(deleted: Identity): void {
    const node = this.nodes.get(deleted.uid);
    if (!node) return;
    let remove = true;
    if (node.virtual) {
      const { matching, nonmatching } = partitionDependents(node.dependents, deleted);
      if (nonmatching.length > 0) {
        remove = false;
        if (matching.length > 0) {
          this.o.absentOwnerCache.add(deleted);
          for (const dep of matching) this.enqueue(dep);
        }
        if (sameIdentity(node.identity, deleted)) {
          const alternate = alternateOwnerIdentity(nonmatching, deleted);
          if (alternate) {
            node.identity = alternate;
            this.o.attemptToDelete.addRateLimited(node.identity.uid);
          }
        }
      }
    } else if (!sameIdentity(node.identity, deleted)) {
      // A real node is not removed on a virtual event for other coordinates.
      remove = false;
      const { matching } = partitionDependents(node.dependents, deleted);
      if (matching.length > 0) {
        this.o.absentOwnerCache.add(deleted);
        for (const dep of matching) this.enqueue(dep);
      }
    }
    if (remove) this.removeAndRequeue(node, deleted);
  }

  private removeAndRequeue(node: GraphNode, absent: Identity): void {
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.o.absentOwnerCache.add(absent);
    for (const dep of node.dependents) this.enqueue(dep);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // The owner may have been waiting for this dependent to go.
      if (owner?.deletingDependents) this.enqueue(owner);
    }
  }

  private processTransitions(old: ObjectMeta | undefined, m: ObjectMeta, node: GraphNode): void {
    if (deletionStartsWith(old, m, ORPHAN_FINALIZER)) {
      this.o.attemptToOrphan.add(node.identity.uid);
      return;
    }
    if (deletionStartsWith(old, m, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.enqueue(dep);
      this.enqueue(node);
    }
  }

  /** Files `n` under each owner, creating virtual owners (queued for verification) as needed. */
  private addDependentToOwners(n: GraphNode, refs: OwnerReference[]): void {
    let suspicious = false;
    for (const ref of refs) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: n.identity.namespace }, [], true);
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(n);
        // The collector asks the API server whether this owner exists.
        this.enqueue(owner);
        continue;
      }
      owner.dependents.add(n);
      if (suspicious) continue;
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== n.identity.namespace) {
        // A namespaced owner can only own objects of its own namespace.
        if (!owner.virtual) this.reportInvalidNamespace(n, ref.uid);
        suspicious = true;
      } else if (!refMatchesCoordinates(ref, owner.identity)) {
        suspicious = true;
      } else if (!ownerNamespaced && owner.identity.namespace !== n.identity.namespace && owner.virtual) {
        // A virtual "cluster-scoped" owner may really be a namespaced object named from elsewhere.
        suspicious = true;
      }
    }
    if (suspicious) this.enqueue(n);
  }

  private removeDependentFromOwners(n: GraphNode, refs: OwnerReference[]): void {
    for (const ref of refs) this.nodes.get(ref.uid)?.dependents.delete(n);
  }

  private reportInvalidNamespace(dep: GraphNode, ownerUid: string): void {
    const ref = dep.owners.find((r) => r.uid === ownerUid);
    if (ref) this.o.onInvalidNamespace(dep, ref);
  }
}
