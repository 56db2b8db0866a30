/**
 * Kubernetes' CEL authz library (`kubernetes.authorization.*`): the `authorizer` variable of
 * admission policies and its checks, backed by the API server's authorizer.
 *
 *   authorizer.group('apps').resource('deployments').namespace('ns').name('x').subresource('scale').check('update').allowed()
 *   authorizer.path('/healthz').check('get').reason()
 *   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('create').errored()
 *   authorizer.requestResource.check('delete').allowed()   // the resource of the request itself
 *
 * Decisions of one request are remembered (kube's caching authorizer), so an expression that
 * runs once per params object asks once.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { isDNS1123Label, isDNS1123Subdomain, SERVICE_ACCOUNTS_GROUP, type UserInfo } from '@kplane/api';
import type { AuthorizationAttributes, AuthorizationDecision } from '../../auth/types.js';
import type { AdmissionAttributes } from '../types.js';
import { cel } from '../../crd/cel/load.js';

/** What the library asks: kplane's authorizer (RBAC, Node, or allow-all). */
export interface PolicyAuthorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
}

/** `kubernetes.authorization.Authorizer`: checks for one user. */
export class CelAuthorizer {
  /** The check of the request's own resource (`authorizer.requestResource`), when there is a request. */
  requestResource?: CelResourceCheck;
  constructor(
    readonly user: UserInfo,
    readonly decide: (a: AuthorizationAttributes) => AuthorizationDecision,
  ) {}
}

/** `kubernetes.authorization.PathCheck`. */
export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

/** `kubernetes.authorization.GroupCheck`. */
export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

/** `kubernetes.authorization.ResourceCheck`: each setter returns a new check. */
export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}
  /** A copy with some of subresource, namespace and name replaced. */
  with(part: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    const n = { subresource: this.subresource, namespace: this.namespace, name: this.name, ...part };
    return new CelResourceCheck(this.authorizer, this.group, this.resource, n.subresource, n.namespace, n.name);
  }
}

/** `kubernetes.authorization.Decision`. */
export class CelDecision {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
    readonly error = '',
  ) {}
}

const T = 'kubernetes.authorization.';
const fail = (message: string): never => {
  throw new (cel().EvaluationError)(message);
};

/** Registers the authz types and functions in a policy environment (before it is cloned). */
export function registerAuthzLibrary(env: Environment): void {
  env.registerType(`${T}Authorizer`, { ctor: CelAuthorizer, fields: { requestResource: `${T}ResourceCheck` } });
  env.registerType(`${T}PathCheck`, CelPathCheck);
  env.registerType(`${T}GroupCheck`, CelGroupCheck);
  env.registerType(`${T}ResourceCheck`, CelResourceCheck);
  env.registerType(`${T}Decision`, CelDecision);
  env.registerFunction(`${T}Authorizer.path(string): ${T}PathCheck`, (a: CelAuthorizer, path: string) =>
    path.trim() === '' ? fail('path must not be empty') : new CelPathCheck(a, path),
  );
  env.registerFunction(`${T}Authorizer.group(string): ${T}GroupCheck`, (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group));
  env.registerFunction(`${T}Authorizer.serviceAccount(string, string): ${T}Authorizer`, (a: CelAuthorizer, namespace: string, name: string) => {
    if (isDNS1123Subdomain(name).length) fail('Invalid service account name');
    if (isDNS1123Label(namespace).length) fail('Invalid service account namespace');
    const user: UserInfo = { username: `system:serviceaccount:${namespace}:${name}`, groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`] };
    return new CelAuthorizer(user, a.decide);
  });
  env.registerFunction(`${T}GroupCheck.resource(string): ${T}ResourceCheck`, (g: CelGroupCheck, resource: string) =>
    resource.trim() === '' ? fail('resource must not be empty') : new CelResourceCheck(g.authorizer, g.group, resource),
  );
  env.registerFunction(`${T}ResourceCheck.subresource(string): ${T}ResourceCheck`, (r: CelResourceCheck, subresource: string) => r.with({ subresource }));
  env.registerFunction(`${T}ResourceCheck.namespace(string): ${T}ResourceCheck`, (r: CelResourceCheck, namespace: string) => r.with({ namespace }));
  env.registerFunction(`${T}ResourceCheck.name(string): ${T}ResourceCheck`, (r: CelResourceCheck, name: string) => r.with({ name }));
  env.registerFunction(`${T}PathCheck.check(string): ${T}Decision`, (p: CelPathCheck, verb: string) =>
    decision(p.authorizer.decide({ user: p.authorizer.user, verb, resourceRequest: false, path: p.path })),
  );
  env.registerFunction(`${T}ResourceCheck.check(string): ${T}Decision`, (r: CelResourceCheck, verb: string) =>
    decision(
      r.authorizer.decide({
        user: r.authorizer.user,
        verb,
        resourceRequest: true,
        apiGroup: r.group,
        apiVersion: '*',
        resource: r.resource,
        ...(r.subresource ? { subresource: r.subresource } : {}),
        ...(r.namespace ? { namespace: r.namespace } : {}),
        ...(r.name ? { name: r.name } : {}),
      }),
    ),
  );
  env.registerFunction(`${T}Decision.allowed(): bool`, (d: CelDecision) => d.allowed);
  env.registerFunction(`${T}Decision.reason(): string`, (d: CelDecision) => d.reason);
  env.registerFunction(`${T}Decision.errored(): bool`, (d: CelDecision) => d.error !== '');
  env.registerFunction(`${T}Decision.error(): string`, (d: CelDecision) => d.error);
}

function decision(d: AuthorizationDecision): CelDecision {
  return new CelDecision(d.allowed, d.reason);
}

/** The user in-process requests act as (they carry no user): the cluster's admin. */
const ADMIN: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/**
 * The `authorizer` value of one request: the requesting user's checks, with `requestResource`
 * set to the request's own resource, subresource, namespace and name. Decisions are remembered
 * for the request.
 */
export function requestAuthorizer(authorizer: PolicyAuthorizer, attrs: AdmissionAttributes): CelAuthorizer {
  const remembered = new Map<string, AuthorizationDecision>();
  const decide = (a: AuthorizationAttributes): AuthorizationDecision => {
    const key = JSON.stringify([a.user.username, a.user.groups, a.verb, a.resourceRequest, a.path, a.apiGroup, a.resource, a.subresource, a.namespace, a.name]);
    let d = remembered.get(key);
    if (!d) remembered.set(key, (d = authorizer.authorize(a)));
    return d;
  };
  const a = new CelAuthorizer(attrs.user ?? ADMIN, decide);
  a.requestResource = new CelResourceCheck(a, attrs.resource.group, attrs.resource.resource, attrs.subresource, attrs.namespace, attrs.name);
  return a;
}
