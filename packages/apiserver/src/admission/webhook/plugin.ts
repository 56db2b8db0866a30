/** The MutatingAdmissionWebhook and ValidatingAdmissionWebhook steps. */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, applyJsonPatch, badRequest, forbidden, internalError, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import type { AdmissionObjects } from '../objects.js';
import type { AdmissionAttributes, MutatingStep, ValidatingStep } from '../types.js';
import { postReview, WebhookCallError } from './call.js';
import { evaluateMatchConditions, type MatchCondition } from './conditions.js';
import { namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type WebhookRule } from './match.js';
import { resolveTarget, type ClientConfig } from './resolve.js';

/** One webhook of a configuration, as stored (defaults applied). */
export interface Webhook {
  name: string;
  clientConfig: ClientConfig;
  rules?: WebhookRule[];
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** What the webhook steps read: the configurations (a watched cache, never storage), namespaces and Services. */
export interface WebhookSource {
  /** The MutatingWebhookConfigurations, as last seen. */
  mutating(): readonly KubeObject[];
  /** The ValidatingWebhookConfigurations, as last seen. */
  validating(): readonly KubeObject[];
  /** A namespace by name (for namespaceSelector). */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** Services and EndpointSlices, to resolve service references. */
  objects: Pick<AdmissionObjects, 'list'>;
}

/** The mutating webhook step (its admit always returns a promise). */
export interface WebhookMutatingStep extends MutatingStep {
  admit(attrs: AdmissionAttributes): Promise<void>;
}

/** The validating webhook step (its validate always returns a promise). */
export interface WebhookValidatingStep extends ValidatingStep {
  validate(attrs: AdmissionAttributes): Promise<void>;
}

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: undefined } as const;

function qualified(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** The webhooks of the configurations, sorted by configuration name as kube-apiserver orders them. */
function webhooksOf(configs: readonly KubeObject[]): Webhook[] {
  return [...configs]
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
    .flatMap((c) => (Array.isArray(c.webhooks) ? (c.webhooks as Webhook[]) : []));
}

/** Writes of the admission configurations themselves never reach a webhook, so none can lock the cluster out (kube's exemption). */
const EXEMPT = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

async function matching(hooks: Webhook[], attrs: AdmissionAttributes, source: WebhookSource): Promise<Webhook[]> {
  const out: Webhook[] = [];
  if (attrs.resource.group === 'admissionregistration.k8s.io' && EXEMPT.has(attrs.resource.resource)) return out;
  let request: Record<string, unknown> | undefined;
  for (const h of hooks) {
    if (!(h.rules ?? []).some((r) => ruleMatches(r, attrs))) continue;
    if (!objectSelectorMatches(h.objectSelector, attrs)) continue;
    if (!(await namespaceSelectorMatches(h.namespaceSelector, attrs, source.namespace))) continue;
    if (h.matchConditions?.length) {
      request ??= admissionReview(attrs, '').request as Record<string, unknown>;
      const r = evaluateMatchConditions(h.matchConditions, request);
      if ('error' in r) {
        if (h.failurePolicy === 'Ignore') continue;
        throw forbidden(attrs.resource.group, attrs.resource.resource, attrs.name, r.error);
      }
      if (!r.matches) continue;
    }
    out.push(h);
  }
  return out;
}

/** The AdmissionReview v1 of a request. */
export function admissionReview(attrs: AdmissionAttributes, uid: string): Record<string, unknown> {
  const optionsKind = OPTIONS_KIND[attrs.operation];
  const user = attrs.user ?? { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: attrs.kind,
      resource: attrs.resource,
      ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
      requestKind: attrs.kind,
      requestResource: attrs.resource,
      ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
      ...(attrs.name ? { name: attrs.name } : {}),
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) },
      object: attrs.operation === 'DELETE' ? null : (attrs.object ?? null),
      oldObject: attrs.oldObject ?? null,
      dryRun: attrs.dryRun,
      options: optionsKind ? { kind: optionsKind, apiVersion: 'meta.k8s.io/v1', ...(attrs.dryRun ? { dryRun: ['All'] } : {}) } : null,
    },
  };
}

interface ReviewResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; message?: string; reason?: string; status?: string; details?: unknown };
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** kube's ToStatusErr: a denial as the error the client sees. */
function denial(attrs: AdmissionAttributes, webhook: string, status: ReviewResponse['status'] = {}): ApiError {
  const code = status.code || 403;
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const why = status.message ? `${deniedBy}: ${status.message}` : status.reason ? `${deniedBy}: ${status.reason}` : `${deniedBy} without explanation`;
  const name = attrs.name || 'Unknown';
  const message = code === 500 ? `Internal error occurred: ${why}` : `${qualified(attrs.resource.group, attrs.resource.resource)} "${name}" is forbidden: ${why}`;
  const reason = status.reason || (code === 500 ? 'InternalError' : 'Forbidden');
  const details = code === 500 ? { causes: [{ message: why }] } : { group: attrs.resource.group || undefined, kind: attrs.resource.resource, name };
  return new ApiError(code, reason, message, details as ConstructorParameters<typeof ApiError>[3]);
}

/** Calls one webhook; returns its response, or throws a WebhookCallError (subject to failurePolicy) or an ApiError. */
async function call(h: Webhook, attrs: AdmissionAttributes, source: WebhookSource): Promise<ReviewResponse> {
  if (attrs.dryRun && h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') {
    throw badRequest(`admission webhook "${h.name}" does not support dry run`);
  }
  const timeout = h.timeoutSeconds ?? 10;
  const target = await resolveTarget(h.name, h.clientConfig ?? {}, timeout, source.objects);
  const uid = randomUUID();
  const answer = (await postReview(h.name, target, admissionReview(attrs, uid), h.clientConfig?.caBundle, timeout * 1000)) as { response?: ReviewResponse } | undefined;
  const response = answer?.response;
  if (!response) throw new WebhookCallError(h.name, 'received invalid webhook response: webhook response was absent');
  if (response.uid !== uid) throw new WebhookCallError(h.name, `received invalid webhook response: expected response.uid="${uid}", got "${response.uid ?? ''}"`);
  for (const w of response.warnings ?? []) attrs.warnings?.push(w);
  // auditAnnotations go on the request's audit event as "WEBHOOK/KEY", as kube-apiserver records them.
  for (const [k, v] of Object.entries(response.auditAnnotations ?? {})) attrs.audit?.(`${h.name}/${k}`, v);
  return response;
}

/** Runs a call under the webhook's failurePolicy: Ignore drops a failed call, Fail refuses with a 500. */
async function guarded(h: Webhook, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    if (h.failurePolicy === 'Ignore') return;
    throw internalError(err);
  }
}

/** Calls one mutating webhook and applies its patch; true when the object changed. */
async function mutateOnce(h: Webhook, attrs: AdmissionAttributes, source: WebhookSource): Promise<boolean> {
  let changed = false;
  await guarded(h, async () => {
    const r = await call(h, attrs, source);
    if (!r.allowed) throw denial(attrs, h.name, r.status);
    if (!r.patch) return;
    if (r.patchType !== 'JSONPatch') throw new WebhookCallError(h.name, `received invalid webhook response: unsupported patch type "${r.patchType ?? ''}"`);
    if (!attrs.object) return;
    let patched: KubeObject;
    try {
      patched = applyJsonPatch(structuredClone(attrs.object), JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8')));
    } catch (err) {
      throw new WebhookCallError(h.name, `JSON Patch: ${(err as Error).message}`);
    }
    if (isDeepStrictEqual(patched, attrs.object)) return;
    const target = attrs.object as Record<string, unknown>;
    for (const k of Object.keys(target)) delete target[k];
    Object.assign(target, patched);
    changed = true;
  });
  return changed;
}

/** kube-apiserver's MutatingAdmissionWebhook: the matching webhooks, one after another, each seeing the last one's patch; IfNeeded ones again when a later one changed the object. */
export function mutatingAdmissionWebhook(source: WebhookSource): WebhookMutatingStep {
  return {
    name: 'MutatingAdmissionWebhook',
    operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
    async admit(attrs) {
      const configs = source.mutating();
      if (configs.length === 0) return;
      const hooks = await matching(webhooksOf(configs), attrs, source);
      // reinvocationPolicy IfNeeded: a webhook whose output a later webhook changed runs once more.
      const invokedIfNeeded: Webhook[] = [];
      const reinvoke = new Set<Webhook>();
      for (const h of hooks) {
        const changed = await mutateOnce(h, attrs, source);
        if (changed) for (const earlier of invokedIfNeeded) reinvoke.add(earlier);
        if (h.reinvocationPolicy === 'IfNeeded') invokedIfNeeded.push(h);
      }
      for (const h of hooks) if (reinvoke.has(h)) await mutateOnce(h, attrs, source);
    },
  };
}

/** kube-apiserver's ValidatingAdmissionWebhook: the matching webhooks, called at once; the first denial refuses. */
export function validatingAdmissionWebhook(source: WebhookSource): WebhookValidatingStep {
  return {
    name: 'ValidatingAdmissionWebhook',
    operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
    async validate(attrs) {
      const configs = source.validating();
      if (configs.length === 0) return;
      const hooks = await matching(webhooksOf(configs), attrs, source);
      const results = await Promise.allSettled(
        hooks.map((h) =>
          guarded(h, async () => {
            const r = await call(h, attrs, source);
            if (!r.allowed) throw denial(attrs, h.name, r.status);
          }),
        ),
      );
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    },
  };
}
