/**
 * admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicies and their bindings (alpha in
 * Kubernetes 1.32): defaults (failurePolicy Fail, reinvocationPolicy Never, MatchResources'),
 * validation of the spec as kube-apiserver checks it (mutations and their patch types, CEL
 * expressions compiled, operations without DELETE), Table columns. Enforcement is the admission
 * step in `admission/policy/mutating/`.
 */
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import { compileExpression } from '../admission/policy/cel.js';
import { loadCel } from '../crd/cel/load.js';
import { compileMutationExpression } from '../admission/policy/mutating/cel.js';
import type { ResourceType } from '../registry/resource.js';
import { defaultMatchResources, defaultPolicyBinding, POLICY_BINDING_TABLE, policyTable, validateMatchResources, validateParamKind, validateParamRef } from './admissionpolicy.js';
import { asObj, objs, STANDARD_VERBS, type Obj } from './util.js';

const GROUP = 'admissionregistration.k8s.io';
const VERSION = 'v1alpha1';
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];

function defaultPolicy(obj: KubeObject): void {
  const spec = asObj(obj.spec);
  if (!spec) return;
  spec.failurePolicy ??= 'Fail';
  spec.reinvocationPolicy ??= 'Never';
  const mc = asObj(spec.matchConstraints);
  if (mc) defaultMatchResources(mc);
}

/** Mutating policies match CREATE, UPDATE and CONNECT only. */
function validateOperations(m: Obj, path: string, out: StatusCause[]): void {
  for (const list of ['resourceRules', 'excludeResourceRules']) {
    objs(m[list]).forEach((r, i) => {
      (Array.isArray(r.operations) ? r.operations : []).forEach((op, j) => {
        if (!OPERATIONS.includes(String(op))) out.push(fieldNotSupported(`${path}.${list}[${i}].operations[${j}]`, op, OPERATIONS));
      });
    });
  }
}

function checkCompiles(expr: unknown, path: string, out: StatusCause[], mutation: boolean): void {
  if (typeof expr !== 'string' || !expr.trim()) {
    out.push(fieldRequired(path));
    return;
  }
  const c = mutation ? compileMutationExpression(expr) : compileExpression(expr);
  if (c.error) out.push(fieldInvalid(path, expr, c.error));
}

const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** matchConditions (unique names) or variables (CEL identifiers, kube's messages). */
function validateNamed(list: unknown, path: string, out: StatusCause[], variables: boolean): void {
  const seen = new Set<string>();
  objs(list).forEach((x, i) => {
    const name = typeof x.name === 'string' ? x.name.trim() : '';
    if (!name) out.push(fieldRequired(`${path}[${i}].name`, variables ? 'name is not specified' : undefined));
    else if (variables && (!CEL_IDENT.test(name) || CEL_RESERVED.has(name))) out.push(fieldInvalid(`${path}[${i}].name`, x.name, 'name is not a valid CEL identifier'));
    else if (seen.has(name)) out.push(fieldDuplicate(`${path}[${i}].name`, name));
    seen.add(name);
    if (variables && (typeof x.expression !== 'string' || !x.expression.trim())) out.push(fieldRequired(`${path}[${i}].expression`, 'expression is not specified'));
    else checkCompiles(x.expression, `${path}[${i}].expression`, out, variables);
  });
}

/** ValidateMutatingAdmissionPolicy. */
function validatePolicy(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = asObj(obj.spec) ?? {};
  if (spec.failurePolicy !== undefined && !FAILURE_POLICIES.includes(String(spec.failurePolicy))) out.push(fieldNotSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (spec.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(String(spec.reinvocationPolicy))) {
    out.push(fieldNotSupported('spec.reinvocationPolicy', spec.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  validateParamKind(spec, out);
  const mc = asObj(spec.matchConstraints);
  if (!mc) out.push(fieldRequired('spec.matchConstraints'));
  else {
    validateMatchResources(mc, 'spec.matchConstraints', true, out);
    validateOperations(mc, 'spec.matchConstraints', out);
  }
  const mutations = objs(spec.mutations);
  if (mutations.length === 0) out.push(fieldRequired('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => {
    const p = `spec.mutations[${i}]`;
    if (m.patchType === undefined || m.patchType === '') {
      out.push(fieldRequired(`${p}.patchType`));
      return;
    }
    if (!PATCH_TYPES.includes(String(m.patchType))) {
      out.push(fieldNotSupported(`${p}.patchType`, m.patchType, PATCH_TYPES));
      return;
    }
    const [own, other] = m.patchType === 'JSONPatch' ? (['jsonPatch', 'applyConfiguration'] as const) : (['applyConfiguration', 'jsonPatch'] as const);
    if (m[other] !== undefined && m[other] !== null) out.push(fieldForbidden(`${p}.${other}`, `must not be specified when patchType is ${String(m.patchType)}`));
    const body = asObj(m[own]);
    if (!body) out.push(fieldRequired(`${p}.${own}`, `must be specified when patchType is ${String(m.patchType)}`));
    else if (typeof body.expression !== 'string' || !body.expression.trim()) out.push(fieldRequired(`${p}.${own}.expression`, 'expression is not specified'));
    else checkCompiles(body.expression, `${p}.${own}.expression`, out, true);
  });
  validateNamed(spec.matchConditions, 'spec.matchConditions', out, false);
  validateNamed(spec.variables, 'spec.variables', out, true);
  return out;
}

/** ValidateMutatingAdmissionPolicyBinding. */
function validateBinding(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = asObj(obj.spec) ?? {};
  if (typeof spec.policyName !== 'string' || !spec.policyName) out.push(fieldRequired('spec.policyName'));
  validateParamRef(spec, out);
  const mr = asObj(spec.matchResources);
  if (mr) {
    validateMatchResources(mr, 'spec.matchResources', false, out);
    validateOperations(mr, 'spec.matchResources', out);
  }
  return out;
}

/** The mutatingadmissionpolicies resource. */
export function mutatingAdmissionPolicyResource(): ResourceType {
  return {
    group: GROUP,
    version: VERSION,
    resource: 'mutatingadmissionpolicies',
    kind: 'MutatingAdmissionPolicy',
    listKind: 'MutatingAdmissionPolicyList',
    singular: 'mutatingadmissionpolicy',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/mutatingadmissionpolicies',
    schemaName: 'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicy',
    strategy: {
      generation: true,
      defaults: defaultPolicy,
      validate: (obj) => validatePolicy(obj),
      // Validation compiles the policy's expressions.
      beforeValidate: () => loadCel(),
      table: policyTable({ name: 'Mutations', description: 'Mutations indicates the number of mutations defined in this policy' }, 'mutations'),
    },
  };
}

/** The mutatingadmissionpolicybindings resource. */
export function mutatingAdmissionPolicyBindingResource(): ResourceType {
  return {
    group: GROUP,
    version: VERSION,
    resource: 'mutatingadmissionpolicybindings',
    kind: 'MutatingAdmissionPolicyBinding',
    listKind: 'MutatingAdmissionPolicyBindingList',
    singular: 'mutatingadmissionpolicybinding',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/mutatingadmissionpolicybindings',
    schemaName: 'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicyBinding',
    strategy: {
      generation: true,
      defaults: defaultPolicyBinding,
      validate: validateBinding,
      table: POLICY_BINDING_TABLE,
    },
  };
}
