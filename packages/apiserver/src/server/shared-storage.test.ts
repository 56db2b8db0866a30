import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@kplane/api/testing';
import type { UserInfo } from '@kplane/api';
import { createMemoryBackend } from '@kplane/storage';
import { greetingCRD } from '../crd/greeting.fixture.js';
import { createApiServer, type ApiServer } from './server.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
/** Changes made through one API server take effect on the other within this. */
const WITHIN = { timeoutMs: 1000, intervalMs: 10 };

describe('two API servers over one storage: what is written through one takes effect on the other within a second', () => {
  const backend = createMemoryBackend();
  let a: ApiServer;
  let b: ApiServer;
  const call = async (server: ApiServer, method: string, path: string, body?: unknown, user?: UserInfo) => {
    const r = await server.handle({ method, path, query: {}, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)), user });
    const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  before(async () => {
    a = createApiServer({ backend, compactionIntervalMs: 0 });
    b = createApiServer({ backend, compactionIntervalMs: 0 });
    await a.start();
    await b.start();
  });
  after(async () => {
    await a.close();
    await b.close();
    await backend.close();
  });

  it('a CustomResourceDefinition: served by the other', async () => {
    assert.equal((await call(a, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', greetingCRD())).status, 201);
    await eventually('b to serve greetings', async () => (await call(b, 'GET', '/apis/demo.example.com/v1/namespaces/default/greetings')).status === 200, WITHIN);
    const created = await call(b, 'POST', '/apis/demo.example.com/v1/namespaces/default/greetings', { apiVersion: 'demo.example.com/v1', kind: 'Greeting', metadata: { name: 'hi' }, spec: { version: '1.0' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.replicas, 2, "b applies the CRD's defaults");
  });

  it('RBAC: a binding written through one authorizes on the other', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    assert.equal((await call(b, 'GET', path, undefined, alice)).status, 403);
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'configmap-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] };
    assert.equal((await call(a, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', role)).status, 201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice-reads', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    };
    assert.equal((await call(a, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status, 201);
    await eventually('b to let alice list configmaps', async () => (await call(b, 'GET', path, undefined, alice)).status === 200, WITHIN);
  });

  it('admission: a ValidatingAdmissionPolicy written through one denies on the other', async () => {
    const AR = '/apis/admissionregistration.k8s.io/v1';
    const matchConstraints = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
    const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-forbidden' }, spec: { matchConstraints, validations: [{ expression: "!has(object.data) || !('forbidden' in object.data)" }] } };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-forbidden' }, spec: { policyName: 'no-forbidden', validationActions: ['Deny'] } };
    assert.equal((await call(a, 'POST', `${AR}/validatingadmissionpolicies`, policy)).status, 201);
    assert.equal((await call(a, 'POST', `${AR}/validatingadmissionpolicybindings`, binding)).status, 201);
    let n = 0;
    await eventually(
      'b to deny',
      async () => {
        const r = await call(b, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${n++}` }, data: { forbidden: 'x' } });
        return r.status === 422 || r.status === 403;
      },
      WITHIN,
    );
  });
});
