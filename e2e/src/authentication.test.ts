import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, removeDir, startKplane, tempDir, tokenKubeconfig, type KplaneProcess } from './harness.js';

describe('authentication with kubectl', () => {
  let kp: KplaneProcess;
  let dir: string;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);
  const whoami = async (kubeconfig: string) => JSON.parse(await kubectlOk(kubeconfig, ['auth', 'whoami', '-o', 'json'])).status.userInfo;
  const as = async (token: string, ...args: string[]) => kubectl(await tokenKubeconfig(kp, token), args);

  before(async () => {
    dir = await tempDir();
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'jeton-alice,alice,alice-uid,"dev,ops"\njeton-bob,bob,bob-uid\n');
    kp = await startKplane(join(dir, 'data'), ['--nodes', '0', '--token-auth-file', tokens]);
    await k('create', 'namespace', 'auth');
  });

  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('kubectl auth whoami: the admin kubeconfig is in system:masters', async () => {
    assert.deepEqual(await whoami(kp.kubeconfig), { username: 'kplane-admin', groups: ['system:masters', 'system:authenticated'] });
    assert.match(await k('auth', 'whoami'), /^Username\s+kplane-admin$/m);
  });

  it('--token-auth-file users are who the file says', async () => {
    assert.deepEqual(await whoami(await tokenKubeconfig(kp, 'jeton-alice', 'alice')), { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    assert.deepEqual(await whoami(await tokenKubeconfig(kp, 'jeton-bob', 'bob')), { username: 'bob', uid: 'bob-uid', groups: ['system:authenticated'] });
    const wrong = await as('jeton-mallory', 'get', '--raw', '/version');
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /Unauthorized/);
  });

  it('kubectl create token: the token authenticates as the ServiceAccount, for its audiences only', async () => {
    await k('-n', 'auth', 'create', 'serviceaccount', 'robot');
    const token = (await k('-n', 'auth', 'create', 'token', 'robot', '--duration', '20m')).trim();
    const me = await whoami(await tokenKubeconfig(kp, token, 'robot'));
    assert.equal(me.username, 'system:serviceaccount:auth:robot');
    assert.deepEqual(me.groups, ['system:serviceaccounts', 'system:serviceaccounts:auth', 'system:authenticated']);
    assert.match(me.extra['authentication.kubernetes.io/credential-id'][0], /^JTI=/);
    assert.equal((await as(token, 'get', '--raw', '/version')).code, 0);

    const vault = (await k('-n', 'auth', 'create', 'token', 'robot', '--audience', 'vault')).trim();
    const refused = await as(vault, 'get', '--raw', '/version');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized/);
    const review = (t: string, audiences: string[]) =>
      kubectlOk(kp.kubeconfig, ['create', '-o', 'json', '-f', '-'], JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: t, audiences } }));
    const ok = JSON.parse(await review(vault, ['vault']));
    assert.equal(ok.status.authenticated, true);
    assert.deepEqual(ok.status.audiences, ['vault']);
    assert.equal(ok.status.user.username, 'system:serviceaccount:auth:robot');
    assert.equal(JSON.parse(await review(vault, [])).status.authenticated, undefined);

    const short = await kubectl(kp.kubeconfig, ['-n', 'auth', 'create', 'token', 'robot', '--duration', '5m']);
    assert.match(short.stderr, /may not specify a duration less than 10 minutes/);
  });

  it('a token is refused once its ServiceAccount is deleted and recreated', async () => {
    await k('-n', 'auth', 'create', 'serviceaccount', 'phoenix');
    const token = (await k('-n', 'auth', 'create', 'token', 'phoenix')).trim();
    assert.equal((await as(token, 'get', '--raw', '/version')).code, 0);
    await k('-n', 'auth', 'delete', 'serviceaccount', 'phoenix');
    await k('-n', 'auth', 'create', 'serviceaccount', 'phoenix');
    const after = await as(token, 'get', '--raw', '/version');
    assert.notEqual(after.code, 0);
    assert.match(after.stderr, /Unauthorized/);
    // A new token of the new account works.
    const fresh = (await k('-n', 'auth', 'create', 'token', 'phoenix')).trim();
    assert.equal((await whoami(await tokenKubeconfig(kp, fresh, 'phoenix'))).username, 'system:serviceaccount:auth:phoenix');
  });

  it('a token bound to a Secret dies with the Secret', async () => {
    await k('-n', 'auth', 'create', 'secret', 'generic', 'ancre');
    const token = (await k('-n', 'auth', 'create', 'token', 'robot', '--bound-object-kind', 'Secret', '--bound-object-name', 'ancre')).trim();
    assert.equal((await as(token, 'get', '--raw', '/version')).code, 0);
    await k('-n', 'auth', 'delete', 'secret', 'ancre');
    assert.notEqual((await as(token, 'get', '--raw', '/version')).code, 0);
    const missing = await kubectl(kp.kubeconfig, ['-n', 'auth', 'create', 'token', 'robot', '--bound-object-kind', 'Pod', '--bound-object-name', 'absent']);
    assert.match(missing.stderr, /pods "absent" not found/);
  });

  it('the token controller fills a service-account-token Secret whose token authenticates', async () => {
    const secret = `apiVersion: v1
kind: Secret
metadata:
  name: robot-legacy
  namespace: auth
  annotations:
    kubernetes.io/service-account.name: robot
type: kubernetes.io/service-account-token
`;
    await kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], secret);
    const filled = await eventually('the token Secret filled', async () => {
      const s = JSON.parse(await k('-n', 'auth', 'get', 'secret', 'robot-legacy', '-o', 'json'));
      return s.data?.token ? s : undefined;
    });
    assert.equal(Buffer.from(filled.data.namespace, 'base64').toString(), 'auth');
    assert.match(Buffer.from(filled.data['ca.crt'], 'base64').toString(), /BEGIN CERTIFICATE/);
    const token = Buffer.from(filled.data.token, 'base64').toString();
    assert.equal((await whoami(await tokenKubeconfig(kp, token, 'legacy'))).username, 'system:serviceaccount:auth:robot');
    await k('-n', 'auth', 'delete', 'secret', 'robot-legacy');
    assert.notEqual((await as(token, 'get', '--raw', '/version')).code, 0);
  });

  it('anonymous requests reach only the public paths; a wrong token is refused even there', async () => {
    // kubectl asks for a user name when it has no credentials: a plain HTTPS client asks instead.
    const ca = await readFile(join(kp.dataDir, 'pki', 'ca.crt'), 'utf8');
    const get = (path: string, token?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${kp.url}${path}`, { ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await get(path)).status, 200, path);
    for (const path of ['/api', '/apis', '/api/v1/namespaces', '/openapi/v2', '/.well-known/openid-configuration', '/metrics']) {
      const r = await get(path);
      assert.equal(r.status, 401, path);
      assert.equal(JSON.parse(r.body).reason, 'Unauthorized', path);
    }
    assert.equal((await get('/healthz', 'nope')).status, 401);
    assert.match((await as('nope', 'get', '--raw', '/healthz')).stderr, /Unauthorized/);
  });

  it('discovery lists the authentication API and the token subresource', async () => {
    const out = await k('api-resources', '--api-group', 'authentication.k8s.io', '-o', 'wide');
    assert.match(out, /^selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview\s+create/m);
    assert.match(out, /^tokenreviews\s+authentication\.k8s\.io\/v1\s+false\s+TokenReview\s+create/m);
    const jwks = JSON.parse(await k('get', '--raw', '/openid/v1/jwks'));
    assert.equal(jwks.keys[0].alg, 'RS256');
  });
});
