import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { eventually } from '@kplane/api/testing';
import { createClient } from '@kplane/client';
import { ConfigMaps, createInformerFactory } from '@kplane/runtime';
import { createCm, createNamespace, getOrNone, refTo, startKplane, testGc, type TestKplane } from './test-support.js';

let k: TestKplane;

before(async () => {
  k = await startKplane();
});
after(async () => {
  await k.close();
});

const exists = async (ns: string, name: string): Promise<boolean> => (await getOrNone(k.configMaps, name, ns)) !== undefined;
const gone = async (ns: string, ...names: string[]): Promise<boolean> => {
  for (const n of names) if (await exists(ns, n)) return false;
  return true;
};

test('background: deleting an owner deletes two levels of dependents', async () => {
  const ns = 'gc-bg';
  await createNamespace(k.client, ns);
  const run = testGc(k.client);
  await run.start();
  try {
    const root = await createCm(k, ns, 'root');
    const c1 = await createCm(k, ns, 'c1', [refTo(root)]);
    const c2 = await createCm(k, ns, 'c2', [refTo(root)]);
    await createCm(k, ns, 'g1', [refTo(c1)]);
    await createCm(k, ns, 'g2', [refTo(c1)]);
    await createCm(k, ns, 'g3', [refTo(c2)]);
    const unrelated = await createCm(k, ns, 'unrelated');
    await createCm(k, ns, 'kept', [refTo(unrelated)]);
    await eventually('the graph holds the root', () => run.gc.graphHas(root.metadata!.uid!));

    const status = await k.configMaps.delete('root', { namespace: ns });
    assert.equal((status as { kind?: string }).kind, 'Status', 'background deletion removes the owner at once');
    await eventually('every dependent is gone', () => gone(ns, 'c1', 'c2', 'g1', 'g2', 'g3'));
    assert.ok(await exists(ns, 'unrelated'));
    assert.ok(await exists(ns, 'kept'), 'an object whose owner exists stays');
  } finally {
    await run.stop();
  }
});

test('foreground: the owner keeps foregroundDeletion while a blocking dependent remains, then everything goes', async () => {
  const ns = 'gc-fg';
  await createNamespace(k.client, ns);
  const run = testGc(k.client);
  await run.start();
  try {
    const root = await createCm(k, ns, 'root');
    const child = await createCm(k, ns, 'child', [refTo(root, { blockOwnerDeletion: true, controller: true })]);
    await createCm(k, ns, 'grandchild', [refTo(child, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
    await createCm(k, ns, 'loose', [refTo(root)]); // not blocking
    await eventually('the graph holds the child', async () => run.gc.graphHas(child.metadata!.uid!));

    const res = (await k.configMaps.delete('root', { namespace: ns, propagationPolicy: 'Foreground' })) as KubeObject;
    assert.ok(res.metadata?.finalizers?.includes('foregroundDeletion'));

    // The grandchild is being deleted but held by its own finalizer.
    await eventually('the grandchild is deleting', async () => (await getOrNone(k.configMaps, 'grandchild', ns))?.metadata?.deletionTimestamp);
    await eventually('the child deletes in foreground', async () => (await getOrNone(k.configMaps, 'child', ns))?.metadata?.finalizers?.includes('foregroundDeletion'));
    await eventually('a non-blocking dependent is deleted', () => gone(ns, 'loose'));
    const rootNow = await k.configMaps.get('root', { namespace: ns });
    assert.ok(rootNow.metadata?.deletionTimestamp);
    assert.deepEqual(rootNow.metadata?.finalizers, ['foregroundDeletion']);
    const childNow = await k.configMaps.get('child', { namespace: ns });
    assert.ok(childNow.metadata?.deletionTimestamp);

    await k.configMaps.patch('grandchild', { metadata: { finalizers: null } }, 'merge', { namespace: ns });
    await eventually('the whole tree is gone', () => gone(ns, 'root', 'child', 'grandchild'));
  } finally {
    await run.stop();
  }
});

test('orphan: dependents stay, without the owner reference', async () => {
  const ns = 'gc-orphan';
  await createNamespace(k.client, ns);
  const run = testGc(k.client);
  await run.start();
  try {
    const root = await createCm(k, ns, 'root');
    const other = await createCm(k, ns, 'other');
    await createCm(k, ns, 'd1', [refTo(root, { controller: true, blockOwnerDeletion: true })]);
    await createCm(k, ns, 'd2', [refTo(root), refTo(other)]);
    await eventually('the graph holds the root', () => run.gc.graphHas(root.metadata!.uid!));

    await k.configMaps.delete('root', { namespace: ns, propagationPolicy: 'Orphan' });
    await eventually('the owner is gone', () => gone(ns, 'root'));
    const d1 = await k.configMaps.get('d1', { namespace: ns });
    assert.equal(d1.metadata?.ownerReferences?.length ?? 0, 0);
    const d2 = await k.configMaps.get('d2', { namespace: ns });
    assert.deepEqual(d2.metadata?.ownerReferences?.map((r) => r.uid), [other.metadata!.uid]);
  } finally {
    await run.stop();
  }
});

test('an owner recreated under the same name is another owner', async () => {
  const ns = 'gc-uid';
  await createNamespace(k.client, ns);
  const old = await createCm(k, ns, 'owner');
  await createCm(k, ns, 'dep-old', [refTo(old)]);
  await k.configMaps.delete('owner', { namespace: ns });
  const recreated = await createCm(k, ns, 'owner');
  assert.notEqual(recreated.metadata!.uid, old.metadata!.uid);
  await createCm(k, ns, 'dep-new', [refTo(recreated)]);

  const run = testGc(k.client);
  await run.start();
  try {
    await eventually('the dependent of the old uid is deleted', () => gone(ns, 'dep-old'));
    assert.ok(await exists(ns, 'owner'));
    assert.ok(await exists(ns, 'dep-new'));
  } finally {
    await run.stop();
  }
});

test('an owner in another namespace: the dependent is deleted with an OwnerRefInvalidNamespace event', async () => {
  await createNamespace(k.client, 'gc-ns-a');
  await createNamespace(k.client, 'gc-ns-b');
  const run = testGc(k.client);
  await run.start();
  try {
    const owner = await createCm(k, 'gc-ns-a', 'owner');
    const dep = await createCm(k, 'gc-ns-b', 'dependent', [refTo(owner)]);
    await eventually('the dependent is deleted', () => gone('gc-ns-b', 'dependent'));
    assert.ok(await exists('gc-ns-a', 'owner'));

    const events = k.client.resource<KubeObject>({ group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' });
    const ev = await eventually('the event is written', async () => (await events.list({ namespace: 'gc-ns-b', fieldSelector: 'involvedObject.name=dependent' })).items[0]);
    assert.equal(ev.reason, 'OwnerRefInvalidNamespace');
    assert.equal(ev.type, 'Warning');
    assert.equal(
      ev.message,
      `ownerRef [v1/ConfigMap, namespace: gc-ns-b, name: owner, uid: ${owner.metadata!.uid}] does not exist in namespace "gc-ns-b"`,
    );
    assert.deepEqual((ev.source as { component?: string }).component, 'garbage-collector-controller');
    const involved = ev.involvedObject as Record<string, string>;
    assert.equal(involved.kind, 'ConfigMap');
    assert.equal(involved.uid, dep.metadata!.uid);
  } finally {
    await run.stop();
  }
});

test('a cluster-scoped object cannot be owned by a namespaced one: kept, with an event', async () => {
  await createNamespace(k.client, 'gc-cluster');
  const nodes = k.client.resource<KubeObject>({ group: '', version: 'v1', resource: 'nodes', namespaced: false, kind: 'Node' });
  const run = testGc(k.client);
  await run.start();
  try {
    const owner = await createCm(k, 'gc-cluster', 'owner');
    await nodes.create({ metadata: { name: 'gc-node', ownerReferences: [refTo(owner)] } });
    const events = k.client.resource<KubeObject>({ group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' });
    const ev = await eventually('the event is written', async () => (await events.list({ namespace: 'default', fieldSelector: 'involvedObject.name=gc-node' })).items[0]);
    assert.equal(ev.reason, 'OwnerRefInvalidNamespace');
    assert.equal(ev.message, `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ${owner.metadata!.uid}] does not exist in namespace ""`);
    // Still there once the collector has looked at it (the queue is idle again).
    await eventually('the collector settles', () => run.errors.length === 0 && run.gc.graphHas(owner.metadata!.uid!));
    assert.ok(await getOrNone(nodes, 'gc-node'));
    await nodes.delete('gc-node');
  } finally {
    await run.stop();
  }
});

test('restart: deletions made while the collector was stopped are finished after it starts again', async () => {
  const ns = 'gc-restart';
  await createNamespace(k.client, ns);
  const run = testGc(k.client);
  await run.start();
  const bg = await createCm(k, ns, 'bg');
  const bgChild = await createCm(k, ns, 'bg-child', [refTo(bg)]);
  await createCm(k, ns, 'bg-grandchild', [refTo(bgChild)]);
  const fg = await createCm(k, ns, 'fg');
  await createCm(k, ns, 'fg-child', [refTo(fg, { blockOwnerDeletion: true })]);
  const orphan = await createCm(k, ns, 'or');
  await createCm(k, ns, 'or-child', [refTo(orphan)]);
  await eventually('the graph holds the owners', () => run.gc.graphHas(orphan.metadata!.uid!));
  await run.stop();

  await k.configMaps.delete('bg', { namespace: ns });
  await k.configMaps.delete('fg', { namespace: ns, propagationPolicy: 'Foreground' });
  await k.configMaps.delete('or', { namespace: ns, propagationPolicy: 'Orphan' });
  // Nothing happens while it is stopped: only state was set.
  assert.ok(await exists(ns, 'bg-child'));
  assert.deepEqual((await k.configMaps.get('fg', { namespace: ns })).metadata?.finalizers, ['foregroundDeletion']);
  assert.deepEqual((await k.configMaps.get('or', { namespace: ns })).metadata?.finalizers, ['orphan']);

  await run.start();
  try {
    await eventually('the pending work is done', () => gone(ns, 'bg-child', 'bg-grandchild', 'fg', 'fg-child', 'or'));
    const orChild = await k.configMaps.get('or-child', { namespace: ns });
    assert.equal(orChild.metadata?.ownerReferences?.length ?? 0, 0);
  } finally {
    await run.stop();
  }
});

test('a resource cached by a shared informer is followed through it, without a watch of its own (and again after a restart)', async () => {
  const ns = 'gc-shared';
  await createNamespace(k.client, ns);
  const factory = createInformerFactory({ client: k.client });
  factory.informerFor(ConfigMaps);
  const stopInformers = new AbortController();
  factory.start(stopInformers.signal);
  await factory.waitForCacheSync();
  const watched: string[] = [];
  const client = createClient({ transport: (req) => (req.query?.watch === 'true' && watched.push(req.path), k.client.transport(req)) });
  const run = testGc(client, { informers: factory });
  try {
    await run.start();
    assert.ok(watched.length > 0, 'other resources are watched by the collector');
    assert.deepEqual(watched.filter((p) => p.endsWith('/configmaps')), [], 'ConfigMaps come from the shared informer');
    const root = await createCm(k, ns, 'root');
    await createCm(k, ns, 'child', [refTo(root)]);
    await eventually('the graph holds the root', () => run.gc.graphHas(root.metadata!.uid!));
    await k.configMaps.delete('root', { namespace: ns });
    await eventually('the dependent is gone', () => gone(ns, 'child'));
    // Stopped, then started again: the graph is rebuilt from what the informer holds.
    await run.stop();
    const owner = await createCm(k, ns, 'owner');
    await createCm(k, ns, 'dependent', [refTo(owner)]);
    await run.start();
    await eventually('the graph holds the new owner', () => run.gc.graphHas(owner.metadata!.uid!));
    await k.configMaps.delete('owner', { namespace: ns });
    await eventually('its dependent is gone', () => gone(ns, 'dependent'));
  } finally {
    await run.stop();
    stopInformers.abort();
    await factory.shutdown();
  }
});
