import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import { startTestKplane as startKplane } from '@kplane/apiserver/testing';
import { addFinalizer, containsFinalizer, finalizer, FinalizerError, removeFinalizer } from './finalizer.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' } as const;
const NAME = 'example.com/cleanup';

test('finalizer list helpers', () => {
  const obj: KubeObject = { metadata: { name: 'x' } };
  assert.equal(containsFinalizer(obj, 'a'), false);
  assert.equal(addFinalizer(obj, 'a'), true);
  assert.equal(addFinalizer(obj, 'a'), false);
  assert.equal(addFinalizer(obj, 'b'), true);
  assert.deepEqual(obj.metadata!.finalizers, ['a', 'b']);
  assert.equal(containsFinalizer(obj, 'b'), true);
  assert.equal(removeFinalizer(obj, 'a'), true);
  assert.equal(removeFinalizer(obj, 'a'), false);
  assert.deepEqual(obj.metadata!.finalizers, ['b']);
  assert.equal(removeFinalizer({}, 'a'), false);
});

test('finalizer: add, apply, cleanup then remove, then nothing', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  const log: string[] = [];
  const handlers = {
    apply: (o: KubeObject) => (log.push(`apply ${o.metadata!.name}`), 'applied!'),
    cleanup: async (o: KubeObject) => (log.push(`cleanup ${o.metadata!.name}`), 'cleaned!'),
  };
  await cms.create({ metadata: { name: 'cfg', namespace: 'default', finalizers: ['other.io/keep'] } });
  const get = () => cms.get('cfg', { namespace: 'default' });

  assert.deepEqual(await finalizer(cms, await get(), NAME, handlers), { event: 'added' });
  assert.deepEqual(log, [], 'apply waits for the next reconcile');
  assert.deepEqual((await get()).metadata!.finalizers, ['other.io/keep', NAME]);

  assert.deepEqual(await finalizer(cms, await get(), NAME, handlers), { event: 'applied', result: 'applied!' });
  assert.deepEqual(log, ['apply cfg']);

  await cms.delete('cfg', { namespace: 'default' });
  const deleting = await get();
  assert.ok(deleting.metadata!.deletionTimestamp, 'held by finalizers');
  assert.deepEqual(await finalizer(cms, deleting, NAME, handlers), { event: 'cleaned-up', result: 'cleaned!' });
  assert.deepEqual(log, ['apply cfg', 'cleanup cfg']);
  const after = await get();
  assert.deepEqual(after.metadata!.finalizers, ['other.io/keep'], 'only our finalizer removed');

  assert.deepEqual(await finalizer(cms, after, NAME, handlers), { event: 'none' });
  assert.equal(log.length, 2);
});

test('finalizer: adding to an object without finalizers carries its resourceVersion as a precondition', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  const handlers = { apply: () => 1, cleanup: () => 2 };
  const stale = await cms.create({ metadata: { name: 'cfg', namespace: 'default' } });
  await cms.update({ ...stale, data: { changed: 'yes' } });
  await assert.rejects(
    finalizer(cms, stale, NAME, handlers),
    (e: unknown) => e instanceof FinalizerError && e.kind === 'AddFinalizer' && e.cause instanceof ApiError && e.cause.code === 409,
  );
  const fresh = await cms.get('cfg', { namespace: 'default' });
  assert.equal(fresh.metadata!.finalizers, undefined, 'nothing written from stale data');
  assert.deepEqual(await finalizer(cms, fresh, NAME, handlers), { event: 'added' });
  assert.deepEqual((await cms.get('cfg', { namespace: 'default' })).metadata!.finalizers, [NAME]);
});

test('finalizer: a failed cleanup keeps the finalizer; a moved entry fails the removal safely', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  await cms.create({ metadata: { name: 'cfg', namespace: 'default', finalizers: ['a.io/x', NAME] } });
  await cms.delete('cfg', { namespace: 'default' });
  const deleting = await cms.get('cfg', { namespace: 'default' });

  await assert.rejects(
    finalizer(cms, deleting, NAME, { apply: () => 0, cleanup: () => Promise.reject(new Error('cloud API down')) }),
    (e: unknown) => e instanceof FinalizerError && e.kind === 'CleanupFailed' && e.message === 'failed to clean up object: cloud API down',
  );
  assert.deepEqual((await cms.get('cfg', { namespace: 'default' })).metadata!.finalizers, ['a.io/x', NAME]);

  // Someone removes the other finalizer first: our index is stale, so the test op fails.
  await cms.patch('cfg', [{ op: 'remove', path: '/metadata/finalizers/0' }], 'json', { namespace: 'default' });
  await assert.rejects(
    finalizer(cms, deleting, NAME, { apply: () => 0, cleanup: () => 0 }),
    (e: unknown) => e instanceof FinalizerError && e.kind === 'RemoveFinalizer',
  );
  const current = await cms.get('cfg', { namespace: 'default' });
  assert.deepEqual(current.metadata!.finalizers, [NAME], 'nobody else\'s finalizer was removed');
  assert.deepEqual(await finalizer(cms, current, NAME, { apply: () => 0, cleanup: () => 42 }), { event: 'cleaned-up', result: 42 });
  await assert.rejects(cms.get('cfg', { namespace: 'default' }), /not found/);
});

test('finalizer: a 404 on removal means done, a 404 on adding means nothing to do', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  await cms.create({ metadata: { name: 'cfg', namespace: 'default', finalizers: [NAME] } });
  await cms.delete('cfg', { namespace: 'default' });
  const deleting = await cms.get('cfg', { namespace: 'default' });
  // Another actor removes the finalizer first: the object goes while our cleanup runs.
  const cleanup = async () => {
    await cms.patch('cfg', [{ op: 'remove', path: '/metadata/finalizers/0' }], 'json', { namespace: 'default' });
    return 'cleaned!';
  };
  assert.deepEqual(await finalizer(cms, deleting, NAME, { apply: () => 'x', cleanup }), { event: 'cleaned-up', result: 'cleaned!' });
  await assert.rejects(cms.get('cfg', { namespace: 'default' }), /not found/);

  const vanished = await cms.create({ metadata: { name: 'short', namespace: 'default' } });
  await cms.delete('short', { namespace: 'default' });
  assert.deepEqual(await finalizer(cms, vanished, NAME, { apply: () => 'x', cleanup: () => 'y' }), { event: 'none' });
});
