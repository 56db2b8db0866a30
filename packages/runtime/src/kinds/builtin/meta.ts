/**
 * meta/v1 (apimachinery) types shared by every kind: object metadata, owner references, label
 * selectors, conditions and Status, plus the scalar aliases Kubernetes uses on the wire.
 */
import type {
  KubeObject,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta as ApiObjectMeta,
  OwnerReference,
  Status,
  StatusCause,
} from '@kplane/api';

export type { KubeObject, ListMeta, ManagedFieldsEntry, OwnerReference, Status, StatusCause };

/** A meta/v1 Time: RFC 3339 in UTC with second precision ("2026-01-01T00:00:00Z"). */
export type Time = string;
/** A meta/v1 MicroTime: RFC 3339 with microseconds ("2026-01-01T00:00:00.000000Z"). */
export type MicroTime = string;
/** An intstr.IntOrString: a port number or name, a count or a percentage ("25%"). */
export type IntOrString = number | string;
/** A resource.Quantity as served: "100m", "128Mi", "2". Numbers are accepted on input. */
export type Quantity = string;
/** A core/v1 ResourceList: resource name (cpu, memory, pods…) to quantity. */
export type ResourceList = Record<string, Quantity>;
/** "True", "False" or "Unknown". */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * meta/v1 ObjectMeta. It extends the shared `@kplane/api` ObjectMeta (which keeps unknown
 * fields), so typed objects stay assignable to `KubeObject`.
 */
export interface ObjectMeta extends ApiObjectMeta {
  /** Unique within a namespace (or the cluster for cluster-scoped kinds). Immutable. */
  name?: string;
  /** Prefix the server completes with random characters when `name` is empty. */
  generateName?: string;
  /** Namespace of a namespaced object; empty for cluster-scoped kinds. */
  namespace?: string;
  /** Deprecated and never set. */
  selfLink?: string;
  /** Unique id over time. Set by the server. */
  uid?: string;
  /** Opaque version for optimistic concurrency and watches. */
  resourceVersion?: string;
  /** Sequence number of changes to the desired state. Set by the server. */
  generation?: number;
  /** When the object was created. Set by the server. */
  creationTimestamp?: Time;
  /** When a graceful delete started. Set by the server. */
  deletionTimestamp?: Time;
  /** Seconds left to terminate once deletion started. */
  deletionGracePeriodSeconds?: number;
  /** Key/value pairs used by label selectors. */
  labels?: Record<string, string>;
  /** Unstructured key/value data for tools. */
  annotations?: Record<string, string>;
  /** Objects this object depends on (garbage collection). */
  ownerReferences?: OwnerReference[];
  /** Must all be removed before the object leaves storage. */
  finalizers?: string[];
  /** Which manager owns which fields (server-side apply). */
  managedFields?: ManagedFieldsEntry[];
}

/** One requirement of a meta/v1 LabelSelector. */
export interface LabelSelectorRequirement {
  /** The label key. */
  key: string;
  /** In, NotIn, Exists or DoesNotExist. */
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /** Values for In and NotIn; empty for Exists and DoesNotExist. */
  values?: string[];
}

/** A meta/v1 LabelSelector: all requirements ANDed; empty matches everything. */
export interface LabelSelector {
  /** Exact key=value matches. */
  matchLabels?: Record<string, string>;
  /** Set-based requirements. */
  matchExpressions?: LabelSelectorRequirement[];
}

/** A meta/v1 Condition, the standard status condition of newer kinds and CRDs. */
export interface Condition {
  /** Condition type in CamelCase, e.g. Ready. */
  type: string;
  /** True, False or Unknown. */
  status: ConditionStatus;
  /** The generation the condition was computed for. */
  observedGeneration?: number;
  /** When the status last changed. */
  lastTransitionTime: Time;
  /** CamelCase reason for the last transition. */
  reason: string;
  /** Human-readable details. */
  message: string;
}

/** A core/v1 ObjectReference: enough to find an object. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  /** A field within the object, e.g. spec.containers{web}. */
  fieldPath?: string;
}

/** A core/v1 LocalObjectReference: an object by name in the same namespace. */
export interface LocalObjectReference {
  name?: string;
}

/** meta/v1 StatusDetails: extended data of a Status. */
export type StatusDetails = NonNullable<Status['details']>;

/** A meta/v1 List of some kind. */
export interface List<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}
