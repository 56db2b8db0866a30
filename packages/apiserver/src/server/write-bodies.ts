/**
 * The bodies of writes: a body that must be an object, patches applied to the current object,
 * subresource bodies of another kind type-checked (TokenRequest, Eviction), and a namespace's
 * finalize.
 */
import { admitObject, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, badRequest, resolveSchema, unsupportedMediaType, type KubeObject, type SchemaObject } from '@kplane/api';
import type { Registry } from '../registry/registry.js';
import type { Store, WriteOptions } from '../registry/store.js';

/** The body as an object (400 when it is not a JSON object). */
export function asObject(body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of the request must be a JSON object');
  return body as KubeObject;
}

/** Applies a patch document of the given content type to `doc`. */
function applyPatch(contentType: string, doc: KubeObject, patch: unknown, schema: SchemaObject | undefined, registry: Registry): KubeObject {
  const ct = contentType.split(';')[0]!.trim().toLowerCase();
  switch (ct) {
    case 'application/json-patch+json':
      return applyJsonPatch(doc, patch) as KubeObject;
    case 'application/merge-patch+json':
      return applyMergePatch(doc, patch) as KubeObject;
    case 'application/strategic-merge-patch+json':
      return applyStrategicMergePatch(doc, patch, schema, registry.definitions) as KubeObject;
    default:
      throw unsupportedMediaType(ct || '""');
  }
}

/**
 * Applies a patch to the current object, resourceVersion included (so a JSON patch can `test`
 * it). A patch that leaves the resourceVersion as it was is unconditional (retried on
 * conflicts); one that changes it pins the write to the version it names.
 */
export function patchCurrent(contentType: string, current: KubeObject, patch: unknown, schema: SchemaObject | undefined, registry: Registry): KubeObject {
  const rv = current.metadata?.resourceVersion;
  const patched = applyPatch(contentType, current, patch, schema, registry);
  const m = patched?.metadata;
  if (m && typeof m === 'object' && m.resourceVersion === rv) delete m.resourceVersion;
  return patched;
}

/** Type-checks the body of a subresource whose kind is not the resource's (TokenRequest). */
export function admitSubresourceBody(b: unknown, apiVersion: string, kind: string, schemaName: string, opts: WriteOptions, registry: Registry): KubeObject {
  const obj = asObject(b);
  if (obj.kind !== undefined && obj.kind !== kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind})`);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`);
  obj.kind = kind;
  obj.apiVersion = apiVersion;
  admitObject(obj, resolveSchema({ $ref: `#/components/schemas/${schemaName}` }, registry.definitions), registry.definitions, { kind, version: apiVersion.split('/').pop()!, fieldValidation: opts.fieldValidation, warnings: opts.warnings });
  return obj;
}

/** Type-checks an Eviction (policy/v1, or v1beta1 which has the same fields) as policy/v1. */
export function admitEvictionBody(b: unknown, opts: WriteOptions, registry: Registry): KubeObject {
  const obj = asObject(b);
  if (obj.apiVersion === 'policy/v1beta1') obj.apiVersion = 'policy/v1';
  return admitSubresourceBody(obj, 'policy/v1', 'Eviction', 'io.k8s.api.policy.v1.Eviction', opts, registry);
}

/** PUT /api/v1/namespaces/<name>/finalize: only spec.finalizers changes. */
export async function finalizeNamespace(store: Store, name: string, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
  const finalizers = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return store.guaranteedUpdate(undefined, name, (current) => {
    const next = structuredClone(current);
    next.spec = { ...((current.spec as object) ?? {}), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    if (obj.metadata?.resourceVersion) next.metadata!.resourceVersion = obj.metadata.resourceVersion;
    else delete next.metadata!.resourceVersion;
    return next;
  }, opts);
}
