/**
 * Type checking of a ValidatingAdmissionPolicy, as kube's policy status controller does: each
 * validation's expression and messageExpression is compiled against the schema of every kind
 * the policy's matchConstraints name (at most 10, without wildcards), with `object` and
 * `oldObject` typed by that schema, `params` by the paramKind's, `variables` by what each
 * variable's expression yields, `request` as kube's AdmissionRequest and `authorizer` as the
 * authz library's type. The issues found
 * (fields that do not exist, operators applied to the wrong types, syntax errors) become
 * status.typeChecking.expressionWarnings, worded as cel-go words them:
 *
 *   apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'
 *    | object.spec.replicass > 1
 *    | ...........^
 *
 * Values whose type the schemas leave open (int-or-string, preserved unknown fields, dates,
 * objects without properties) are dynamic, so they are never reported.
 */
import type { KubeObject, SchemaDefinitions, SchemaObject } from '@kplane/api';
import type { Environment } from '@marcbachmann/cel-js';
import { celEscape } from '../../crd/cel/escaping.js';
import { celEnvironment } from '../../crd/cel/library.js';
import { registerAuthzLibrary } from './authz.js';

/** The most kinds a policy is checked against (kube's maxTypesToCheck). */
const MAX_TYPES = 10;

/** A served kind: its group, version, kind and schema name. */
export interface CheckedKind {
  group: string;
  version: string;
  kind: string;
  schemaName: string;
}

/** What type checking reads: the served kinds and their schemas. */
export interface TypeCheckSource {
  /** The kind served at a group, version and resource. */
  kindOf(group: string, version: string, resource: string): CheckedKind | undefined;
  /** The kind of a paramKind (group, version, kind). */
  paramKind(group: string, version: string, kind: string): CheckedKind | undefined;
  definitions(): SchemaDefinitions;
}

/** One warning of status.typeChecking.expressionWarnings. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The kinds the policy's resourceRules name, sorted by group, version and kind. */
function kindsToCheck(policy: KubeObject, source: TypeCheckSource): CheckedKind[] {
  const rules = objs(asObj(asObj(policy.spec)?.matchConstraints)?.resourceRules);
  const found = new Map<string, CheckedKind>();
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const rule of rules) {
    const groups = list(rule.apiGroups);
    const versions = list(rule.apiVersions);
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = list(rule.resources).filter((r) => !/[*/]/.test(r));
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          const k = source.kindOf(g, v, r);
          if (!k) continue;
          found.set(`${k.group}/${k.version}/${k.kind}`, k);
          if (found.size === MAX_TYPES) return sortKinds([...found.values()]);
        }
      }
    }
  }
  return sortKinds([...found.values()]);
}

function sortKinds(list: CheckedKind[]): CheckedKind[] {
  return list.sort((a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind));
}

/** An environment whose `object`, `oldObject` and `params` are typed by schemas. */
class TypedEnvironment {
  readonly env: Environment;
  private readonly named = new Map<SchemaObject, string>();
  private count = 0;
  constructor(private readonly defs: SchemaDefinitions) {
    this.env = celEnvironment().clone();
    registerAuthzLibrary(this.env);
  }

  private resolve(s: SchemaObject | undefined): SchemaObject | undefined {
    for (let i = 0; s && i < 32; i++) {
      const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]!.$ref : undefined);
      if (!ref) return s;
      s = this.defs[ref.split('/').pop()!];
    }
    return s;
  }

  /** The CEL type of a schema ('dyn' where the schema leaves it open). */
  typeOf(schema: SchemaObject | undefined): string {
    const s = this.resolve(schema);
    if (!s || s['x-kubernetes-int-or-string'] || s['x-kubernetes-preserve-unknown-fields'] || s.format === 'int-or-string') return 'dyn';
    switch (s.type) {
      case 'string':
        return s.format === 'date-time' || s.format === 'date' || s.format === 'duration' || s.format === 'byte' ? 'dyn' : 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${this.typeOf(s.items)}>`;
    }
    if (typeof s.additionalProperties === 'object') return `map<string, ${this.typeOf(s.additionalProperties)}>`;
    if (!s.properties || Object.keys(s.properties).length === 0) return 'dyn';
    const known = this.named.get(s);
    if (known) return known;
    const name = `kplane.policy.T${this.count++}`;
    this.named.set(s, name);
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.properties)) {
      const escaped = celEscape(k);
      if (escaped !== undefined) fields[escaped] = this.typeOf(v);
    }
    this.env.registerType(name, { fields });
    return name;
  }
}

/** cel-go's position of an issue: the `.` of a field selection, else where cel-js points. */
function issueOffset(expression: string, start: number, message: string): number {
  if (/^No such key: /.test(message)) {
    const dot = expression.lastIndexOf('.', start);
    if (dot >= 0) return dot;
  }
  // An operator's issue is at the operator (cel-js points at its left operand).
  const op = /^no such overload: \S+ (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) \S+/.exec(message);
  if (op) {
    const at = expression.indexOf(op[1]!, start);
    if (at >= 0) return at;
  }
  return start;
}

/** cel-go's wording of a cel-js type error. */
function celGoMessage(message: string): string {
  const first = message.split('\n')[0]!.trim();
  const key = /^No such key: (.*)$/.exec(first);
  if (key) return `undefined field '${key[1]}'`;
  const op = /^no such overload: (\S+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (\S+)$/.exec(first);
  if (op) return `found no matching overload for '${op[2] === 'in' ? '@in' : `_${op[2]}_`}' applied to '(${op[1]}, ${op[3]})'`;
  return first;
}

/** One issue of an expression, in cel-go's `ERROR: <input>:L:C: msg` form with the source line and a caret. */
function formatIssue(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - (before.lastIndexOf('\n') + 1);
  const text = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

/** The issues of one expression in an environment ('' when it checks). */
function checkExpression(env: Environment, expression: string): string {
  let r: ReturnType<Environment['check']>;
  try {
    r = env.check(expression);
  } catch (err) {
    return formatIssue(expression, 0, celGoMessage(err instanceof Error ? err.message : String(err)));
  }
  if (r.valid || !r.error) return '';
  const start = r.error.range?.start ?? 0;
  return formatIssue(expression, issueOffset(expression, start, r.error.message), celGoMessage(r.error.message));
}

/** Declares kube's AdmissionRequest type (`request`) in an environment; returns its name. */
function registerRequestType(env: Environment): string {
  const p = 'kplane.policy.request.';
  env.registerType(`${p}Kind`, { fields: { group: 'string', version: 'string', kind: 'string' } });
  env.registerType(`${p}Resource`, { fields: { group: 'string', version: 'string', resource: 'string' } });
  env.registerType(`${p}UserInfo`, { fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } });
  env.registerType(`${p}Request`, {
    fields: {
      uid: 'string',
      kind: `${p}Kind`,
      resource: `${p}Resource`,
      subResource: 'string',
      requestKind: `${p}Kind`,
      requestResource: `${p}Resource`,
      requestSubResource: 'string',
      name: 'string',
      namespace: 'string',
      operation: 'string',
      userInfo: `${p}UserInfo`,
      dryRun: 'bool',
      options: 'dyn',
    },
  });
  return `${p}Request`;
}

/** An environment typed for one kind (object, oldObject), the params kind and variables of the given types. */
function typedEnvironment(kind: CheckedKind, params: CheckedKind | undefined, variables: Record<string, string>, defs: SchemaDefinitions): Environment {
  // Types are named in the order they are met, so every environment of a kind names them alike.
  const t = new TypedEnvironment(defs);
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  t.env.registerVariable('object', t.typeOf(ref(kind.schemaName)));
  t.env.registerVariable('oldObject', t.typeOf(ref(kind.schemaName)));
  t.env.registerVariable('params', params ? t.typeOf(ref(params.schemaName)) : 'dyn');
  t.env.registerVariable('namespaceObject', defs['io.k8s.api.core.v1.Namespace'] ? t.typeOf(ref('io.k8s.api.core.v1.Namespace')) : 'dyn');
  t.env.registerVariable('request', registerRequestType(t.env));
  t.env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer');
  t.env.registerType('kplane.policy.Variables', { fields: { ...variables } });
  t.env.registerVariable('variables', 'kplane.policy.Variables');
  return t.env;
}

/** The environment of a kind with the policy's variables typed: each by what its expression yields given the ones before it. */
function environmentFor(kind: CheckedKind, params: CheckedKind | undefined, variables: Obj[], defs: SchemaDefinitions): Environment {
  const types: Record<string, string> = {};
  for (const v of variables) {
    let type = 'dyn';
    try {
      const r = typedEnvironment(kind, params, types, defs).check(str(v.expression));
      if (r.valid && r.type) type = r.type;
    } catch {
      // A variable that does not check is dynamic.
    }
    types[str(v.name)] = type;
  }
  return typedEnvironment(kind, params, types, defs);
}

/** The GVK as Go prints it: `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
const gvkString = (k: CheckedKind) => `${k.group}/${k.version}, Kind=${k.kind}`;

/** Type-checks a policy: its expression warnings (empty when every expression checks, or no kind can be resolved). */
export function typeCheckPolicy(policy: KubeObject, source: TypeCheckSource): ExpressionWarning[] {
  const kinds = kindsToCheck(policy, source);
  if (kinds.length === 0) return [];
  const spec = asObj(policy.spec) ?? {};
  const pk = asObj(spec.paramKind);
  let params: CheckedKind | undefined;
  if (pk) {
    const apiVersion = str(pk.apiVersion);
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/', 2) as [string, string]) : ['', apiVersion];
    params = source.paramKind(group, version, str(pk.kind));
  }
  const defs = source.definitions();
  const envs = kinds.map((k) => ({ kind: k, env: environmentFor(k, params, objs(spec.variables), defs) }));
  const check = (expression: string): string =>
    envs
      .map(({ kind, env }) => {
        const issues = checkExpression(env, expression);
        return issues ? `${gvkString(kind)}: ${issues}\n` : '';
      })
      .filter((m) => m !== '')
      .join('\n');
  const warnings: ExpressionWarning[] = [];
  objs(spec.validations).forEach((v, i) => {
    const w = check(str(v.expression));
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!str(v.messageExpression)) return;
    const m = check(str(v.messageExpression));
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
