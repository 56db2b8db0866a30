import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import type { AuthorizationAttributes } from '../../auth/types.js';
import { admissionAttributes } from '../../testing/admission.js';
import type { AdmissionAttributes } from '../types.js';
import { requestAuthorizer } from './authz.js';
import { validatingAdmissionPolicy } from './validating.js';
import { compilePolicy, validatePolicy } from './validator.js';
import { loadCel } from '../../crd/cel/load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

const policy = (spec: object, generation = 1): KubeObject => ({ metadata: { name: 'p', uid: 'u1', generation }, spec });

const attrs = (extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes =>
  admissionAttributes({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team' }, data: { a: '1' } }, { user: { username: 'bob', groups: ['devs', 'system:authenticated'] }, ...extra });

/** An authorizer that allows what `allow` says and records what it was asked. */
function fakeAuthorizer(allow: (a: AuthorizationAttributes) => boolean) {
  const asked: AuthorizationAttributes[] = [];
  return { asked, authorize: (a: AuthorizationAttributes) => (asked.push(a), { allowed: allow(a), reason: allow(a) ? 'RBAC: allowed' : '' }) };
}

test('the authz library: resource and path checks ask for the right attributes; serviceAccount switches the user; decisions are remembered', () => {
  const authz = fakeAuthorizer((a) => a.user.username === 'bob' && a.verb === 'delete' && a.resource === 'configmaps' && a.namespace === 'team');
  const a = attrs();
  const run = (expression: string) => validatePolicy(compilePolicy(policy({ validations: [{ expression }] })), { object: null, authorizer: requestAuthorizer(authz, a) });
  assert.deepEqual(run("authorizer.group('').resource('configmaps').namespace('team').check('delete').allowed()")?.decisions, []);
  assert.deepEqual(run("authorizer.group('').resource('configmaps').namespace('team').check('delete').reason() == 'RBAC: allowed'")?.decisions, []);
  assert.equal(run("authorizer.group('apps').resource('deployments').subresource('scale').name('web').check('update').allowed()")?.decisions.length, 1);
  assert.deepEqual(authz.asked.at(-1), { user: a.user, verb: 'update', resourceRequest: true, apiGroup: 'apps', apiVersion: '*', resource: 'deployments', subresource: 'scale', name: 'web' });
  assert.deepEqual(run("!authorizer.path('/healthz').check('get').allowed() && !authorizer.path('/healthz').check('get').errored() && authorizer.path('/healthz').check('get').error() == ''")?.decisions, []);
  assert.deepEqual(authz.asked.at(-1), { user: a.user, verb: 'get', resourceRequest: false, path: '/healthz' });
  run("authorizer.serviceAccount('ci', 'builder').group('').resource('pods').check('list').allowed()");
  assert.deepEqual(authz.asked.at(-1)!.user, { username: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'] });
  // requestResource is the request's own resource, namespace and name.
  run("authorizer.requestResource.check('delete').allowed()");
  assert.deepEqual(authz.asked.at(-1), { user: a.user, verb: 'delete', resourceRequest: true, apiGroup: '', apiVersion: '*', resource: 'configmaps', namespace: 'team', name: 'cm' });
  // Errors of the library, as kube words them.
  assert.match(run("authorizer.path(' ').check('get').allowed()")!.decisions[0]!.message, /resulted in error: path must not be empty$/);
  assert.match(run("authorizer.serviceAccount('ci', 'Not_Valid').group('').resource('pods').check('get').allowed()")!.decisions[0]!.message, /Invalid service account name$/);
  assert.match(run("authorizer.serviceAccount('not.a.label', 'sa').group('').resource('pods').check('get').allowed()")!.decisions[0]!.message, /Invalid service account namespace$/);
  // One request asks once per distinct check.
  const once = fakeAuthorizer(() => true);
  const shared = requestAuthorizer(once, a);
  const p = compilePolicy(policy({ validations: [{ expression: "authorizer.group('').resource('pods').check('get').allowed()" }] }));
  validatePolicy(p, { authorizer: shared });
  validatePolicy(p, { authorizer: shared });
  assert.equal(once.asked.length, 1);
});

test('matchConditions: false skips the policy; errors fail under Fail (joined as kube aggregates them) and skip under Ignore', () => {
  const spec = (failurePolicy: string) => ({
    failurePolicy,
    matchConditions: [
      { name: 'a', expression: 'object.nope' },
      { name: 'b', expression: 'object.other' },
    ],
    validations: [{ expression: 'false' }],
  });
  const input = { object: { data: {} } };
  const failed = validatePolicy(compilePolicy(policy(spec('Fail'))), input);
  assert.deepEqual(failed?.decisions.map((d) => d.message), ["[expression 'object.nope' resulted in error: no such key: nope, expression 'object.other' resulted in error: no such key: other]"]);
  assert.equal(validatePolicy(compilePolicy(policy(spec('Ignore'))), input), undefined);
  assert.equal(validatePolicy(compilePolicy(policy({ matchConditions: [{ name: 'no', expression: 'false' }], validations: [{ expression: 'false' }] })), input), undefined);
});

test('the step reads policies and bindings from its source (never listing them) and recompiles a policy only for a new generation', async () => {
  let policies: KubeObject[] = [policy({ matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: "object.data.a == '2'", message: 'a must be 2' }] })];
  const bindings: KubeObject[] = [{ metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } }];
  const step = validatingAdmissionPolicy({
    objects: {
      list: async (group, _v, resource) => {
        if (group === 'admissionregistration.k8s.io') throw new Error(`listed ${resource}`);
        return [];
      },
      updateStatus: async (_g, _v, _r, o) => o,
    },
    source: { policies: () => policies, bindings: () => bindings },
    namespace: async () => ({ metadata: { name: 'team' } }),
  });
  await assert.rejects(async () => step.validate(attrs()), /a must be 2/);
  // A status write (same generation) keeps the compiled policy: its old expression still applies.
  policies = [{ ...policies[0]!, spec: { ...(policies[0]!.spec as object), validations: [{ expression: 'true' }] } }];
  await assert.rejects(async () => step.validate(attrs()), /a must be 2/);
  // A new generation is compiled again.
  policies = [{ ...policies[0]!, metadata: { ...policies[0]!.metadata, generation: 2 } }];
  await step.validate(attrs());
});

test('runtime cost: an expression over the per-call limit is an error; validations that together spend the budget end with kube\'s error', () => {
  const pairs = 'object.items.all(x, object.items.all(y, x + y >= 0))';
  const items = (n: number) => ({ object: { items: Array.from({ length: n }, (_, i) => BigInt(i)) } });
  const over = validatePolicy(compilePolicy(policy({ validations: [{ expression: pairs }] })), items(500));
  assert.equal(over?.decisions[0]?.message, `expression '${pairs}' resulted in error: operation cancelled: actual cost limit exceeded`);
  // About 0.8M each: 12 fit in the 10M budget, the 13th does not.
  const many = (n: number) => compilePolicy(policy({ validations: Array.from({ length: n }, () => ({ expression: pairs })) }));
  assert.deepEqual(validatePolicy(many(12), items(400))?.decisions, []);
  assert.deepEqual(validatePolicy(many(13), items(400))?.decisions, [{ index: 0, message: 'validation failed due to running out of cost budget, no further validation rules will be run', reason: 'Invalid' }]);
  // A variable's cost is charged to the expression that reads it.
  const viaVariable = compilePolicy(policy({ variables: [{ name: 'ok', expression: pairs }], validations: [{ expression: 'variables.ok && variables.ok' }] }));
  assert.deepEqual(validatePolicy(viaVariable, items(400))?.decisions, []);
  assert.match(validatePolicy(viaVariable, items(450))!.decisions[0]!.message, /operation cancelled: actual cost limit exceeded$/);
});

test('params are read from a followed store once a policy needs them: a namespace\'s own object, never a list per write', async () => {
  const cm = (namespace: string, max: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace, resourceVersion: '1' }, data: { max } });
  let lists = 0;
  const store = {
    async list() {
      lists++;
      return { items: [cm('team', '1'), cm('other', '5')], metadata: { resourceVersion: '1' } };
    },
    cache: {
      async *watch(_rv: number, signal: AbortSignal) {
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      },
    },
  };
  const stop = new AbortController();
  const p = policy({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
    validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }],
  });
  const step = validatingAdmissionPolicy({
    objects: {
      list: async () => {
        throw new Error('listed');
      },
      updateStatus: async (_g, _v, _r, o) => o,
    },
    kindResource: () => ({ resource: 'configmaps', namespaced: true }),
    source: { policies: () => [p], bindings: () => [{ metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } } }] },
    namespace: async (name) => ({ metadata: { name } }),
    paramStore: () => store,
    signal: stop.signal,
  });
  const two = { a: '1', b: '2' };
  const inNs = (namespace: string) => attrs({ namespace, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace }, data: two } });
  await assert.rejects(async () => step.validate(inNs('team')), /denied request: at most 1$/);
  await step.validate(inNs('other'));
  await assert.rejects(async () => step.validate(inNs('empty')), /no params found for policy binding with `Deny` parameterNotFoundAction/);
  assert.equal(lists, 1);
  stop.abort();
});
