/**
 * The ReplicationController controller: as kube-controller-manager runs it, the ReplicaSet
 * controller over a conversion. A ReplicationController is seen as a ReplicaSet whose selector is
 * `matchLabels` of its label map; spec, status and conditions are otherwise the same.
 */
import type { KubeObject } from '@kplane/api';
import { ReplicationControllers, type KindDescriptor, type Manager, type ReplicaSet } from '@kplane/runtime';
import { createReplicaSetController, type ReplicaSetController, type ReplicaSetControllerOptions, type ReplicaSetLikeKind } from '../replicaset/index.js';

const views = new WeakMap<KubeObject, ReplicaSet>();
const originals = new WeakMap<ReplicaSet, KubeObject>();

/** A ReplicationController as the ReplicaSet it stands for (memoised per cached, frozen object). */
export function replicationControllerAsReplicaSet(rc: KubeObject): ReplicaSet {
  let v = views.get(rc);
  if (v) return v;
  const spec = (rc.spec ?? {}) as Record<string, unknown>;
  const selector = spec.selector as Record<string, string> | undefined;
  v = { ...(rc as ReplicaSet), spec: { ...(spec as unknown as ReplicaSet['spec']), selector: selector ? { matchLabels: { ...selector } } : {} } } as ReplicaSet;
  originals.set(v, rc);
  if (Object.isFrozen(rc)) {
    Object.freeze(v.spec);
    Object.freeze(v);
    views.set(rc, v);
  }
  return v;
}

/** The ReplicationController kind on the ReplicaSet engine. */
export const REPLICATION_CONTROLLER_KIND: ReplicaSetLikeKind = {
  descriptor: ReplicationControllers as KindDescriptor<KubeObject>,
  apiVersion: 'v1',
  kind: 'ReplicationController',
  component: 'replication-controller',
  view: replicationControllerAsReplicaSet,
  original: (view) => originals.get(view) ?? view,
};

/**
 * Registers the ReplicationController controller on `manager` (named "replicationmanager"): the
 * ReplicaSet controller's guarantees, for ReplicationControllers (pods get a controller
 * reference of apiVersion v1, kind ReplicationController; events come from
 * "replication-controller").
 */
export function createReplicationControllerController(manager: Manager, options: Omit<ReplicaSetControllerOptions, 'kind'> = {}): ReplicaSetController {
  return createReplicaSetController(manager, { ...options, kind: REPLICATION_CONTROLLER_KIND });
}
