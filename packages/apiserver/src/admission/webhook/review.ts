/**
 * The AdmissionReview a webhook gets, in the version it accepts (admission.k8s.io/v1, or
 * v1beta1), and the checks of its answer (kube's webhook/request package).
 */
import type { KubeObject } from '@kplane/api';
import type { AdmissionAttributes } from '../types.js';
import { WebhookCallError } from './call.js';
import type { EquivalentResource } from './equivalent.js';

/** The AdmissionReview versions kplane speaks, in the order it prefers them when a webhook accepts both. */
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;

/** Which resource and kind a webhook is called for (the request's own, or an equivalent one), with the objects in that version. */
export interface VersionedRequest {
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
}

/** The request as its own resource and kind (no conversion). */
export function asRequested(attrs: AdmissionAttributes): VersionedRequest {
  return { resource: attrs.resource, kind: attrs.kind, object: attrs.object, oldObject: attrs.oldObject };
}

/** The invocation's versioned request for an equivalent resource, objects to be filled in. */
export function asEquivalent(e: EquivalentResource): Pick<VersionedRequest, 'resource' | 'kind'> {
  return { resource: { group: e.group, version: e.version, resource: e.resource }, kind: { group: e.group, version: e.version, kind: e.kind } };
}

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: undefined } as const;

/**
 * The first AdmissionReview version of the webhook's list that kplane speaks (kube's
 * CreateAdmissionObjects); a webhook that accepts none fails to be called.
 */
export function negotiateReviewVersion(webhook: string, accepted: readonly string[] | undefined): 'v1' | 'v1beta1' {
  for (const v of accepted ?? ['v1']) if (v === 'v1' || v === 'v1beta1') return v;
  throw new WebhookCallError(webhook, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)', 400);
}

/**
 * The AdmissionReview of a request. `versioned` says which resource and kind the webhook is
 * called for and holds the objects converted to it (kind/resource); requestKind and
 * requestResource stay the request's own.
 */
export function admissionReview(attrs: AdmissionAttributes, uid: string, versioned: VersionedRequest = asRequested(attrs), version: 'v1' | 'v1beta1' = 'v1'): Record<string, unknown> {
  const optionsKind = OPTIONS_KIND[attrs.operation];
  const user = attrs.user ?? { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
  return {
    apiVersion: `admission.k8s.io/${version}`,
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: versioned.kind,
      resource: versioned.resource,
      ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
      requestKind: attrs.kind,
      requestResource: attrs.resource,
      ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
      ...(attrs.name ? { name: attrs.name } : {}),
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) },
      object: attrs.operation === 'DELETE' ? null : (versioned.object ?? null),
      oldObject: versioned.oldObject ?? null,
      dryRun: attrs.dryRun,
      options: optionsKind ? { kind: optionsKind, apiVersion: 'meta.k8s.io/v1', ...(attrs.dryRun ? { dryRun: ['All'] } : {}) } : null,
    },
  };
}

/** A webhook's answer, checked. */
export interface ReviewResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; message?: string; reason?: string; status?: string; details?: unknown };
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/**
 * kube's VerifyAdmissionResponse: in v1 the answer must be an admission.k8s.io/v1
 * AdmissionReview with the request's uid, a mutating webhook gives patch and patchType together
 * and a validating one neither; v1beta1 answers are taken as they come (a patch is a JSONPatch).
 */
export function verifyResponse(webhook: string, answer: unknown, uid: string, version: 'v1' | 'v1beta1', mutating: boolean): ReviewResponse {
  const invalid = (why: string) => new WebhookCallError(webhook, `received invalid webhook response: ${why}`, 503);
  const review = (answer ?? {}) as { apiVersion?: unknown; kind?: unknown; response?: ReviewResponse | null };
  const response = review.response;
  if (!response || typeof response !== 'object') throw invalid('webhook response was absent');
  if (version === 'v1beta1') {
    const out = { ...response };
    if (!mutating) {
      delete out.patch;
      delete out.patchType;
    } else if (out.patch) out.patchType = 'JSONPatch';
    return out;
  }
  if (response.uid !== uid) throw invalid(`expected response.uid="${uid}", got "${response.uid ?? ''}"`);
  const gv = typeof review.apiVersion === 'string' ? review.apiVersion : '';
  const kind = typeof review.kind === 'string' ? review.kind : '';
  if (gv !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gv}, Kind=${kind}`);
  const hasPatch = typeof response.patch === 'string' && response.patch.length > 0;
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  if (mutating) {
    if (hasPatch && !hasPatchType) throw invalid('webhook returned response.patch but not response.patchType');
    if (!hasPatch && hasPatchType) throw invalid('webhook returned response.patchType but not response.patch');
    if (hasPatchType && response.patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
  } else {
    if (hasPatch) throw invalid('validating webhook may not return response.patch');
    if (hasPatchType) throw invalid('validating webhook may not return response.patchType');
  }
  return response;
}
