import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import type { KubeObject } from '@kplane/api';
import { generateServiceAccountKeys, jwks, keyId, publicKeysFromPem, serviceAccountKeys } from './keys.js';
import { serviceAccountTokenAuthenticator, signBoundToken, signLegacyToken, type ObjectLookup } from './serviceaccount.js';

const ISSUER = 'https://kplane.test';
const T0 = new Date('2026-01-01T00:00:00Z');

function world() {
  const objects = new Map<string, KubeObject>();
  const put = (resource: string, ns: string | undefined, name: string, uid: string, extra: Partial<KubeObject> = {}) =>
    objects.set(`${resource}/${ns ?? ''}/${name}`, { metadata: { name, namespace: ns, uid }, ...extra });
  const lookup: ObjectLookup = async (resource, ns, name) => objects.get(`${resource}/${ns ?? ''}/${name}`);
  return { objects, put, lookup };
}

function setup() {
  const keys = generateServiceAccountKeys();
  const w = world();
  let now = T0;
  const auth = serviceAccountTokenAuthenticator({ keys: () => keys, issuers: [ISSUER], apiAudiences: [ISSUER], lookup: w.lookup, now: () => now });
  w.put('serviceaccounts', 'team', 'robot', 'sa-1');
  const bound = (extra: Partial<Parameters<typeof signBoundToken>[2]> = {}) =>
    signBoundToken(keys, ISSUER, { namespace: 'team', serviceAccount: { name: 'robot', uid: 'sa-1' }, audiences: [ISSUER], expirationSeconds: 3600, ...extra }, T0);
  return { keys, w, auth, bound, at: (d: Date) => (now = d) };
}

describe('ServiceAccount tokens', () => {
  it('authenticate a bound token as the ServiceAccount, with its groups and credential id', async () => {
    const { auth, bound } = setup();
    const { token, expiration, jti } = await bound();
    assert.equal(expiration.toISOString(), '2026-01-01T01:00:00.000Z');
    const r = await auth.authenticateToken(token, []);
    assert.deepEqual(r, {
      user: {
        username: 'system:serviceaccount:team:robot',
        uid: 'sa-1',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
      },
      audiences: [ISSUER],
    });
  });

  it('refuse an expired token', async () => {
    const { auth, bound, at } = setup();
    const { token } = await bound({ expirationSeconds: 600 });
    at(new Date(T0.getTime() + 601_000));
    await assert.rejects(auth.authenticateToken(token, []), { message: 'service account token has expired' });
  });

  it('refuse a token for other audiences, and accept one asked for its own audience', async () => {
    const { auth, bound } = setup();
    const { token } = await bound({ audiences: ['vault'] });
    await assert.rejects(auth.authenticateToken(token, []), { message: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]` });
    assert.deepEqual((await auth.authenticateToken(token, ['vault', 'x']))!.audiences, ['vault']);
  });

  it('refuse a token once its ServiceAccount is deleted, or deleted and recreated', async () => {
    const { auth, bound, w } = setup();
    const { token } = await bound();
    w.objects.delete('serviceaccounts/team/robot');
    await assert.rejects(auth.authenticateToken(token, []), { message: 'service account token has been invalidated' });
    w.put('serviceaccounts', 'team', 'robot', 'sa-2');
    await assert.rejects(auth.authenticateToken(token, []), { message: 'service account UID (sa-2) does not match claim (sa-1)' });
  });

  it('refuse a token bound to a pod or secret that is gone or recreated', async () => {
    const { auth, bound, w } = setup();
    w.put('pods', 'team', 'web', 'pod-1');
    w.put('secrets', 'team', 's', 'sec-1');
    const { token: podToken } = await bound({ pod: { name: 'web', uid: 'pod-1' }, node: { name: 'n1', uid: 'node-1' } });
    const r = await auth.authenticateToken(podToken, []);
    assert.deepEqual(r!.user.extra!['authentication.kubernetes.io/pod-name'], ['web']);
    assert.deepEqual(r!.user.extra!['authentication.kubernetes.io/node-name'], ['n1']);
    w.put('pods', 'team', 'web', 'pod-2');
    await assert.rejects(auth.authenticateToken(podToken, []), { message: 'pod UID (pod-2) does not match claim (pod-1)' });
    const { token: secretToken } = await bound({ secret: { name: 's', uid: 'sec-1' } });
    assert.ok(await auth.authenticateToken(secretToken, []));
    w.objects.delete('secrets/team/s');
    await assert.rejects(auth.authenticateToken(secretToken, []), { message: 'service account token has been invalidated' });
  });

  it('refuse a token signed by another key, and ignore tokens of other issuers or that are not JWTs', async () => {
    const { auth } = setup();
    const other = generateServiceAccountKeys();
    const forged = await signBoundToken(other, ISSUER, { namespace: 'team', serviceAccount: { name: 'robot', uid: 'sa-1' }, audiences: [ISSUER], expirationSeconds: 3600 }, T0);
    await assert.rejects(auth.authenticateToken(forged.token, []), /cryptographic primitive/);
    // Same kid, other key: the signature check still fails.
    const header = JSON.parse(Buffer.from(forged.token.split('.')[0]!, 'base64url').toString());
    assert.equal(typeof header.kid, 'string');
    const foreign = await new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setIssuer('https://elsewhere').sign(other.signingKey);
    assert.equal(await auth.authenticateToken(foreign, []), undefined);
    assert.equal(await auth.authenticateToken('not-a-jwt', []), undefined);
  });

  it('authenticate a legacy Secret token while its Secret holds it, and refuse it after', async () => {
    const { auth, keys, w } = setup();
    const token = await signLegacyToken(keys, { namespace: 'team', secretName: 'robot-token', serviceAccount: { name: 'robot', uid: 'sa-1' } });
    w.put('secrets', 'team', 'robot-token', 'sec-9', { data: { token: Buffer.from(token).toString('base64') } });
    const r = await auth.authenticateToken(token, []);
    assert.equal(r!.user.username, 'system:serviceaccount:team:robot');
    w.put('secrets', 'team', 'robot-token', 'sec-9', { data: { token: Buffer.from('other').toString('base64') } });
    await assert.rejects(auth.authenticateToken(token, []), { message: "token does not match server's copy" });
    w.objects.delete('secrets/team/robot-token');
    await assert.rejects(auth.authenticateToken(token, []), { message: 'service account token has been invalidated' });
  });
});

describe('ServiceAccount keys', () => {
  it('read public keys from public keys, private keys and certificates, and name them by their digest', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = `${rsa.publicKey.export({ type: 'spki', format: 'pem' })}${rsa.privateKey.export({ type: 'pkcs8', format: 'pem' })}`;
    const keys = publicKeysFromPem(pem);
    assert.equal(keys.length, 2);
    assert.equal(keyId(keys[0]!), keyId(keys[1]!));
    const sa = serviceAccountKeys(rsa.privateKey, keys);
    assert.equal(sa.publicKeys.length, 1);
    assert.equal(sa.signingAlg, 'RS256');
    const set = jwks(sa);
    assert.deepEqual(Object.keys(set.keys[0]!).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
    assert.throws(() => publicKeysFromPem('nothing here'), /no public key/);
  });
});
