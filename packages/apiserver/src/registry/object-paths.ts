/** Small helpers on stored objects: empty metadata, and dotted JSON paths (scale subresources). */
import type { KubeObject } from '@kplane/api';
import { getOwn, setOwn } from '@kplane/api';

/** Empty metadata lists and maps are omitted, as Kubernetes' encoding omits them. */
export function dropEmptyMetadata(obj: KubeObject): void {
  const m = obj.metadata;
  if (!m || typeof m !== 'object') return;
  // Only values of the right type: a wrong one is left for the type check to report.
  for (const k of ['labels', 'annotations'] as const) {
    const v = m[k];
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) delete m[k];
  }
  for (const k of ['ownerReferences', 'finalizers', 'managedFields'] as const) {
    const v = m[k];
    if (Array.isArray(v) && v.length === 0) delete m[k];
  }
}

/** Reads a dotted JSON path like ".spec.replicas". */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.replace(/^\./, '').split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = getOwn(cur as Record<string, unknown>, seg);
  }
  return cur;
}

/** Writes a dotted JSON path, creating objects on the way. */
export function setPath(obj: unknown, path: string, value: unknown): void {
  const segs = path.replace(/^\./, '').split('.');
  let cur = obj as Record<string, unknown>;
  for (const seg of segs.slice(0, -1)) {
    const next = getOwn(cur, seg);
    if (next === null || typeof next !== 'object') setOwn(cur, seg, {});
    cur = getOwn(cur, seg) as Record<string, unknown>;
  }
  setOwn(cur, segs[segs.length - 1]!, value);
}
