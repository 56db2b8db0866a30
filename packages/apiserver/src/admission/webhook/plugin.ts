/** The MutatingAdmissionWebhook and ValidatingAdmissionWebhook steps. */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, applyJsonPatch, badRequest, forbidden, internalError, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import { isAdmissionConfiguration } from '../exempt.js';
import { secondsSince, type AdmissionMetrics } from '../metrics.js';
import type { AdmissionObjects } from '../objects.js';
import type { AdmissionAttributes, MutatingStep, ValidatingStep } from '../types.js';
import { postReview, WebhookCallError } from './call.js';
import { loadCel } from '../../crd/cel/load.js';
import { evaluateMatchConditions, type MatchCondition } from './conditions.js';
import type { EquivalentResources } from './equivalent.js';
import { namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type WebhookRule } from './match.js';
import { resolveTarget, type ClientConfig } from './resolve.js';
import { admissionReview, asEquivalent, asRequested, negotiateReviewVersion, verifyResponse, type ReviewResponse, type VersionedRequest } from './review.js';

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
  /** Equivalent (the default) also matches the request through another version or group of the same resource. */
  matchPolicy?: 'Exact' | 'Equivalent';
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
  /** The served equivalents of a resource and the conversion between them (matchPolicy Equivalent); without it only the request's own resource matches. */
  equivalents?: EquivalentResources;
  /** Where webhook latencies and rejections are reported (the API server's /metrics). */
  metrics?: AdmissionMetrics;
}

/** The mutating webhook step (its admit always returns a promise). */
export interface WebhookMutatingStep extends MutatingStep {
  admit(attrs: AdmissionAttributes): Promise<void>;
}

/** The validating webhook step (its validate always returns a promise). */
export interface WebhookValidatingStep extends ValidatingStep {
  validate(attrs: AdmissionAttributes): Promise<void>;
}

/** The webhook configurations, sorted by configuration name as kube-apiserver orders them. */
function webhooksOf(configs: readonly KubeObject[]): ConfiguredWebhook[] {
  return [...configs]
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
    .flatMap((c) => (Array.isArray(c.webhooks) ? (c.webhooks as Webhook[]).map((hook) => ({ hook, configuration: c.metadata?.name ?? '' })) : []))
    .map((w, index) => ({ ...w, index }));
}

/** A webhook with its configuration's name and its place among all the webhooks of that type (audit annotations name them so). */
interface ConfiguredWebhook {
  readonly hook: Webhook;
  readonly configuration: string;
  readonly index: number;
}

/** kube's audit annotation prefixes of mutating webhook calls and of calls that failed open. */
const MUTATION_ANNOTATION = 'mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_MUTATION = 'failed-open.mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_VALIDATING = 'failed-open.validating.webhook.admission.k8s.io/';


/** A webhook to call, and the resource and kind it is called for (the request's own, or an equivalent one its rules name). */
interface Invocation extends ConfiguredWebhook {
  /** Absent when the webhook gets the request as it came; else the equivalent resource and kind it is called for. */
  readonly equivalent?: Pick<VersionedRequest, 'resource' | 'kind'>;
}

const sameResource = (a: { group: string; version: string; resource: string }, b: { group: string; version: string; resource: string }) =>
  a.group === b.group && a.version === b.version && a.resource === b.resource;

/**
 * kube's ShouldCallHook, rules part: a rule matching the request's own resource calls the
 * webhook with the request as it came; else, under matchPolicy Equivalent, the first rule (in
 * order) matching an equivalent resource calls it with the object converted to that resource.
 */
function invocationOf(w: ConfiguredWebhook, attrs: AdmissionAttributes, source: WebhookSource): Invocation | undefined {
  const h = w.hook;
  const rules = h.rules ?? [];
  if (rules.some((r) => ruleMatches(r, attrs))) return w;
  if ((h.matchPolicy ?? 'Equivalent') !== 'Equivalent' || !source.equivalents) return undefined;
  const equivalents = source.equivalents.equivalents(attrs.resource, attrs.subresource);
  for (const rule of rules) {
    for (const e of equivalents) {
      if (sameResource(e, attrs.resource)) continue;
      if (ruleMatches(rule, { ...attrs, resource: e })) return { ...w, equivalent: asEquivalent(e) };
    }
  }
  return undefined;
}

/** The request in the version an invocation calls for: the objects converted to its resource (an error is a 500, as in kube). */
async function versionedFor(inv: Invocation, attrs: AdmissionAttributes, source: WebhookSource): Promise<VersionedRequest> {
  if (!inv.equivalent) return asRequested(attrs);
  const to = inv.equivalent.resource;
  const convert = async (o: KubeObject | undefined) => (o ? source.equivalents!.convert(o, attrs.resource, to) : undefined);
  try {
    return { ...inv.equivalent, object: await convert(attrs.object), oldObject: await convert(attrs.oldObject) };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw internalError(err instanceof Error ? err : new Error(String(err)));
  }
}

/** Versioned requests of one dispatch, by kind: each conversion is made once (kube's versionedAttrs). */
type VersionCache = Map<string, Promise<VersionedRequest>>;

function versioned(inv: Invocation, attrs: AdmissionAttributes, source: WebhookSource, cache: VersionCache): Promise<VersionedRequest> {
  const k = inv.equivalent ? `${inv.equivalent.kind.group}/${inv.equivalent.kind.version}/${inv.equivalent.kind.kind}` : '';
  let v = cache.get(k);
  if (!v) {
    v = versionedFor(inv, attrs, source);
    cache.set(k, v);
  }
  return v;
}

async function matching(hooks: readonly ConfiguredWebhook[], attrs: AdmissionAttributes, source: WebhookSource, cache: VersionCache, type: 'admit' | 'validating'): Promise<Invocation[]> {
  const out: Invocation[] = [];
  if (isAdmissionConfiguration(attrs.resource)) return out;
  for (const w of hooks) {
    const h = w.hook;
    const inv = invocationOf(w, attrs, source);
    if (!inv) continue;
    if (!objectSelectorMatches(h.objectSelector, attrs)) continue;
    if (!(await namespaceSelectorMatches(h.namespaceSelector, attrs, source.namespace))) continue;
    if (h.matchConditions?.length) {
      const request = admissionReview(attrs, '', await versioned(inv, attrs, source, cache)).request as Record<string, unknown>;
      await loadCel();
      const start = performance.now();
      const r = evaluateMatchConditions(h.matchConditions, request);
      source.metrics?.observeMatchConditions(h.name, 'webhook', type, attrs.operation, 'error' in r ? 'error' : r.matches ? 'matched' : 'excluded', secondsSince(start));
      if ('error' in r) {
        if (h.failurePolicy === 'Ignore') continue;
        throw forbidden(attrs.resource.group, attrs.resource.resource, attrs.name, r.error);
      }
      if (!r.matches) continue;
    }
    out.push(inv);
  }
  return out;
}

function qualified(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** Denials made from a webhook's answer (reported as no_error rejections with their code). */
const denials = new WeakSet<ApiError>();

/** kube's ToStatusErr: a denial as the error the client sees. */
function denial(attrs: AdmissionAttributes, webhook: string, status: ReviewResponse['status'] = {}): ApiError {
  const code = status.code || 403;
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const why = status.message ? `${deniedBy}: ${status.message}` : status.reason ? `${deniedBy}: ${status.reason}` : `${deniedBy} without explanation`;
  const name = attrs.name || 'Unknown';
  const message = code === 500 ? `Internal error occurred: ${why}` : `${qualified(attrs.resource.group, attrs.resource.resource)} "${name}" is forbidden: ${why}`;
  const reason = status.reason || (code === 500 ? 'InternalError' : 'Forbidden');
  const details = code === 500 ? { causes: [{ message: why }] } : { group: attrs.resource.group || undefined, kind: attrs.resource.resource, name };
  const err = new ApiError(code, reason, message, details as ConstructorParameters<typeof ApiError>[3]);
  denials.add(err);
  return err;
}

/** Calls one webhook with the request in `v`'s version; returns its checked response, or throws a WebhookCallError (subject to failurePolicy) or an ApiError. */
async function call(h: Webhook, attrs: AdmissionAttributes, v: VersionedRequest, source: WebhookSource, mutating: boolean): Promise<ReviewResponse> {
  if (attrs.dryRun && h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') {
    throw badRequest(`admission webhook "${h.name}" does not support dry run`);
  }
  const version = negotiateReviewVersion(h.name, h.admissionReviewVersions);
  const timeout = h.timeoutSeconds ?? 10;
  const target = await resolveTarget(h.name, h.clientConfig ?? {}, timeout, source.objects);
  const uid = randomUUID();
  const answer = await postReview(h.name, target, admissionReview(attrs, uid, v, version), h.clientConfig?.caBundle, timeout * 1000);
  const response = verifyResponse(h.name, answer, uid, version, mutating);
  for (const w of response.warnings ?? []) attrs.warnings?.push(w);
  // auditAnnotations go on the request's audit event as "WEBHOOK/KEY", as kube-apiserver records them.
  for (const [k, val] of Object.entries(response.auditAnnotations ?? {})) attrs.audit?.(`${h.name}/${k}`, val);
  return response;
}

/** Reports one webhook call to the metrics as kube's dispatchers do: its latency and code, and why it rejected the request. */
async function observed<T>(h: Webhook, type: 'admit' | 'validating', attrs: AdmissionAttributes, metrics: AdmissionMetrics | undefined, fn: () => Promise<T>): Promise<T> {
  if (!metrics) return fn();
  const start = performance.now();
  try {
    const result = await fn();
    metrics.observeWebhook(h.name, type, attrs.operation, 200, false, secondsSince(start));
    return result;
  } catch (err) {
    const seconds = secondsSince(start);
    if (err instanceof WebhookCallError) {
      const ignored = h.failurePolicy === 'Ignore';
      if (ignored) metrics.observeWebhookFailOpen(h.name, type);
      else metrics.observeWebhookRejection(h.name, type, attrs.operation, 'calling_webhook_error', err.code);
      metrics.observeWebhook(h.name, type, attrs.operation, err.code, !ignored, seconds);
    } else if (err instanceof ApiError && denials.has(err)) {
      metrics.observeWebhookRejection(h.name, type, attrs.operation, 'no_error', err.code);
      metrics.observeWebhook(h.name, type, attrs.operation, err.code, true, seconds);
    } else {
      metrics.observeWebhookRejection(h.name, type, attrs.operation, 'apiserver_internal_error', 0);
      metrics.observeWebhook(h.name, type, attrs.operation, 0, true, seconds);
    }
    throw err;
  }
}

/**
 * Runs a call under the webhook's failurePolicy: Ignore drops a failed call (`failedOpen` is
 * called: kube records it as an audit annotation), Fail refuses with a 500.
 */
async function guarded(h: Webhook, fn: () => Promise<void>, failedOpen: () => void): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    if (h.failurePolicy === 'Ignore') return failedOpen();
    throw internalError(err);
  }
}

/** Replaces the contents of `target` with those of `next`, keeping the object's identity. */
function replaceObject(target: KubeObject, next: KubeObject): void {
  const t = target as Record<string, unknown>;
  for (const k of Object.keys(t)) delete t[k];
  Object.assign(t, next);
}

/** Calls one mutating webhook and applies its patch (to the object in the webhook's version, converted back); true when the object changed. */
async function mutateOnce(inv: Invocation, attrs: AdmissionAttributes, source: WebhookSource, round: 0 | 1): Promise<boolean> {
  const h = inv.hook;
  const key = `round_${round}_index_${inv.index}`;
  let changed = false;
  try {
    await guarded(h, () =>
      observed(h, 'admit', attrs, source.metrics, async () => {
        // The object changes from one webhook to the next: convert it afresh for each.
        const v = await versionedFor(inv, attrs, source);
        const r = await call(h, attrs, v, source, true);
        if (!r.allowed) throw denial(attrs, h.name, r.status);
        if (!r.patch) return;
        if (r.patchType !== 'JSONPatch') throw new WebhookCallError(h.name, `unsupported patch type "${r.patchType ?? ''}"`);
        if (!attrs.object || !v.object) return;
        let patched: KubeObject;
        try {
          patched = applyJsonPatch(structuredClone(v.object), JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8')));
        } catch (err) {
          throw new WebhookCallError(h.name, `JSON Patch: ${(err as Error).message}`, 500);
        }
        if (inv.equivalent) patched = await source.equivalents!.convert(patched, inv.equivalent.resource, attrs.resource);
        if (isDeepStrictEqual(patched, attrs.object)) return;
        replaceObject(attrs.object, patched);
        changed = true;
      }),
      () => attrs.audit?.(`${FAILED_OPEN_MUTATION}${key}`, h.name),
    );
  } finally {
    // kube records every mutating call, changed or not, as an audit annotation.
    attrs.audit?.(`${MUTATION_ANNOTATION}${key}`, JSON.stringify({ configuration: inv.configuration, webhook: h.name, mutated: changed }));
  }
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
      const invocations = await matching(webhooksOf(configs), attrs, source, new Map(), 'admit');
      // reinvocationPolicy IfNeeded: a webhook whose output a later webhook changed runs once more.
      const invokedIfNeeded: Invocation[] = [];
      const reinvoke = new Set<Invocation>();
      for (const inv of invocations) {
        const changed = await mutateOnce(inv, attrs, source, 0);
        if (changed) for (const earlier of invokedIfNeeded) reinvoke.add(earlier);
        if (inv.hook.reinvocationPolicy === 'IfNeeded') invokedIfNeeded.push(inv);
      }
      for (const inv of invocations) if (reinvoke.has(inv)) await mutateOnce(inv, attrs, source, 1);
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
      const cache: VersionCache = new Map();
      const invocations = await matching(webhooksOf(configs), attrs, source, cache, 'validating');
      const results = await Promise.allSettled(
        invocations.map(async (inv, idx) => {
          const v = await versioned(inv, attrs, source, cache);
          await guarded(
            inv.hook,
            () =>
              observed(inv.hook, 'validating', attrs, source.metrics, async () => {
                const r = await call(inv.hook, attrs, v, source, false);
                if (!r.allowed) throw denial(attrs, inv.hook.name, r.status);
              }),
            () => attrs.audit?.(`${FAILED_OPEN_VALIDATING}round_0_index_${idx}`, inv.hook.name),
          );
        }),
      );
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    },
  };
}
