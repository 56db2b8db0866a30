/**
 * RBAC policy rules: how one rule matches the attributes of a request, and the words
 * kube-apiserver answers a refused request with.
 */
import { ApiError, goQuote, serviceAccountUsername } from '@kplane/api';
import type { AuthorizationAttributes, UserInfo } from '../types.js';

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** rbac.authorization.k8s.io/v1 Subject. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbac.authorization.k8s.io/v1 RoleRef. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

const ALL = '*';

/** Does the rule name the verb (or `*`)? */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

/** Does the rule name the API group (or `*`)? */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

/**
 * Does the rule name the resource? `combined` is `resource` or `resource/subresource`; a rule
 * resource `*` matches everything, `*\/sub` matches any resource's `sub` subresource.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** Does the rule allow the name? A rule without resourceNames allows every name. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Does the rule name the non-resource path (exactly, `*`, or as a prefix ending in `*`)? */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Does the rule name `resource` (with `subresource`, when not empty)? The same as resourceMatches, without building `resource/subresource`. */
function resourceMatchesParts(rule: PolicyRule, resource: string, subresource: string): boolean {
  const list = rule.resources;
  if (list === undefined) return false;
  for (let i = 0; i < list.length; i++) {
    const r = list[i]!;
    if (r === ALL) return true;
    if (subresource === '') {
      if (r === resource) return true;
      continue;
    }
    const slash = resource.length;
    if (r.length === slash + 1 + subresource.length && r.charCodeAt(slash) === 47 && r.startsWith(resource) && r.endsWith(subresource)) return true;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** Does one rule allow the request? */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.resourceRequest) {
    if (rule.apiGroups === undefined || !apiGroupMatches(rule, attrs.apiGroup ?? '')) return false;
    return resourceMatchesParts(rule, attrs.resource ?? '', attrs.subresource ?? '') && resourceNameMatches(rule, attrs.name ?? '');
  }
  return nonResourceURLMatches(rule, attrs.path ?? '');
}

/** The part of kube-apiserver's 403 message that says who cannot do what. */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = goQuote(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path ?? '')}`;
  const resource = attrs.subresource ? `${attrs.resource ?? ''}/${attrs.subresource}` : (attrs.resource ?? '');
  const where = attrs.namespace ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup ?? '')} ${where}`;
}

/**
 * kube-apiserver's 403 for a refused request: `<resource>[.<group>] ["<name>"] is forbidden:
 * <who cannot what>[: <reason>]`, or `forbidden: ...` for a non-resource path.
 */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): ApiError {
  const what = forbiddenMessage(attrs) + (reason ? `: ${reason}` : '');
  if (!attrs.resourceRequest || !attrs.resource) return new ApiError(403, 'Forbidden', `forbidden: ${what}`, {});
  const group = attrs.apiGroup ?? '';
  const qualified = group ? `${attrs.resource}.${group}` : attrs.resource;
  const target = attrs.name ? `${qualified} ${goQuote(attrs.name)}` : qualified;
  return new ApiError(403, 'Forbidden', `${target} is forbidden: ${what}`, {
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(group ? { group } : {}),
    kind: attrs.resource,
  });
}

export { serviceAccountUsername, splitServiceAccountUsername } from '@kplane/api';

/** Does a binding's subject name the user? A ServiceAccount without a namespace takes the binding's. */
export function subjectAppliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return !!ns && user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}
