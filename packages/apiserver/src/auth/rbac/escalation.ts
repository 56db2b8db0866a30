/**
 * Escalation prevention: whether the rules a user holds cover the rules of a role they write
 * or bind, and kube-apiserver's words when they do not.
 */
import { goQuote } from '@kplane/api';
import type { UserInfo } from '../types.js';
import type { PolicyRule } from './rules.js';

function has(set: readonly string[] | undefined, v: string): boolean {
  return (set ?? []).includes(v);
}

function hasAll(set: readonly string[] | undefined, vs: readonly string[] | undefined): boolean {
  return (vs ?? []).every((v) => has(set, v));
}

/** Splits a rule into rules of one group, resource, verb and name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const n of rule.resourceNames!) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const i = path.indexOf('/');
    if (i < 0) return false;
    if (!has(set, `*/${path.slice(i + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  if (owner === sub) return true;
  return owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, ''));
}

/** Does one owner rule cover one broken-down rule? */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Do the owner's rules cover every servant rule? Returns the uncovered broken-down rules. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const sub of servant.flatMap(breakdownRule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return { covered: missing.length === 0, missing };
}

/** Merges rules of one group, resource and at most one name that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = (r.resourceNames ?? []).length <= 1 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

function goStrings(vs: readonly string[]): string {
  return `[${vs.map(goQuote).join(' ')}]`;
}

/** A rule as Kubernetes' CompactString prints it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length) parts.push(`APIGroups:${goStrings(r.apiGroups!)}`);
  if ((r.resources ?? []).length) parts.push(`Resources:${goStrings(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${goStrings(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length) parts.push(`ResourceNames:${goStrings(r.resourceNames!)}`);
  if (r.verbs.length) parts.push(`Verbs:${goStrings(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * Kubernetes' ConfirmNoEscalation: undefined when `owned` covers `requested`, else the message
 * naming what is missing (sorted, compacted), with the errors met resolving the owner's rules.
 */
export function escalationMessage(user: UserInfo, owned: readonly PolicyRule[], requested: readonly PolicyRule[], resolutionErrors: readonly string[]): string | undefined {
  const { covered, missing } = covers(owned, requested);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.username)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (resolutionErrors.length) msg += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return msg;
}
