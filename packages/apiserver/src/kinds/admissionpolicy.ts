/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their bindings: defaults
 * (SetDefaults_ValidatingAdmissionPolicySpec, SetDefaults_MatchResources), validation of the
 * spec as kube-apiserver checks it, Table columns. Enforcement is the admission step in
 * `admission/policy/`.
 */
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import { compileExpression } from '../admission/policy/cel.js';
import { loadCel } from '../crd/cel/load.js';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { asObj, formatLabelSelector, objs, STANDARD_VERBS, type Obj } from './util.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const NOT_FOUND_ACTIONS = ['Allow', 'Deny'];

/** SetDefaults_MatchResources and SetDefaults_NamedRuleWithOperations. */
export function defaultMatchResources(m: Obj): void {
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const list of [m.resourceRules, m.excludeResourceRules]) for (const r of objs(list)) r.scope ??= '*';
}

function defaultPolicy(obj: KubeObject): void {
  const spec = asObj(obj.spec);
  if (!spec) return;
  spec.failurePolicy ??= 'Fail';
  const mc = asObj(spec.matchConstraints);
  if (mc) defaultMatchResources(mc);
}

/** A policy binding's defaults: those of its spec.matchResources. */
export function defaultPolicyBinding(obj: KubeObject): void {
  const mr = asObj(asObj(obj.spec)?.matchResources);
  if (mr) defaultMatchResources(mr);
}

/** spec.paramKind of a policy: kind and apiVersion required when it is set. */
export function validateParamKind(spec: Obj, out: StatusCause[]): void {
  const pk = asObj(spec.paramKind);
  if (!pk) return;
  if (!pk.kind) out.push(fieldRequired('spec.paramKind.kind'));
  if (!pk.apiVersion) out.push(fieldRequired('spec.paramKind.apiVersion'));
}

/** spec.paramRef of a policy binding: name or selector, and a parameterNotFoundAction. */
export function validateParamRef(spec: Obj, out: StatusCause[]): void {
  const ref = asObj(spec.paramRef);
  if (!ref) return;
  if (ref.name && ref.selector) out.push(fieldForbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
  if (!ref.name && !ref.selector) out.push(fieldRequired('spec.paramRef', 'one of name or selector must be specified'));
  if (ref.parameterNotFoundAction === undefined) out.push(fieldRequired('spec.paramRef.parameterNotFoundAction'));
  else if (!NOT_FOUND_ACTIONS.includes(String(ref.parameterNotFoundAction))) out.push(fieldNotSupported('spec.paramRef.parameterNotFoundAction', ref.parameterNotFoundAction, NOT_FOUND_ACTIONS));
}

/** A policy's Table: NAME, the count of its rules (`column` over spec[`field`]), PARAMKIND, AGE. */
export function policyTable(column: { name: string; description: string }, field: string): TableSpec {
  return {
    columns: [
      NAME_COLUMN,
      { name: column.name, type: 'integer', description: column.description, priority: 0 },
      { name: 'ParamKind', type: 'string', description: 'ParamKind specifies the kind of resources used to parameterize this policy', priority: 0 },
      AGE_COLUMN,
    ],
    row: (obj, now) => {
      const spec = asObj(obj.spec) ?? {};
      const pk = asObj(spec.paramKind);
      return [obj.metadata?.name ?? '', objs(spec[field]).length, pk ? `${String(pk.apiVersion ?? '')}/${String(pk.kind ?? '')}` : '<unset>', translateTimestampSince(obj.metadata?.creationTimestamp, now)];
    },
  };
}

/** A policy binding's Table: NAME, POLICYNAME, PARAMREF, AGE. */
export const POLICY_BINDING_TABLE: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'PolicyName', type: 'string', description: 'PolicyName indicates the policy definition which the policy binding binded to', priority: 0 },
    { name: 'ParamRef', type: 'string', description: 'ParamRef indicates the param resource which sets the configration param', priority: 0 },
    AGE_COLUMN,
  ],
  row: (obj, now) => {
    const spec = asObj(obj.spec) ?? {};
    const ref = asObj(spec.paramRef);
    const refCell = !ref ? '<unset>' : ref.name ? `${ref.namespace ? String(ref.namespace) : '*'}/${String(ref.name)}` : formatLabelSelector(ref.selector);
    return [obj.metadata?.name ?? '', String(spec.policyName ?? ''), refCell, translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

function validateRules(list: unknown, path: string, out: StatusCause[]): void {
  objs(list).forEach((r, i) => {
    const p = `${path}[${i}]`;
    for (const f of ['operations', 'apiGroups', 'apiVersions', 'resources']) {
      const v = r[f];
      if (!Array.isArray(v) || v.length === 0) out.push(fieldRequired(`${p}.${f}`));
      else if (v.includes('*') && v.length > 1) out.push(fieldInvalid(`${p}.${f}`, v, "if '*' is present, must not specify other " + (f === 'operations' ? 'operations' : f === 'apiGroups' ? 'API groups' : f === 'apiVersions' ? 'API versions' : 'resources')));
    }
    if (r.scope !== undefined && !SCOPES.includes(String(r.scope))) out.push(fieldNotSupported(`${p}.scope`, r.scope, SCOPES));
  });
}

/** ValidateMatchResources: matchPolicy, the rules (resourceRules required on a policy's matchConstraints). */
export function validateMatchResources(m: Obj, path: string, requireRules: boolean, out: StatusCause[]): void {
  if (m.matchPolicy !== undefined && !MATCH_POLICIES.includes(String(m.matchPolicy))) out.push(fieldNotSupported(`${path}.matchPolicy`, m.matchPolicy, MATCH_POLICIES));
  if (requireRules && objs(m.resourceRules).length === 0) out.push(fieldRequired(`${path}.resourceRules`));
  validateRules(m.resourceRules, `${path}.resourceRules`, out);
  validateRules(m.excludeResourceRules, `${path}.excludeResourceRules`, out);
}

/** A CEL expression that does not compile: Invalid with the compiler's message. */
function checkExpression(expr: unknown, path: string, out: StatusCause[]): void {
  if (typeof expr !== 'string' || !expr.trim()) return;
  const c = compileExpression(expr);
  if (c.error) out.push(fieldInvalid(path, expr, c.error));
}

function validateNamed(list: unknown, path: string, out: StatusCause[], what: 'expression' | 'valueExpression' = 'expression'): void {
  const seen = new Set<string>();
  objs(list).forEach((x, i) => {
    const name = typeof x.name === 'string' ? x.name : '';
    if (!name) out.push(fieldRequired(`${path}[${i}].name`));
    else if (seen.has(name)) out.push(fieldDuplicate(`${path}[${i}].name`, name));
    seen.add(name);
    if (typeof x[what] !== 'string' || !(x[what] as string).trim()) out.push(fieldRequired(`${path}[${i}].${what}`));
    else checkExpression(x[what], `${path}[${i}].${what}`, out);
  });
}

/** ValidateValidatingAdmissionPolicy: the spec's parts (CEL compile errors are reported in status.typeChecking). */
function validatePolicy(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = asObj(obj.spec) ?? {};
  if (spec.failurePolicy !== undefined && !FAILURE_POLICIES.includes(String(spec.failurePolicy))) out.push(fieldNotSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  validateParamKind(spec, out);
  const mc = asObj(spec.matchConstraints);
  if (!mc) out.push(fieldRequired('spec.matchConstraints'));
  else validateMatchResources(mc, 'spec.matchConstraints', true, out);
  const validations = objs(spec.validations);
  if (validations.length === 0 && objs(spec.auditAnnotations).length === 0) {
    out.push(fieldRequired('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    out.push(fieldRequired('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
  }
  validations.forEach((v, i) => {
    const p = `spec.validations[${i}]`;
    if (typeof v.expression !== 'string' || !v.expression.trim()) out.push(fieldRequired(`${p}.expression`));
    else checkExpression(v.expression, `${p}.expression`, out);
    checkExpression(v.messageExpression, `${p}.messageExpression`, out);
    if (typeof v.message === 'string' && /[\n\r]/.test(v.message)) out.push(fieldInvalid(`${p}.message`, v.message, 'message must not contain line breaks'));
    if (v.reason !== undefined && !REASONS.includes(String(v.reason))) out.push(fieldNotSupported(`${p}.reason`, v.reason, REASONS));
  });
  objs(spec.auditAnnotations).forEach((a, i) => {
    if (typeof a.key !== 'string' || !a.key) out.push(fieldRequired(`spec.auditAnnotations[${i}].key`));
    if (typeof a.valueExpression !== 'string' || !a.valueExpression.trim()) out.push(fieldRequired(`spec.auditAnnotations[${i}].valueExpression`));
    else checkExpression(a.valueExpression, `spec.auditAnnotations[${i}].valueExpression`, out);
  });
  validateNamed(spec.matchConditions, 'spec.matchConditions', out);
  validateNamed(spec.variables, 'spec.variables', out);
  return out;
}

/** ValidateValidatingAdmissionPolicyBinding. */
function validateBinding(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = asObj(obj.spec) ?? {};
  if (typeof spec.policyName !== 'string' || !spec.policyName) out.push(fieldRequired('spec.policyName'));
  const actions = Array.isArray(spec.validationActions) ? (spec.validationActions as unknown[]) : [];
  if (actions.length === 0) out.push(fieldRequired('spec.validationActions'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(String(a))) out.push(fieldNotSupported(`spec.validationActions[${i}]`, a, ACTIONS));
    else if (seen.has(String(a))) out.push(fieldDuplicate(`spec.validationActions[${i}]`, a));
    seen.add(String(a));
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    out.push(fieldInvalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  validateParamRef(spec, out);
  const mr = asObj(spec.matchResources);
  if (mr) validateMatchResources(mr, 'spec.matchResources', false, out);
  return out;
}

/** The validatingadmissionpolicies resource (status subresource: typeChecking). */
export function validatingAdmissionPolicyResource(): ResourceType {
  return {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    listKind: 'ValidatingAdmissionPolicyList',
    singular: 'validatingadmissionpolicy',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/validatingadmissionpolicies',
    schemaName: 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy',
    strategy: {
      generation: true,
      defaults: defaultPolicy,
      validate: (obj, _old, _w, req) => (req?.subresource === 'status' ? [] : validatePolicy(obj)),
      // Validation compiles the policy's expressions.
      beforeValidate: () => loadCel(),
      table: policyTable({ name: 'Validations', description: 'Validations indicates the number of validation rules defined in this configuration' }, 'validations'),
    },
  };
}

/** The validatingadmissionpolicybindings resource. */
export function validatingAdmissionPolicyBindingResource(): ResourceType {
  return {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    listKind: 'ValidatingAdmissionPolicyBindingList',
    singular: 'validatingadmissionpolicybinding',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/validatingadmissionpolicybindings',
    schemaName: 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
    strategy: {
      generation: true,
      defaults: defaultPolicyBinding,
      validate: validateBinding,
      table: POLICY_BINDING_TABLE,
    },
  };
}
