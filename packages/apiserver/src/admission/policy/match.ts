/**
 * Whether a request matches a policy's matchConstraints or a binding's matchResources
 * (kube's matching of NamedRuleWithOperations, excludeResourceRules, namespaceSelector and
 * objectSelector). Rules match on the request's group, version, resource, subresource,
 * operation, scope and name.
 */
import { labelSelectorFromObject, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import type { AdmissionAttributes } from '../types.js';

/** One rule of matchResources (NamedRuleWithOperations). */
export interface PolicyRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  resourceNames?: string[];
  scope?: string;
}

/** A policy's matchConstraints or a binding's matchResources. */
export interface MatchResources {
  resourceRules?: PolicyRule[];
  excludeResourceRules?: PolicyRule[];
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  matchPolicy?: string;
}

const has = (list: readonly string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

/** "pods", "pods/status", "*", "*\/status", "pods/*" against a resource and subresource. */
function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const p of patterns ?? []) {
    if (p === '*/*') return true;
    const [res, sub = ''] = p.split('/', 2) as [string, string?];
    if (p === '*' && subresource === '') return true;
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

/** Whether one rule covers the request. */
export function ruleMatches(rule: PolicyRule, attrs: AdmissionAttributes): boolean {
  if (!has(rule.operations, attrs.operation)) return false;
  if (!has(rule.apiGroups, attrs.resource.group)) return false;
  if (!has(rule.apiVersions, attrs.resource.version)) return false;
  if (!resourceMatches(rule.resources, attrs.resource.resource, attrs.subresource)) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(attrs.name)) return false;
  const scope = rule.scope ?? '*';
  // A Namespace is cluster-scoped; other objects are namespaced when the request has a namespace.
  const namespaced = attrs.namespace !== '';
  if (scope === 'Cluster' && namespaced) return false;
  if (scope === 'Namespaced' && (!namespaced || (attrs.resource.group === '' && attrs.resource.resource === 'namespaces'))) return false;
  return true;
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj?.metadata?.labels as Record<string, string> | undefined;
}

/** Whether the object selector matches the new or the old object (an empty selector matches all). */
export function objectSelectorMatches(sel: LabelSelectorObject | undefined, attrs: AdmissionAttributes): boolean {
  if (!sel || (!sel.matchLabels && !sel.matchExpressions?.length)) return true;
  const s = labelSelectorFromObject(sel);
  return (attrs.object !== undefined && s.matches(labelsOf(attrs.object) ?? {})) || (attrs.oldObject !== undefined && s.matches(labelsOf(attrs.oldObject) ?? {}));
}

/** Whether the namespace selector matches: cluster-scoped objects match but Namespaces themselves, which match by their labels. */
export async function namespaceSelectorMatches(sel: LabelSelectorObject | undefined, attrs: AdmissionAttributes, namespace: () => Promise<KubeObject | undefined>): Promise<boolean> {
  if (!sel || (!sel.matchLabels && !sel.matchExpressions?.length)) return true;
  const s = labelSelectorFromObject(sel);
  if (attrs.resource.group === '' && attrs.resource.resource === 'namespaces') return s.matches(labelsOf(attrs.object ?? attrs.oldObject) ?? {});
  if (attrs.namespace === '') return true;
  const ns = await namespace();
  return s.matches(labelsOf(ns) ?? {});
}

/** Whether matchResources covers the request: a resource rule includes it and no exclude rule removes it. */
export async function matchesResources(m: MatchResources, attrs: AdmissionAttributes, namespace: () => Promise<KubeObject | undefined>, requireRules: boolean): Promise<boolean> {
  if (!objectSelectorMatches(m.objectSelector, attrs)) return false;
  if (!(await namespaceSelectorMatches(m.namespaceSelector, attrs, namespace))) return false;
  const rules = m.resourceRules ?? [];
  if ((requireRules || rules.length > 0) && !rules.some((r) => ruleMatches(r, attrs))) return false;
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, attrs))) return false;
  return true;
}
