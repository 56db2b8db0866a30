/**
 * The Deployment controller (kube-controller-manager's pkg/controller/deployment), built on the
 * runtime like any user's controller: owns ReplicaSets named `<deployment>-<pod-template-hash>`
 * and moves pods from old templates to the current one with the RollingUpdate or Recreate
 * strategy, recording revisions for `kubectl rollout history / undo`.
 */
import { labelSelectorFromObject, type KubeObject, type LabelSelector } from '@kplane/api';
import {
  Action,
  CONTROLLER_OWNER_INDEX,
  Deployments,
  NAMESPACE_INDEX,
  Pods,
  ReplicaSets,
  TerminalError,
  createEventRecorder,
  type Clock,
  type Controller,
  type Deployment,
  type EventRecorder,
  type Manager,
  type Pod,
  type ReplicaSet,
  type Request,
} from '@kplane/runtime';
import { claimObjects, controllerOf, isStaleCacheError, recheckOwnerWith } from '../replicaset/controller-ref.js';
import { createOwnWrites } from '../replicaset/own-writes.js';
import { rolloutRecreate, rolloutRolling } from './rollout.js';
import { createDeploymentSync } from './sync.js';

/** Options of createDeploymentController. */
export interface DeploymentControllerOptions {
  /** Controller name, used for metrics and the workqueue (default "deployment"). */
  name?: string;
  /** Deployments reconciled in parallel (default 5, kube-controller-manager's --concurrent-deployment-syncs). */
  workers?: number;
  /** Time source for conditions and progress deadlines (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "deployment-controller"); false records none. */
  recorder?: EventRecorder | false;
  /**
   * ReplicaSet changes that arrive less than this long after a Deployment's last sync started
   * wait for the end of that window (default 25 ms), so a stream of ReplicaSet status updates
   * costs one sync per window instead of one each; a lone change still wakes it at once.
   */
  batchWindowMs?: number;
}

/** Default of DeploymentControllerOptions.batchWindowMs. */
export const REPLICASET_BATCH_WINDOW_MS = 25;

const API_VERSION = 'apps/v1';
/** Delay before retrying a sync whose write met a newer version of the object. */
const CONFLICT_RETRY_MS = 50;
const KIND = 'Deployment';
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function selectorOf(obj: { spec?: { selector?: unknown } }): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(obj.spec?.selector as Parameters<typeof labelSelectorFromObject>[0]);
  } catch {
    return undefined;
  }
}

/**
 * Registers the Deployment controller on `manager` (named "deployment" unless told otherwise).
 *
 * Guarantees:
 * - The new ReplicaSet of a template is `<name>-<hash>`, the hash computed from the template (and
 *   status.collisionCount) and added as the `pod-template-hash` label to its labels, selector and
 *   template; the same template always gives the same name, so a Deployment recreated with the
 *   template of an orphaned ReplicaSet adopts it with its pods and creates nothing.
 * - RollingUpdate keeps the sum of the ReplicaSets' replicas within replicas + maxSurge (rounded
 *   up) and the available pods at least replicas - maxUnavailable (rounded down), as reported
 *   by the ReplicaSets' status; Recreate starts new pods only once no old pod is left.
 * - Revisions: the new ReplicaSet gets `deployment.kubernetes.io/revision` = highest + 1 (a
 *   rollback moves an old one to the top, keeping `revision-history`), the Deployment's own
 *   annotations (e.g. kubernetes.io/change-cause), and desired- / max-replicas annotations.
 * - Old ReplicaSets beyond revisionHistoryLimit are deleted once they have no pods; a paused
 *   Deployment is only scaled; status and the Available / Progressing conditions use
 *   Kubernetes' reasons and messages, with ProgressDeadlineExceeded after progressDeadlineSeconds.
 */
export function createDeploymentController(manager: Manager, options: DeploymentControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const recorder =
    options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'deployment-controller', clock }));
  const deployInformer = manager.factory.informerFor<Deployment>(Deployments);
  const rsInformer = manager.factory.informerFor<ReplicaSet>(ReplicaSets);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const deployApi = manager.client.resource<Deployment>(Deployments);
  const rsApi = manager.client.resource<ReplicaSet>(ReplicaSets);

  const event = (d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...d, apiVersion: API_VERSION, kind: KIND } as KubeObject, type, reason, message);
  };
  // What this controller last wrote of each Deployment, until its cache shows it (no 409 on the next write).
  const ownWrites = createOwnWrites<Deployment>();
  deployInformer.addEventHandler({ onDelete: (d) => ownWrites.forget(`${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`) });
  const syncer = createDeploymentSync({
    deployApi,
    rsApi,
    rsCache: rsInformer.store,
    now: () => clock.now(),
    event,
    wrote: (written, base) => ownWrites.wrote(`${written.metadata?.namespace ?? ''}/${written.metadata?.name ?? ''}`, base, written),
  });

  /** Deployments a ReplicaSet belongs to: its controller, or for an orphan every Deployment selecting it. */
  const deploymentsForReplicaSet = (rs: ReplicaSet): Array<{ namespace: string; name: string }> => {
    const ns = rs.metadata?.namespace ?? '';
    const ref = controllerOf(rs);
    if (ref) return ref.kind === KIND && ref.apiVersion.startsWith('apps/') ? [{ namespace: ns, name: ref.name }] : [];
    const out: Array<{ namespace: string; name: string }> = [];
    for (const d of deployInformer.store.byIndex(NAMESPACE_INDEX, ns)) {
      const sel = selectorOf(d);
      if (sel && !sel.empty && sel.matches(rs.metadata?.labels)) out.push({ namespace: ns, name: d.metadata?.name ?? '' });
    }
    return out;
  };
  /** The Deployment of a deleted pod's ReplicaSet (Recreate waits for old pods to be gone). */
  const deploymentForPod = (pod: Pod): Array<{ namespace: string; name: string }> => {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return [];
    const rs = rsInformer.store.get(`${pod.metadata?.namespace ?? ''}/${ref.name}`);
    if (!rs || rs.metadata?.uid !== ref.uid) return [];
    const owner = controllerOf(rs);
    return owner?.kind === KIND ? [{ namespace: pod.metadata?.namespace ?? '', name: owner.name }] : [];
  };

  /** The ReplicaSets this Deployment controls, after adoption and release (getReplicaSetsForDeployment). */
  const replicaSetsFor = async (d: Deployment, selector: LabelSelector): Promise<ReplicaSet[]> => {
    return claimObjects<ReplicaSet>({
      owner: d,
      ownerApiVersion: API_VERSION,
      ownerKind: KIND,
      objects: rsInformer.store.byIndex(NAMESPACE_INDEX, d.metadata?.namespace ?? ''),
      match: (rs) => selector.matches(rs.metadata?.labels),
      api: rsApi,
      recheckOwner: recheckOwnerWith(deployApi, d, KIND),
    });
  };

  /** Pods of the Deployment's ReplicaSets by ReplicaSet uid, terminating ones included. */
  const podsByReplicaSet = (d: Deployment, selector: LabelSelector, rsList: ReplicaSet[]): Map<string, Pod[]> => {
    const map = new Map<string, Pod[]>();
    const ns = d.metadata?.namespace ?? '';
    // Each ReplicaSet's own pods through the controller-owner index, not a scan of the namespace.
    for (const rs of rsList) {
      const uid = rs.metadata?.uid ?? '';
      if (map.has(uid)) continue;
      map.set(
        uid,
        podInformer.store.byIndex(CONTROLLER_OWNER_INDEX, uid).filter((pod) => (pod.metadata?.namespace ?? '') === ns && selector.matches(pod.metadata?.labels)),
      );
    }
    return map;
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    try {
      return await syncDeployment(req);
    } catch (err) {
      // A write based on a cache one event behind: try again once the cache caught up.
      if (isStaleCacheError(err, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
      throw err;
    }
  };

  const syncDeployment = async (req: Request): Promise<Action | void> => {
    const cached = deployInformer.store.get(req.key);
    if (!cached) {
      ownWrites.forget(req.key);
      return;
    }
    const d = structuredClone(ownWrites.latest(req.key, cached)) as Deployment;
    const selector = selectorOf(d);
    if (!selector) throw new TerminalError(`deployment ${req.key} has an invalid selector`);
    if (selector.empty) {
      event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      return;
    }
    const rsList = await replicaSetsFor(d, selector);
    if (d.metadata?.deletionTimestamp) {
      await syncer.syncStatusOnly(d, rsList);
      return;
    }
    await syncer.checkPausedConditions(d);
    if (d.spec?.paused) {
      await syncer.sync(d, rsList);
      return;
    }
    if (await syncer.isScalingEvent(d, rsList)) {
      await syncer.sync(d, rsList);
      return;
    }
    let requeueMs: number | undefined;
    const type = d.spec?.strategy?.type ?? 'RollingUpdate';
    if (type === 'Recreate') requeueMs = await rolloutRecreate(syncer, d, rsList, podsByReplicaSet(d, selector, rsList));
    else if (type === 'RollingUpdate') requeueMs = await rolloutRolling(syncer, d, rsList);
    else throw new TerminalError(`unexpected deployment strategy type: ${errorMessage(type)}`);
    return requeueMs !== undefined ? Action.requeue(requeueMs) : Action.awaitChange();
  };

  return manager
    .controller()
    .named(options.name ?? 'deployment')
    .for(Deployments)
    .watches<ReplicaSet>(ReplicaSets, deploymentsForReplicaSet, { batchWindowMs: options.batchWindowMs ?? REPLICASET_BATCH_WINDOW_MS })
    .watches<Pod>(Pods, deploymentForPod, { predicates: [(c) => c.type === 'delete'] })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
