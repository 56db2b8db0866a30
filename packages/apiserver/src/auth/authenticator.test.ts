import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { ApiError } from '@kplane/api';
import { createCa, issueCertificate } from './pki.js';
import { bearerToken, certificateUser, createRequestAuthenticator } from './authenticator.js';
import { staticTokenAuthenticator } from './token-file.js';
import { InvalidTokenError, type TokenAuthenticator } from './token.js';
import type { AuthenticationRequest } from './types.js';

describe('request authenticator', () => {
  let alice: X509Certificate;
  let noName: X509Certificate;
  before(async () => {
    const ca = await createCa();
    alice = new X509Certificate((await issueCertificate(ca, { subject: 'CN=alice, O=dev, O=system:masters', usage: 'client' })).cert);
    noName = new X509Certificate((await issueCertificate(ca, { subject: 'O=dev', usage: 'client' })).cert);
  });
  const revoking: TokenAuthenticator = {
    async authenticateToken(token) {
      if (token === 'revoked') throw new InvalidTokenError('service account token has been invalidated');
      return undefined;
    },
  };
  const a = () => createRequestAuthenticator({ tokens: [staticTokenAuthenticator(new Map([['t1', { username: 'bob', uid: 'b', groups: ['ops'] }]]), ['api']), revoking] });

  it('takes the user from a certificate: CN the name, every O a group, and system:authenticated', async () => {
    assert.deepEqual(certificateUser(alice), { username: 'alice', groups: ['dev', 'system:masters'] });
    assert.deepEqual(await a().authenticate({ headers: {}, verifiedChain: [alice] }), { username: 'alice', groups: ['dev', 'system:masters', 'system:authenticated'] });
  });

  it('prefers the certificate to a bearer token, as kube-apiserver', async () => {
    assert.equal((await a().authenticate({ headers: { authorization: 'Bearer t1' }, verifiedChain: [alice] }))!.username, 'alice');
  });

  it('authenticates bearer tokens, in any case of the scheme', async () => {
    assert.deepEqual(await a().authenticate({ headers: { authorization: 'bearer t1' } }), { username: 'bob', uid: 'b', groups: ['ops', 'system:authenticated'] });
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken('Bearer  x '), 'x');
  });

  it('is anonymous (undefined) without credentials, and 401 for credentials none accepts', async () => {
    assert.equal(await a().authenticate({ headers: {} }), undefined);
    const requests: AuthenticationRequest[] = [{ headers: { authorization: 'Bearer nope' } }, { headers: {}, certificateError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, { headers: {}, verifiedChain: [noName] }];
    for (const req of requests) {
      await assert.rejects(a().authenticate(req), (err: unknown) => err instanceof ApiError && err.code === 401 && err.message === 'Unauthorized');
    }
  });

  it('reviews tokens with the reason they are refused', async () => {
    assert.deepEqual(await a().reviewToken('nope', []), { authenticated: false, error: 'invalid bearer token' });
    assert.deepEqual(await a().reviewToken('revoked', []), { authenticated: false, error: '[invalid bearer token, service account token has been invalidated]' });
    const ok = await a().reviewToken('t1', ['api']);
    assert.ok(ok.authenticated && ok.audiences[0] === 'api');
  });
});
