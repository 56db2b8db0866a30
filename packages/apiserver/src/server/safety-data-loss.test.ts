/**
 * Reproductions of requests that lost data: each is sent, answered as Kubernetes answers it,
 * and then nothing else may have changed (canaries in several namespaces and kinds, the system
 * namespaces) and /readyz must answer 200.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertAnswer, checkCanaries, plantCanaries, send, startTestServer, type CanarySnapshot, type ExpectedAnswer, type TestServer } from '../testing.js';

let t: TestServer;
let canaries: CanarySnapshot;

beforeEach(async () => {
  t = await startTestServer();
  canaries = await plantCanaries(t.server.handle);
});
afterEach(() => t.close());

/** Sends the request, checks Kubernetes' answer, then that no canary changed and /readyz is 200. */
async function replay(method: string, path: string, expected: ExpectedAnswer, body?: unknown, headers: Record<string, string> = {}): Promise<string> {
  const answer = await send(t.server.handle, method, path, body, headers);
  assertAnswer(answer, expected, `${method} ${path}`);
  assert.deepEqual(await checkCanaries(t.server.handle, canaries), [], `after ${method} ${path}`);
  return answer.text;
}

/** kube-apiserver's answer to a name that cannot be a path segment (registry key functions). */
const badName = (name: string, why: string): ExpectedAnswer => ({ code: 400, reason: 'BadRequest', message: `Name parameter invalid: ${JSON.stringify(name)}: ${why}` });
/** go-restful's answer when no route matches the path. */
const NO_ROUTE: ExpectedAnswer = { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' };
/** go-restful's answer when the path exists but not for this method. */
const NO_METHOD: ExpectedAnswer = { code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };

describe('dot segments and encoded names never reach another object', () => {
  it('DELETE …/namespaces/canary-a/configmaps/%2e%2e → 400, namespace canary-a kept', async () => {
    await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps/%2e%2e', badName('..', "may not be '..'"));
  });

  it('DELETE …/namespaces/canary-b/secrets/%2e%2e/%2e%2e → 404 (no such route)', async () => {
    await replay('DELETE', '/api/v1/namespaces/canary-b/secrets/%2e%2e/%2e%2e', NO_ROUTE);
  });

  it('GET and DELETE of a name "." (%2e) → 400', async () => {
    await replay('GET', '/api/v1/namespaces/canary-a/configmaps/%2e', badName('.', "may not be '.'"));
    await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps/%2e', badName('.', "may not be '.'"));
    await replay('DELETE', '/api/v1/namespaces/%2e', badName('.', "may not be '.'"));
  });

  it('DELETE /api/v1/namespaces/%2e%2e → 400 (a cluster-scoped name too)', async () => {
    await replay('DELETE', '/api/v1/namespaces/%2e%2e', badName('..', "may not be '..'"));
    await replay('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/%2e%2e', badName('..', "may not be '..'"));
  });

  it('PATCH …/configmaps/%2e%2e → 400, for every patch type', async () => {
    for (const ct of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      await replay('PATCH', '/api/v1/namespaces/canary-a/configmaps/%2e%2e', badName('..', "may not be '..'"), { metadata: { labels: { hit: 'yes' } } }, { 'content-type': ct });
    }
    await replay('PATCH', '/api/v1/namespaces/canary-a/configmaps/%2e%2e', badName('..', "may not be '..'"), [{ op: 'add', path: '/metadata/labels/hit', value: 'yes' }], { 'content-type': 'application/json-patch+json' });
  });

  it('PUT …/configmaps/%2e%2e → 400', async () => {
    await replay('PUT', '/api/v1/namespaces/canary-a/configmaps/%2e%2e', badName('..', "may not be '..'"), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '..', namespace: 'canary-a' } });
  });

  it('a Secret is never read through a configmaps path', async () => {
    for (const name of ['..%2Fsecrets%2Fcanary-secret', '%2e%2e%2f%2e%2e%2fsecrets%2fcanary-a%2fcanary-secret', '%2e%2e/%2e%2e/secrets/canary-a/canary-secret']) {
      const text = await replay('GET', `/api/v1/namespaces/canary-a/configmaps/${name}`, NO_ROUTE);
      assert.doesNotMatch(text, /czNjcmV0|s3cret/, 'the secret data must not leak');
    }
  });

  it('a name containing "%" → 400 on GET, DELETE and PATCH', async () => {
    await replay('GET', '/api/v1/namespaces/canary-a/configmaps/a%25b', badName('a%b', "may not contain '%'"));
    await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps/canary-cm%25', badName('canary-cm%', "may not contain '%'"));
    await replay('PATCH', '/api/v1/namespaces/canary-a/configmaps/%25', badName('%', "may not contain '%'"), { data: { x: 'y' } }, { 'content-type': 'application/merge-patch+json' });
  });
});

describe('verbs a path does not serve', () => {
  it('DELETE /api/v1/secrets (the cluster-wide list path of a namespaced kind) → 405, every Secret kept', async () => {
    await replay('DELETE', '/api/v1/secrets', NO_METHOD);
    await replay('DELETE', '/api/v1/configmaps', NO_METHOD);
    await replay('DELETE', '/apis/apps/v1/deployments', NO_METHOD);
  });

  it('DELETE on watch paths → 405', async () => {
    await replay('DELETE', '/api/v1/watch/namespaces', NO_METHOD);
    await replay('DELETE', '/apis/rbac.authorization.k8s.io/v1/watch/clusterrolebindings', NO_METHOD);
    await replay('DELETE', '/api/v1/watch/namespaces/canary-a/configmaps', NO_METHOD);
  });

  it('POST, PUT and PATCH on the cluster-wide path of a namespaced kind → 405', async () => {
    await replay('POST', '/api/v1/configmaps', NO_METHOD, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'canary-a' } });
    await replay('PUT', '/api/v1/secrets', NO_METHOD, {});
    await replay('PATCH', '/api/v1/secrets', NO_METHOD, {}, { 'content-type': 'application/merge-patch+json' });
  });

  it('DELETE /api/v1/namespaces (namespaces have no deletecollection) → 405, every namespace kept', async () => {
    await replay('DELETE', '/api/v1/namespaces', NO_METHOD);
  });
});

describe('patches and delete options that must not change anything', () => {
  it('a strategic merge patch with finalizers: {} → 422 Invalid, object unchanged', async () => {
    const before = await send(t.server.handle, 'GET', '/api/v1/namespaces/canary-a/configmaps/canary-cm');
    await replay('PATCH', '/api/v1/namespaces/canary-a/configmaps/canary-cm', { code: 422, reason: 'Invalid' }, { metadata: { finalizers: {} } }, { 'content-type': 'application/strategic-merge-patch+json' });
    const after = await send(t.server.handle, 'GET', '/api/v1/namespaces/canary-a/configmaps/canary-cm');
    assert.equal(after.text, before.text);
  });

  it('a merge patch with finalizers: {} → 422 Invalid on field "patch", object unchanged', async () => {
    await replay('PATCH', '/api/v1/namespaces/canary-a/configmaps/canary-cm', { code: 422, reason: 'Invalid', field: 'patch' }, { metadata: { finalizers: {} } }, { 'content-type': 'application/merge-patch+json' });
  });

  it('DeleteOptions with gracePeriodSeconds: "0" → 400, object kept', async () => {
    await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps/canary-cm', { code: 400, reason: 'BadRequest', message: /gracePeriodSeconds/ }, { gracePeriodSeconds: '0' });
    await replay('DELETE', '/api/v1/namespaces/canary-a', { code: 400, reason: 'BadRequest', message: /gracePeriodSeconds/ }, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: '0' });
  });

  it('DeleteOptions of other wrong types → 400, object kept', async () => {
    for (const [body, field] of [
      [{ propagationPolicy: 1 }, /propagationPolicy/],
      [{ orphanDependents: 'yes' }, /orphanDependents/],
      [{ preconditions: { uid: 5 } }, /uid/],
      [{ dryRun: 'All' }, /dryRun/],
    ] as const) {
      await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps/canary-cm', { code: 400, reason: 'BadRequest', message: field }, body);
    }
  });

  it('a deletecollection with a bad DeleteOptions body → 400, nothing deleted', async () => {
    await replay('DELETE', '/api/v1/namespaces/canary-a/configmaps', { code: 400, reason: 'BadRequest', message: /gracePeriodSeconds/ }, { gracePeriodSeconds: '0' });
  });
});
