/**
 * The ValidatingAdmissionPolicy admission step (kube's dispatcher): for each policy whose
 * matchConstraints cover the request, each of its ValidatingAdmissionPolicyBindings whose
 * matchResources do, evaluates the policy with each params object and enforces the failed
 * validations by the binding's validationActions: Deny refuses the request with the first
 * failure's reason, Warn adds a Warning header, Audit records the
 * `validation.policy.admission.k8s.io/validation_failure` audit annotation. The policy's
 * auditAnnotations go on the audit event as `<policy>/<key>`. Configuration errors (params that
 * cannot be found) deny under failurePolicy Fail whatever the actions.
 *
 * Policies and bindings come from a watched cache (or are listed on each write when none is
 * given); expressions are compiled once per policy generation.
 */
import { ApiError, labelSelectorFromObject, qualifiedResource, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import type { AdmissionObjects } from '../objects.js';
import { followedList, type Followable, type FollowedList } from '../webhook/cache.js';
import type { AdmissionAttributes, ValidatingStep } from '../types.js';
import { loadCel } from '../../crd/cel/load.js';
import { toCel } from '../../crd/cel/rules.js';
import { requestAuthorizer, type PolicyAuthorizer } from './authz.js';
import { matchesResources, type MatchResources } from './match.js';
import { compilePolicy, validatePolicy, type CompiledPolicy } from './validator.js';

const GROUP = 'admissionregistration.k8s.io';
/** The audit annotation of a failure under validationAction Audit. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
/** The longest audit annotation value kept (kube's maxAuditAnnotationValueLength). */
const MAX_ANNOTATION_VALUE = 10 * 1024;

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** kube-apiserver's code for a validation's reason. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** The policies and bindings, as a watch keeps them (each call returns the current snapshot). */
export interface PolicySource {
  policies(): readonly KubeObject[];
  bindings(): readonly KubeObject[];
}

/** What the step reads: objects (params), and optionally the followed policies, namespaces and the authorizer. */
export interface ValidatingAdmissionPolicyOptions {
  objects: AdmissionObjects;
  /** The served resource of a kind (for paramKind); without it, params cannot be resolved. */
  kindResource?(group: string, version: string, kind: string): { resource: string; namespaced: boolean } | undefined;
  /** The policies and bindings as followed by a watch; without it they are listed on each write. */
  source?: PolicySource;
  /** A namespace by name (namespaceSelector, namespaceObject); without it namespaces are listed. */
  namespace?(name: string): Promise<KubeObject | undefined>;
  /** What `authorizer` checks ask; without it every check is allowed. */
  authorizer?: PolicyAuthorizer;
  /** The store of a params resource, to follow by a watch once a policy needs it; without it params are listed on each write. */
  paramStore?(group: string, version: string, resource: string): Followable | undefined;
  /** Stops the followed params when aborted. */
  signal?: AbortSignal;
}

/** The request as policies see it (`request`): kube's AdmissionRequest. */
export function requestOf(attrs: AdmissionAttributes): Obj {
  const u = attrs.user;
  return {
    kind: { ...attrs.kind },
    resource: { ...attrs.resource },
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: { ...attrs.kind },
    requestResource: { ...attrs.resource },
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo: u ? { username: u.username, uid: u.uid ?? '', groups: [...(u.groups ?? [])], ...(u.extra ? { extra: u.extra } : {}) } : { username: 'system:admin', groups: ['system:masters'] },
    dryRun: attrs.dryRun,
  };
}

/** Writes of the admission policies themselves are never checked by a policy, so none can lock the cluster out (kube's exemption). */
const EXEMPT = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

const ALLOW_ALL: PolicyAuthorizer = { authorize: () => ({ allowed: true, reason: '' }) };

/** A denial: the policy, the binding (absent for a policy's own configuration error), the message and reason. */
interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason: string;
}

/** The resource of a paramKind. */
interface ParamResource {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/** A policy and the bindings that name it. */
interface Hook {
  policy: CompiledPolicy;
  bindings: KubeObject[];
}

/** Creates the ValidatingAdmissionPolicy step. */
export function validatingAdmissionPolicy(options: ValidatingAdmissionPolicyOptions): ValidatingStep {
  const { objects } = options;
  const compiled = new Map<string, CompiledPolicy>();
  let indexed: { policies: readonly KubeObject[]; bindings: readonly KubeObject[]; hooks: Hook[] } | undefined;

  function compiledFor(obj: KubeObject): CompiledPolicy {
    const name = obj.metadata?.name ?? '';
    const cached = compiled.get(name);
    if (cached && cached.uid === (obj.metadata?.uid ?? '') && cached.generation === (obj.metadata?.generation ?? 0)) return cached;
    const p = compilePolicy(obj);
    compiled.set(name, p);
    return p;
  }

  /** The policies that have bindings, each with its bindings (rebuilt when either list changes). */
  async function hooks(): Promise<Hook[]> {
    const bindings = options.source ? options.source.bindings() : await objects.list(GROUP, 'v1', 'validatingadmissionpolicybindings', '');
    if (bindings.length === 0) return [];
    const policies = options.source ? options.source.policies() : await objects.list(GROUP, 'v1', 'validatingadmissionpolicies', '');
    if (indexed && indexed.policies === policies && indexed.bindings === bindings) return indexed.hooks;
    // Policies with bindings: their expressions are compiled below.
    if (policies.length) await loadCel();
    const byPolicy = new Map<string, KubeObject[]>();
    for (const b of [...bindings].sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''))) {
      const name = str(asObj(b.spec)?.policyName);
      byPolicy.set(name, [...(byPolicy.get(name) ?? []), b]);
    }
    const live = new Set<string>();
    const out: Hook[] = [];
    for (const p of [...policies].sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''))) {
      const name = p.metadata?.name ?? '';
      live.add(name);
      const bs = byPolicy.get(name);
      if (bs) out.push({ policy: compiledFor(p), bindings: bs });
    }
    for (const name of compiled.keys()) if (!live.has(name)) compiled.delete(name);
    indexed = { policies, bindings, hooks: out };
    return out;
  }

  /** The params of a binding (kube's CollectParams): the objects, or a configuration error. */
  /** The params resources followed so far (kube's param informers), by group/version/resource. */
  const followedParams = new Map<string, Promise<FollowedList | undefined>>();
  options.signal?.addEventListener('abort', () => {
    for (const f of followedParams.values()) void f.then((l) => l?.stop(), () => undefined);
  });

  /** The objects of a params resource in a namespace ('' for all): from its followed list when there is a store to follow. */
  async function paramObjects(group: string, version: string, resource: string, namespace: string): Promise<readonly KubeObject[]> {
    const key = `${group}/${version}/${resource}`;
    let followed = followedParams.get(key);
    if (!followed) {
      const store = options.signal?.aborted ? undefined : options.paramStore?.(group, version, resource);
      followed = store
        ? (async () => {
            const list = followedList();
            await list.start(store);
            return list;
          })()
        : Promise.resolve(undefined);
      followedParams.set(key, followed);
    }
    const list = await followed.catch(() => undefined);
    if (!list) return objects.list(group, version, resource, namespace);
    const items = list.items();
    return namespace ? items.filter((o) => o.metadata?.namespace === namespace) : items;
  }

  /** The served resource of a policy's paramKind, or the policy's configuration error. */
  function paramResource(policy: CompiledPolicy): ParamResource | { error: string } | undefined {
    if (!policy.paramKind) return undefined;
    const [group, version] = policy.paramKind.apiVersion.includes('/') ? (policy.paramKind.apiVersion.split('/', 2) as [string, string]) : ['', policy.paramKind.apiVersion];
    const kr = options.kindResource?.(group, version, policy.paramKind.kind);
    if (!kr) return { error: `failed to find resource referenced by paramKind: '${group ? `${group}/` : ''}${version}, Kind=${policy.paramKind.kind}'` };
    return { group, version, ...kr };
  }

  async function params(kind: ParamResource | undefined, binding: KubeObject, attrs: AdmissionAttributes): Promise<{ params: unknown[] } | { error: string }> {
    if (!kind) return { params: [null] };
    const { group, version, ...kr } = kind;
    const ref = asObj(asObj(binding.spec)?.paramRef);
    if (!ref) return { error: `no paramRef specified for binding '${binding.metadata?.name ?? ''}'` };
    let ns = '';
    if (kr.namespaced) {
      ns = str(ref.namespace) || attrs.namespace;
      if (!ns) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
    }
    const all = await paramObjects(group, version, kr.resource, ns);
    let found: readonly KubeObject[];
    if (ref.name) found = all.filter((o) => o.metadata?.name === ref.name);
    else {
      const sel = labelSelectorFromObject((asObj(ref.selector) ?? {}) as LabelSelectorObject);
      found = all.filter((o) => sel.matches((o.metadata?.labels as Record<string, string> | undefined) ?? {}));
    }
    if (found.length === 0 && ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
    return { params: found.map((o) => toCel(o, undefined)) };
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
    async validate(attrs) {
      if (attrs.resource.group === GROUP && EXEMPT.has(attrs.resource.resource)) return;
      const all = await hooks();
      if (all.length === 0) return;
      let nsObject: Promise<KubeObject | undefined> | undefined;
      const namespace = () =>
        (nsObject ??= !attrs.namespace
          ? Promise.resolve(undefined)
          : options.namespace
            ? options.namespace(attrs.namespace)
            : objects.list('', 'v1', 'namespaces', '').then((list) => list.find((n) => n.metadata?.name === attrs.namespace)));
      let base: Obj | undefined;
      const baseInput = async (): Promise<Obj> => {
        if (base) return base;
        // The Namespace a request is in; a Namespace's own request has none (as kube).
        const ns = attrs.kind.group === '' && attrs.kind.kind === 'Namespace' ? undefined : await namespace();
        return (base = {
          object: attrs.object ? toCel(attrs.object, undefined) : null,
          oldObject: attrs.oldObject ? toCel(attrs.oldObject, undefined) : null,
          request: requestOf(attrs),
          namespaceObject: ns ? toCel(ns, undefined) : null,
          authorizer: requestAuthorizer(options.authorizer ?? ALLOW_ALL, attrs),
        });
      };
      const denied: Denial[] = [];
      const configError = (policy: CompiledPolicy, binding: string | undefined, error: string) => {
        if (policy.failurePolicy === 'Ignore') return;
        denied.push({ policy: policy.name, binding, message: `failed to configure ${binding === undefined ? 'policy' : 'binding'}: ${error}`, reason: 'Invalid' });
      };
      for (const { policy, bindings } of all) {
        if (!(await matchesResources(policy.matchConstraints, attrs, namespace, true))) continue;
        const kind = paramResource(policy);
        if (kind && 'error' in kind) {
          configError(policy, undefined, kind.error);
          continue;
        }
        const annotations = new Map<string, string[]>();
        for (const binding of bindings) {
          const spec = asObj(binding.spec) ?? {};
          const mr = asObj(spec.matchResources) as MatchResources | undefined;
          if (mr && !(await matchesResources(mr, attrs, namespace, false))) continue;
          const bindingName = binding.metadata?.name ?? '';
          const p = await params(kind, binding, attrs);
          if ('error' in p) {
            configError(policy, bindingName, p.error);
            continue;
          }
          const input = await baseInput();
          const actions = Array.isArray(spec.validationActions) ? (spec.validationActions as string[]) : [];
          for (const param of p.params) {
            const result = validatePolicy(policy, { ...input, params: param });
            if (!result) continue;
            for (const d of result.decisions) {
              for (const action of actions) {
                if (action === 'Deny') denied.push({ policy: policy.name, binding: bindingName, message: d.message, reason: d.reason });
                else if (action === 'Warn') attrs.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${d.message}`);
                else if (action === 'Audit') {
                  const failure = [{ message: d.message, policy: policy.name, binding: bindingName, expressionIndex: d.index, validationActions: actions }];
                  attrs.audit?.(VALIDATION_FAILURE_ANNOTATION, JSON.stringify(failure));
                }
              }
            }
            for (const a of result.annotations) {
              if ('error' in a) {
                denied.push({ policy: policy.name, binding: bindingName, message: a.error, reason: 'Invalid' });
                continue;
              }
              const values = annotations.get(a.key) ?? [];
              const value = a.value.slice(0, MAX_ANNOTATION_VALUE);
              if (!values.includes(value)) annotations.set(a.key, [...values, value]);
            }
          }
        }
        // One annotation per key and policy; distinct values of several bindings or params joined.
        for (const [key, values] of annotations) attrs.audit?.(`${policy.name}/${key}`, values.join(', '));
      }
      const first = denied[0];
      if (!first) return;
      const message =
        first.binding === undefined
          ? `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`
          : `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`;
      const target = attrs.name ? `${qualifiedResource(attrs.resource.group, attrs.resource.resource)} "${attrs.name}"` : qualifiedResource(attrs.resource.group, attrs.resource.resource);
      throw new ApiError(reasonToCode(first.reason), first.reason, `${target} is forbidden: ${message}`, {
        ...(attrs.name ? { name: attrs.name } : {}),
        ...(attrs.resource.group ? { group: attrs.resource.group } : {}),
        kind: attrs.resource.resource,
        causes: [{ message }],
      });
    },
  };
}
