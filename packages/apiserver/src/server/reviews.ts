/**
 * Review resources: create-only kinds that are never stored (TokenReview, SelfSubjectReview,
 * SubjectAccessReview and its siblings), as kube-apiserver's "create-only" REST storages.
 *
 * A review is declared with `reviewResource(...)` and registered like any kind
 * (`registry.add(reviewResource(...))`, or `registerReview(registry, ...)`): discovery lists it
 * with verbs ["create"], the OpenAPI documents describe it from the model, and the handler
 * answers POST on its collection by type-checking the body against the kind's schema (400 on
 * wrong types, unknown fields per fieldValidation), calling the review function with who asks
 * and answering 201 with the object the function returns (its status filled). Every other
 * method is 405. Nothing is read from or written to storage and no watch cache is kept.
 */
import type { KubeObject, SchemaDefinitions, StatusCause, UserInfo } from '@kplane/api';
import { admitObject, badRequest, invalid, resolveSchema } from '@kplane/api';
import type { Registry } from '../registry/registry.js';
import type { ResourceType, ReviewContext } from '../registry/resource.js';
import type { Store, WriteOptions } from '../registry/store.js';

export type { ReviewContext } from '../registry/resource.js';

/** What makes a review resource. */
export interface ReviewDefinition {
  /** API group, e.g. "authentication.k8s.io". */
  group: string;
  version: string;
  /** Plural resource name, e.g. "tokenreviews". */
  resource: string;
  kind: string;
  /** Served under /namespaces/<ns>/ (LocalSubjectAccessReview); default cluster-scoped. */
  namespaced?: boolean;
  /** The model's schema name of the kind, e.g. "io.k8s.api.authentication.v1.TokenReview". */
  schemaName: string;
  /** Field checks beyond the schema's types (422 Invalid with these causes when any). */
  validate?(obj: KubeObject, ctx: ReviewContext): StatusCause[];
  /**
   * Fills the review's status and returns the object to answer (it may change `obj` and return
   * it). Throws an ApiError to answer an error Status instead.
   */
  review(obj: KubeObject, ctx: ReviewContext): Promise<KubeObject> | KubeObject;
}

/** A ResourceType for a review kind: verbs ["create"], no storage, `review` set. */
export function reviewResource(def: ReviewDefinition): ResourceType {
  const kind = def.kind;
  return {
    group: def.group,
    version: def.version,
    resource: def.resource,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced: def.namespaced ?? false,
    verbs: ['create'],
    schemaName: def.schemaName,
    storagePrefix: `/registry/-reviews-/${def.group}/${def.resource}`,
    strategy: {},
    review: async (obj, ctx) => {
      const causes = def.validate?.(obj, ctx) ?? [];
      if (causes.length) throw invalid(def.group, kind, String(obj.metadata?.name ?? ''), causes);
      return def.review(obj, ctx);
    },
  };
}

/** Declares a review kind and serves it at once (the discovery and OpenAPI caches follow). */
export function registerReview(registry: Registry, def: ReviewDefinition): void {
  registry.add(reviewResource(def));
}

/**
 * Admits a review body as the store admits a create: a JSON object of the kind (kind and
 * apiVersion may be left out), type-checked against the model's schema, unknown fields pruned
 * (or refused with fieldValidation=Strict); the namespace of the body must match the path's.
 */
export function admitReview(store: Store, definitions: SchemaDefinitions, body: unknown, namespace: string | undefined, opts: WriteOptions): KubeObject {
  const t = store.type;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of the request must be a JSON object');
  const obj = body as KubeObject;
  if (obj.kind !== undefined && obj.kind !== t.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${t.kind})`);
  if (obj.apiVersion !== undefined && obj.apiVersion !== store.apiVersion) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${store.apiVersion})`);
  }
  obj.kind = t.kind;
  obj.apiVersion = store.apiVersion;
  const schema = resolveSchema({ $ref: `#/components/schemas/${t.schemaName}` }, definitions);
  admitObject(obj, schema, definitions, { kind: t.kind, version: t.version, fieldValidation: opts.fieldValidation, warnings: opts.warnings });
  obj.metadata ??= {};
  const ns = obj.metadata.namespace;
  if (namespace !== undefined) {
    if (ns !== undefined && ns !== '' && ns !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    obj.metadata.namespace = namespace;
  }
  return obj;
}

/** Answers a POST on a review resource: 201 with the reviewed object. */
export async function serveReview(store: Store, definitions: SchemaDefinitions, body: unknown, ctx: { user: UserInfo; namespace?: string; opts: WriteOptions }): Promise<{ object: KubeObject; status: number }> {
  const obj = admitReview(store, definitions, body, ctx.namespace, ctx.opts);
  const out = await store.type.review!(obj, { user: ctx.user, namespace: ctx.namespace, dryRun: ctx.opts.dryRun === true });
  return { object: out, status: 201 };
}
