/**
 * Completion indexes of Indexed Jobs: the interval strings of status.completedIndexes and
 * status.failedIndexes ("1,3-5"), and reading a pod's index.
 */
import type { Pod } from '@kplane/runtime';

/** The annotation (and label) carrying a pod's completion index. */
export const COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** The environment variable every container of an Indexed Job's pod gets. */
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** Counted failures of the index before this pod (backoffLimitPerIndex). */
export const INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';
/** Failures of the index before this pod that a podFailurePolicy Ignore rule left uncounted. */
export const INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-ignored-failure-count';

/** A set of indexes kept as sorted, disjoint, non-adjacent intervals. */
export class IndexSet {
  private readonly set = new Set<number>();

  /** Parses "1,3-5" (ignoring parts that are malformed or not below `limit`). */
  static parse(s: string | undefined, limit: number): IndexSet {
    const out = new IndexSet();
    for (const part of (s ?? '').split(',')) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
      if (!m) continue;
      const a = Number(m[1]);
      const b = Math.min(m[2] === undefined ? a : Number(m[2]), limit - 1);
      for (let i = a; i <= b; i++) out.add(i);
    }
    return out;
  }

  add(i: number): void {
    this.set.add(i);
  }

  has(i: number): boolean {
    return this.set.has(i);
  }

  get size(): number {
    return this.set.size;
  }

  /** The indexes, ascending. */
  values(): number[] {
    return [...this.set].sort((a, b) => a - b);
  }

  /** "1,3-5" ("" when empty), as kube writes completedIndexes. */
  toString(): string {
    const out: string[] = [];
    const v = this.values();
    for (let i = 0; i < v.length; ) {
      let j = i;
      while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
      out.push(j === i ? String(v[i]) : `${v[i]}-${v[j]}`);
      i = j + 1;
    }
    return out.join(',');
  }
}

/** A pod's completion index from its annotation (or label); undefined when absent or malformed. */
export function completionIndexOf(pod: Pod): number | undefined {
  const raw = pod.metadata?.annotations?.[COMPLETION_INDEX_ANNOTATION] ?? pod.metadata?.labels?.[COMPLETION_INDEX_ANNOTATION];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** A non-negative integer annotation of a pod, 0 when absent or malformed. */
export function intAnnotation(pod: Pod, key: string): number {
  const raw = pod.metadata?.annotations?.[key];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : 0;
}

/** generateName of an Indexed Job's pod: `<job>-<index>-`, the job name cut so the prefix fits 58 characters. */
export function indexedGenerateName(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > 58 ? jobName.slice(0, 58 - suffix.length) + suffix : prefix;
}
