import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kplane/api';
import { Secrets, ServiceAccounts, createManager, type Secret } from '@kplane/runtime';
import { createTokensController, type LegacyTokenClaims } from './index.js';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '../namespace/testing.js';

let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');

it('fills token Secrets of existing ServiceAccounts and deletes those whose ServiceAccount is gone or recreated', async () => {
  const secrets = kp.client.resource(Secrets);
  const accounts = kp.client.resource(ServiceAccounts);
  const issued: LegacyTokenClaims[] = [];
  const manager = createManager({ client: kp.client });
  createTokensController({ manager, rootCA: 'CA-PEM', generateToken: async (c) => (issued.push(c), `tok-${c.secretName}-${c.serviceAccount.uid}`) });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const get = (name: string) => secrets.get(name, { namespace: 'default' }).catch((err) => (err instanceof ApiError && err.code === 404 ? undefined : Promise.reject(err)));
  try {
    const sa = await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } }, { namespace: 'default' });
    const tokenSecret = (name: string, account: string): Secret => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'default', annotations: { 'kubernetes.io/service-account.name': account } },
      type: 'kubernetes.io/service-account-token',
    });
    await secrets.create(tokenSecret('robot-token', 'robot'), { namespace: 'default' });
    await secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain', namespace: 'default' }, data: {} }, { namespace: 'default' });
    const filled = await eventually('token filled', async () => {
      const s = await get('robot-token');
      return s?.data?.token ? s : undefined;
    });
    assert.deepEqual(filled.data, { token: b64(`tok-robot-token-${sa.metadata!.uid}`), 'ca.crt': b64('CA-PEM'), namespace: b64('default') });
    assert.equal(filled.metadata!.annotations!['kubernetes.io/service-account.uid'], sa.metadata!.uid);
    assert.deepEqual(issued, [{ namespace: 'default', secretName: 'robot-token', serviceAccount: { name: 'robot', uid: sa.metadata!.uid } }]);

    // A Secret for a ServiceAccount that does not exist is deleted.
    await secrets.create(tokenSecret('ghost-token', 'ghost'), { namespace: 'default' });
    await eventually('ghost token deleted', async () => (await get('ghost-token')) === undefined);

    // Deleting and recreating the ServiceAccount removes its token Secret (the uid no longer matches).
    await accounts.delete('robot', { namespace: 'default' });
    await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } }, { namespace: 'default' });
    await eventually('stale token deleted', async () => (await get('robot-token')) === undefined);
    assert.ok(await get('plain'));
  } finally {
    abort.abort();
    await done;
  }
});
