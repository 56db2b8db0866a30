/**
 * kplane-only helpers next to the generated types of the built-in kinds: the base of every
 * object, lists of any kind, and shorthands Kubernetes spells inline.
 */
import type { KubeObject, ListMeta } from '@kplane/api';
import type { Quantity } from './generated.js';

export type { KubeObject };

/** A core/v1 ResourceList: resource name (cpu, memory, pods…) to quantity. */
export type ResourceList = Record<string, Quantity>;

/** The status of a condition: "True", "False" or "Unknown". */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A list of objects of some kind, as a list request answers it. */
export interface List<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}
