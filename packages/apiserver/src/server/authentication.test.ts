import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RawRequest, UserInfo } from '@kplane/api';
import { startTestServer, type TestServer } from '../testing.js';
import { ANONYMOUS } from '../auth/identity.js';

const alice: UserInfo = { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } };
const SA = '/api/v1/namespaces/default/serviceaccounts';

describe('authentication API', () => {
  let t: TestServer;
  let now = new Date('2026-03-01T10:00:00Z');
  before(async () => {
    t = await startTestServer({ now: () => now });
  });
  after(() => t.close());

  const call = async (method: string, path: string, body?: unknown, extra: Partial<RawRequest> = {}) => {
    const r = await t.server.handle({ method, path, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)), ...extra });
    return { status: r.status, headers: r.headers, body: r.body?.length ? JSON.parse(Buffer.from(r.body).toString('utf8')) : undefined };
  };
  const tokenFor = async (name: string, spec: object = {}) => call('POST', `${SA}/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  const review = (token: string, audiences?: string[]) => call('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences } });

  it('lists tokenreviews, selfsubjectreviews and serviceaccounts/token in discovery', async () => {
    const g = await call('GET', '/apis/authentication.k8s.io/v1');
    assert.deepEqual(g.body.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs]), [['selfsubjectreviews', ['create']], ['tokenreviews', ['create']]]);
    const core = await call('GET', '/api/v1');
    const token = core.body.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token');
    assert.deepEqual(token, { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
  });

  it('SelfSubjectReview answers the requester', async () => {
    const r = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { user: alice });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status.userInfo, { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } });
    const anon = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, { user: ANONYMOUS });
    // As kube-apiserver's RBAC: system:basic-user is bound to system:authenticated only.
    assert.equal(anon.status, 403);
    assert.equal(anon.body.message, 'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('TokenRequest issues a token that TokenReview accepts, until its ServiceAccount is recreated', async () => {
    await call('POST', SA, { metadata: { name: 'robot' } });
    const r = await tokenFor('robot');
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, 'TokenRequest');
    assert.equal(r.body.spec.expirationSeconds, 3600);
    assert.deepEqual(r.body.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(r.body.status.expirationTimestamp, '2026-03-01T11:00:00Z');
    const ok = await review(r.body.status.token);
    assert.equal(ok.status, 201);
    assert.equal(ok.body.status.authenticated, true);
    assert.equal(ok.body.status.user.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(ok.body.status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.deepEqual(ok.body.status.audiences, ['https://kubernetes.default.svc.cluster.local']);
    // The token as a request's credential.
    const who = await t.server.authenticator.authenticate({ headers: { authorization: `Bearer ${r.body.status.token}` } });
    assert.equal(who!.username, 'system:serviceaccount:default:robot');
    await call('DELETE', `${SA}/robot`);
    await call('POST', SA, { metadata: { name: 'robot' } });
    const refused = await review(r.body.status.token);
    assert.equal(refused.body.status.authenticated, undefined);
    assert.match(refused.body.status.error, /does not match claim/);
    await assert.rejects(t.server.authenticator.authenticate({ headers: { authorization: `Bearer ${r.body.status.token}` } }), { code: 401 });
  });

  it('TokenRequest checks expirationSeconds, shortens nothing without a maximum, and honours audiences', async () => {
    await call('POST', SA, { metadata: { name: 'short' } });
    const tooShort = await tokenFor('short', { expirationSeconds: 599 });
    assert.equal(tooShort.status, 422);
    assert.equal(tooShort.body.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    const vault = await tokenFor('short', { audiences: ['vault'], expirationSeconds: 7200 });
    assert.equal(vault.body.status.expirationTimestamp, '2026-03-01T12:00:00Z');
    assert.equal((await review(vault.body.status.token)).body.status.authenticated, undefined);
    assert.deepEqual((await review(vault.body.status.token, ['vault'])).body.status.audiences, ['vault']);
    const typeError = await tokenFor('short', { expirationSeconds: 'long' });
    assert.equal(typeError.status, 400);
  });

  it('TokenRequest answers 404 for a missing ServiceAccount and checks the bound object', async () => {
    const missing = await tokenFor('nobody');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
    await call('POST', SA, { metadata: { name: 'bound' } });
    const noPod = await tokenFor('bound', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } });
    assert.equal(noPod.status, 404);
    const odd = await tokenFor('bound', { boundObjectRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } });
    assert.equal(odd.status, 400);
    assert.equal(odd.body.message, 'cannot bind token to object of type apps/v1, Kind=Deployment');
    const secret = await call('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'anchor' } });
    const wrongUid = await tokenFor('bound', { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'anchor', uid: 'nope' } });
    assert.equal(wrongUid.status, 409);
    const ok = await tokenFor('bound', { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'anchor', uid: secret.body.metadata.uid } });
    assert.equal(ok.status, 201);
    assert.equal((await review(ok.body.status.token)).body.status.authenticated, true);
    await call('DELETE', '/api/v1/namespaces/default/secrets/anchor');
    assert.equal((await review(ok.body.status.token)).body.status.error, '[invalid bearer token, service account token has been invalidated]');
  });

  it('TokenReview needs a token and tokens expire', async () => {
    const empty = await call('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: {} });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.message, 'token is required for TokenReview in authentication');
    await call('POST', SA, { metadata: { name: 'late' } });
    const r = await tokenFor('late', { expirationSeconds: 600 });
    now = new Date(now.getTime() + 601_000);
    assert.match((await review(r.body.status.token)).body.status.error, /service account token has expired/);
  });

  it('serves the OIDC discovery documents of the issuer', async () => {
    const doc = await call('GET', '/.well-known/openid-configuration');
    assert.equal(doc.body.issuer, 'https://kubernetes.default.svc.cluster.local');
    assert.equal(doc.body.jwks_uri, 'https://127.0.0.1:6443/openid/v1/jwks');
    const keys = await call('GET', '/openid/v1/jwks');
    assert.equal(keys.headers['content-type'], 'application/jwk-set+json');
    assert.equal(keys.body.keys.length, 1);
    assert.equal(keys.body.keys[0].use, 'sig');
    assert.equal((await call('POST', '/openid/v1/jwks', {})).status, 405);
  });
});
