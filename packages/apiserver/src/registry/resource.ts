import type { KubeObject, NameValidator, SchemaDefinitions, StatusCause, UserInfo } from '@kplane/api';
import type { Backend } from '@kplane/storage';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../auth/types.js';
import type { PolicyRule, RoleRef } from '../auth/rbac/rules.js';
import type { ServiceAllocator } from '../server/ip-allocator.js';

/** A column of Table output (meta.k8s.io/v1 TableColumnDefinition). */
export interface TableColumn {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date (rendered as an age by kubectl). */
  type: string;
  format?: string;
  description: string;
  /** 0: always shown; > 0: only with -o wide. */
  priority: number;
}

/** How Table output renders a kind. The first column is always NAME (metadata.name). */
export interface TableSpec {
  columns: TableColumn[];
  /** One cell per column, in order. Dates as RFC 3339 strings. */
  row(obj: KubeObject, now: Date): unknown[];
  /** The row's conditions (meta.k8s.io TableRowCondition: type Completed for a finished pod), if any. */
  rowConditions?(obj: KubeObject): { type: string; status: string; reason?: string; message?: string }[] | undefined;
}

/** Context given to a strategy's hooks. */
export interface StrategyContext {
  /** The Services' ClusterIP and NodePort allocators (absent: Services get none). */
  serviceAllocator?: ServiceAllocator;
  /** How long Events live after their last write, in seconds (kube-apiserver's --event-ttl). */
  eventTTLSeconds?: number;
  /** The authorization policy, for the RBAC kinds' escalation checks (absent: no checks). */
  policy?: AccessPolicy;
  /** The request is a dry run: the hooks answer as for a real write and persist nothing (no allocation is kept). */
  dryRun?: boolean;
}

/** What the RBAC kinds ask of the authorizer when they are written. */
export interface AccessPolicy {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
  /** Every rule the user holds in `namespace` (cluster-wide ones included), and the errors met. */
  rulesFor(user: UserInfo, namespace: string | undefined): { rules: PolicyRule[]; errors: string[] };
  /** The rules a role reference names, or the not-found message. */
  roleRules(ref: RoleRef, namespace: string | undefined): readonly PolicyRule[] | string;
}

/** What a strategy's write hooks learn of the request that writes. */
export interface WriteRequest {
  /** Who asks; absent for trusted in-process code acting as the cluster's admin. */
  readonly user?: UserInfo;
  /** '' for the object itself, else the subresource written ("status", "approval"). */
  readonly subresource: string;
  /** The store's clock. */
  readonly now: Date;
  /**
   * Decides the special verbs a kind checks itself (a CSR's approve and sign on `signers`, as
   * kube-apiserver's CertificateApproval and CertificateSigning admission); absent: allowed.
   */
  readonly authorizer?: Authorizer;
}

/**
 * What makes one kind different from another. The generic store does everything else
 * (metadata, resourceVersion, generation, finalizers, status/scale subresources, watch).
 */
export interface ResourceStrategy {
  /** Applies Kubernetes' defaults to a new or updated object (mutates it). */
  defaults?(obj: KubeObject): void;
  /**
   * Decides whether the requester may write the object (RBAC's escalation prevention); throws
   * a 403 ApiError when not. `old` is the stored object on updates; `user` is undefined for
   * in-process trusted callers.
   */
  admit?(obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined, ctx: StrategyContext): void;
  /** Runs once before a create is stored (after defaults and validation), e.g. to allocate. */
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void | Promise<void>;
  /**
   * Runs on create after `defaults` and before validation, with the request: for fields the
   * requester's identity decides (a CertificateSigningRequest's spec.username).
   */
  admitCreate?(obj: KubeObject, req: WriteRequest): void;
  /**
   * Runs on an update of the object or of one of its subresources, after the store's own update
   * rules and before validation: what the kind keeps from `old` (a CSR's spec), or takes from
   * the body (its approval conditions).
   */
  admitUpdate?(obj: KubeObject, old: KubeObject, req: WriteRequest): void;
  /** Runs before an update is stored; `old` is the stored object. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void | Promise<void>;
  /**
   * Runs after `prepareForUpdate`'s write: `stored` tells whether it was stored (false: a
   * conflict, an error or a dry run), e.g. to release what the old object held, or what
   * `prepareForUpdate` allocated for a write that did not happen.
   */
  afterUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext, stored: boolean): void | Promise<void>;
  /** How metadata.name is checked (default: DNS-1123 subdomain). */
  nameValidator?: NameValidator;
  /** Refuses a DELETE by throwing an ApiError (e.g. the system namespaces). */
  beforeDelete?(obj: KubeObject): void;
  /**
   * Kind-specific validation; returns field causes (empty when valid). Metadata is validated
   * generically. `warnings` (when given) collects messages to return as Warning headers, e.g.
   * errors a custom resource's unchanged fields are excused from (ratcheting).
   */
  validate?(obj: KubeObject, old?: KubeObject, warnings?: string[], req?: WriteRequest): StatusCause[];
  /**
   * Awaited before `validate` on a create or update: loads what validating the object needs
   * (the CEL library for a CRD with rules or an admission policy), so `validate` stays synchronous.
   */
  beforeValidate?(obj: KubeObject): Promise<unknown> | undefined;
  /** Changes every object read from storage before it is served (custom resources: defaults on read). */
  decode?(obj: KubeObject): void;
  /** Table output; absent: NAME and AGE only. */
  table?: TableSpec;
  /** Field selectors beyond metadata.name / metadata.namespace: field path → value getter. */
  fieldSelectors?: Record<string, (obj: KubeObject) => string | undefined>;
  /**
   * May an update without a resourceVersion (or with "0") overwrite the stored object
   * (kube's AllowUnconditionalUpdate)? Default: yes; custom resources never.
   */
  allowUnconditionalUpdate?: boolean;
  /** Does this kind bump metadata.generation on spec changes? (default: yes when the object has a spec). */
  generation?: boolean;
  /** Is the object's status reset on create when the kind has a status subresource? (default true) */
  resetStatusOnCreate?: boolean;
  /**
   * Grace period for a DELETE (seconds). Absent: 0, i.e. immediate deletion unless finalizers
   * hold the object. Pods use it: a scheduled pod stays Terminating until its kubelet confirms.
   */
  deletionGracePeriod?(obj: KubeObject, requested: number | undefined): number;
  /** Does the object's own state hold its deletion, as a Namespace's spec.finalizers do? */
  deletionHeld?(obj: KubeObject): boolean;
  /** Changes an object as it is marked for deletion (a Namespace's phase becomes Terminating). */
  prepareForDelete?(obj: KubeObject): void;
  /**
   * DELETE answers with the deleted object instead of a Success Status, as kube-apiserver's
   * stores with ReturnDeletedObject do (pods, services, serviceaccounts, namespaces, podtemplates,
   * persistentvolumes, persistentvolumeclaims, resourcequotas, storageclasses).
   */
  returnDeletedObject?: boolean;
  /** Runs when an object is finally removed from storage, or when a create stored nothing after `prepareForCreate` ran, e.g. to release a ClusterIP. */
  afterDelete?(obj: KubeObject, ctx: StrategyContext): void | Promise<void>;
  /**
   * Time to live of a stored object, in seconds, set again by every write (Events: the
   * --event-ttl). Storage deletes the object when it passes; undefined: it lives until deleted.
   */
  ttlSeconds?(obj: KubeObject, ctx: StrategyContext): number | undefined;
}

/** The scale subresource's paths (as in a CRD's subresources.scale). */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  /** The selector at labelSelectorPath is a plain label map (a ReplicationController's), not a LabelSelector. */
  labelSelectorIsMap?: boolean;
}

/** One served resource: its names, scope, subresources, schema and strategy. */
export interface ResourceType {
  group: string;
  version: string;
  /** Plural lower-case name, used in URLs ("configmaps"). */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** Verbs served on the main resource (discovery). */
  verbs: string[];
  subresources?: {
    status?: boolean;
    scale?: ScaleSpec;
    /**
     * Further subresources served like status (GET, PUT, PATCH on the whole object; the store
     * keeps the spec and takes the status), e.g. a CSR's "approval"; the strategy's
     * admitUpdate and validate see which one is written.
     */
    extra?: readonly string[];
  };
  /**
   * The group, version and kind objects are stored as, when not this resource's own (as
   * events.k8s.io/v1 events are stored as core v1 Events, or a CRD's non-storage versions):
   * discovery's storageVersionHash is computed from it.
   */
  storageVersion?: { group: string; version: string; kind: string };
  /** Storage key prefix; default `/registry/<resource>` (or `/registry/<group>/<resource>` for CRDs). */
  storagePrefix?: string;
  /** Name of the kind's schema in `definitions` (e.g. "io.k8s.api.core.v1.ConfigMap"). */
  schemaName: string;
  strategy: ResourceStrategy;
  /**
   * A kind defined by a CustomResourceDefinition: finalizer names need a domain, strategic merge
   * patch is refused (415), as kube-apiserver does for custom resources.
   */
  customResource?: boolean;
  /**
   * Wraps the storage backend this resource reads and writes through, e.g. to convert custom
   * resources between their served and their storage version.
   */
  storage?(backend: Backend): Backend;
  /**
   * A create-only, never-stored resource (TokenReview, SubjectAccessReview, ...): POST on the
   * collection answers the object with its status filled by this function; nothing is read or
   * written in storage and no watch cache is kept. Made by `reviewResource` (server/reviews.ts).
   */
  review?(obj: KubeObject, ctx: ReviewContext): Promise<KubeObject> | KubeObject;
  /**
   * A read-only, never-stored resource (metrics.k8s.io): GET of the collection lists these
   * objects (by namespace and label selector), GET of a name finds one; no watch cache is kept.
   */
  read?(): KubeObject[];
}

/** What a review resource learns of the request that creates it. */
export interface ReviewContext {
  /** Who asks (the in-process admin when the request came from trusted in-process code). */
  readonly user: UserInfo;
  /** The namespace of the path, for namespaced reviews (LocalSubjectAccessReview). */
  readonly namespace?: string;
  /** `dryRun=All` was asked: the answer must not change anything. */
  readonly dryRun: boolean;
}

/** A group of built-in kinds with the schemas they reference. */
export interface KindBundle {
  resources: ResourceType[];
  definitions: SchemaDefinitions;
}
