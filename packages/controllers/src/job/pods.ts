/**
 * The pods of a Job: building one from the template (the tracking finalizer, the completion
 * index of Indexed Jobs), when a pod finished, and the exponential pod-failure backoff.
 */
import type { OwnerReference } from '@kplane/api';
import type { Job, Pod } from '@kplane/runtime';
import { COMPLETION_INDEX_ANNOTATION, COMPLETION_INDEX_ENV, INDEX_FAILURE_COUNT_ANNOTATION, INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, indexedGenerateName } from './indexes.js';

/** The finalizer that keeps a Job's finished pods until the Job has counted them. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** The first delay before a failed pod is replaced (it doubles with each failure in a row). */
export const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
/** The longest delay before a failed pod is replaced. */
export const MAX_POD_FAILURE_BACKOFF_MS = 6 * 60_000;

const parseTime = (t: string | undefined): number => {
  if (!t) return NaN;
  return Date.parse(t);
};

/** Index-specific parts of a new pod of an Indexed Job. */
export interface IndexedPodParts {
  index: number;
  /** Counted failures of the index so far (backoffLimitPerIndex only). */
  failureCount?: number;
  ignoredFailureCount?: number;
}

/** The pod a Job creates from its template. */
export function podFromJob(job: Job, ref: OwnerReference, indexed?: IndexedPodParts): Pod {
  const template = job.spec?.template ?? {};
  const tmeta = template.metadata ?? {};
  const name = job.metadata?.name ?? '';
  const metadata: NonNullable<Pod['metadata']> = { generateName: `${name}-`, ownerReferences: [ref] };
  metadata.labels = { ...(tmeta.labels ?? {}) };
  if (tmeta.annotations) metadata.annotations = { ...tmeta.annotations };
  metadata.finalizers = [...(tmeta.finalizers ?? [])];
  if (!metadata.finalizers.includes(JOB_TRACKING_FINALIZER)) metadata.finalizers.push(JOB_TRACKING_FINALIZER);
  const spec = structuredClone(template.spec ?? { containers: [] });
  if (indexed) {
    const index = String(indexed.index);
    metadata.generateName = indexedGenerateName(name, indexed.index);
    metadata.annotations = { ...(metadata.annotations ?? {}), [COMPLETION_INDEX_ANNOTATION]: index };
    metadata.labels[COMPLETION_INDEX_ANNOTATION] = index;
    if (indexed.failureCount !== undefined) {
      metadata.annotations[INDEX_FAILURE_COUNT_ANNOTATION] = String(indexed.failureCount);
      if (indexed.ignoredFailureCount) metadata.annotations[INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = String(indexed.ignoredFailureCount);
    }
    spec.hostname = `${name}-${index}`;
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      if ((c.env ?? []).some((e) => e.name === COMPLETION_INDEX_ENV)) continue;
      c.env = [...(c.env ?? []), { name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } } }];
    }
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** Has the pod the Job's tracking finalizer? */
export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) ?? false;
}

/** Phase Succeeded or Failed. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** True when the pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * When a pod finished (getFinishTimeFromContainers, else the Ready condition's last transition,
 * else its deletion or creation time), in ms.
 */
export function podFinishTime(pod: Pod): number {
  let latest = NaN;
  for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
    const t = parseTime(cs.state?.terminated?.finishedAt);
    if (!Number.isNaN(t) && !(t <= latest)) latest = t;
  }
  if (!Number.isNaN(latest)) return latest;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const t = parseTime(ready?.lastTransitionTime);
  if (!Number.isNaN(t)) return t;
  const d = parseTime(pod.metadata?.deletionTimestamp);
  if (!Number.isNaN(d)) return d;
  const c = parseTime(pod.metadata?.creationTimestamp);
  return Number.isNaN(c) ? 0 : c;
}

/** Failures in a row since the last success, and when the last of them happened. */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime: number;
}

/** The backoff record of a set of finished pods (ordered by finish time). */
export function backoffRecord(finished: readonly Pod[]): BackoffRecord {
  const sorted = [...finished].sort((a, b) => podFinishTime(a) - podFinishTime(b));
  const record: BackoffRecord = { failuresAfterLastSuccess: 0, lastFailureTime: 0 };
  for (const p of sorted) {
    if (p.status?.phase === 'Succeeded') record.failuresAfterLastSuccess = 0;
    else {
      record.failuresAfterLastSuccess++;
      record.lastFailureTime = podFinishTime(p);
    }
  }
  return record;
}

/** How long until a replacement may be created: 10 s doubling per failure in a row, capped (0 when none is due). */
export function backoffRemainingMs(record: BackoffRecord, nowMs: number, baseMs = DEFAULT_POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (record.failuresAfterLastSuccess === 0) return 0;
  let delay = baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess && delay < maxMs; i++) delay *= 2;
  delay = Math.min(delay, maxMs);
  const elapsed = nowMs - record.lastFailureTime;
  return elapsed < delay ? delay - elapsed : 0;
}
