/**
 * Custom resources are served as unstructured JSON, the way kube-apiserver encodes Go maps:
 * object keys sorted at every level, and list metadata always carrying `continue`.
 */
import { setOwn, type KubeList, type KubeObject } from '@kplane/api';

/** A copy of a JSON value with object keys sorted at every level. */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedKeys) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as object).sort()) setOwn(out, k, sortedKeys((value as Record<string, unknown>)[k]));
  return out as T;
}

/** A custom object as served: keys sorted. */
export function unstructuredObject(obj: KubeObject): KubeObject {
  return sortedKeys(obj);
}

/**
 * A custom resource list as served: the list's keys sorted, `metadata.continue` present. Items
 * are served in their stored key order (sorting every item costs more than clients gain).
 */
export function unstructuredList(list: KubeList): KubeList {
  return { apiVersion: list.apiVersion, items: list.items, kind: list.kind, metadata: sortedKeys({ continue: '', ...list.metadata }) };
}
