import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawRequest, RawResponse } from '@kplane/api';
import { createClient } from '@kplane/client';
import { createFakeClock } from '../clock.js';
import { createDelegatedAuth } from './delegated.js';

/** A fake API server answering TokenReview and SubjectAccessReview, counting the reviews. */
function fakeApi(allowed: (user: string, path: string, verb: string) => boolean) {
  const calls: string[] = [];
  let down = false;
  const transport = async (req: RawRequest): Promise<RawResponse> => {
    if (down) throw new Error('connection refused');
    const body = JSON.parse(Buffer.from(req.body!).toString('utf8'));
    const answer = (status: unknown) => ({ status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ...body, status })) });
    if (req.path.endsWith('/tokenreviews')) {
      calls.push(`token ${body.spec.token}${body.spec.audiences ? ` ${body.spec.audiences}` : ''}`);
      const m = /^tok-(\w+)$/.exec(body.spec.token);
      return answer(m ? { authenticated: true, user: { username: m[1], uid: 'u1', groups: ['g', 'system:authenticated'] } } : { authenticated: false, error: 'invalid bearer token' });
    }
    calls.push(`sar ${body.spec.user} ${body.spec.uid ?? ''} ${body.spec.groups.join('+')} ${body.spec.nonResourceAttributes.verb} ${body.spec.nonResourceAttributes.path}`);
    return answer(allowed(body.spec.user, body.spec.nonResourceAttributes.path, body.spec.nonResourceAttributes.verb) ? { allowed: true } : { allowed: false, reason: body.spec.user === 'bob' ? 'no RBAC policy matched' : undefined });
  };
  return { client: createClient({ transport }), calls, setDown: (d: boolean) => (down = d) };
}

const get = (path: string, token?: string) => ({ method: 'GET', path, headers: token ? { authorization: `Bearer ${token}` } : {} });

it('authenticates with a TokenReview and authorises get on the path with a SubjectAccessReview', async () => {
  const api = fakeApi((user, path, verb) => user === 'alice' && path === '/metrics' && verb === 'get');
  const auth = createDelegatedAuth({ client: api.client, clock: createFakeClock(), audiences: ['https://kplane'] });
  assert.deepEqual(await auth.check(get('/metrics', 'tok-alice')), { allowed: true, user: { username: 'alice', uid: 'u1', groups: ['g', 'system:authenticated'] } });
  assert.deepEqual(api.calls, ['token tok-alice https://kplane', 'sar alice u1 g+system:authenticated get /metrics']);

  const bad = await auth.check(get('/metrics', 'nope'));
  assert.deepEqual(bad, { allowed: false, status: 401, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 } });
  const empty = await auth.check({ method: 'GET', path: '/metrics', headers: { authorization: 'Bearer ' } });
  assert.equal(empty.allowed === false && empty.status, 401);

  const bob = await auth.check(get('/metrics', 'tok-bob'));
  assert.equal(bob.allowed, false);
  assert.equal(!bob.allowed && bob.status, 403);
  assert.equal(!bob.allowed && bob.body.message, 'forbidden: User "bob" cannot get path "/metrics": no RBAC policy matched');

  const anon = await auth.check(get('/metrics'));
  assert.equal(!anon.allowed && anon.body.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  const post = await auth.check({ method: 'POST', path: '/metrics', headers: { authorization: 'Bearer tok-alice' } });
  assert.equal(!post.allowed && post.body.message, 'forbidden: User "alice" cannot post path "/metrics"');
});

it('leaves the health paths open and never reviews system:masters', async () => {
  const api = fakeApi(() => false);
  const auth = createDelegatedAuth({ client: api.client, clock: createFakeClock() });
  for (const p of ['/healthz', '/livez', '/readyz', '/readyz/ping']) assert.deepEqual(await auth.check(get(p, 'garbage')), { allowed: true });
  assert.equal((await auth.check(get('/healthzx'))).allowed, false);
  assert.deepEqual(await auth.authorize({ username: 'root', groups: ['system:masters'] }, 'get', '/metrics'), { allowed: true, reason: '' });
  assert.deepEqual(api.calls, ['sar system:anonymous  system:unauthenticated get /healthzx']);
  const strict = createDelegatedAuth({ client: api.client, anonymous: false });
  assert.equal((await strict.check(get('/metrics'))).allowed === false && (await strict.check(get('/metrics'))).allowed === false, true);
  const r = await strict.check(get('/metrics'));
  assert.equal(!r.allowed && r.status, 401);
});

it('caches token and access answers for their TTL on the clock, and refuses when the API server cannot answer', async () => {
  const clock = createFakeClock();
  const api = fakeApi((user) => user === 'alice');
  const auth = createDelegatedAuth({ client: api.client, clock, authenticationCacheTtlMs: 10_000, authorizedCacheTtlMs: 10_000, unauthorizedCacheTtlMs: 2_000 });
  await auth.check(get('/metrics', 'tok-alice'));
  await auth.check(get('/metrics', 'tok-bob'));
  await clock.advanceAsync(1_999);
  await auth.check(get('/metrics', 'tok-alice'));
  await auth.check(get('/metrics', 'tok-bob'));
  assert.equal(api.calls.length, 4, 'all cached');
  await clock.advanceAsync(1);
  await auth.check(get('/metrics', 'tok-bob'));
  assert.deepEqual(api.calls.slice(4), ['sar bob u1 g+system:authenticated get /metrics'], 'the denial expired first');
  await clock.advanceAsync(8_000);
  api.setDown(true);
  const down = await auth.check(get('/metrics', 'tok-alice'));
  assert.equal(!down.allowed && down.status, 401, 'a token the API server cannot review is refused');
  api.setDown(false);
  assert.equal((await auth.check(get('/metrics', 'tok-alice'))).allowed, true);
  api.setDown(true);
  const sarDown = await auth.check(get('/other', 'tok-alice'));
  assert.equal(!sarDown.allowed && sarDown.status, 500, 'an authorizer error is an internal error, as kube');
});
