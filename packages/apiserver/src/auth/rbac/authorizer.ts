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
  /** Bumped by every binding change: it ends the per-user memos of candidates. */
  private generation = 0;
  private readonly memo = new WeakMap<UserInfo, { generation: number; byIndex: Map<SubjectIndex, readonly BindingEntry[]> }>();
  /** ClusterRoleBindings by subject key. */
  private readonly clusterBySubject = new SubjectIndex();
  /** RoleBindings by namespace, then subject key. */
  private readonly nsBySubject = new Map<string, SubjectIndex>();

  /** Adds or replaces a Role. */
  setRole(obj: KubeObject): void {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    this.roles.set(`${ns}/${name}`, { namespace: ns, name, rules: rulesOf(obj) });
  }

  /** Removes a Role. */
  deleteRole(namespace: string, name: string): void {
    this.roles.delete(`${namespace}/${name}`);
  }

  /** Adds or replaces a ClusterRole. */
  setClusterRole(obj: KubeObject): void {
    const name = obj.metadata?.name ?? '';
    this.clusterRoles.set(name, { name, rules: rulesOf(obj) });
  }

  /** Removes a ClusterRole. */
  deleteClusterRole(name: string): void {
    this.clusterRoles.delete(name);
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

  /** Kubernetes' RBAC decision (system:masters is allowed everything, as kube-apiserver's privileged-group authorizer). */
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const user = attrs.user;
    if (user.groups.includes(MASTERS_GROUP)) return ALLOWED;
    const errors: string[] = [];
    let reason = this.firstAllowing(this.clusterBySubject, attrs, errors);
    const ns = attrs.resourceRequest ? attrs.namespace : undefined;
    if (reason === undefined && ns) {
      const m = this.nsBySubject.get(ns);
      if (m) reason = this.firstAllowing(m, attrs, errors);
    }
    if (reason !== undefined) return { allowed: true, reason };
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** The reason of the first binding in `m` whose role allows the request; role errors are collected. */
  private firstAllowing(m: SubjectIndex, attrs: AuthorizationAttributes, errors: string[]): string | undefined {
    const user = attrs.user;
    for (const b of this.candidates(m, user)) {
      const rules = this.roleRules(b.roleRef, b.namespace);
      if (typeof rules === 'string') {
        errors.push(rules);
        continue;
      }
      for (const rule of rules) {
        if (ruleAllows(attrs, rule)) {
          const s = b.subjects.find((x) => subjectAppliesTo(user, x, b.namespace ?? ''));
          return allowedReason(b, s ?? b.subjects[0]!);
        }
      }
    }
    return undefined;
  }

  /**
   * The bindings of `m` that name the user or one of its groups, each once. Remembered per
   * UserInfo object until a binding changes: clients that keep their identity (a connection's
   * certificate, an in-process component) skip the lookups.
   */
  private candidates(m: SubjectIndex, user: UserInfo): readonly BindingEntry[] {
    let memo = this.memo.get(user);
    if (memo === undefined || memo.generation !== this.generation) this.memo.set(user, (memo = { generation: this.generation, byIndex: new Map() }));
    let list = memo.byIndex.get(m);
    if (list !== undefined) return list;
    const out = new Set<BindingEntry>();
    const add = (set: Set<BindingEntry> | undefined) => {
      if (set) for (const b of set) out.add(b);
    };
    add(m.users.get(user.username));
    for (const g of user.groups) add(m.groups.get(g));
    list = [...out];
    memo.byIndex.set(m, list);
    return list;
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included), for rules reviews and escalation checks. */
  rulesFor(user: UserInfo, namespace: string | undefined): RulesResult {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitBindings(user, namespace, (b) => {
      const r = this.roleRules(b.roleRef, b.namespace);
      if (typeof r === 'string') errors.push(r);
      else rules.push(...r);
      return true;
    });
    return { rules, errors };
  }
}
