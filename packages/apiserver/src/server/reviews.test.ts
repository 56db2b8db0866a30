import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RawRequest, UserInfo } from '@kplane/api';
import { startTestServer, type TestServer } from '../testing.js';
import { registerReview, type ReviewContext } from './reviews.js';

const PATH = '/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews';
const alice: UserInfo = { username: 'alice', groups: ['dev', 'system:authenticated'] };

describe('review resources', () => {
  let t: TestServer;
  const seen: ReviewContext[] = [];
  before(async () => {
    // The mechanism, not who may use it: every user is allowed.
    t = await startTestServer({ authorizationMode: 'AlwaysAllow' });
    registerReview(t.server.registry, {
      group: 'authorization.k8s.io',
      version: 'v1',
      resource: 'localsubjectaccessreviews',
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
      schemaName: 'io.k8s.api.authorization.v1.LocalSubjectAccessReview',
      validate: (obj) => ((obj.spec as { user?: string }).user === 'bad' ? [{ reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "bad"' }] : []),
      review: (obj: KubeObject, ctx) => {
        seen.push(ctx);
        return { ...obj, status: { allowed: ctx.user.username === 'alice', reason: `asked by ${ctx.user.username}` } };
      },
    });
  });
  after(() => t.close());

  const post = (body: unknown, extra: Partial<RawRequest> = {}) =>
    t.server.handle({ method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), ...extra });
  const json = (r: { body?: Uint8Array }) => JSON.parse(Buffer.from(r.body!).toString('utf8'));
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } } };

  it('are listed by discovery with the create verb only', async () => {
    const r = await t.call('GET', '/apis/authorization.k8s.io/v1');
    const res = r.body.resources.find((x: { name: string }) => x.name === 'localsubjectaccessreviews');
    assert.deepEqual(res.verbs, ['create']);
    assert.equal(res.namespaced, true);
  });

  it('answer a POST with 201 and the status the review filled, for the requesting user and namespace', async () => {
    const r = await post(review, { user: alice });
    assert.equal(r.status, 201);
    const body = json(r);
    assert.deepEqual(body.status, { allowed: true, reason: 'asked by alice' });
    assert.equal(body.metadata.namespace, 'team');
    assert.equal(body.kind, 'LocalSubjectAccessReview');
    assert.equal(seen.at(-1)!.namespace, 'team');
    assert.equal(seen.at(-1)!.dryRun, false);
  });

  it('take a request without a user as the in-process admin', async () => {
    const r = await post(review);
    assert.equal(json(r).status.reason, 'asked by system:apiserver');
    assert.ok(seen.at(-1)!.user.groups.includes('system:masters'));
  });

  it('honour dryRun=All and refuse other dryRun values', async () => {
    assert.equal((await post(review, { user: alice, query: { dryRun: 'All' } })).status, 201);
    assert.equal(seen.at(-1)!.dryRun, true);
    assert.equal((await post(review, { user: alice, query: { dryRun: 'Some' } })).status, 400);
  });

  it('type-check the body, refuse a mismatched namespace or kind and run field validation', async () => {
    const wrongType = await post({ ...review, spec: { user: 7 } }, { user: alice });
    assert.equal(wrongType.status, 400);
    assert.match(json(wrongType).message, /LocalSubjectAccessReview/);
    const otherNs = await post({ ...review, metadata: { namespace: 'elsewhere' } }, { user: alice });
    assert.equal(otherNs.status, 400);
    const wrongKind = await post({ ...review, kind: 'SubjectAccessReview' }, { user: alice });
    assert.equal(wrongKind.status, 400);
    const bad = await post({ ...review, spec: { user: 'bad' } }, { user: alice });
    assert.equal(bad.status, 422);
    assert.equal(json(bad).reason, 'Invalid');
    const strict = await post({ ...review, spec: { ...review.spec, unknown: 1 } }, { user: alice, query: { fieldValidation: 'Strict' } });
    assert.equal(strict.status, 400);
  });

  it('serve no other verb and store nothing', async () => {
    assert.equal((await t.server.handle({ method: 'GET', path: PATH, user: alice })).status, 405);
    assert.equal((await t.server.handle({ method: 'GET', path: `${PATH}/x`, user: alice })).status, 405);
    assert.equal((await t.server.handle({ method: 'DELETE', path: PATH, user: alice })).status, 405);
    const keys = await t.backend.list('/registry/');
    // Keys only: the default ClusterRoles name the review resources in their rules.
    assert.ok(!JSON.stringify(keys.items.map((kv) => kv.key)).includes('subjectaccessreview'));
  });
});
