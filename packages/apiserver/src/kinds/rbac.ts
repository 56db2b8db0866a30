/** rbac.authorization.k8s.io/v1 roles, clusterroles, rolebindings and clusterrolebindings. */
import { ApiError, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, isDNS1123Subdomain, nameIsPathSegment, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, StrategyContext, TableSpec } from '../registry/resource.js';
import type { UserInfo } from '../auth/types.js';
import { MASTERS_GROUP } from '../auth/types.js';
import { rulesOf } from '../auth/rbac/authorizer.js';
import { escalationMessage } from '../auth/rbac/escalation.js';
import { translateTimestampSince } from './age.js';
import { CREATED_AT_TABLE } from './crd.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, goStringSlice, invalidRendered, objs, semanticEqual, str, type Obj } from './util.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function validateRules(obj: KubeObject, namespaced: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  objs((obj as Obj).rules).forEach((r, i) => {
    const p = `rules[${i}]`;
    const list = (k: string) => (Array.isArray(r[k]) ? (r[k] as unknown[]) : []);
    if (list('verbs').length === 0) out.push(fieldRequired(`${p}.verbs`, 'verbs must contain at least one value'));
    if (list('nonResourceURLs').length > 0) {
      if (namespaced) out.push(invalidRendered(`${p}.nonResourceURLs`, goStringSlice(r.nonResourceURLs), 'namespaced rules cannot apply to non-resource URLs'));
      if (list('apiGroups').length > 0 || list('resources').length > 0 || list('resourceNames').length > 0) {
        out.push(invalidRendered(`${p}.nonResourceURLs`, goStringSlice(r.nonResourceURLs), 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (list('apiGroups').length === 0) out.push(fieldRequired(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (list('resources').length === 0) out.push(fieldRequired(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return out;
}

function roleRef(obj: KubeObject): Obj {
  return (asObj((obj as Obj).roleRef) ?? {}) as Obj;
}

function goRoleRef(ref: Obj): string {
  return `rbac.RoleRef{APIGroup:${goQuote(str(ref.apiGroup))}, Kind:${goQuote(str(ref.kind))}, Name:${goQuote(str(ref.name))}}`;
}

function validateBinding(obj: KubeObject, old: KubeObject | undefined, namespaced: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  const ref = roleRef(obj);
  if (str(ref.apiGroup) !== RBAC_GROUP) out.push(fieldNotSupported('roleRef.apiGroup', str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) out.push(fieldNotSupported('roleRef.kind', str(ref.kind), kinds));
  const name = str(ref.name);
  if (!name) out.push(fieldRequired('roleRef.name'));
  else if (name.includes('/') || name.includes('%')) out.push(fieldInvalid('roleRef.name', name, name.includes('/') ? "may not contain '/'" : "may not contain '%'"));
  objs((obj as Obj).subjects).forEach((s, i) => {
    const p = `subjects[${i}]`;
    const sn = str(s.name);
    if (!sn) out.push(fieldRequired(`${p}.name`));
    const apiGroup = str(s.apiGroup);
    switch (s.kind) {
      case 'ServiceAccount':
        if (sn) for (const m of isDNS1123Subdomain(sn)) out.push(fieldInvalid(`${p}.name`, sn, m));
        if (apiGroup) out.push(fieldNotSupported(`${p}.apiGroup`, apiGroup, ['']));
        if (!namespaced && !str(s.namespace)) out.push(fieldRequired(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (apiGroup !== RBAC_GROUP) out.push(fieldNotSupported(`${p}.apiGroup`, apiGroup, [RBAC_GROUP]));
        break;
      default:
        out.push(fieldNotSupported(`${p}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
    }
  });
  if (old && !semanticEqual(ref, roleRef(old))) out.push(invalidRendered('roleRef', goRoleRef(ref), 'cannot change roleRef'));
  return out;
}

/** SetDefaults of bindings: roleRef.apiGroup and subjects' apiGroup. */
function defaultBinding(obj: KubeObject): void {
  const ref = asObj((obj as Obj).roleRef);
  if (ref && !str(ref.apiGroup)) ref.apiGroup = RBAC_GROUP;
  for (const s of objs((obj as Obj).subjects)) {
    if (s.apiGroup === undefined || s.apiGroup === '') {
      if (s.kind === 'ServiceAccount') s.apiGroup = '';
      else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
    }
  }
}

/** Only ownerReferences or finalizers changed (the garbage collector's writes are never escalations). */
function onlyGCFieldsChanged(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...m } = (o.metadata ?? {}) as Record<string, unknown>;
    return { ...o, metadata: m };
  };
  return semanticEqual(strip(obj), strip(old));
}

const FULL_AUTHORITY = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function escalationForbidden(resource: string, name: string, message: string): ApiError {
  return new ApiError(403, 'Forbidden', `${resource}.${RBAC_GROUP} ${goQuote(name)} is forbidden: ${message}`, { name: name || undefined, group: RBAC_GROUP, kind: resource });
}

/**
 * kube-apiserver's escalation check of a Role or ClusterRole write: allowed to system:masters,
 * to whoever holds `escalate` on it, or when the writer already holds every rule it grants.
 */
function admitRole(resource: 'roles' | 'clusterroles') {
  return (obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined, ctx: StrategyContext): void => {
    const policy = ctx.policy;
    if (!policy || !user || user.groups.includes(MASTERS_GROUP) || onlyGCFieldsChanged(obj, old)) return;
    const name = obj.metadata?.name ?? '';
    const namespace = resource === 'roles' ? obj.metadata?.namespace : undefined;
    const escalate = policy.authorize({ user, verb: 'escalate', resourceRequest: true, apiGroup: RBAC_GROUP, apiVersion: 'v1', resource, namespace, name: old ? name : '' });
    if (escalate.allowed) return;
    const owned = policy.rulesFor(user, namespace);
    const msg = escalationMessage(user, owned.rules, rulesOf(obj), owned.errors);
    if (msg) throw escalationForbidden(resource, name, msg);
    // An aggregationRule can gather anything: setting one takes every right.
    const aggregation = (obj as Obj).aggregationRule;
    if (aggregation !== undefined && aggregation !== null && !(old && semanticEqual(aggregation, (old as Obj).aggregationRule))) {
      if (escalationMessage(user, owned.rules, FULL_AUTHORITY, owned.errors)) throw escalationForbidden(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  };
}

/**
 * kube-apiserver's check of a RoleBinding or ClusterRoleBinding write: allowed to
 * system:masters, to whoever holds `bind` on the referenced role, or when the writer already
 * holds every rule of that role.
 */
function admitBinding(resource: 'rolebindings' | 'clusterrolebindings') {
  return (obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined, ctx: StrategyContext): void => {
    const policy = ctx.policy;
    if (!policy || !user || user.groups.includes(MASTERS_GROUP) || onlyGCFieldsChanged(obj, old)) return;
    const ref = roleRef(obj);
    const refKind = str(ref.kind);
    const namespace = resource === 'rolebindings' ? obj.metadata?.namespace : undefined;
    const bindName = obj.metadata?.name ?? '';
    const bind = policy.authorize({
      user,
      verb: 'bind',
      resourceRequest: true,
      apiGroup: RBAC_GROUP,
      resource: refKind === 'ClusterRole' ? 'clusterroles' : 'roles',
      namespace,
      name: str(ref.name),
    });
    if (bind.allowed) return;
    const rules = policy.roleRules({ apiGroup: str(ref.apiGroup), kind: refKind, name: str(ref.name) }, namespace);
    if (typeof rules === 'string') throw escalationForbidden(resource, bindName, rules);
    const owned = policy.rulesFor(user, namespace);
    const msg = escalationMessage(user, owned.rules, rules, owned.errors);
    if (msg) throw escalationForbidden(resource, bindName, msg);
  };
}

/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts. */
function subjectsCells(obj: KubeObject): [string, string, string] {
  const subjects = objs((obj as Obj).subjects);
  const pick = (kind: string, fmt: (s: Obj) => string) => subjects.filter((s) => s.kind === kind).map(fmt).join(', ');
  return [pick('User', (s) => str(s.name)), pick('Group', (s) => str(s.name)), pick('ServiceAccount', (s) => `${str(s.namespace)}/${str(s.name)}`)];
}

function bindingTable(what: string): TableSpec {
  return {
    columns: [
      NAME_COLUMN,
      { name: 'Role', type: 'string', description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.', priority: 0 },
      AGE_COLUMN,
      { name: 'Users', type: 'string', description: `Users in the ${what}`, priority: 1 },
      { name: 'Groups', type: 'string', description: `Groups in the ${what}`, priority: 1 },
      { name: 'ServiceAccounts', type: 'string', description: `ServiceAccounts in the ${what}`, priority: 1 },
    ],
    row(obj, now) {
      const ref = roleRef(obj);
      return [obj.metadata?.name ?? '', `${str(ref.kind)}/${str(ref.name)}`, translateTimestampSince(obj.metadata?.creationTimestamp, now), ...subjectsCells(obj)];
    },
  };
}

function rbacType(resource: string, kind: string, namespaced: boolean, strategy: ResourceType['strategy']): ResourceType {
  return {
    group: RBAC_GROUP,
    version: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    singular: resource.slice(0, -1),
    namespaced,
    verbs: STANDARD_VERBS,
    storagePrefix: `/registry/${resource}`,
    schemaName: `io.k8s.api.rbac.v1.${kind}`,
    strategy: { generation: false, nameValidator: nameIsPathSegment, ...strategy },
  };
}

/** The four RBAC resources. */
export function rbacResources(): ResourceType[] {
  return [
    rbacType('roles', 'Role', true, { validate: (o) => validateRules(o, true), admit: admitRole('roles'), table: CREATED_AT_TABLE }),
    rbacType('clusterroles', 'ClusterRole', false, { validate: (o) => validateRules(o, false), admit: admitRole('clusterroles'), table: CREATED_AT_TABLE }),
    rbacType('rolebindings', 'RoleBinding', true, {
      defaults: defaultBinding,
      validate: (o, old) => validateBinding(o, old, true),
      admit: admitBinding('rolebindings'),
      table: bindingTable('roleBinding'),
    }),
    rbacType('clusterrolebindings', 'ClusterRoleBinding', false, {
      defaults: defaultBinding,
      admit: admitBinding('clusterrolebindings'),
      validate: (o, old) => validateBinding(o, old, false),
      table: bindingTable('clusterRoleBinding'),
    }),
  ];
}
