/**
 * The options of a Store's verbs, its dependencies, and the small helpers its parts share.
 */
import type { KubeObject, ObjectMeta, SchemaDefinitions, UserInfo } from '@kplane/api';
import type { Backend, KeyValue, RawKeyValue } from '@kplane/storage';
import type { StrategyContext } from './resource.js';
import type { Authorizer } from '../auth/types.js';
import type { WatchCacheOptions } from './watch-cache.js';
import type { Timers } from './timers.js';
import type { AdmissionChain } from '../admission/chain.js';

/** How unknown fields in a request body are treated (the fieldValidation query parameter). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Stored objects read (and encoded) at a time by a streamed LIST (listJsonStream). */
export const LIST_STREAM_PAGE = 500;

/** A stored value as storage hands it back: text, or its UTF-8 bytes (Backend.listRaw). */
export type StoredKv = KeyValue | RawKeyValue;

/** What a LIST written from stored JSON holds: the objects, or their PartialObjectMetadata. */
export type ListForm = 'object' | 'metadata';

/** The text of a stored value (its bytes decoded as UTF-8). */
export const valueText = (kv: StoredKv): string => (typeof kv.value === 'string' ? kv.value : Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8'));

/** The manager of the writes the server's own code makes (no request, no field manager). */
export const SERVER_FIELD_MANAGER = 'kube-apiserver';

/** Options shared by create and update. */
export interface WriteOptions {
  /** Decides the special verbs a strategy checks itself (WriteRequest.authorizer; default: the context's policy). */
  authorizer?: Authorizer;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Filled with warnings to send back as `Warning` headers. */
  warnings?: string[];
  /** Who writes (for strategies that decide on it, RBAC's escalation checks); undefined: in-process trusted code. */
  user?: UserInfo;
  /** Adds an annotation to the request's audit event (admission webhooks' auditAnnotations). */
  audit?: (key: string, value: string) => void;
  /**
   * The manager recorded in managedFields (fieldManager, or the User-Agent's first segment).
   * Absent: a write of the server's own code, recorded as `kube-apiserver` (the manager
   * kube-apiserver's loopback clients write as).
   */
  fieldManager?: string;
  /** The object's managedFields were set by an apply (the store records no Update entry). */
  applied?: boolean;
}

/** Options of an apply (server-side apply). */
export interface ApplyOptions extends WriteOptions {
  /** Take the fields other managers own (conflicts are then not errors). */
  force?: boolean;
  subresource?: 'status' | '';
}

/** metav1.DeleteOptions (the fields kplane honours). */
export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Who deletes (admission sees it); undefined: in-process trusted code. */
  user?: UserInfo;
  /** Adds an annotation to the request's audit event (admission webhooks' auditAnnotations). */
  audit?: (key: string, value: string) => void;
}

/** Options of list and watch. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** Result of delete: the object, and whether it is gone or only marked for deletion. */
export interface DeleteResult {
  object: KubeObject;
  deleted: boolean;
}

/** Dependencies of a store. */
export interface StoreDeps {
  backend: Backend;
  definitions: SchemaDefinitions;
  context: StrategyContext;
  now(): Date;
  /** Refuses a create in a namespace that does not exist or is terminating. */
  checkNamespace?(namespace: string, group: string, resource: string, name: string): Promise<void>;
  /** Events each resource's watch cache keeps (default 100 000). */
  watchCacheCapacity?: number;
  /** Bounds of each resource's watch cache and of its watchers (see WatchCacheOptions). */
  watchCache?: Pick<WatchCacheOptions, 'capacity' | 'maxBytes' | 'watcherMaxEvents' | 'watcherMaxBytes'>;
  /** Timers of freshness waits (tests inject virtual ones). */
  timers?: Timers;
  /** The admission chain every write passes (absent: none). */
  admission?: AdmissionChain;
}

/** RFC 3339 with seconds precision, as Kubernetes serialises metav1.Time (@kplane/api's, formatting each second once). */
export { rfc3339 } from '@kplane/api';

/** The object's metadata, made an object when it is not one. */
export function meta(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}
