/**
 * From the replica count the metrics ask for to the one the autoscaler sets, as
 * kube-controller-manager's horizontal controller does: stabilisation over past
 * recommendations, then the bounds and rate limits — the legacy ones (5-minute downscale
 * window, scale up at most to max(2×current, 4)) when the HPA has no behavior, else its
 * behavior's windows and policies. Each step names the condition it sets.
 */
import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from '@kplane/runtime';

/** Kube's --horizontal-pod-autoscaler-downscale-stabilization: 5 minutes. */
export const DOWNSCALE_STABILIZATION_MS = 5 * 60_000;

/** A condition the normalisation decided: type, status, reason, message. */
export interface ScalingCondition {
  type: 'AbleToScale' | 'ScalingLimited';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

interface Recommendation {
  at: number;
  replicas: number;
}
interface ScaleEvent {
  at: number;
  change: number;
}

/** The memory of one autoscaler: past recommendations and the scale events of its behavior policies. */
export interface ScalingHistory {
  recommendations: Recommendation[];
  up: ScaleEvent[];
  down: ScaleEvent[];
}

/** A new, empty history. */
export function newHistory(): ScalingHistory {
  return { recommendations: [], up: [], down: [] };
}

const READY = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const DOWN_STABILIZED = { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
const UP_STABILIZED = { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
const WITHIN = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const TOO_MANY = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const TOO_FEW = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const UP_LIMIT = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const DOWN_LIMIT = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };

/** The inputs of one normalisation. */
export interface NormalizeArgs {
  current: number;
  /** What the metrics ask for. */
  desired: number;
  min: number;
  max: number;
  nowMs: number;
  behavior?: HorizontalPodAutoscalerBehavior;
}

/** The outcome: the replica count to set and the AbleToScale / ScalingLimited conditions. */
export interface Normalized {
  replicas: number;
  conditions: ScalingCondition[];
}

function limited(replicas: number, stabilized: number, r: { reason: string; message: string }): ScalingCondition {
  return { type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', ...r };
}

/** normalizeDesiredReplicas: the legacy rules of an HPA without behavior. */
function normalizeLegacy(h: ScalingHistory, a: NormalizeArgs): Normalized {
  // The highest recommendation of the last 5 minutes (this one included).
  const cutoff = a.nowMs - DOWNSCALE_STABILIZATION_MS;
  let stabilized = a.desired;
  let reuse = -1;
  h.recommendations.forEach((r, i) => {
    if (r.at > cutoff) stabilized = Math.max(stabilized, r.replicas);
    else reuse = i;
  });
  if (reuse >= 0) h.recommendations[reuse] = { at: a.nowMs, replicas: a.desired };
  else h.recommendations.push({ at: a.nowMs, replicas: a.desired });
  const able: ScalingCondition = { type: 'AbleToScale', status: 'True', ...(stabilized !== a.desired ? DOWN_STABILIZED : READY) };
  const upLimit = Math.max(2 * a.current, 4);
  const [maxAllowed, overMax] = a.max > upLimit ? [upLimit, UP_LIMIT] : [a.max, TOO_MANY];
  let replicas = stabilized;
  let why = WITHIN;
  if (stabilized < a.min) [replicas, why] = [a.min, TOO_FEW];
  else if (stabilized > maxAllowed) [replicas, why] = [maxAllowed, overMax];
  return { replicas, conditions: [able, limited(replicas, stabilized, why)] };
}

const changeInPeriod = (events: ScaleEvent[], periodSeconds: number, nowMs: number): number =>
  events.filter((e) => e.at > nowMs - periodSeconds * 1000).reduce((sum, e) => sum + e.change, 0);

/** calculateScaleUpLimitWithScalingRules. */
export function scaleUpLimit(current: number, events: ScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Infinity : -Infinity;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(events, p.periodSeconds, nowMs);
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = pick(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}

/** calculateScaleDownLimitWithBehaviors. */
export function scaleDownLimit(current: number, events: ScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? -Infinity : Infinity;
  for (const p of rules.policies ?? []) {
    const start = current + changeInPeriod(events, p.periodSeconds, nowMs);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = pick(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}

/** normalizeDesiredReplicasWithBehaviors: the windows and policies of the HPA's behavior. */
function normalizeWithBehavior(h: ScalingHistory, a: NormalizeArgs, behavior: HorizontalPodAutoscalerBehavior): Normalized {
  const up = behavior.scaleUp ?? {};
  const down = behavior.scaleDown ?? {};
  const upWindow = (up.stabilizationWindowSeconds ?? 0) * 1000;
  const downWindow = (down.stabilizationWindowSeconds ?? 300) * 1000;
  let upRec = a.desired;
  let downRec = a.desired;
  let reuse = -1;
  const obsolete = a.nowMs - Math.max(upWindow, downWindow);
  h.recommendations.forEach((r, i) => {
    if (r.at > a.nowMs - upWindow) upRec = Math.min(upRec, r.replicas);
    if (r.at > a.nowMs - downWindow) downRec = Math.max(downRec, r.replicas);
    if (r.at < obsolete) reuse = i;
  });
  let stabilized = a.current;
  if (stabilized < upRec) stabilized = upRec;
  if (stabilized > downRec) stabilized = downRec;
  if (reuse >= 0) h.recommendations[reuse] = { at: a.nowMs, replicas: a.desired };
  else h.recommendations.push({ at: a.nowMs, replicas: a.desired });
  const able: ScalingCondition = { type: 'AbleToScale', status: 'True', ...(stabilized === a.desired ? READY : stabilized < a.desired ? UP_STABILIZED : DOWN_STABILIZED) };
  let replicas = stabilized;
  let why = WITHIN;
  if (stabilized > a.current) {
    const limit = Math.max(scaleUpLimit(a.current, h.up, up as HPAScalingRules, a.nowMs), a.current);
    const [maxAllowed, reason] = a.max > limit ? [limit, UP_LIMIT] : [a.max, TOO_MANY];
    if (stabilized > maxAllowed) [replicas, why] = [maxAllowed, reason];
  } else if (stabilized < a.current) {
    const limit = Math.min(scaleDownLimit(a.current, h.down, down as HPAScalingRules, a.nowMs), a.current);
    const [minAllowed, reason] = a.min < limit ? [limit, DOWN_LIMIT] : [a.min, TOO_FEW];
    if (stabilized < minAllowed) [replicas, why] = [minAllowed, reason];
  }
  return { replicas, conditions: [able, limited(replicas, stabilized, why)] };
}

/** Normalises what the metrics ask for (and remembers the recommendation in `h`). */
export function normalizeReplicas(h: ScalingHistory, a: NormalizeArgs): Normalized {
  return a.behavior ? normalizeWithBehavior(h, a, a.behavior) : normalizeLegacy(h, a);
}

/** Records a rescale for the behavior policies' periods (storeScaleEvent), dropping events older than the longest period. */
export function recordScale(h: ScalingHistory, behavior: HorizontalPodAutoscalerBehavior | undefined, from: number, to: number, nowMs: number): void {
  if (!behavior || from === to) return;
  const longest = (rules?: HPAScalingRules) => Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds)) * 1000;
  h.up = h.up.filter((e) => e.at > nowMs - longest(behavior.scaleUp));
  h.down = h.down.filter((e) => e.at > nowMs - longest(behavior.scaleDown));
  if (to > from) h.up.push({ at: nowMs, change: to - from });
  else h.down.push({ at: nowMs, change: from - to });
}
