/**
 * The CronJob controller (kube-controller-manager's `cronjob-controller`, pkg/controller/cronjob
 * controllerv2), built on the runtime like any user's controller: creates a Job at each start
 * time of a CronJob's schedule, as its concurrency policy, starting deadline and suspension
 * allow, keeps its history of finished Jobs within the limits, and records what runs in its
 * status. Every time it reads comes from the manager's clock, so tests run hours of schedule on
 * virtual time.
 */
import {
  Action,
  CronJobs,
  Jobs,
  NAMESPACE_INDEX,
  createEventRecorder,
  type Clock,
  type Controller,
  type CronJob,
  type EventRecorder,
  type Job,
  type KubeObject,
  type Manager,
  type Request,
} from '@kplane/runtime';
import { isStaleCacheError } from '../replicaset/controller-ref.js';
import { createOwnWrites } from '../replicaset/own-writes.js';
import { CronParseError } from '@kplane/api';
import { compileSchedule, nextScheduleDelay } from './schedule.js';
import { createCronJobSync, scheduleState } from './sync.js';
import { cronJobOwner } from './util.js';

/** Delay before retrying a sync whose status write met a newer version of the CronJob. */
const CONFLICT_RETRY_MS = 50;

/** Options of createCronJobController. */
export interface CronJobControllerOptions {
  /** Controller, workqueue and metrics name (default "cronjob"). */
  name?: string;
  /** CronJobs synced in parallel (default 5, kube-controller-manager's --concurrent-cron-job-syncs). */
  workers?: number;
  /** Time source for schedules (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "cronjob-controller"); false records none. */
  recorder?: EventRecorder | false;
}

/**
 * Registers the CronJob controller on `manager`.
 *
 * Guarantees:
 * - A start time is run at most once: its Job is named `<cronjob>-<minutes since the epoch>`,
 *   and a Job that already exists under that name and is controlled by the CronJob is taken as
 *   started (status.active is completed), never created twice.
 * - After a restart, or when the controller was stopped through several start times, only the
 *   most recent missed start time runs (if `startingDeadlineSeconds` still allows it); with more
 *   than 100 missed, a TooManyMissedTimes warning is recorded first.
 * - The CronJob is looked at again 100 ms after its next start time, and at every change to it
 *   or to a Job it controls.
 */
export function createCronJobController(manager: Manager, options: CronJobControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const recorder =
    options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'cronjob-controller', clock }));
  const cronJobInformer = manager.factory.informerFor<CronJob>(CronJobs);
  const jobInformer = manager.factory.informerFor<Job>(Jobs);
  const event = (cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...cj, apiVersion: 'batch/v1', kind: 'CronJob' } as KubeObject, type, reason, message);
  };
  const sync = createCronJobSync({
    jobApi: manager.client.resource<Job>(Jobs),
    cronJobApi: manager.client.resource<CronJob>(CronJobs),
    now: () => clock.now(),
    event,
  });

  // The status this controller last wrote of each CronJob, until its cache shows it (no 409 on the next write).
  const ownWrites = createOwnWrites<CronJob>();
  cronJobInformer.addEventHandler({ onDelete: (cj) => ownWrites.forget(`${cj.metadata?.namespace ?? ''}/${cj.metadata?.name ?? ''}`) });

  const reconcile = async (req: Request): Promise<Action | void> => {
    const cached = cronJobInformer.store.get(req.key);
    if (!cached) {
      ownWrites.forget(req.key);
      return Action.awaitChange();
    }
    const cj = ownWrites.latest(req.key, cached);
    // Every Job of the namespace this CronJob controls, whatever its labels now are.
    const jobs = jobInformer.store.byIndex(NAMESPACE_INDEX, req.namespace ?? '').filter((j) => cronJobOwner(j)?.name === req.name);
    const result = await sync(cj, jobs);
    if (result.written) ownWrites.wrote(req.key, cj.metadata?.resourceVersion, result.written);
    if (result.requeueAfterMs !== undefined) return Action.requeue(Math.max(0, result.requeueAfterMs));
    // A write based on a cache one event behind: try again once the cache caught up.
    if (result.error !== undefined && isStaleCacheError(result.error, req.name)) return Action.requeue(CONFLICT_RETRY_MS);
    if (result.error !== undefined) throw result.error;
    return Action.awaitChange();
  };

  const scheduleChanged = (old: CronJob, cur: CronJob): boolean =>
    old.spec?.schedule !== cur.spec?.schedule || (old.spec?.timeZone ?? undefined) !== (cur.spec?.timeZone ?? undefined);
  const controller = manager
    .controller()
    .named(options.name ?? 'cronjob')
    // A new schedule is looked at when its next start time comes, not at once (below).
    .for(CronJobs, { predicates: [(c) => !(c.type === 'update' && scheduleChanged(c.old as CronJob, c.object as CronJob))] })
    .owns(Jobs)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
  cronJobInformer.addEventHandler({
    onUpdate: (old, cur) => {
      if (!scheduleChanged(old, cur)) return;
      const key = `${cur.metadata?.namespace ?? ''}/${cur.metadata?.name ?? ''}`;
      let delay: number | undefined;
      try {
        delay = nextScheduleDelay(scheduleState(cur), clock.now(), compileSchedule(cur.spec?.schedule ?? '', cur.spec?.timeZone ?? undefined));
      } catch (err) {
        if (!(err instanceof CronParseError)) throw err;
        event(cur, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${cur.spec?.schedule ?? ''}`);
        return;
      }
      // A sooner time wins over the one already waiting; a later one finds nothing to do then.
      if (delay !== undefined) controller.queue.addAfter(key, Math.max(0, delay));
    },
  });
  return controller;
}
