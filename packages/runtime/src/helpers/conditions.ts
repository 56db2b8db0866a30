/**
 * meta/v1 Condition lists, with apimachinery's meta.SetStatusCondition semantics: one entry
 * per type, and lastTransitionTime moves only when the status changes.
 */

/** A meta/v1 Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  /** RFC 3339, whole seconds ("2026-01-01T00:00:00Z"). */
  lastTransitionTime?: string;
}

/** Formats a time as a metav1.Time: RFC 3339 in UTC, whole seconds. */
export function formatTime(time: number | Date): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets `condition` in `conditions` (mutated in place) and returns whether anything changed.
 * A new type is appended; for an existing one, status, reason, message and
 * observedGeneration are updated, and lastTransitionTime is set (to the condition's own, or
 * `now`) only when the status changes.
 */
export function setStatusCondition(conditions: Condition[], condition: Condition, now: number | Date = Date.now()): boolean {
  const existing = findStatusCondition(conditions, condition.type);
  if (existing === undefined) {
    const added: Condition = { ...condition };
    if (!added.lastTransitionTime) added.lastTransitionTime = formatTime(now);
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime || formatTime(now);
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0)) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type` (in place); returns whether one was removed. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** The condition of `type`, or undefined. */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` is present with `status`. */
export function isStatusConditionPresentAndEqual(conditions: readonly Condition[] | undefined, type: string, status: Condition['status']): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** True when the condition of `type` is present and "True". */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** True when the condition of `type` is present and "False". */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}
