/** Which webhooks a request reaches: rules, namespaceSelector and objectSelector (kube's webhook/predicates). */
import { labelSelectorFromObject, type KubeObject, type LabelSelectorObject } from '@kplane/api';
import type { AdmissionAttributes } from '../types.js';

/** One rule of a webhook (admissionregistration/v1 RuleWithOperations). */
export interface WebhookRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return !!list && (list.includes('*') || list.includes(value));
}

/** Does a "resource" or "resource/subresource" entry (with "*" wildcards) cover the request? */
function matchesResource(entries: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const entry of entries ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if (res !== '*' && res !== resource) continue;
    if (slash < 0 ? subresource === '' : sub === '*' || sub === subresource) return true;
  }
  return false;
}

/** Does one rule cover the request (operation, group, version, resource/subresource, scope)? */
export function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes): boolean {
  if (!has(rule.operations, attrs.operation)) return false;
  if (!has(rule.apiGroups, attrs.resource.group)) return false;
  if (!has(rule.apiVersions, attrs.resource.version)) return false;
  if (!matchesResource(rule.resources, attrs.resource.resource, attrs.subresource)) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster') return attrs.namespace === '';
  if (scope === 'Namespaced') return attrs.namespace !== '';
  return true;
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj?.metadata?.labels as Record<string, string> | undefined;
}

/**
 * Does the objectSelector match? An empty selector matches everything; otherwise the new or the
 * old object must carry matching labels.
 */
export function objectSelectorMatches(selector: LabelSelectorObject | undefined, attrs: AdmissionAttributes): boolean {
  const sel = labelSelectorFromObject(selector ?? {});
  if (sel.empty) return true;
  return [attrs.object, attrs.oldObject].some((o) => o !== undefined && sel.matches(labelsOf(o) ?? {}));
}

/**
 * Does the namespaceSelector match? Cluster-scoped objects other than namespaces always match; a
 * Namespace is matched by its own labels; other objects by their namespace's labels (read through
 * `namespace` only when the selector restricts anything).
 */
export async function namespaceSelectorMatches(
  selector: LabelSelectorObject | undefined,
  attrs: AdmissionAttributes,
  namespace: (name: string) => Promise<KubeObject | undefined>,
): Promise<boolean> {
  const sel = labelSelectorFromObject(selector ?? {});
  if (sel.empty) return true;
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  if (attrs.namespace === '' && !isNamespace) return true;
  if (isNamespace) return sel.matches(labelsOf(attrs.object ?? attrs.oldObject) ?? {});
  return sel.matches(labelsOf(await namespace(attrs.namespace)) ?? {});
}
