import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kplane/api';
import { Namespaces, ServiceAccounts, createManager } from '@kplane/runtime';
import { createServiceAccountController } from './index.js';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '../namespace/testing.js';

let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

const sa = () => kp.client.resource(ServiceAccounts);
async function hasDefault(ns: string): Promise<boolean> {
  try {
    await sa().get('default', { namespace: ns });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return false;
    throw err;
  }
}

it('creates default in every active namespace, recreates it, and skips terminating namespaces', async () => {
  const namespaces = kp.client.resource(Namespaces);
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'before' } });
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'leaving' } });
  await namespaces.delete('leaving'); // no namespace controller here: it stays Terminating
  assert.equal(await hasDefault('before'), false);

  const manager = createManager({ client: kp.client });
  const controller = createServiceAccountController({ manager });
  assert.equal(controller.name, 'serviceaccount');
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  try {
    for (const ns of ['before', 'default', 'kube-system']) await eventually(`default in ${ns}`, () => hasDefault(ns));

    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after' } });
    const first = await eventually('default in a new namespace', async () => (await hasDefault('after')) && sa().get('default', { namespace: 'after' }));
    assert.deepEqual(first.metadata?.ownerReferences, undefined);

    await sa().delete('default', { namespace: 'after' });
    const again = await eventually('default recreated', async () => {
      const cur = await sa().get('default', { namespace: 'after' }).catch(() => undefined);
      return cur && cur.metadata?.uid !== first.metadata?.uid ? cur : undefined;
    });
    assert.notEqual(again.metadata?.uid, first.metadata?.uid);

    // Another ServiceAccount's deletion changes nothing, and a terminating namespace gets nothing.
    await sa().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'after' } });
    await sa().delete('robot', { namespace: 'after' });
    // A barrier: one worker takes namespaces in order, so a namespace made now is served after
    // the deletion above was looked at.
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'later' } });
    await eventually('default in a later namespace', () => hasDefault('later'));
    assert.equal(await hasDefault('leaving'), false);
    assert.equal((await sa().get('default', { namespace: 'after' })).metadata?.uid, again.metadata?.uid);
  } finally {
    abort.abort();
    await done;
  }
});
