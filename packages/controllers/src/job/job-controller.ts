/**
 * The Job controller (kube-controller-manager's pkg/controller/job), on the runtime like any
 * user's controller: runs a Job's pods to completion, counts finished pods through the
 * job-tracking finalizer and status.uncountedTerminatedPods, and reports kube's conditions.
 */
import { ApiError, labelSelectorFromObject, type OwnerReference } from '@kplane/api';
import {
  Action, Jobs, NAMESPACE_INDEX, Pods, createEventRecorder, formatTime,
  type Clock, type Controller, type EventRecorder, type Job, type JobCondition, type Manager, type Pod, type Request,
} from '@kplane/runtime';
import { deepFreeze } from '@kplane/runtime/internal';
import { claimObjects, controllerOf, controllerRefTo, isStaleCacheError, recheckOwnerWith } from '../replicaset/controller-ref.js';
import { createExpectations } from '../replicaset/expectations.js';
import { createOwnWrites } from '../replicaset/own-writes.js';
import { ORPHAN_POD_INDEX } from '../replicaset/replicaset-controller.js';
import { podKey } from '../replicaset/pods.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../replicaset/slow-start.js';
import { JOB_REASONS, ensureCondition, finishedCondition, findCondition, newCondition } from './conditions.js';
import { IndexSet, completionIndexOf } from './indexes.js';
import { planPods, type PodPlan } from './manage.js';
import { matchPodFailurePolicy, type PolicyVerdict } from './pod-failure-policy.js';
import { DEFAULT_POD_FAILURE_BACKOFF_MS, JOB_TRACKING_FINALIZER, MAX_POD_FAILURE_BACKOFF_MS, hasTrackingFinalizer, isPodReady, isPodTerminal, podFromJob } from './pods.js';

/** The most pods one sync creates or deletes (MaxPodCreateDeletePerSync). */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** The value of spec.managedBy that means this controller (absent means it too). */
export const JOB_CONTROLLER_MANAGER = 'kubernetes.io/job-controller';
const CONFLICT_RETRY_MS = 50;
const JOB_API_VERSION = 'batch/v1';
const JOB_KIND = 'Job';
/** Index of the pod cache: pods by the "namespace/name" of the Job that controls them (any uid). */
export const JOB_POD_INDEX = 'job:byControllerName';

/** Options of createJobController. */
export interface JobControllerOptions {
  /** Controller and workqueue name (default "job"). */
  name?: string;
  /** Jobs synced in parallel (default 5, --concurrent-job-syncs). */
  workers?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "job-controller"); false records none. */
  recorder?: EventRecorder | false;
  /** Pod changes within this long of a Job's last sync wait for the window's end (default 25 ms). */
  batchWindowMs?: number;
  /** First delay before a failed pod is replaced (default 10 s), doubling to `maxPodFailureBackoffMs` (default 6 min). */
  podFailureBackoffMs?: number;
  maxPodFailureBackoffMs?: number;
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const isDeleting = (p: Pod): boolean => !!p.metadata?.deletionTimestamp;
const isActive = (p: Pod): boolean => !isPodTerminal(p) && !isDeleting(p);
/** isPodFailed: phase Failed; a pod removed without reaching a phase (force-deleted) fails too. */
const isPodFailed = (p: Pod): boolean => p.status?.phase === 'Failed' || (isDeleting(p) && p.metadata?.deletionGracePeriodSeconds === 0 && p.status?.phase !== 'Succeeded');

/** Registers the Job controller on `manager` (named "job" unless told otherwise). */
export function createJobController(manager: Manager, options: JobControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const expectations = createExpectations({ clock });
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'job-controller', clock }));
  const jobInformer = manager.factory.informerFor<Job>(Jobs);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const jobApi = manager.client.resource<Job>(Jobs);
  const podApi = manager.client.resource<Pod>(Pods);
  const backoff = { baseMs: options.podFailureBackoffMs ?? DEFAULT_POD_FAILURE_BACKOFF_MS, maxMs: options.maxPodFailureBackoffMs ?? MAX_POD_FAILURE_BACKOFF_MS };
  try {
    podInformer.store.addIndexer(ORPHAN_POD_INDEX, (pod: Pod) => (controllerOf(pod) ? [] : [pod.metadata?.namespace ?? '']));
  } catch {
    // Already added (the ReplicaSet controller files orphans the same way).
  }
  try {
    podInformer.store.addIndexer(JOB_POD_INDEX, (pod: Pod) => {
      const ref = controllerOf(pod);
      return ref && ref.kind === JOB_KIND && ref.apiVersion.startsWith('batch/') ? [`${pod.metadata?.namespace ?? ''}/${ref.name}`] : [];
    });
  } catch {
    // Already added by another Job controller on this informer: same function.
  }
  const ownWrites = createOwnWrites<Job>();
  /** Pods (by uid) whose finalizer this controller removed and whose cache copy may still show it, per Job key. */
  const removedFinalizers = new Map<string, Set<string>>();

  const event = (job: Job, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...job, apiVersion: JOB_API_VERSION, kind: JOB_KIND }, type, reason, message);
  };
  const jobKeyOf = (pod: Pod): string | undefined => {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== JOB_KIND || !ref.apiVersion.startsWith('batch/')) return undefined;
    return `${pod.metadata?.namespace ?? ''}/${ref.name}`;
  };
  const observe = (pod: Pod, gone: boolean): void => {
    const key = jobKeyOf(pod);
    if (!key) return;
    if (gone || isDeleting(pod)) expectations.deletionObserved(key, podKey(pod));
    if (gone || !hasTrackingFinalizer(pod)) removedFinalizers.get(key)?.delete(pod.metadata?.uid ?? '');
  };
  podInformer.addEventHandler({
    onAdd(pod) {
      const key = jobKeyOf(pod);
      if (key && !isDeleting(pod)) expectations.creationObserved(key);
      observe(pod, false);
    },
    onUpdate: (_old, pod) => observe(pod, false),
    onDelete: (pod) => observe(pod, true),
  });
  jobInformer.addEventHandler({
    onDelete(job) {
      const key = `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`;
      expectations.delete(key);
      ownWrites.forget(key);
    },
  });

  const podToJobs = (pod: Pod): Array<{ namespace: string; name: string }> => {
    const ns = pod.metadata?.namespace ?? '';
    const ref = controllerOf(pod);
    if (ref) return ref.kind === JOB_KIND && ref.apiVersion.startsWith('batch/') ? [{ namespace: ns, name: ref.name }] : [];
    if (isDeleting(pod)) return [];
    const out: Array<{ namespace: string; name: string }> = [];
    for (const job of jobInformer.store.byIndex(NAMESPACE_INDEX, ns)) {
      try {
        if (labelSelectorFromObject(job.spec?.selector).matches(pod.metadata?.labels)) out.push({ namespace: ns, name: job.metadata?.name ?? '' });
      } catch {
        // An invalid selector selects nothing.
      }
    }
    return out;
  };

  /** Removes the tracking finalizer from pods (a strategic merge patch guarded by uid); returns the uids done. */
  const removeFinalizers = async (key: string, pods: Pod[]): Promise<Set<string>> => {
    const done = new Set<string>();
    let failure: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        const uid = pod.metadata?.uid ?? '';
        try {
          await podApi.patch(pod.metadata?.name ?? '', { metadata: { uid, '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } }, 'strategic', { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) {
            failure ??= err;
            return;
          }
        }
        done.add(uid);
        let set = removedFinalizers.get(key);
        if (!set) removedFinalizers.set(key, (set = new Set()));
        set.add(uid);
      }),
    );
    if (failure !== undefined && done.size === 0) throw failure;
    return done;
  };

  /**
   * Pods of a Job that is gone, or that was replaced by another Job of the same name, keep no
   * finalizer (the orphan pods of kube's syncOrphanPod).
   */
  const releaseOrphans = async (req: Request, currentUid?: string): Promise<void> => {
    const orphans = podInformer.store.byIndex(JOB_POD_INDEX, req.key).filter((p) => hasTrackingFinalizer(p) && controllerOf(p)?.uid !== currentUid);
    if (orphans.length > 0) await removeFinalizers(req.key, orphans);
  };

  const writeStatus = async (key: string, job: Job, base: Job): Promise<Job> => {
    const next: Job = { ...base, status: compactStatus(job.status ?? {}) };
    let written: Job;
    let rv = base.metadata?.resourceVersion;
    try {
      written = await jobApi.updateStatus(next, { namespace: job.metadata?.namespace });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      const fresh = await jobApi.get(job.metadata?.name ?? '', { namespace: job.metadata?.namespace });
      if (fresh.metadata?.uid !== job.metadata?.uid) throw err;
      rv = fresh.metadata?.resourceVersion;
      written = await jobApi.updateStatus({ ...fresh, status: compactStatus(job.status ?? {}) }, { namespace: job.metadata?.namespace });
    }
    ownWrites.wrote(key, rv, deepFreeze(written));
    return written;
  };

  const createPods = async (key: string, job: Job, plan: PodPlan): Promise<number> => {
    const ref: OwnerReference = controllerRefTo(job, JOB_API_VERSION, JOB_KIND);
    const count = plan.create.length;
    expectations.expectCreations(key, count);
    let next = 0;
    const result = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      const parts = plan.create[next++];
      try {
        const created = await podApi.create(podFromJob(job, ref, parts), { namespace: job.metadata?.namespace });
        event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
      } catch (err) {
        event(job, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
        throw err;
      }
    });
    for (let i = result.successes; i < count; i++) expectations.creationObserved(key);
    if (result.error !== undefined) throw result.error;
    return result.successes;
  };

  /** Deletes pods; returns how many (and how many of them ready) were deleted. */
  const deletePods = async (key: string, job: Job, pods: Pod[]): Promise<{ deleted: number; ready: number; error?: unknown }> => {
    expectations.expectDeletions(key, pods.map(podKey));
    let deleted = 0;
    let ready = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        const name = pod.metadata?.name ?? '';
        try {
          await podApi.delete(name, { namespace: pod.metadata?.namespace, preconditions: { uid: pod.metadata?.uid } });
          event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        } catch (err) {
          expectations.deletionObserved(key, podKey(pod));
          if (!(err instanceof ApiError && err.code === 404)) {
            event(job, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
            error ??= err;
            return;
          }
        }
        deleted++;
        if (isPodReady(pod)) ready++;
      }),
    );
    return { deleted, ready, error };
  };

  const syncJob = async (req: Request): Promise<Action | void> => {
    const cached = jobInformer.store.get(req.key);
    if (!cached) {
      expectations.delete(req.key);
      ownWrites.forget(req.key);
      removedFinalizers.delete(req.key);
      return releaseOrphans(req);
    }
    const base = ownWrites.latest(req.key, cached);
    const managedBy = base.spec?.managedBy;
    if (managedBy !== undefined && managedBy !== JOB_CONTROLLER_MANAGER) return;
    const ns = req.namespace;
    const uid = base.metadata?.uid ?? '';
    const named = podInformer.store.byIndex(JOB_POD_INDEX, req.key);
    let pods = named.filter((p) => controllerOf(p)?.uid === uid);
    if (pods.length < named.length) await releaseOrphans(req, uid);
    if (finishedCondition(base)) {
      const held = pods.filter(hasTrackingFinalizer);
      if (held.length > 0) await removeFinalizers(req.key, held);
      return;
    }
    for (const key of expectations.pending(req.key)?.deleting ?? []) {
      const p = podInformer.store.get(key);
      if (!p || isDeleting(p)) expectations.deletionObserved(req.key, key);
    }
    const satisfied = expectations.satisfied(req.key);
    // Orphans matching a manual selector are adopted (a generated selector selects only this Job's pods).
    const orphans = podInformer.store.byIndex(ORPHAN_POD_INDEX, ns).filter((p) => !isDeleting(p));
    if (orphans.length > 0 && !base.metadata?.deletionTimestamp) {
      let sel: ReturnType<typeof labelSelectorFromObject> | undefined;
      try {
        sel = labelSelectorFromObject(base.spec?.selector);
      } catch {
        sel = undefined;
      }
      const matching = sel && !sel.empty ? orphans.filter((p) => sel!.matches(p.metadata?.labels)) : [];
      if (matching.length > 0) {
        const claimed = await claimObjects<Pod>({
          owner: base, ownerApiVersion: JOB_API_VERSION, ownerKind: JOB_KIND, objects: matching, match: () => true, api: podApi,
          recheckOwner: recheckOwnerWith(jobApi, base, JOB_KIND),
        });
        pods = pods.concat(claimed);
      }
    }

    const job: Job = structuredClone(base) as Job;
    const now = clock.now();
    const spec = job.spec!;
    const status = (job.status ??= {});
    const conditions: JobCondition[] = (status.conditions ??= []);
    const suspended = spec.suspend === true;
    const indexed = spec.completionMode === 'Indexed';
    const completions = spec.completions;
    const perIndex = indexed && spec.backoffLimitPerIndex !== undefined;
    const live = removedFinalizers.get(req.key);
    if (live) for (const u of live) if (!pods.some((p) => p.metadata?.uid === u && hasTrackingFinalizer(p))) live.delete(u);
    // A copy: the pod events that arrive while this sync awaits must not change how it reads its own snapshot of the pods.
    const pendingRemoval = new Set(live ?? []);
    const uncountedSucceeded = new Set(status.uncountedTerminatedPods?.succeeded ?? []);
    const uncountedFailed = new Set(status.uncountedTerminatedPods?.failed ?? []);
    const tracked = (p: Pod): boolean => hasTrackingFinalizer(p) && !pendingRemoval.has(p.metadata?.uid ?? '');
    const uncounted = (p: Pod): boolean => !uncountedSucceeded.has(p.metadata?.uid ?? '') && !uncountedFailed.has(p.metadata?.uid ?? '');
    const newSucceeded = pods.filter((p) => tracked(p) && uncounted(p) && p.status?.phase === 'Succeeded');
    const newFailed = pods.filter((p) => tracked(p) && uncounted(p) && isPodFailed(p));
    const verdicts = new Map<Pod, PolicyVerdict>(newFailed.map((p) => [p, matchPodFailurePolicy(job, p)]));
    const activePods = pods.filter(isActive);
    let active = activePods.length;
    let ready = activePods.filter(isPodReady).length;
    let terminating = pods.filter((p) => isDeleting(p) && !isPodTerminal(p)).length;
    if (!status.startTime && !suspended) status.startTime = formatTime(now);

    const failed = (status.failed ?? 0) + uncountedFailed.size + newFailed.filter((p) => verdicts.get(p)!.countFailed).length;
    let succeeded = (status.succeeded ?? 0) + uncountedSucceeded.size + newSucceeded.length;
    let finished: JobCondition | undefined;
    let requeueMs: number | undefined;
    const scm = findCondition(job, 'SuccessCriteriaMet');
    const target = findCondition(job, 'FailureTarget');
    if (scm?.status === 'True') finished = newCondition('SuccessCriteriaMet', scm.reason ?? '', scm.message ?? '', now);
    else if (target?.status === 'True') finished = newCondition('FailureTarget', target.reason ?? '', target.message ?? '', now);
    else {
      const failJob = newFailed.map((p) => verdicts.get(p)!).find((v) => v.action === 'FailJob');
      if (failJob) finished = newCondition('FailureTarget', JOB_REASONS.podFailurePolicy, failJob.message ?? '', now);
    }
    if (!finished) {
      if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, activePods)) {
        finished = newCondition('FailureTarget', JOB_REASONS.backoffLimitExceeded.reason, JOB_REASONS.backoffLimitExceeded.message, now);
      } else if (spec.activeDeadlineSeconds !== undefined && status.startTime && !suspended) {
        const left = Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 - now;
        if (left <= 0) finished = newCondition('FailureTarget', JOB_REASONS.deadlineExceeded.reason, JOB_REASONS.deadlineExceeded.message, now);
        else requeueMs = left;
      }
    }
    let succeededIndexes: IndexSet | undefined;
    let failedIndexes: IndexSet | undefined;
    if (indexed && completions !== undefined) {
      succeededIndexes = IndexSet.parse(status.completedIndexes, completions);
      for (const p of pods) {
        const ix = completionIndexOf(p);
        if (p.status?.phase === 'Succeeded' && tracked(p) && ix !== undefined && ix < completions) succeededIndexes.add(ix);
      }
      if (perIndex) {
        failedIndexes = IndexSet.parse(status.failedIndexes, completions);
        for (const p of newFailed) {
          const ix = completionIndexOf(p);
          if (ix === undefined || ix >= completions || succeededIndexes.has(ix)) continue;
          const v = verdicts.get(p)!;
          const count = Number(p.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'] ?? 0) + (v.countFailed ? 1 : 0);
          if (v.action === 'FailIndex' || (v.countFailed && count > spec.backoffLimitPerIndex!)) failedIndexes.add(ix);
        }
        if (!finished) {
          if (spec.maxFailedIndexes !== undefined && failedIndexes.size > spec.maxFailedIndexes) {
            finished = newCondition('FailureTarget', JOB_REASONS.maxFailedIndexesExceeded.reason, JOB_REASONS.maxFailedIndexesExceeded.message, now);
          } else if (failedIndexes.size > 0 && failedIndexes.size + succeededIndexes.size >= completions) {
            finished = newCondition('FailureTarget', JOB_REASONS.failedIndexes.reason, JOB_REASONS.failedIndexes.message, now);
          }
        }
      }
      if (!finished) {
        const matched = matchSuccessPolicy(job, succeededIndexes);
        if (matched !== undefined) finished = newCondition('SuccessCriteriaMet', JOB_REASONS.successPolicy, `Matched rules at index ${matched}`, now);
      }
      succeeded = succeededIndexes.size;
    }

    let manageError: unknown;
    let suspendChanged = false;
    if (finished) {
      if (activePods.length > 0) {
        const r = await deletePods(req.key, job, activePods);
        active -= r.deleted;
        ready -= r.ready;
        terminating += r.deleted;
        manageError = r.error;
      }
      // A failed deletion, or pods the cache has not shown yet, keep the Job from finishing now.
      if (active > 0 || !satisfied) finished = undefined;
    } else {
      let managed = false;
      if (satisfied && !job.metadata?.deletionTimestamp) {
        managed = true;
        const plan = planPods(job, {
          pods, activePods, succeeded, succeededIndexes, failedIndexes, terminating, now, backoff, burst: MAX_POD_CREATE_DELETE_PER_SYNC,
        });
        try {
          if (plan.delete.length > 0) {
            const r = await deletePods(req.key, job, plan.delete);
            active -= r.deleted;
            ready -= r.ready;
            terminating += r.deleted;
            if (r.error !== undefined) throw r.error;
          }
          if (plan.create.length > 0) active += await createPods(req.key, job, plan);
        } catch (err) {
          manageError = err;
        }
        if (plan.retryAfterMs !== undefined) requeueMs = Math.min(requeueMs ?? Infinity, plan.retryAfterMs);
      }
      const complete = completions === undefined ? succeeded > 0 && active === 0 : succeeded >= completions && active === 0;
      if (complete) finished = newCondition('SuccessCriteriaMet', JOB_REASONS.completionsReached.reason, JOB_REASONS.completionsReached.message, now);
      else if (managed) {
        if (suspended) {
          if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
            suspendChanged = true;
            event(job, 'Normal', 'Suspended', 'Job suspended');
          }
          // Once no pod runs, a suspended Job has not started (its scheduling directives may change again).
          if (active === 0 && terminating === 0) delete status.startTime;
        } else if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
          suspendChanged = true;
          event(job, 'Normal', 'Resumed', 'Job resumed');
          // A resumed Job's activeDeadlineSeconds counts from now.
          status.startTime = formatTime(now);
        }
      }
    }
    status.active = active;
    status.ready = ready;
    status.terminating = terminating;

    // trackJobStatusAndRemoveFinalizers: pods whose finalizer may go are first recorded as uncounted.
    const toRelease: Pod[] = [];
    for (const p of pods) {
      if (!tracked(p)) continue;
      const u = p.metadata?.uid ?? '';
      const podFailed = isPodFailed(p);
      const canRemove = !!job.metadata?.deletionTimestamp || !!finished || p.status?.phase === 'Succeeded' || podFailed;
      if (!canRemove) continue;
      toRelease.push(p);
      if (p.status?.phase === 'Succeeded' && !uncountedFailed.has(u)) {
        if (!indexed) uncountedSucceeded.add(u);
      } else if (podFailed || (finished && finished.type !== 'SuccessCriteriaMet')) {
        const ix = completionIndexOf(p);
        if (uncountedFailed.has(u) || (indexed && (ix === undefined || completions === undefined || ix >= completions))) continue;
        if ((verdicts.get(p) ?? matchPodFailurePolicy(job, p)).countFailed) uncountedFailed.add(u);
      }
    }
    if (succeededIndexes) {
      status.succeeded = succeededIndexes.size;
      status.completedIndexes = succeededIndexes.toString();
    }
    if (failedIndexes) status.failedIndexes = failedIndexes.toString();
    if (finished?.type === 'FailureTarget') {
      if (findCondition(job, 'FailureTarget')?.status !== 'True') conditions.push(finished);
      finished = newCondition('Failed', finished.reason ?? '', finished.message ?? '', now);
    } else if (finished?.type === 'SuccessCriteriaMet') {
      if (findCondition(job, 'SuccessCriteriaMet')?.status !== 'True') conditions.push(finished);
      finished = newCondition('Complete', finished.reason ?? '', finished.message ?? '', now);
    }
    const uncountedStatus = (): NonNullable<Job['status']>['uncountedTerminatedPods'] => {
      const out: { succeeded?: string[]; failed?: string[] } = {};
      if (uncountedSucceeded.size > 0) out.succeeded = [...uncountedSucceeded];
      if (uncountedFailed.size > 0) out.failed = [...uncountedFailed];
      return out;
    };
    status.uncountedTerminatedPods = uncountedStatus();
    let written = base;
    if (suspendChanged || toRelease.length > 0 || !sameStatus(base, job)) written = await writeStatus(req.key, job, base);
    const released = toRelease.length > 0 ? await removeFinalizers(req.key, toRelease) : new Set<string>();
    // Uncounted pods that no longer hold the finalizer move to the counters.
    const holding = new Set(pods.filter((p) => tracked(p) && !released.has(p.metadata?.uid ?? '')).map((p) => p.metadata?.uid ?? ''));
    for (const u of [...uncountedSucceeded]) {
      if (holding.has(u)) continue;
      uncountedSucceeded.delete(u);
      status.succeeded = (status.succeeded ?? 0) + 1;
    }
    for (const u of [...uncountedFailed]) {
      if (holding.has(u)) continue;
      uncountedFailed.delete(u);
      status.failed = (status.failed ?? 0) + 1;
    }
    status.uncountedTerminatedPods = uncountedStatus();
    // enactJobFinished: the terminal condition waits for every pod to be counted and terminated.
    let done = false;
    if (finished && uncountedSucceeded.size + uncountedFailed.size === 0 && terminating === 0) {
      ensureCondition(conditions, finished.type, 'True', finished.reason ?? '', finished.message ?? '', now);
      if (finished.type === 'Complete') status.completionTime = formatTime(now);
      done = true;
    }
    if (!sameStatus(written, job)) await writeStatus(req.key, job, written);
    if (done) {
      if (finished!.type === 'Complete') event(job, 'Normal', 'Completed', 'Job completed');
      else event(job, 'Warning', finished!.reason ?? '', finished!.message ?? '');
    }
    if (manageError !== undefined) throw manageError;
    if (finished && !done && terminating === 0 && active === 0) return Action.requeue(1000);
    return requeueMs !== undefined ? Action.requeue(requeueMs) : Action.awaitChange();
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    try {
      return await syncJob(req);
    } catch (err) {
      if (isStaleCacheError(err, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
      throw err;
    }
  };

  return manager
    .controller()
    .named(options.name ?? 'job')
    .for<Job>(Jobs, { predicates: [(c) => c.type !== 'update' || !ownWrites.isOwn(`${c.object.metadata?.namespace ?? ''}/${c.object.metadata?.name ?? ''}`, c.object)] })
    .watches<Pod>(Pods, podToJobs, { batchWindowMs: options.batchWindowMs ?? 25 })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts count as failures. */
function pastBackoffLimitOnFailure(job: Job, activePods: Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of activePods) {
    for (const cs of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** The index of the first successPolicy rule the succeeded indexes meet, if any. */
export function matchSuccessPolicy(job: Job, succeeded: IndexSet): number | undefined {
  const rules = job.spec?.successPolicy?.rules;
  const completions = job.spec?.completions ?? 0;
  if (!rules) return undefined;
  for (const [i, rule] of rules.entries()) {
    if (rule.succeededIndexes !== undefined) {
      const wanted = IndexSet.parse(rule.succeededIndexes, completions).values();
      const met = wanted.filter((ix) => succeeded.has(ix)).length;
      if (rule.succeededCount !== undefined ? met >= rule.succeededCount : met === wanted.length) return i;
    } else if (rule.succeededCount !== undefined && succeeded.size >= rule.succeededCount) return i;
  }
  return undefined;
}

/** The status as written: zero counters dropped (Go's omitempty), ready and terminating kept. */
function compactStatus(status: NonNullable<Job['status']>): NonNullable<Job['status']> {
  const out = { ...status };
  for (const k of ['active', 'succeeded', 'failed'] as const) if (!out[k]) delete out[k];
  if (out.conditions?.length === 0) delete out.conditions;
  if (out.completedIndexes === '') delete out.completedIndexes;
  return out;
}

/** JSON with object keys sorted, so equal statuses compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function sameStatus(a: Job, b: Job): boolean {
  return canonical(compactStatus(a.status ?? {})) === canonical(compactStatus(b.status ?? {}));
}
