import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditEvent } from '../../auth/audit.js';
import { startTestServer, type TestServer } from '../../testing.js';

const AR = '/apis/admissionregistration.k8s.io/v1';
const CMS = '/api/v1/namespaces/default/configmaps';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

async function withServer(fn: (s: TestServer, events: AuditEvent[]) => Promise<void>): Promise<void> {
  const events: AuditEvent[] = [];
  const s = await startTestServer({ audit: { write: (e) => events.push(e) } });
  try {
    await fn(s, events);
  } finally {
    await s.close();
  }
}

const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

function policy(name: string, spec: object) {
  const matchConstraints = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] };
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints, ...spec } };
}

function binding(name: string, policyName: string, validationActions: string[], spec: object = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions, ...spec } };
}

async function create(s: TestServer, path: string, body: object): Promise<any> {
  const r = await s.call('POST', path, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

/** The audit event of the last request to `path`. */
function lastEventFor(events: AuditEvent[], name: string): AuditEvent {
  const e = events.filter((x) => x.requestURI.startsWith(CMS) && x.verb === 'create').at(-1);
  assert.ok(e, `no audit event for ${name}`);
  return e;
}

const sizeRules = {
  validations: [
    { expression: "object.metadata.name != ''" },
    { expression: 'size(object.data) <= 1', messageExpression: "'at most 1 key, got ' + string(size(object.data))" },
  ],
  auditAnnotations: [
    { key: 'note', valueExpression: "has(object.data.note) ? object.data.note : null" },
    { key: 'name', valueExpression: "'  ' + object.metadata.name + ' '" },
  ],
};

test('Audit records the failure as kube\'s validation_failure annotation and auditAnnotations as <policy>/<key>; the request is admitted', () =>
  withServer(async (s, events) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('size', sizeRules));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('size-audit', 'size', ['Audit']));
    await create(s, CMS, configMap('big', { a: '1', note: 'two keys' }));
    const annotations = lastEventFor(events, 'big').annotations ?? {};
    assert.deepEqual(JSON.parse(annotations['validation.policy.admission.k8s.io/validation_failure']!), [
      { message: 'at most 1 key, got 2', policy: 'size', binding: 'size-audit', expressionIndex: 1, validationActions: ['Audit'] },
    ]);
    assert.equal(annotations['size/note'], 'two keys');
    assert.equal(annotations['size/name'], 'big');

    // A passing object: no failure, and a null value is left out.
    await create(s, CMS, configMap('small', { a: '1' }));
    const small = lastEventFor(events, 'small').annotations ?? {};
    assert.equal(small['validation.policy.admission.k8s.io/validation_failure'], undefined);
    assert.equal(small['size/note'], undefined);
    assert.equal(small['size/name'], 'small');
  }));

test('Warn and Audit together warn and annotate; Deny and Audit refuse and still annotate the refused request', () =>
  withServer(async (s, events) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('size', sizeRules));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'size', ['Warn', 'Audit']));
    const warned = await s.call('POST', CMS, configMap('w', { a: '1', b: '2' }));
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.warning, `299 - "Validation failed for ValidatingAdmissionPolicy 'size' with binding 'b': at most 1 key, got 2"`);
    assert.match(lastEventFor(events, 'w').annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? '', /"validationActions":\["Warn","Audit"\]/);

    const b = (await s.call('GET', `${AR}/validatingadmissionpolicybindings/b`)).body;
    assert.equal((await s.call('PUT', `${AR}/validatingadmissionpolicybindings/b`, { ...b, spec: { ...b.spec, validationActions: ['Deny', 'Audit'] } })).status, 200);
    const denied = await s.call('POST', CMS, configMap('d', { a: '1', note: 'n' }));
    assert.equal(denied.status, 422);
    const e = lastEventFor(events, 'd');
    assert.equal(e.responseStatus?.code, 422);
    assert.match(e.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? '', /"binding":"b","expressionIndex":1,"validationActions":\["Deny","Audit"\]/);
    assert.equal(e.annotations?.['size/note'], 'n');
  }));

test('an auditAnnotation of the wrong type refuses with kube\'s message; under Ignore an erroring one is left out', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('p', { auditAnnotations: [{ key: 'n', valueExpression: 'size(object.data)' }, { key: 'e', valueExpression: 'object.data.missing' }] }));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', ['Audit']));
    const r = await s.call('POST', CMS, configMap('x'));
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: valueExpression 'size(object.data)' resulted in unsupported return type: int. Return type must be either string or null.`,
    );
    const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicies/p`, { ...p, spec: { ...p.spec, failurePolicy: 'Ignore', auditAnnotations: [p.spec.auditAnnotations[1]] } });
    assert.equal((await s.call('POST', CMS, configMap('x'))).status, 201);
  }));

test('configuration errors deny under Fail whatever the actions, and are ignored under Ignore', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('nokind', { paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' }, validations: [{ expression: 'true' }] }));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b1', 'nokind', ['Warn'], { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }));
    const r = await s.call('POST', CMS, configMap('a'));
    assert.equal(r.status, 422);
    assert.equal(r.body.message, `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'nokind' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'`);
    const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/nokind`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicies/nokind`, { ...p, spec: { ...p.spec, paramKind: { apiVersion: 'v1', kind: 'Secret' } } });
    const b = (await s.call('GET', `${AR}/validatingadmissionpolicybindings/b1`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicybindings/b1`, { ...b, spec: { ...b.spec, paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } } });
    const missing = await s.call('POST', CMS, configMap('a'));
    assert.equal(missing.status, 422);
    assert.equal(missing.body.message, "configmaps \"a\" is forbidden: ValidatingAdmissionPolicy 'nokind' with binding 'b1' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction");
    const p2 = (await s.call('GET', `${AR}/validatingadmissionpolicies/nokind`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicies/nokind`, { ...p2, spec: { ...p2.spec, failurePolicy: 'Ignore' } });
    assert.equal((await s.call('POST', CMS, configMap('a'))).status, 201);
  }));

test('variables are evaluated when read: an erroring one fails only the expressions that read it; a non-true result fails', () =>
  withServer(async (s) => {
    await create(
      s,
      `${AR}/validatingadmissionpolicies`,
      policy('p', {
        variables: [{ name: 'bad', expression: 'object.data.nope' }, { name: 'n', expression: 'size(object.data)' }],
        validations: [{ expression: 'variables.n < 3' }, { expression: "variables.bad == 'x'" }],
      }),
    );
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', ['Deny']));
    const r = await s.call('POST', CMS, configMap('a', { k: 'v' }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /denied request: expression 'variables.bad == 'x'' resulted in error: composited variable "bad" fails to evaluate: .*nope/);
    const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicies/p`, { ...p, spec: { ...p.spec, validations: [{ expression: 'variables.n' }] } });
    const r2 = await s.call('POST', CMS, configMap('a', { k: 'v' }));
    assert.equal(r2.status, 422);
    assert.match(r2.body.message, /denied request: failed expression: variables.n$/);
  }));

test('the authorizer variable asks RBAC for the requesting user: a policy refuses users who may not delete configmaps', () =>
  withServer(async (s) => {
    const post = (path: string, obj: object) => create(s, path, obj);
    await post(`${RBAC}/namespaces/default/roles`, { metadata: { name: 'cm-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }] });
    const rb = await post(`${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    });
    await s.server.rbacSynced('rolebindings', rb.metadata.resourceVersion);
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy('deleters-only', {
        validations: [
          { expression: "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('delete').allowed()", message: 'only users who may delete configmaps may create them', reason: 'Forbidden' },
          { expression: "authorizer.requestResource.check('create').allowed()" },
          { expression: "!authorizer.serviceAccount('default', 'builder').group('').resource('pods').check('list').allowed()" },
          { expression: "authorizer.path('/healthz').check('get').allowed() && !authorizer.group('').resource('secrets').check('get').errored()" },
        ],
      }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding('b', 'deleters-only', ['Deny']));
    const alice = { username: 'alice', groups: ['system:authenticated'] };
    const r = await s.server.handle({ method: 'POST', path: CMS, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(configMap('by-alice'))), user: alice });
    const body = JSON.parse(Buffer.from(r.body!).toString());
    assert.equal(r.status, 403, JSON.stringify(body));
    assert.equal(body.message, `configmaps "by-alice" is forbidden: ValidatingAdmissionPolicy 'deleters-only' with binding 'b' denied request: only users who may delete configmaps may create them`);
    // The cluster's admin may delete them: admitted.
    await post(CMS, configMap('by-admin'));
  }));

test('an authorizer check with an empty resource is an error of its expression', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('p', { validations: [{ expression: "authorizer.group('').resource(' ').check('get').allowed()" }] }));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', ['Deny']));
    const r = await s.call('POST', CMS, configMap('a'));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /resulted in error: resource must not be empty$/);
  }));

test('a policy over every resource never checks the admission policies themselves, so it can be removed', () =>
  withServer(async (s) => {
    const all = { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] };
    await create(s, `${AR}/validatingadmissionpolicies`, { ...policy('deny-all', { validations: [{ expression: 'false', message: 'no' }] }), spec: { matchConstraints: all, validations: [{ expression: 'false', message: 'no' }] } });
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('deny-all', 'deny-all', ['Deny']));
    assert.equal((await s.call('POST', CMS, configMap('refused'))).status, 422);
    assert.equal((await s.call('DELETE', `${AR}/validatingadmissionpolicybindings/deny-all`)).status, 200);
  }));
