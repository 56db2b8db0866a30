/**
 * The ValidatingAdmissionPolicy admission step: for each ValidatingAdmissionPolicyBinding whose
 * policy matches the request (matchConstraints, the binding's matchResources, matchConditions),
 * evaluates the policy's variables and validations with its params, and enforces the failures
 * by the binding's validationActions: Deny refuses the request with the first failure's reason,
 * Warn adds a Warning header, Audit records an audit annotation. Expressions are compiled once
 * per policy generation.
 */
import { ApiError, labelSelectorFromObject, qualifiedResource, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import type { AdmissionObjects } from '../objects.js';
import type { AdmissionAttributes, ValidatingStep } from '../types.js';
import { toCel } from '../../crd/cel/rules.js';
import { compileExpression, evaluate, type CompiledExpression } from './cel.js';
import { matchesResources, type MatchResources } from './match.js';

const GROUP = 'admissionregistration.k8s.io';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

interface CompiledValidation {
  expression: CompiledExpression;
  message: string;
  messageExpression?: CompiledExpression;
  reason: string;
}

/** A policy with its expressions compiled, kept while its resourceVersion holds. */
interface CompiledPolicy {
  resourceVersion: string;
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints: MatchResources;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; expression: CompiledExpression }[];
}

function compilePolicy(obj: KubeObject): CompiledPolicy {
  const spec = asObj(obj.spec) ?? {};
  const pk = asObj(spec.paramKind);
  return {
    resourceVersion: obj.metadata?.resourceVersion ?? '',
    name: obj.metadata?.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: (asObj(spec.matchConstraints) ?? {}) as MatchResources,
    matchConditions: objs(spec.matchConditions).map((c) => ({ name: str(c.name), expression: compileExpression(str(c.expression)) })),
    variables: objs(spec.variables).map((v) => ({ name: str(v.name), expression: compileExpression(str(v.expression)) })),
    validations: objs(spec.validations).map((v) => ({
      expression: compileExpression(str(v.expression)),
      message: str(v.message).trim(),
      messageExpression: str(v.messageExpression) ? compileExpression(str(v.messageExpression)) : undefined,
      reason: str(v.reason) || 'Invalid',
    })),
    auditAnnotations: objs(spec.auditAnnotations).map((a) => ({ key: str(a.key), expression: compileExpression(str(a.valueExpression)) })),
  };
}

/** One failed validation (or error) of a policy under a binding. */
interface Failure {
  message: string;
  reason: string;
}

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

/** What the step needs beyond the objects: the resource of a params kind. */
export interface ValidatingAdmissionPolicyOptions {
  objects: AdmissionObjects;
  /** The served resource of a kind (for paramKind); without it, params cannot be resolved. */
  kindResource?(group: string, version: string, kind: string): { resource: string; namespaced: boolean } | undefined;
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

/** Creates the ValidatingAdmissionPolicy step. */
export function validatingAdmissionPolicy(options: ValidatingAdmissionPolicyOptions): ValidatingStep {
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

  async function params(policy: CompiledPolicy, binding: Obj, attrs: AdmissionAttributes): Promise<{ params: unknown[] } | { error: string } | { notFound: true }> {
    if (!policy.paramKind) return { params: [null] };
    const ref = asObj(asObj(binding.spec)?.paramRef);
    if (!ref) return { error: `failed to configure binding: no paramRef specified for binding '${binding.metadata ? str(asObj(binding.metadata)?.name) : ''}'` };
    const [group, version] = policy.paramKind.apiVersion.includes('/') ? (policy.paramKind.apiVersion.split('/', 2) as [string, string]) : ['', policy.paramKind.apiVersion];
    const kr = options.kindResource?.(group, version, policy.paramKind.kind);
    if (!kr) return { error: `failed to configure policy: failed to find resource referenced by paramKind: '${group ? `${group}/` : ''}${version}, Kind=${policy.paramKind.kind}'` };
    let ns = '';
    if (kr.namespaced) {
      ns = str(ref.namespace) || attrs.namespace;
      if (!ns) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
    }
    const all = await objects.list(group, version, kr.resource, ns);
    let found: KubeObject[];
    if (ref.name) found = all.filter((o) => o.metadata?.name === ref.name);
    else {
      const sel = labelSelectorFromObject((asObj(ref.selector) ?? {}) as LabelSelectorObject);
      found = all.filter((o) => sel.matches((o.metadata?.labels as Record<string, string> | undefined) ?? {}));
    }
    if (found.length === 0) return ref.parameterNotFoundAction === 'Deny' ? { notFound: true } : { params: [] };
    return { params: found.map((o) => toCel(o, undefined)) };
  }

  /** Evaluates a policy against one params object: the failures found. */
  function validateWith(policy: CompiledPolicy, base: Obj): Failure[] | 'skip' {
    const failPolicy = (message: string): Failure[] | 'skip' => (policy.failurePolicy === 'Fail' ? [{ message, reason: 'Invalid' }] : 'skip');
    const variables: Obj = {};
    const activation: Obj = { ...base, variables };
    let conditionError: string | undefined;
    for (const c of policy.matchConditions) {
      const r = evaluate(c.expression, activation);
      if (!r.ok) conditionError ??= `failed to evaluate matchCondition '${c.name}': ${r.error}`;
      else if (r.value === false) return 'skip';
    }
    if (conditionError) return failPolicy(conditionError);
    for (const v of policy.variables) {
      const r = evaluate(v.expression, activation);
      if (r.ok) variables[v.name] = r.value;
    }
    const out: Failure[] = [];
    for (const v of policy.validations) {
      const r = evaluate(v.expression, activation);
      if (!r.ok || typeof r.value !== 'boolean') {
        const error = r.ok ? 'validation expression must evaluate to bool' : r.error;
        if (policy.failurePolicy === 'Fail') out.push({ message: `expression '${v.expression.source}' resulted in error: ${error}`, reason: 'Invalid' });
        continue;
      }
      if (r.value) continue;
      let message = '';
      if (v.messageExpression) {
        const m = evaluate(v.messageExpression, activation);
        if (m.ok && typeof m.value === 'string' && !/[\n\r]/.test(m.value.trim())) message = m.value.trim();
      }
      message ||= v.message || `failed expression: ${v.expression.source.trim()}`;
      out.push({ message, reason: v.reason });
    }
    return out;
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
    async validate(attrs) {
      const bindings = await objects.list(GROUP, 'v1', 'validatingadmissionpolicybindings', '');
      if (bindings.length === 0) return;
      const policies = new Map((await objects.list(GROUP, 'v1', 'validatingadmissionpolicies', '')).map((p) => [p.metadata?.name ?? '', p]));
      let nsObject: Promise<KubeObject | undefined> | undefined;
      const namespace = () =>
        (nsObject ??= attrs.namespace ? objects.list('', 'v1', 'namespaces', '').then((all) => all.find((n) => n.metadata?.name === attrs.namespace)) : Promise.resolve(undefined));
      let request: Obj | undefined;
      const denied: { policy: string; binding: string; failure: Failure }[] = [];
      for (const binding of bindings) {
        const spec = asObj(binding.spec) ?? {};
        const policyObj = policies.get(str(spec.policyName));
        if (!policyObj) continue;
        const policy = policyFor(policyObj);
        if (!(await matchesResources(policy.matchConstraints, attrs, namespace, true))) continue;
        const mr = asObj(spec.matchResources) as MatchResources | undefined;
        if (mr && !(await matchesResources(mr, attrs, namespace, false))) continue;
        const bindingName = binding.metadata?.name ?? '';
        const failures: Failure[] = [];
        const p = await params(policy, binding as Obj, attrs);
        if ('error' in p) {
          if (policy.failurePolicy === 'Fail') failures.push({ message: p.error, reason: 'Invalid' });
        } else if ('notFound' in p) {
          failures.push({ message: 'no params found for policy binding with `Deny` parameterNotFoundAction', reason: 'Invalid' });
        } else {
          request ??= requestOf(attrs);
          const ns = await namespace();
          const base: Obj = {
            object: attrs.object ? toCel(attrs.object, undefined) : null,
            oldObject: attrs.oldObject ? toCel(attrs.oldObject, undefined) : null,
            request,
            namespaceObject: ns ? toCel(ns, undefined) : null,
            authorizer: null,
          };
          for (const param of p.params) {
            const r = validateWith(policy, { ...base, params: param });
            if (r !== 'skip') failures.push(...r);
          }
        }
        if (failures.length === 0) continue;
        const actions = Array.isArray(spec.validationActions) ? (spec.validationActions as string[]) : [];
        for (const f of failures) {
          if (actions.includes('Deny')) denied.push({ policy: policy.name, binding: bindingName, failure: f });
          if (actions.includes('Warn')) attrs.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${f.message}`);
        }
      }
      const first = denied[0];
      if (!first) return;
      const message = `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.failure.message}`;
      const target = attrs.name ? `${qualifiedResource(attrs.resource.group, attrs.resource.resource)} "${attrs.name}"` : qualifiedResource(attrs.resource.group, attrs.resource.resource);
      throw new ApiError(reasonToCode(first.failure.reason), first.failure.reason, `${target} is forbidden: ${message}`, {
        ...(attrs.name ? { name: attrs.name } : {}),
        ...(attrs.resource.group ? { group: attrs.resource.group } : {}),
        kind: attrs.resource.resource,
        causes: [{ message }],
      });
    },
  };
}
