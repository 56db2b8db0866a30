/**
 * One sync of one CronJob (kube-controller-manager's cronjob controllerv2 `sync`): clean up
 * finished Jobs past the history limits, account for the Jobs it owns, start the Job of the
 * most recent unmet start time when the policy allows, write status once, and tell when to look
 * again (just after the next start time).
 */
import { ApiError, CronParseError, goQuote, isKnownTimeZone, rfc3339 } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import type { CronJob, Job } from '@kplane/runtime';
import { compileSchedule, mostRecentScheduleTime, nextScheduleDelay, type Schedule, type ScheduleState } from './schedule.js';
import {
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION, byStartTime, controllerRef, finishedCondition, inActive, jobName, jobReference, parseTime, rfc1123z, rfc3339InZone,
} from './util.js';

/** What a sync needs from the world. */
export interface SyncDeps {
  jobApi: ResourceClient<Job>;
  cronJobApi: ResourceClient<CronJob>;
  now(): number;
  event(cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** The outcome of a sync: when to run again (ms), an error to retry with backoff, and the status written. */
export interface SyncResult {
  requeueAfterMs?: number;
  error?: unknown;
  /** The API server's answer to the status write, when there was one. */
  written?: CronJob;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.reason === 'AlreadyExists';
const namespaceTerminating = (err: unknown): boolean => err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/** What the schedule arithmetic reads of a CronJob. */
export function scheduleState(cj: CronJob): ScheduleState {
  return {
    creationMs: parseTime(cj.metadata?.creationTimestamp) ?? 0,
    lastScheduleMs: parseTime(cj.status?.lastScheduleTime),
    startingDeadlineSeconds: cj.spec?.startingDeadlineSeconds ?? undefined,
  };
}

/** The Job of one start time (getJobFromTemplate2). */
export function jobFromTemplate(cj: CronJob, scheduledMs: number): Job {
  const template = cj.spec?.jobTemplate ?? {};
  const annotations: Record<string, string> = { ...(template.metadata?.annotations ?? {}) };
  annotations[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] = rfc3339InZone(scheduledMs, cj.spec?.timeZone);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj.metadata?.name ?? '', scheduledMs),
      namespace: cj.metadata?.namespace,
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cj.metadata?.name ?? '', uid: cj.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone(template.spec ?? {}) as Job['spec'],
  };
}

/** Creates the sync function. `cj` is a private copy the sync may change; `jobs` the Jobs it controls. */
export function createCronJobSync(deps: SyncDeps) {
  const { jobApi, cronJobApi, event } = deps;
  const removeActive = (cj: CronJob, uid: string | undefined): void => {
    if (cj.status) cj.status.active = (cj.status.active ?? []).filter((r) => r.uid !== uid);
  };

  /** Deletes a Job (background propagation) and drops it from status.active; false when the delete failed. */
  const deleteJob = async (cj: CronJob, job: Job): Promise<boolean> => {
    try {
      await jobApi.delete(job.metadata?.name ?? '', { namespace: job.metadata?.namespace, propagationPolicy: 'Background' });
    } catch (err) {
      event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorText(err)}`);
      return false;
    }
    removeActive(cj, job.metadata?.uid);
    event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name ?? ''}`);
    return true;
  };

  /** Deletes the oldest finished Jobs beyond the history limits; true when status changed. */
  const cleanupFinishedJobs = async (cj: CronJob, jobs: Job[]): Promise<boolean> => {
    const successLimit = cj.spec?.successfulJobsHistoryLimit;
    const failedLimit = cj.spec?.failedJobsHistoryLimit;
    if ((successLimit === undefined || successLimit === null) && (failedLimit === undefined || failedLimit === null)) return false;
    const succeeded = jobs.filter((j) => finishedCondition(j) === 'Complete');
    const failed = jobs.filter((j) => finishedCondition(j) === 'Failed');
    let changed = false;
    for (const [list, limit] of [[succeeded, successLimit], [failed, failedLimit]] as const) {
      if (limit === undefined || limit === null || list.length <= limit) continue;
      const oldest = [...list].sort(byStartTime).slice(0, list.length - limit);
      for (const job of oldest) if (await deleteJob(cj, job)) changed = true;
    }
    return changed;
  };

  /** syncCronJob: returns when to requeue, whether status changed, and an error. */
  const syncCronJob = async (cj: CronJob, jobs: Job[]): Promise<{ requeueAfterMs?: number; changed: boolean; error?: unknown }> => {
    const now = deps.now();
    let changed = false;
    cj.status ??= {};
    const children = new Set<string>();
    for (const job of jobs) {
      const uid = job.metadata?.uid ?? '';
      children.add(uid);
      const found = inActive(cj, uid);
      const finished = finishedCondition(job);
      if (!found && !finished) {
        let fresh: CronJob;
        try {
          fresh = await cronJobApi.get(cj.metadata?.name ?? '', { namespace: cj.metadata?.namespace });
        } catch (err) {
          return { changed, error: err };
        }
        if (inActive(fresh, uid)) {
          // The cache was behind: go on from what the API server holds.
          for (const k of Object.keys(cj) as (keyof CronJob)[]) delete cj[k];
          Object.assign(cj, structuredClone(fresh));
          cj.status ??= {};
          continue;
        }
        event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name ?? ''}`);
      } else if (finished) {
        if (found) {
          removeActive(cj, uid);
          event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name ?? ''}, condition: ${finished}`);
          changed = true;
        }
        if (finished === 'Complete') {
          const completion = parseTime(job.status?.completionTime);
          const last = parseTime(cj.status.lastSuccessfulTime);
          if (completion !== undefined && (last === undefined || completion > last)) {
            cj.status.lastSuccessfulTime = job.status?.completionTime;
            changed = true;
          }
        }
      }
    }

    // A Job in status.active that is gone (checked live, not only in the cache) leaves the list.
    for (const ref of [...(cj.status.active ?? [])]) {
      if (children.has(ref.uid ?? '')) continue;
      try {
        await jobApi.get(ref.name ?? '', { namespace: ref.namespace });
      } catch (err) {
        if (!isNotFound(err)) return { changed, error: err };
        event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
        removeActive(cj, ref.uid);
        changed = true;
      }
    }

    if (cj.metadata?.deletionTimestamp) return { changed };

    const timeZone = cj.spec?.timeZone;
    if (timeZone !== undefined && timeZone !== null && !isKnownTimeZone(timeZone)) {
      event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${goQuote(timeZone)}: unknown time zone ${timeZone}`);
      return { changed };
    }
    if (cj.spec?.suspend === true) return { changed };

    const scheduleText = cj.spec?.schedule ?? '';
    if (scheduleText.includes('TZ')) {
      event(cj, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule ${goQuote(scheduleText)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    let schedule: Schedule;
    try {
      schedule = compileSchedule(scheduleText, timeZone ?? undefined);
    } catch (err) {
      if (!(err instanceof CronParseError)) throw err;
      event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${goQuote(scheduleText)} : ${err.message}`);
      return { changed };
    }

    const state = scheduleState(cj);
    const found = mostRecentScheduleTime(state, now, schedule, true);
    const requeue = () => ({ requeueAfterMs: nextScheduleDelay(scheduleState(cj), now, schedule), changed });
    if (found.error !== undefined) {
      event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${scheduleText} : ${found.error}`);
      return { changed };
    }
    const scheduled = found.mostRecentMs;
    if (scheduled === undefined || scheduled > now) return requeue();
    if (found.missed === 'many') {
      event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    }

    const deadline = cj.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && deadline !== null && scheduled + deadline * 1000 < now) {
      event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return requeue();
    }
    const name = jobName(cj.metadata?.name ?? '', scheduled);
    if ((cj.status.active ?? []).some((r) => r.name === name && r.namespace === cj.metadata?.namespace) || parseTime(cj.status.lastScheduleTime) === scheduled) {
      return requeue();
    }
    const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && (cj.status.active ?? []).length > 0) {
      event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return requeue();
    }
    if (policy === 'Replace') {
      for (const ref of [...(cj.status.active ?? [])]) {
        let job: Job;
        try {
          job = await jobApi.get(ref.name ?? '', { namespace: ref.namespace });
        } catch (err) {
          event(cj, 'Warning', 'FailedGet', `Get job: ${errorText(err)}`);
          return { changed, error: err };
        }
        if (!(await deleteJob(cj, job))) return { changed, error: new Error(`could not replace job ${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`) };
        changed = true;
      }
    }

    const request = jobFromTemplate(cj, scheduled);
    let created: Job;
    let existed = false;
    try {
      created = await jobApi.create(request, { namespace: cj.metadata?.namespace });
    } catch (err) {
      if (namespaceTerminating(err)) return { changed, error: err };
      if (!isAlreadyExists(err)) {
        event(cj, 'Warning', 'FailedCreate', `Error creating job: ${errorText(err)}`);
        return { changed, error: err };
      }
      // Created by an earlier sync whose status write was lost, or by someone else.
      existed = true;
      try {
        created = await jobApi.get(name, { namespace: cj.metadata?.namespace });
      } catch (getErr) {
        return { changed, error: getErr };
      }
      if (controllerRef(created)?.uid !== cj.metadata?.uid) return { changed };
      if (inActive(cj, created.metadata?.uid)) return { changed };
    }
    if (!existed) event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name ?? ''}`);
    cj.status.active = [...(cj.status.active ?? []), jobReference(created)];
    cj.status.lastScheduleTime = rfc3339(scheduled);
    changed = true;
    return requeue();
  };

  /** One sync of `cached` (from the cache, not changed) with the Jobs it controls. */
  return async function sync(cached: CronJob, jobs: Job[]): Promise<SyncResult> {
    const cj = structuredClone(cached) as CronJob;
    const cleaned = await cleanupFinishedJobs(cj, jobs);
    const result = await syncCronJob(cj, jobs);
    let written: CronJob | undefined;
    if (cleaned || result.changed) {
      try {
        written = await cronJobApi.updateStatus(cj, { namespace: cj.metadata?.namespace });
      } catch (err) {
        return { error: err };
      }
    }
    const out: SyncResult = written ? { written } : {};
    if (result.requeueAfterMs !== undefined) return { ...out, requeueAfterMs: result.requeueAfterMs };
    return result.error !== undefined ? { ...out, error: result.error } : out;
  };
}
