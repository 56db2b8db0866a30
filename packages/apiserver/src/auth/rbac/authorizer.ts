/**
 * The RBAC authorizer: decisions from an index of Roles, ClusterRoles and of the bindings by
 * subject (user name, group name, ServiceAccount user name), kept current by the RBAC
 * resources' watch caches (see feed.ts). A decision reads only the bindings that name the
 * user or one of its groups, never all of them.
 */
import type { KubeObject } from '@kplane/api';
import { goQuote } from '@kplane/api';
import { MASTERS_GROUP, type AuthorizationAttributes, type AuthorizationDecision, type Authorizer, type UserInfo } from '../types.js';
import { ruleAllows, serviceAccountUsername, subjectAppliesTo, type PolicyRule, type RoleRef, type Subject } from './rules.js';

/** A RoleBinding or ClusterRoleBinding as the index keeps it. */
export interface BindingEntry {
  /** undefined: a ClusterRoleBinding. */
  readonly namespace?: string;
  readonly name: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

/** A Role or ClusterRole as the index keeps it. */
export interface RoleEntry {
  readonly namespace?: string;
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

/** One rule the user holds, with where it comes from. */
export interface RuleSource {
  readonly rule: PolicyRule;
  readonly binding: BindingEntry;
  readonly subject: Subject;
}

/** The rules a user holds in a namespace (SelfSubjectRulesReview), and the errors met collecting them. */
export interface RulesResult {
  rules: PolicyRule[];
  errors: string[];
}

/** Bindings by the user names and the group names their subjects name. */
class SubjectIndex {
  readonly users = new Map<string, Set<BindingEntry>>();
  readonly groups = new Map<string, Set<BindingEntry>>();

  private map(kind: 'user' | 'group'): Map<string, Set<BindingEntry>> {
    return kind === 'user' ? this.users : this.groups;
  }

  add(key: SubjectKey, b: BindingEntry): void {
    const m = this.map(key[0]);
    let set = m.get(key[1]);
    if (!set) m.set(key[1], (set = new Set()));
    set.add(b);
  }

  remove(key: SubjectKey, b: BindingEntry): void {
    const m = this.map(key[0]);
    const set = m.get(key[1]);
    if (!set) return;
    set.delete(b);
    if (set.size === 0) m.delete(key[1]);
  }

  get size(): number {
    return this.users.size + this.groups.size;
  }
}

type SubjectKey = readonly ['user' | 'group', string];

/** The index key of a subject, `undefined` when it can never match a user. */
function subjectKey(s: Subject, bindingNamespace: string | undefined): SubjectKey | undefined {
  switch (s.kind) {
    case 'User':
      return ['user', s.name];
    case 'Group':
      return ['group', s.name];
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? ['user', serviceAccountUsername(ns, s.name)] : undefined;
    }
    default:
      return undefined;
  }
}

function asArray<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/** The PolicyRules of a stored Role or ClusterRole. */
export function rulesOf(obj: KubeObject): PolicyRule[] {
  return asArray<Record<string, unknown>>((obj as Record<string, unknown>).rules).map((r) => ({
    verbs: strings(r.verbs) ?? [],
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs),
  }));
}

/** A stored binding as an index entry. */
export function bindingOf(obj: KubeObject): BindingEntry {
  const o = obj as Record<string, unknown>;
  const ref = (o.roleRef ?? {}) as Record<string, unknown>;
  return {
    namespace: obj.metadata?.namespace || undefined,
    name: obj.metadata?.name ?? '',
    roleRef: { apiGroup: String(ref.apiGroup ?? ''), kind: String(ref.kind ?? ''), name: String(ref.name ?? '') },
    subjects: asArray<Record<string, unknown>>(o.subjects).map((s) => ({
      kind: String(s.kind ?? ''),
      apiGroup: typeof s.apiGroup === 'string' ? s.apiGroup : undefined,
      name: String(s.name ?? ''),
      namespace: typeof s.namespace === 'string' && s.namespace ? s.namespace : undefined,
    })),
  };
}

function describeSubject(s: Subject, bindingNamespace: string | undefined): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace || ''}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** How kube-apiserver names the binding that allowed a request (`RBAC: allowed by ...`). */
export function describeSource(b: BindingEntry, s: Subject): string {
  const kind = b.namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding';
  const name = b.namespace === undefined ? b.name : `${b.name}/${b.namespace}`;
  return `${kind} ${goQuote(name)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, b.namespace)}`;
}

/** `RBAC: allowed by ...`, built once per binding and subject (entries are replaced, never changed). */
const reasons = new WeakMap<BindingEntry, Map<Subject, string>>();
function allowedReason(b: BindingEntry, s: Subject): string {
  let m = reasons.get(b);
  if (!m) reasons.set(b, (m = new Map()));
  let r = m.get(s);
  if (r === undefined) m.set(s, (r = `RBAC: allowed by ${describeSource(b, s)}`));
  return r;
}

/** Kubernetes' aggregate of errors: the one message, or `[a, b]` (duplicates once). */
export function aggregateErrors(errors: readonly string[]): string {
  const seen = [...new Set(errors)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

const ALLOWED: AuthorizationDecision = Object.freeze({ allowed: true, reason: '' });

/** The RBAC index and authorizer. */
export class RbacAuthorizer implements Authorizer {
  private readonly roles = new Map<string, RoleEntry>();
  private readonly clusterRoles = new Map<string, RoleEntry>();
  private readonly bindings = new Map<string, BindingEntry>();
  /** Bumped by every change of a role or a binding: it ends the users' compiled rule sets. */
  private generation = 0;
  /** The compiled rule sets of the users seen since the last change, by user name (then groups). */
  private readonly users = new Map<string, UserRules[]>();
  private usersGeneration = 0;
  private usersCount = 0;
  /** The same sets by UserInfo object: callers that keep their identity object skip the name and group comparisons. */
  private byObject = new WeakMap<UserInfo, UserRules>();
  /** ClusterRoleBindings by subject key. */
  private readonly clusterBySubject = new SubjectIndex();
  /** RoleBindings by namespace, then subject key. */
  private readonly nsBySubject = new Map<string, SubjectIndex>();

  /** Adds or replaces a Role. */
  setRole(obj: KubeObject): void {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    this.roles.set(`${ns}/${name}`, { namespace: ns, name, rules: rulesOf(obj) });
    this.generation++;
  }

  /** Removes a Role. */
  deleteRole(namespace: string, name: string): void {
    if (this.roles.delete(`${namespace}/${name}`)) this.generation++;
  }

  /** Adds or replaces a ClusterRole. */
  setClusterRole(obj: KubeObject): void {
    const name = obj.metadata?.name ?? '';
    this.clusterRoles.set(name, { name, rules: rulesOf(obj) });
    this.generation++;
  }

  /** Removes a ClusterRole. */
  deleteClusterRole(name: string): void {
    if (this.clusterRoles.delete(name)) this.generation++;
  }

  /** Adds or replaces a RoleBinding or ClusterRoleBinding (namespace absent). */
  setBinding(obj: KubeObject): void {
    const b = bindingOf(obj);
    this.generation++;
    this.deleteBinding(b.namespace, b.name);
    this.bindings.set(`${b.namespace ?? ''}/${b.name}`, b);
    const bySubject = this.subjectMap(b.namespace, true)!;
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k !== undefined) bySubject.add(k, b);
    }
  }

  /** Removes a binding (namespace undefined: a ClusterRoleBinding). */
  deleteBinding(namespace: string | undefined, name: string): void {
    const id = `${namespace ?? ''}/${name}`;
    const old = this.bindings.get(id);
    if (!old) return;
    this.generation++;
    this.bindings.delete(id);
    const bySubject = this.subjectMap(namespace, false);
    if (!bySubject) return;
    for (const s of old.subjects) {
      const k = subjectKey(s, namespace);
      if (k !== undefined) bySubject.remove(k, old);
    }
    if (namespace !== undefined && bySubject.size === 0) this.nsBySubject.delete(namespace);
  }

  private subjectMap(namespace: string | undefined, create: boolean): SubjectIndex | undefined {
    if (namespace === undefined) return this.clusterBySubject;
    let m = this.nsBySubject.get(namespace);
    if (!m && create) this.nsBySubject.set(namespace, (m = new SubjectIndex()));
    return m;
  }

  /** The rules a role reference names, or kube's not-found message. */
  roleRules(ref: RoleRef, namespace: string | undefined): readonly PolicyRule[] | string {
    if (ref.kind === 'ClusterRole') {
      const r = this.clusterRoles.get(ref.name);
      return r ? r.rules : `clusterrole.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`;
    }
    if (ref.kind === 'Role' && namespace !== undefined) {
      const r = this.roles.get(`${namespace}/${ref.name}`);
      return r ? r.rules : `role.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`;
    }
    return `unsupported role reference kind: ${goQuote(ref.kind)}`;
  }

  /** The ClusterRoles' rules by name (for the aggregation of the bootstrap policy and tests). */
  clusterRole(name: string): RoleEntry | undefined {
    return this.clusterRoles.get(name);
  }

  /**
   * Visits the bindings that apply to the user: ClusterRoleBindings, then the RoleBindings of
   * `namespace` when given. Each binding is visited once, with the first subject naming the
   * user. `visit` returns false to stop.
   */
  visitBindings(user: UserInfo, namespace: string | undefined, visit: (b: BindingEntry, s: Subject) => boolean): void {
    const maps = [this.clusterBySubject];
    if (namespace) {
      const m = this.nsBySubject.get(namespace);
      if (m) maps.push(m);
    }
    for (const m of maps) {
      let seen: Set<BindingEntry> | undefined;
      for (let i = -1; i < user.groups.length; i++) {
        const set = i < 0 ? m.users.get(user.username) : m.groups.get(user.groups[i]!);
        if (!set) continue;
        for (const b of set) {
          if (seen?.has(b)) continue;
          (seen ??= new Set()).add(b);
          const s = b.subjects.find((x) => subjectAppliesTo(user, x, b.namespace ?? ''));
          if (s && !visit(b, s)) return;
        }
      }
    }
  }

  /**
   * The user's compiled rule set: the same object for the same user name and groups until a
   * role or a binding changes (a stand-in for the user's decisions, see `identity`).
   */
  private userRules(user: UserInfo): UserRules {
    if (this.usersGeneration !== this.generation || this.usersCount >= MAX_USERS) {
      this.users.clear();
      this.byObject = new WeakMap();
      this.usersCount = 0;
      this.usersGeneration = this.generation;
    }
    const known = this.byObject.get(user);
    if (known !== undefined) return known;
    let list = this.users.get(user.username);
    if (list !== undefined) {
      for (let i = 0; i < list.length; i++) {
        if (sameGroups(list[i]!.groups, user.groups)) {
          this.byObject.set(user, list[i]!);
          return list[i]!;
        }
      }
    } else this.users.set(user.username, (list = []));
    const entry = new UserRules(user.username, [...user.groups], user.groups.includes(MASTERS_GROUP));
    entry.cluster = this.compile(entry, this.clusterBySubject);
    list.push(entry);
    this.byObject.set(user, entry);
    this.usersCount++;
    return entry;
  }

  /** The rules the bindings of `m` give the user, in binding order, and the errors met. */
  private compile(user: UserInfo, m: SubjectIndex | undefined): CompiledRules {
    const out: CompiledRules = { rules: [], errors: [] };
    if (!m) return out;
    const seen = new Set<BindingEntry>();
    const visit = (set: Set<BindingEntry> | undefined) => {
      if (!set) return;
      for (const b of set) {
        if (seen.has(b)) continue;
        seen.add(b);
        const rules = this.roleRules(b.roleRef, b.namespace);
        if (typeof rules === 'string') {
          out.errors.push(rules);
          continue;
        }
        const s = b.subjects.find((x) => subjectAppliesTo(user, x, b.namespace ?? '')) ?? b.subjects[0]!;
        for (const rule of rules) out.rules.push({ rule, binding: b, subject: s });
      }
    };
    visit(m.users.get(user.username));
    for (const g of user.groups) visit(m.groups.get(g));
    return out;
  }

  private namespaceRules(entry: UserRules, namespace: string): CompiledRules {
    let c = entry.namespaces.get(namespace);
    if (c === undefined) {
      if (entry.namespaces.size >= MAX_NAMESPACES_PER_USER) entry.namespaces.clear();
      entry.namespaces.set(namespace, (c = this.compile(entry, this.nsBySubject.get(namespace))));
    }
    return c;
  }

  /**
   * An object that stands for the user's decisions: the same object for requests of the same
   * user name and groups for as long as no role or binding changes (a new one afterwards), so a
   * caller may remember decisions under it (held weakly). Undefined: do not remember.
   */
  identity(user: UserInfo): object | undefined {
    return this.userRules(user);
  }

  /** Kubernetes' RBAC decision (system:masters is allowed everything, as kube-apiserver's privileged-group authorizer). */
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const entry = this.userRules(attrs.user);
    if (entry.master) return ALLOWED;
    let reason = firstAllowing(entry.cluster!, attrs);
    const ns = attrs.resourceRequest ? attrs.namespace : undefined;
    let nsRules: CompiledRules | undefined;
    if (reason === undefined && ns) {
      nsRules = this.namespaceRules(entry, ns);
      reason = firstAllowing(nsRules, attrs);
    }
    if (reason !== undefined) return { allowed: true, reason };
    const errors = nsRules ? [...entry.cluster!.errors, ...nsRules.errors] : entry.cluster!.errors;
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included), for rules reviews and escalation checks. */
  rulesFor(user: UserInfo, namespace: string | undefined): RulesResult {
    const entry = this.userRules(user);
    const parts = namespace ? [entry.cluster!, this.namespaceRules(entry, namespace)] : [entry.cluster!];
    return { rules: parts.flatMap((c) => c.rules.map((r) => r.rule)), errors: parts.flatMap((c) => c.errors) };
  }
}

/** Users whose rule sets are kept at once (all dropped past it, as at any RBAC change). */
const MAX_USERS = 10_000;
/** Namespaces whose rules a user's set keeps at once. */
const MAX_NAMESPACES_PER_USER = 1_000;

/** The rules bindings give a user in one scope (cluster-wide, or one namespace). */
interface CompiledRules {
  readonly rules: RuleSource[];
  readonly errors: string[];
}

/** A user (name and groups, all RBAC decides on) with its compiled rules. */
class UserRules implements UserInfo {
  cluster: CompiledRules | undefined;
  readonly namespaces = new Map<string, CompiledRules>();
  constructor(
    readonly username: string,
    readonly groups: readonly string[],
    readonly master: boolean,
  ) {}
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The reason of the first rule that allows the request, if any. */
function firstAllowing(c: CompiledRules, attrs: AuthorizationAttributes): string | undefined {
  const rules = c.rules;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (ruleAllows(attrs, r.rule)) return allowedReason(r.binding, r.subject);
  }
  return undefined;
}
