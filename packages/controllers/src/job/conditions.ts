/**
 * Job conditions with kube's types, reasons and messages, and the small facts about a Job the
 * controllers share (finished? when? which condition?).
 */
import { formatTime, type Job, type JobCondition } from '@kplane/runtime';

/** Condition reasons and messages of kube's job controller. */
export const JOB_REASONS = {
  completionsReached: { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
  backoffLimitExceeded: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
  deadlineExceeded: { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  maxFailedIndexesExceeded: { reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' },
  failedIndexes: { reason: 'FailedIndexes', message: 'Job has failed indexes' },
  podFailurePolicy: 'PodFailurePolicy',
  successPolicy: 'SuccessPolicy',
} as const;

/** A condition of `type`, True, with both timestamps now (newCondition). */
export function newCondition(type: string, reason: string, message: string, nowMs: number, status = 'True'): JobCondition {
  const t = formatTime(nowMs);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, reason, message };
}

/** The condition of a type, whatever its status. */
export function findCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type);
}

/** Has the Job a condition of this type with status True? */
export function hasTrueCondition(job: Job, type: string): boolean {
  return findCondition(job, type)?.status === 'True';
}

/** The Complete or Failed condition that finished the Job, if any (IsJobFinished). */
export function finishedCondition(job: Job): JobCondition | undefined {
  return job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/**
 * Sets a condition to a status, reason and message (ensureJobConditionStatus): an existing one
 * changes (new transition time when the status changes); a missing one is added unless it
 * would be False. Returns whether anything changed.
 */
export function ensureCondition(conditions: JobCondition[], type: string, status: string, reason: string, message: string, nowMs: number): boolean {
  const existing = conditions.find((c) => c.type === type);
  if (existing) {
    if (existing.status === status && existing.reason === reason && existing.message === message) return false;
    if (existing.status !== status) existing.lastTransitionTime = formatTime(nowMs);
    existing.status = status;
    existing.reason = reason;
    existing.message = message;
    existing.lastProbeTime = formatTime(nowMs);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newCondition(type, reason, message, nowMs, status));
  return true;
}
