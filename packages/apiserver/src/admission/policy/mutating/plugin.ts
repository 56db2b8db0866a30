/**
 * The MutatingAdmissionPolicy admission step (admissionregistration.k8s.io/v1alpha1): for each
 * MutatingAdmissionPolicyBinding whose policy matches the request (matchConstraints, the
 * binding's matchResources, matchConditions), evaluates the policy's mutations with its params
 * and variables, one after another, each seeing the object the last one produced: a JSONPatch
 * mutation's operations are applied, an ApplyConfiguration mutation's configuration merged by
 * server-side apply's structured merge. A policy with reinvocationPolicy IfNeeded runs once
 * more when a later policy changed the object. Errors follow the policy's failurePolicy:
 * Ignore skips the policy, Fail refuses the request with kube-apiserver's message.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, labelSelectorFromObject, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import { isAdmissionConfiguration } from '../../exempt.js';
import type { AdmissionObjects } from '../../objects.js';
import type { AdmissionAttributes, MutatingStep } from '../../types.js';
import { loadCel } from '../../../crd/cel/load.js';
import { toCel } from '../../../crd/cel/rules.js';
import { compileExpression, evaluate, type CompiledExpression } from '../cel.js';
import { matchesResources, type MatchResources } from '../match.js';
import { requestOf } from '../validating.js';
import { compileMutationExpression } from './cel.js';
import { applyConfigurationResult, applyJsonPatchResult, MutationError, type ObjectSchema } from './patch.js';

const GROUP = 'admissionregistration.k8s.io';
/** The version MutatingAdmissionPolicies are served in (alpha in Kubernetes 1.32). */
export const MUTATING_POLICY_VERSION = 'v1alpha1';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');


interface CompiledMutation {
  patchType: 'ApplyConfiguration' | 'JSONPatch';
  expression: CompiledExpression;
}

interface CompiledPolicy {
  resourceVersion: string;
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  reinvocationPolicy: 'Never' | 'IfNeeded';
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints: MatchResources;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  mutations: CompiledMutation[];
}

function compilePolicy(obj: KubeObject): CompiledPolicy {
  const spec = asObj(obj.spec) ?? {};
  const pk = asObj(spec.paramKind);
  return {
    resourceVersion: obj.metadata?.resourceVersion ?? '',
    name: obj.metadata?.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: (asObj(spec.matchConstraints) ?? {}) as MatchResources,
    matchConditions: objs(spec.matchConditions).map((c) => ({ name: str(c.name), expression: compileExpression(str(c.expression)) })),
    variables: objs(spec.variables).map((v) => ({ name: str(v.name), expression: compileMutationExpression(str(v.expression)) })),
    mutations: objs(spec.mutations).map((m) => {
      const patchType = m.patchType === 'JSONPatch' ? 'JSONPatch' : 'ApplyConfiguration';
      const source = str(asObj(patchType === 'JSONPatch' ? m.jsonPatch : m.applyConfiguration)?.expression);
      return { patchType, expression: compileMutationExpression(source) };
    }),
  };
}

/** What the step reads beyond the objects. */
export interface MutatingAdmissionPolicyOptions {
  objects: AdmissionObjects;
  /** The served resource of a kind (for paramKind); without it, params cannot be resolved. */
  kindResource?(group: string, version: string, kind: string): { resource: string; namespaced: boolean } | undefined;
  /** The schema of a served resource (for ApplyConfiguration); without it, values are merged by their shape. */
  schema?(group: string, version: string, resource: string): ObjectSchema | undefined;
  /** Applies the resource's defaults to a mutated object, as kube-apiserver defaults each mutation's result. */
  defaults?(group: string, version: string, resource: string, obj: KubeObject): void;
  /** The policies and bindings as a watch keeps them (without it, each request lists them from `objects`). */
  source?: MutatingPolicySource;
}

/** The MutatingAdmissionPolicies and their bindings, as last seen. */
export interface MutatingPolicySource {
  policies(): readonly KubeObject[];
  bindings(): readonly KubeObject[];
}

/** One invocation: a policy under a binding with one of its params. */
interface Invocation {
  policy: CompiledPolicy;
  binding: string;
  param: unknown;
  paramKey: string;
}

/** The params of a binding (kube's CollectParams): `[null]` without paramKind or paramRef. */
async function collectParams(options: MutatingAdmissionPolicyOptions, policy: CompiledPolicy, binding: Obj, attrs: AdmissionAttributes): Promise<{ params: { value: unknown; key: string }[] } | { error: string }> {
  const ref = asObj(asObj(binding.spec)?.paramRef);
  if (!policy.paramKind || !ref) return { params: [{ value: null, key: '' }] };
  const [group, version] = policy.paramKind.apiVersion.includes('/') ? (policy.paramKind.apiVersion.split('/', 2) as [string, string]) : ['', policy.paramKind.apiVersion];
  const kr = options.kindResource?.(group, version, policy.paramKind.kind);
  if (!kr) return { error: `failed to configure policy: failed to find resource referenced by paramKind: '${group ? `${group}/` : ''}${version}, Kind=${policy.paramKind.kind}'` };
  let ns = '';
  if (kr.namespaced) {
    ns = str(ref.namespace) || attrs.namespace;
    if (!ns) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  } else if (str(ref.namespace)) return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  const all = await options.objects.list(group, version, kr.resource, ns);
  let found: KubeObject[];
  if (ref.name) found = all.filter((o) => o.metadata?.name === ref.name);
  else {
    const sel = labelSelectorFromObject((asObj(ref.selector) ?? {}) as LabelSelectorObject);
    found = all.filter((o) => sel.matches((o.metadata?.labels as Record<string, string> | undefined) ?? {}));
  }
  if (found.length === 0 && ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { params: found.map((o) => ({ value: toCel(o, undefined), key: `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}` })) };
}

/** A policy's error under a binding (kube's PolicyError). */
interface PolicyError {
  policy: CompiledPolicy;
  binding: string;
  message: string;
}

/** Creates the MutatingAdmissionPolicy step. */
export function mutatingAdmissionPolicy(options: MutatingAdmissionPolicyOptions): MutatingStep {
  const { objects } = options;
  const compiled = new Map<string, CompiledPolicy>();
  function policyFor(obj: KubeObject): CompiledPolicy {
    const name = obj.metadata?.name ?? '';
    const cached = compiled.get(name);
    if (cached && cached.resourceVersion === (obj.metadata?.resourceVersion ?? '')) return cached;
    const p = compilePolicy(obj);
    compiled.set(name, p);
    return p;
  }

  /** Runs one invocation's mutations on attrs.object; errors are collected, the object replaced when it changed. */
  function invoke(inv: Invocation, attrs: AdmissionAttributes, base: Obj, errors: PolicyError[]): 'skipped' | 'unchanged' | 'changed' {
    const { policy } = inv;
    const fail = (message: string) => errors.push({ policy, binding: inv.binding, message });
    const variables: Obj = {};
    const activation = (object: KubeObject): Obj => ({ ...base, object: toCel(object, undefined), params: inv.param, variables });
    const conditionsOn = activation(attrs.object!);
    for (const c of policy.matchConditions) {
      const r = evaluate(c.expression, conditionsOn);
      if (!r.ok) {
        fail(`failed to evaluate matchCondition '${c.name}': ${r.error}`);
        return 'skipped';
      }
      if (r.value === false) return 'skipped';
    }
    // Variables are evaluated when first read, with the object as it is then.
    let scope = conditionsOn;
    for (const v of policy.variables) {
      let done: { value: unknown } | undefined;
      Object.defineProperty(variables, v.name, {
        enumerable: true,
        get: () => {
          if (!done) {
            const r = evaluate(v.expression, scope);
            if (!r.ok) throw new Error(`variable '${v.name}' resolved to error: ${r.error}`);
            done = { value: r.value };
          }
          return done.value;
        },
      });
    }
    const before = attrs.object!;
    let current = before;
    for (const m of policy.mutations) {
      scope = activation(current);
      const r = evaluate(m.expression, scope);
      if (!r.ok) {
        fail(`expression '${m.expression.source}' resulted in error: ${r.error}`);
        continue;
      }
      const { group, version, resource } = attrs.resource;
      try {
        const next = m.patchType === 'JSONPatch' ? applyJsonPatchResult(current, r.value) : applyConfigurationResult(current, r.value, options.schema?.(group, version, resource) ?? { schema: undefined, definitions: {} });
        if (next !== current) options.defaults?.(group, version, resource, next);
        current = next;
      } catch (err) {
        if (!(err instanceof MutationError || err instanceof ApiError)) throw err;
        fail(err.message);
      }
    }
    if (isDeepStrictEqual(current, before)) return 'unchanged';
    const target = attrs.object as Obj;
    for (const k of Object.keys(target)) delete target[k];
    Object.assign(target, current);
    return 'changed';
  }
  // The IfNeeded invocations run for a request's object, by policy/binding/param: what a
  // reinvocation by the chain (after a later step changed the object) runs again.
  const reinvocable = new WeakMap<object, Set<string>>();
  const keyOf = (inv: Invocation) => `${inv.policy.name}\u0000${inv.binding}\u0000${inv.paramKey}`;

  return {
    name: 'MutatingAdmissionPolicy',
    operations: ['CREATE', 'UPDATE', 'CONNECT'],
    async admit(attrs) {
      if (!attrs.object) return;
      const reinvoking = attrs.reinvocation?.isReinvoke === true;
      const again = reinvoking ? reinvocable.get(attrs.object) : undefined;
      if (reinvoking && !again?.size) return;
      if (isAdmissionConfiguration(attrs.resource)) return;
      const { source } = options;
      const bindings = source ? source.bindings() : await objects.list(GROUP, MUTATING_POLICY_VERSION, 'mutatingadmissionpolicybindings', '');
      if (bindings.length === 0) return;
      const policyList = source ? source.policies() : await objects.list(GROUP, MUTATING_POLICY_VERSION, 'mutatingadmissionpolicies', '');
      if (policyList.length === 0) return;
      // A policy with a binding: its expressions are compiled below.
      await loadCel();
      const policies = new Map(policyList.map((p) => [p.metadata?.name ?? '', p]));
      let nsObject: Promise<KubeObject | undefined> | undefined;
      const isNamespace = attrs.kind.group === '' && attrs.kind.kind === 'Namespace';
      const namespace = () =>
        (nsObject ??= !attrs.namespace || isNamespace ? Promise.resolve(undefined) : objects.namespace ? objects.namespace(attrs.namespace) : objects.list('', 'v1', 'namespaces', '').then((all) => all.find((n) => n.metadata?.name === attrs.namespace)));
      const errors: PolicyError[] = [];
      const invocations: Invocation[] = [];
      const sorted = [...bindings].sort((a, b) => str(asObj(a.spec)?.policyName).localeCompare(str(asObj(b.spec)?.policyName)) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      for (const binding of sorted) {
        const spec = asObj(binding.spec) ?? {};
        const policyObj = policies.get(str(spec.policyName));
        if (!policyObj) continue;
        const policy = policyFor(policyObj);
        if (!(await matchesResources(policy.matchConstraints, attrs, namespace, true))) continue;
        const mr = asObj(spec.matchResources) as MatchResources | undefined;
        if (mr && !(await matchesResources(mr, attrs, namespace, false))) continue;
        const bindingName = binding.metadata?.name ?? '';
        const p = await collectParams(options, policy, binding as Obj, attrs);
        if ('error' in p) {
          errors.push({ policy, binding: bindingName, message: p.error });
          continue;
        }
        for (const param of p.params) invocations.push({ policy, binding: bindingName, param: param.value, paramKey: param.key });
      }
      if (invocations.length) {
        const ns = await namespace();
        const base: Obj = {
          oldObject: attrs.oldObject ? toCel(attrs.oldObject, undefined) : null,
          request: requestOf(attrs),
          namespaceObject: ns ? toCel(ns, undefined) : null,
          authorizer: null,
        };
        if (again) {
          // The chain's reinvocation: the IfNeeded invocations, once.
          for (const inv of invocations) if (again.has(keyOf(inv))) invoke(inv, attrs, base, errors);
        } else {
          // reinvocationPolicy IfNeeded: an invocation whose output a later one changed runs once more.
          const invokedIfNeeded: Invocation[] = [];
          const reinvoke = new Set<Invocation>();
          for (const inv of invocations) {
            const outcome = invoke(inv, attrs, base, errors);
            if (outcome === 'changed') for (const earlier of invokedIfNeeded) reinvoke.add(earlier);
            if (outcome !== 'skipped' && inv.policy.reinvocationPolicy === 'IfNeeded') invokedIfNeeded.push(inv);
          }
          for (const inv of invocations) if (reinvoke.has(inv)) invoke(inv, attrs, base, errors);
          if (invokedIfNeeded.length) {
            reinvocable.set(attrs.object, new Set(invokedIfNeeded.map(keyOf)));
            attrs.reinvocation?.requestReinvocation();
          }
        }
      }
      const failing = errors.filter((e) => e.policy.failurePolicy === 'Fail');
      const first = failing[0];
      if (!first) return;
      const message = (e: PolicyError) => `policy '${e.policy.name}' with binding '${e.binding}' denied request: ${e.message}`;
      throw new ApiError(403, 'Invalid', message(first), {
        ...(attrs.name ? { name: attrs.name } : {}),
        ...(attrs.resource.group ? { group: attrs.resource.group } : {}),
        kind: attrs.resource.resource,
        causes: failing.map((e) => ({ message: message(e) })),
      });
    },
  };
}
