/**
 * The Deployment controller's shared steps (pkg/controller/deployment/sync.go and progress.go):
 * finding or creating the new ReplicaSet and keeping revisions, scaling ReplicaSets, proportional
 * scaling, history cleanup, status and the Progressing / Available conditions.
 *
 * Each step works on a private copy of the Deployment (`d`) and keeps its resourceVersion up to
 * date after every write, so several writes in one sync do not conflict with each other.
 */
import { ApiError } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import type { Cache, Deployment, DeploymentStatus, ReplicaSet } from '@kplane/runtime';
import { controllerOf, controllerRefTo } from '../replicaset/controller-ref.js';
import { POD_TEMPLATE_HASH_LABEL, canonicalEncoding, computeHash, equalIgnoreHash } from './hash.js';
import {
  REVISION_ANNOTATION,
  Reasons,
  bySizeNewer,
  bySizeOlder,
  byRevision,
  calculateStatus,
  compactStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  filterActive,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getCondition,
  getProportion,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  newCondition,
  newRSNewReplicas,
  removeCondition,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './util.js';

/** What the sync steps need from the controller. */
export interface SyncDeps {
  deployApi: ResourceClient<Deployment>;
  rsApi: ResourceClient<ReplicaSet>;
  /** The ReplicaSet cache (read after a create that found the name taken). */
  rsCache: Cache<ReplicaSet>;
  /** Records an event about the Deployment. */
  event(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** The current time (ms). */
  now(): number;
  /** Told of every write of the Deployment: the API server's answer and the version it was based on. */
  wrote?(written: Deployment, baseVersion: string | undefined): void;
}

/** The steps, bound to their dependencies. */
export interface DeploymentSync {
  getAllReplicaSetsAndSyncRevision(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }>;
  scaleReplicaSetAndRecordEvent(rs: ReplicaSet, newScale: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }>;
  cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void>;
  /** Writes status and conditions; returns when to look again for a progress check (ms), if needed. */
  syncRolloutStatus(allRSs: Array<ReplicaSet | undefined>, newRS: ReplicaSet | undefined, d: Deployment): Promise<number | undefined>;
  syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void>;
  /** Scaling and history cleanup while paused or on a scaling event. */
  sync(d: Deployment, rsList: ReplicaSet[]): Promise<void>;
  checkPausedConditions(d: Deployment): Promise<void>;
  isScalingEvent(d: Deployment, rsList: ReplicaSet[]): Promise<boolean>;
}

const DEPLOYMENT_API_VERSION = 'apps/v1';
const DEPLOYMENT_KIND = 'Deployment';
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const sameStatus = (a: DeploymentStatus | undefined, b: DeploymentStatus): boolean => canonicalEncoding(a ?? {}) === canonicalEncoding(compactStatus(b));

/** Creates the sync steps. */
export function createDeploymentSync(deps: SyncDeps): DeploymentSync {
  const { deployApi, rsApi } = deps;

  /** Writes d.status (compacted) and keeps d's resourceVersion current. */
  const writeStatus = async (d: Deployment): Promise<void> => {
    d.status = compactStatus(d.status ?? {});
    const base = d.metadata?.resourceVersion;
    const written = await deployApi.updateStatus(d, { namespace: d.metadata?.namespace });
    d.metadata!.resourceVersion = written.metadata?.resourceVersion;
    deps.wrote?.(written, base);
  };

  /**
   * The revision annotation lives in metadata, which the status subresource does not write: an
   * update of the Deployment (pinned to the version read, as kube's controller does; its role
   * grants update, not patch, on deployments).
   */
  const setDeploymentRevision = async (d: Deployment, revision: string | undefined): Promise<void> => {
    if (revision === undefined || d.metadata?.annotations?.[REVISION_ANNOTATION] === revision) return;
    const copy = structuredClone(d);
    (copy.metadata!.annotations ??= {})[REVISION_ANNOTATION] = revision;
    const written = await deployApi.update(copy, { namespace: d.metadata?.namespace });
    (d.metadata!.annotations ??= {})[REVISION_ANNOTATION] = revision;
    deps.wrote?.(written, d.metadata?.resourceVersion);
    d.metadata!.resourceVersion = written.metadata?.resourceVersion;
  };

  const updateRS = (rs: ReplicaSet): Promise<ReplicaSet> => rsApi.update(rs, { namespace: rs.metadata?.namespace });

  async function getNewReplicaSet(d: Deployment, rsList: ReplicaSet[], oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = String(maxRevision(oldRSs) + 1);
    if (existing) {
      const copy = structuredClone(existing) as ReplicaSet;
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const minReadyUpdate = (copy.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0);
      if (annotationsUpdated || minReadyUpdate) {
        copy.spec!.minReadySeconds = d.spec?.minReadySeconds;
        if (!copy.spec!.minReadySeconds) delete copy.spec!.minReadySeconds;
        return updateRS(copy);
      }
      await setDeploymentRevision(d, copy.metadata?.annotations?.[REVISION_ANNOTATION]);
      if (hasProgressDeadline(d) && !getCondition(d.status, 'Progressing')) {
        d.status ??= {};
        setCondition(d.status, newCondition('Progressing', 'True', Reasons.FoundNewRS, `Found new replica set "${copy.metadata?.name}"`, deps.now()));
        await writeStatus(d);
      }
      return copy;
    }
    if (!create) return undefined;

    const template = structuredClone(d.spec!.template);
    const hash = computeHash(d.spec!.template, d.status?.collisionCount);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec!.selector);
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    const newRS: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata?.name}-${hash}`,
        namespace: d.metadata?.namespace,
        ownerReferences: [controllerRefTo(d, DEPLOYMENT_API_VERSION, DEPLOYMENT_KIND)],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, selector, template },
    };
    if (d.spec?.minReadySeconds) newRS.spec!.minReadySeconds = d.spec.minReadySeconds;
    const replicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    newRS.spec!.replicas = replicas;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);

    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = await rsApi.create(newRS, { namespace: d.metadata?.namespace });
    } catch (err) {
      if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists') {
        alreadyExists = true;
        const rs = deps.rsCache.get(`${d.metadata?.namespace}/${newRS.metadata!.name}`);
        if (!rs) throw err; // the cache has not seen it yet: retry later
        const ref = controllerOf(rs);
        if (ref && ref.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
          created = rs;
        } else {
          // A hash collision: bump collisionCount so the next sync computes another name.
          d.status ??= {};
          d.status.collisionCount = (d.status.collisionCount ?? 0) + 1;
          await writeStatus(d);
          throw err;
        }
      } else if (err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating')) {
        throw err;
      } else {
        const msg = `Failed to create new replica set "${newRS.metadata!.name}": ${errorMessage(err)}`;
        if (hasProgressDeadline(d)) {
          d.status ??= {};
          setCondition(d.status, newCondition('Progressing', 'False', Reasons.FailedRSCreate, msg, deps.now()));
          await writeStatus(d).catch(() => undefined);
        }
        deps.event(d, 'Warning', Reasons.FailedRSCreate, msg);
        throw err;
      }
    }
    if (!alreadyExists && replicas > 0) deps.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata?.name} to ${replicas}`);
    await setDeploymentRevision(d, newRevision);
    if (!alreadyExists && hasProgressDeadline(d)) {
      d.status ??= {};
      setCondition(d.status, newCondition('Progressing', 'True', Reasons.NewReplicaSet, `Created new replica set "${created.metadata?.name}"`, deps.now()));
      await writeStatus(d);
    }
    return created;
  }

  async function scaleReplicaSet(rs: ReplicaSet, newScale: number, d: Deployment, operation: string): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const sizeNeedsUpdate = replicasOf(rs) !== newScale;
    const max = replicasOf(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, replicasOf(d), max)) return { scaled: false, rs };
    const oldScale = replicasOf(rs);
    const copy = structuredClone(rs) as ReplicaSet;
    copy.spec!.replicas = newScale;
    setReplicasAnnotations(copy, replicasOf(d), max);
    const updated = await updateRS(copy);
    if (sizeNeedsUpdate) deps.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${rs.metadata?.name} to ${newScale} from ${oldScale}`);
    return { scaled: sizeNeedsUpdate, rs: updated };
  }

  async function scaleReplicaSetAndRecordEvent(rs: ReplicaSet, newScale: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (replicasOf(rs) === newScale) return { scaled: false, rs };
    return scaleReplicaSet(rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
  }

  /** Scales proportionally on a scaling event or while paused (never during a normal rollout step). */
  async function scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const only = findActiveOrLatest(newRS, oldRSs);
    if (only) {
      if (replicasOf(only) === replicasOf(d)) return;
      await scaleReplicaSetAndRecordEvent(only, replicasOf(d), d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of filterActive(oldRSs)) await scaleReplicaSetAndRecordEvent(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const all = filterActive([...oldRSs, newRS]);
    const allReplicas = all.reduce((n, rs) => n + replicasOf(rs), 0);
    const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
    const toAdd = allowed - allReplicas;
    let operation = '';
    if (toAdd > 0) {
      all.sort(bySizeNewer);
      operation = 'up';
    } else if (toAdd < 0) {
      all.sort(bySizeOlder);
      operation = 'down';
    }
    let added = 0;
    const sizes = new Map<string, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const p = getProportion(rs, d, toAdd, added);
        sizes.set(rs.metadata!.name!, replicasOf(rs) + p);
        added += p;
      } else sizes.set(rs.metadata!.name!, replicasOf(rs));
    }
    for (let i = 0; i < all.length; i++) {
      const rs = all[i]!;
      const name = rs.metadata!.name!;
      if (i === 0 && toAdd !== 0) sizes.set(name, Math.max(0, sizes.get(name)! + toAdd - added));
      await scaleReplicaSet(rs, sizes.get(name)!, d, operation);
    }
  }

  async function cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    if (!hasRevisionHistoryLimit(d)) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const diff = cleanable.length - (d.spec?.revisionHistoryLimit ?? 0);
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, diff)) {
      const busy = (rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0);
      if (busy || rs.metadata?.deletionTimestamp) continue;
      try {
        await rsApi.delete(rs.metadata!.name!, { namespace: rs.metadata?.namespace });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
  }

  async function syncDeploymentStatus(allRSs: Array<ReplicaSet | undefined>, newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const next = calculateStatus(allRSs, newRS, d, deps.now());
    if (sameStatus(d.status, next)) return;
    d.status = next;
    await writeStatus(d);
  }

  /** When to check a rollout that shows no progress again (requeueStuckDeployment), in ms. */
  function stuckRequeue(d: Deployment, next: DeploymentStatus): number | undefined {
    const cur = getCondition(d.status, 'Progressing');
    if (!hasProgressDeadline(d) || !cur) return undefined;
    if (deploymentComplete(d, next) || cur.reason === Reasons.TimedOut) return undefined;
    const after = (Date.parse(cur.lastUpdateTime ?? '') || 0) + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - deps.now();
    return after < 1000 ? Math.max(after, 100) : after + 1000;
  }

  async function syncRolloutStatus(allRSs: Array<ReplicaSet | undefined>, newRS: ReplicaSet | undefined, d: Deployment): Promise<number | undefined> {
    const now = deps.now();
    const next = calculateStatus(allRSs, newRS, d, now);
    if (!hasProgressDeadline(d)) removeCondition(next, 'Progressing');
    const cur = getCondition(d.status, 'Progressing');
    const complete = next.replicas === next.updatedReplicas && cur?.reason === Reasons.NewRSAvailable;
    if (hasProgressDeadline(d) && !complete) {
      const subject = newRS ? `ReplicaSet "${newRS.metadata?.name}"` : `Deployment "${d.metadata?.name}"`;
      if (deploymentComplete(d, next)) {
        setCondition(next, newCondition('Progressing', 'True', Reasons.NewRSAvailable, `${subject} has successfully progressed.`, now));
      } else if (deploymentProgressing(d, next)) {
        const c = newCondition('Progressing', 'True', Reasons.ReplicaSetUpdated, `${subject} is progressing.`, now);
        if (cur) {
          if (cur.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
          removeCondition(next, 'Progressing');
        }
        setCondition(next, c);
      } else if (deploymentTimedOut(d, next, now)) {
        setCondition(next, newCondition('Progressing', 'False', Reasons.TimedOut, `${subject} has timed out progressing.`, now));
      }
    }
    const failures = replicaFailures(allRSs, newRS);
    if (failures) setCondition(next, failures);
    else removeCondition(next, 'ReplicaFailure');
    if (sameStatus(d.status, next)) return stuckRequeue(d, next);
    d.status = next;
    await writeStatus(d);
    return undefined;
  }

  async function getAllReplicaSetsAndSyncRevision(d: Deployment, rsList: ReplicaSet[], create: boolean) {
    const oldRSs = findOldReplicaSets(d, rsList);
    const newRS = await getNewReplicaSet(d, rsList, oldRSs, create);
    return { newRS, oldRSs };
  }

  return {
    getAllReplicaSetsAndSyncRevision,
    scaleReplicaSetAndRecordEvent,
    cleanupDeployment,
    syncRolloutStatus,
    async syncStatusOnly(d, rsList) {
      const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
      await syncDeploymentStatus([...oldRSs, newRS], newRS, d);
    },
    async sync(d, rsList) {
      const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
      await scale(d, newRS, oldRSs);
      if (d.spec?.paused) await cleanupDeployment(oldRSs, d);
      await syncDeploymentStatus([...oldRSs, newRS], newRS, d);
    },
    async checkPausedConditions(d) {
      if (!hasProgressDeadline(d)) return;
      const cond = getCondition(d.status, 'Progressing');
      if (cond?.reason === Reasons.TimedOut) return;
      const pausedCond = cond?.reason === Reasons.Paused;
      d.status ??= {};
      if (d.spec?.paused && !pausedCond) {
        setCondition(d.status, newCondition('Progressing', 'Unknown', Reasons.Paused, 'Deployment is paused', deps.now()));
      } else if (!d.spec?.paused && pausedCond) {
        setCondition(d.status, newCondition('Progressing', 'Unknown', Reasons.Resumed, 'Deployment is resumed', deps.now()));
      } else return;
      await writeStatus(d);
    },
    async isScalingEvent(d, rsList) {
      const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
      for (const rs of filterActive([...oldRSs, newRS])) {
        const desired = rs.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'];
        if (desired === undefined || !/^-?\d+$/.test(desired)) continue;
        if (Number(desired) !== replicasOf(d)) return true;
      }
      return false;
    },
  };
}

/** The ReplicaFailure condition of the new ReplicaSet, else of any old one, as a Deployment condition. */
function replicaFailures(allRSs: Array<ReplicaSet | undefined>, newRS: ReplicaSet | undefined) {
  const pick = (rs: ReplicaSet | undefined) => rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  const c = pick(newRS) ?? allRSs.map(pick).find(Boolean);
  if (!c) return undefined;
  return { type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime, lastUpdateTime: c.lastTransitionTime, reason: c.reason, message: c.message };
}
