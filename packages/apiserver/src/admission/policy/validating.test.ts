import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer, type TestServer } from '../../testing.js';

const AR = '/apis/admissionregistration.k8s.io/v1';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

async function withServer(fn: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startTestServer();
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

function deployment(name: string, replicas: number, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

function policy(name: string, spec: object) {
  const matchConstraints = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints, ...spec } };
}

function binding(name: string, policyName: string, spec: object = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...spec } };
}

async function create(s: TestServer, path: string, body: object): Promise<void> {
  const r = await s.call('POST', path, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

const maxReplicas = { validations: [{ expression: 'object.spec.replicas <= 5', messageExpression: "'replicas must be at most 5, got ' + string(object.spec.replicas)", reason: 'Forbidden' }] };

test('a Deny binding refuses with the messageExpression, the reason\'s code and kube\'s message; others pass', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('max-replicas', maxReplicas));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('max-replicas-binding', 'max-replicas'));
    const r = await s.call('POST', DEPLOYS, deployment('big', 7));
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.equal(r.body.message, `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be at most 5, got 7`);
    await create(s, DEPLOYS, deployment('small', 2));
    // An update is checked too.
    const cur = (await s.call('GET', `${DEPLOYS}/small`)).body;
    const u = await s.call('PUT', `${DEPLOYS}/small`, { ...cur, spec: { ...cur.spec, replicas: 9 } });
    assert.equal(u.status, 403);
  }));

test('without a message the failure names the expression, with reason Invalid (422); Warn only warns', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('p', { validations: [{ expression: 'object.spec.replicas <= 5' }] }));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p'));
    const r = await s.call('POST', DEPLOYS, deployment('big', 6));
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, 'Invalid');
    assert.match(r.body.message, /denied request: failed expression: object.spec.replicas <= 5$/);
    const b = (await s.call('GET', `${AR}/validatingadmissionpolicybindings/b`)).body;
    const w = await s.call('PUT', `${AR}/validatingadmissionpolicybindings/b`, { ...b, spec: { ...b.spec, validationActions: ['Warn'] } });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const ok = await s.call('POST', DEPLOYS, deployment('big', 6));
    assert.equal(ok.status, 201);
    assert.match(ok.headers.warning ?? '', /Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.spec.replicas <= 5/);
  }));

test('matchConditions, variables, objectSelector and matchResources narrow what a policy checks', () =>
  withServer(async (s) => {
    await create(
      s,
      `${AR}/validatingadmissionpolicies`,
      policy('p', {
        matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }],
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
        validations: [{ expression: 'variables.replicas < 3', message: 'too many' }],
      }),
    );
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', { matchResources: { objectSelector: { matchLabels: { team: 'a' } } } }));
    assert.equal((await s.call('POST', DEPLOYS, deployment('x1', 4, { team: 'a' }))).status, 422);
    assert.equal((await s.call('POST', DEPLOYS, deployment('x2', 4, { team: 'b' }))).status, 201);
    assert.equal((await s.call('POST', DEPLOYS, deployment('x3', 4, { team: 'a', exempt: 'yes' }))).status, 201);
    assert.equal((await s.call('POST', DEPLOYS, deployment('x4', 2, { team: 'a' }))).status, 201);
  }));

test('params: a ConfigMap by name gives the limit; a missing param with Deny refuses, with Allow admits', () =>
  withServer(async (s) => {
    await create(
      s,
      `${AR}/validatingadmissionpolicies`,
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }] }),
    );
    await create(s, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits' }, data: { max: '3' } });
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }));
    const r = await s.call('POST', DEPLOYS, deployment('d1', 4));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /denied request: at most 3$/);
    assert.equal((await s.call('POST', DEPLOYS, deployment('d2', 3))).status, 201);
    assert.equal((await s.call('DELETE', '/api/v1/namespaces/default/configmaps/limits')).status, 200);
    const missing = await s.call('POST', DEPLOYS, deployment('d3', 1));
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /no params found for policy binding with `Deny` parameterNotFoundAction/);
    const b = (await s.call('GET', `${AR}/validatingadmissionpolicybindings/b`)).body;
    await s.call('PUT', `${AR}/validatingadmissionpolicybindings/b`, { ...b, spec: { ...b.spec, paramRef: { ...b.spec.paramRef, parameterNotFoundAction: 'Allow' } } });
    assert.equal((await s.call('POST', DEPLOYS, deployment('d3', 1))).status, 201);
  }));

test('an expression that errors follows failurePolicy: Fail refuses, Ignore admits', () =>
  withServer(async (s) => {
    await create(s, `${AR}/validatingadmissionpolicies`, policy('p', { validations: [{ expression: 'object.spec.nothere > 1' }] }));
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p'));
    const r = await s.call('POST', DEPLOYS, deployment('d', 1));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /denied request: expression 'object.spec.nothere > 1' resulted in error: no such key: nothere/);
    const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
    assert.equal(p.spec.failurePolicy, 'Fail');
    assert.equal((await s.call('PUT', `${AR}/validatingadmissionpolicies/p`, { ...p, spec: { ...p.spec, failurePolicy: 'Ignore' } })).status, 200);
    assert.equal((await s.call('POST', DEPLOYS, deployment('d', 1))).status, 201);
  }));

test('the kinds validate as kube-apiserver does', () =>
  withServer(async (s) => {
    const r = await s.call('POST', `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', { validationActions: ['Deny', 'Warn'] }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /must not contain both Deny and Warn/);
    const p = await s.call('POST', `${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: {} });
    assert.equal(p.status, 422);
    assert.match(p.body.message, /spec.matchConstraints: Required value/);
    const bad = await s.call('POST', `${AR}/validatingadmissionpolicies`, policy('bad', { validations: [{ expression: 'object.spec.replicas <' }] }));
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /spec.validations\[0\].expression: Invalid value: "object.spec.replicas <": compilation failed: ERROR: <input>:1:/);
  }));

test('params by selector: every matching param is checked; namespaceObject and request are set; the ParamRef column of a binding', () =>
  withServer(async (s) => {
    await create(
      s,
      `${AR}/validatingadmissionpolicies`,
      policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [
          { expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "params.metadata.name + ' allows ' + params.data.max" },
          { expression: "namespaceObject.metadata.name == 'default' && request.operation == 'CREATE'", message: 'wrong namespace' },
        ],
      }),
    );
    for (const [name, max] of [['a', '5'], ['b', '2']] as const) {
      await create(s, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { limits: 'yes' } }, data: { max } });
    }
    await create(s, `${AR}/validatingadmissionpolicybindings`, binding('b', 'p', { paramRef: { selector: { matchLabels: { limits: 'yes' } }, parameterNotFoundAction: 'Deny' } }));
    const r = await s.call('POST', DEPLOYS, deployment('d', 3));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /denied request: b allows 2$/);
    assert.equal((await s.call('POST', DEPLOYS, deployment('d', 2))).status, 201);
    const table = await s.call('GET', `${AR}/validatingadmissionpolicybindings`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.body.rows[0].cells.slice(0, 3), ['b', 'p', 'limits=yes']);
  }));
