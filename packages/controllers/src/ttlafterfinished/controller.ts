/**
 * The TTL-after-finished controller (kube-controller-manager's pkg/controller/ttlafterfinished):
 * deletes a finished Job `spec.ttlSecondsAfterFinished` seconds after it finished, in the
 * foreground (its pods go first), on the injected clock.
 */
import { ApiError } from '@kplane/api';
import { Action, Jobs, type Clock, type Controller, type Job, type Manager, type Request } from '@kplane/runtime';
import { finishedCondition } from '../job/conditions.js';

/** Options of createTtlAfterFinishedController. */
export interface TtlAfterFinishedOptions {
  /** Controller and workqueue name (default "ttlafterfinished"). */
  name?: string;
  /** Jobs handled in parallel (default 5, --concurrent-ttl-after-finished-syncs). */
  workers?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
}

/**
 * When a finished Job with a TTL expires (ms), or undefined when it has no TTL or is not
 * finished. The finish time is the Complete or Failed condition's lastTransitionTime.
 */
export function jobExpiresAt(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null) return undefined;
  const cond = finishedCondition(job);
  if (!cond) return undefined;
  const finishedAt = Date.parse(cond.lastTransitionTime ?? '');
  if (Number.isNaN(finishedAt)) return undefined;
  return finishedAt + ttl * 1000;
}

/** Registers the TTL-after-finished controller on `manager`. */
export function createTtlAfterFinishedController(manager: Manager, options: TtlAfterFinishedOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const jobs = manager.factory.informerFor<Job>(Jobs);
  const api = manager.client.resource<Job>(Jobs);

  const reconcile = async (req: Request): Promise<Action | void> => {
    const cached = jobs.store.get(req.key);
    if (!cached || cached.metadata?.deletionTimestamp) return;
    const expiresAt = jobExpiresAt(cached);
    if (expiresAt === undefined) return;
    const left = expiresAt - clock.now();
    if (left > 0) return Action.requeue(left);
    // The cache may be behind (the TTL changed, the Job was recreated): decide on a fresh copy.
    let fresh: Job;
    try {
      fresh = await api.get(req.name, { namespace: req.namespace });
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
    if (fresh.metadata?.deletionTimestamp) return;
    const freshExpiry = jobExpiresAt(fresh);
    if (freshExpiry === undefined) return;
    if (freshExpiry > clock.now()) return Action.requeue(freshExpiry - clock.now());
    try {
      await api.delete(req.name, { namespace: req.namespace, propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid } });
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  };

  return manager
    .controller()
    .named(options.name ?? 'ttlafterfinished')
    .for<Job>(Jobs)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
