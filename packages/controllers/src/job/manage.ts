/**
 * manageJob's decisions, without I/O: which pods a Job creates (and with which completion
 * indexes) and which it deletes, given its pods, counters and the pod-failure backoff.
 */
import type { Job, Pod } from '@kplane/runtime';
import { IndexSet, INDEX_FAILURE_COUNT_ANNOTATION, INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, completionIndexOf, intAnnotation } from './indexes.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { backoffRecord, backoffRemainingMs, isPodReady, isPodTerminal, podFinishTime, type IndexedPodParts } from './pods.js';

/** What a sync knows when it decides. */
export interface PlanInput {
  /** Every pod the Job controls. */
  pods: readonly Pod[];
  /** The active ones (not terminal, not being deleted). */
  activePods: readonly Pod[];
  /** Succeeded pods (NonIndexed) or succeeded indexes (Indexed). */
  succeeded: number;
  succeededIndexes?: IndexSet;
  failedIndexes?: IndexSet;
  /** Pods being deleted that have not reached a terminal phase. */
  terminating: number;
  now: number;
  backoff: { baseMs: number; maxMs: number };
  /** The most pods created or deleted at once. */
  burst: number;
}

/** The pods to create (one entry each, with its index parts for Indexed Jobs) and to delete. */
export interface PodPlan {
  create: Array<IndexedPodParts | undefined>;
  delete: Pod[];
  /** Creations held back by the failure backoff: sync again after this long. */
  retryAfterMs?: number;
}

const creationMs = (p: Pod): number => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;

/** Order of removal for NonIndexed Jobs: unscheduled, then not ready, then newest first. */
function removalOrder(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 1 : 0;
  const sb = b.spec?.nodeName ? 1 : 0;
  if (sa !== sb) return sa - sb;
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  return creationMs(b) - creationMs(a);
}

/** How many pods should be active now (wantActive of manageJob). */
export function wantActive(job: Job, active: number, input: Pick<PlanInput, 'succeeded' | 'succeededIndexes' | 'failedIndexes'>): number {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  if (completions === undefined) return input.succeeded > 0 ? active : parallelism;
  const done = input.succeededIndexes ? input.succeededIndexes.size + (input.failedIndexes?.size ?? 0) : input.succeeded;
  return Math.max(0, Math.min(completions - done, parallelism));
}

/** Decides the creations and deletions of one sync. */
export function planPods(job: Job, input: PlanInput): PodPlan {
  const spec = job.spec!;
  const plan: PodPlan = { create: [], delete: [] };
  if (spec.suspend === true) {
    plan.delete = [...input.activePods].sort(removalOrder).slice(0, input.burst);
    return plan;
  }
  const indexed = spec.completionMode === 'Indexed' && spec.completions !== undefined;
  let kept = [...input.activePods];
  if (indexed) {
    // Pods with no valid index, an index already done, or a second pod of one index go first.
    const seen = new Set<number>();
    const byAge = [...kept].sort((a, b) => creationMs(a) - creationMs(b));
    kept = [];
    for (const p of byAge) {
      const ix = completionIndexOf(p);
      const bad = ix === undefined || ix >= spec.completions! || input.succeededIndexes!.has(ix) || (input.failedIndexes?.has(ix) ?? false) || seen.has(ix);
      if (bad) plan.delete.push(p);
      else {
        seen.add(ix);
        kept.push(p);
      }
    }
  }
  const want = wantActive(job, kept.length, input);
  const excess = kept.length - want;
  if (excess > 0) {
    const order = indexed ? [...kept].sort((a, b) => (completionIndexOf(b) ?? 0) - (completionIndexOf(a) ?? 0)) : [...kept].sort(removalOrder);
    plan.delete.push(...order.slice(0, excess));
  }
  plan.delete = plan.delete.slice(0, input.burst);
  if (kept.length >= want) return plan;
  let diff = want - kept.length;
  if (spec.podReplacementPolicy === 'Failed') diff -= input.terminating;
  diff = Math.min(diff, input.burst);
  if (diff <= 0) return plan;
  const perIndex = indexed && spec.backoffLimitPerIndex !== undefined;
  if (!perIndex) {
    // Failures a podFailurePolicy Ignore rule matched do not delay the replacement.
    const finished = input.pods.filter((p) => isPodTerminal(p) && (p.status?.phase === 'Succeeded' || matchPodFailurePolicy(job, p).countFailed));
    const remaining = backoffRemainingMs(backoffRecord(finished), input.now, input.backoff.baseMs, input.backoff.maxMs);
    if (remaining > 0) {
      plan.retryAfterMs = remaining;
      return plan;
    }
  }
  if (!indexed) {
    for (let i = 0; i < diff; i++) plan.create.push(undefined);
    return plan;
  }
  const activeIndexes = new Set(kept.map((p) => completionIndexOf(p)!));
  const terminatingIndexes = new Set(
    spec.podReplacementPolicy === 'Failed' ? input.pods.filter((p) => p.metadata?.deletionTimestamp && !isPodTerminal(p)).map(completionIndexOf) : [],
  );
  // The last failed pod of each index carries its failure counts (backoffLimitPerIndex).
  const lastFailed = new Map<number, Pod>();
  if (perIndex) {
    for (const p of input.pods) {
      const ix = completionIndexOf(p);
      if (ix === undefined || p.status?.phase !== 'Failed') continue;
      const prev = lastFailed.get(ix);
      if (!prev || podFinishTime(p) >= podFinishTime(prev)) lastFailed.set(ix, p);
    }
  }
  for (let ix = 0; ix < spec.completions! && plan.create.length < diff; ix++) {
    if (input.succeededIndexes!.has(ix) || input.failedIndexes?.has(ix) || activeIndexes.has(ix) || terminatingIndexes.has(ix)) continue;
    const parts: IndexedPodParts = { index: ix };
    const last = lastFailed.get(ix);
    if (perIndex) {
      parts.failureCount = 0;
      if (last) {
        const counted = matchPodFailurePolicy(job, last).countFailed;
        parts.failureCount = intAnnotation(last, INDEX_FAILURE_COUNT_ANNOTATION) + (counted ? 1 : 0);
        parts.ignoredFailureCount = intAnnotation(last, INDEX_IGNORED_FAILURE_COUNT_ANNOTATION) + (counted ? 0 : 1);
        const remaining = backoffRemainingMs({ failuresAfterLastSuccess: parts.failureCount, lastFailureTime: podFinishTime(last) }, input.now, input.backoff.baseMs, input.backoff.maxMs);
        if (remaining > 0) {
          plan.retryAfterMs = Math.min(plan.retryAfterMs ?? Infinity, remaining);
          continue;
        }
      }
    }
    plan.create.push(parts);
  }
  return plan;
}
