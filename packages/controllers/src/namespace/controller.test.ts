import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import { ConfigMaps, Namespaces, Secrets, createManager, type Namespace } from '@kplane/runtime';
import { createNamespaceController, createNamespaceDeleter, discoverDeletableNamespacedResources, DiscoveryError, AggregateDeletionError } from './index.js';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from './testing.js';

let kp: TestKplane;
const WIDGETS = { group: 'exemple.fr', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' };

before(async () => {
  kp = await startTestKplane();
  await kp.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false, kind: 'CustomResourceDefinition' }).create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.exemple.fr' },
    spec: {
      group: 'exemple.fr',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as KubeObject);
  await eventually('the widgets resource to be served', async () => (await kp.client.resource(WIDGETS).list({ namespace: 'default' })) && true);
});
after(() => kp.close());

const namespaces = () => kp.client.resource(Namespaces);
const getNs = (name: string) => namespaces().get(name) as Promise<Namespace>;
async function gone(name: string): Promise<boolean> {
  try {
    await namespaces().get(name);
    return false;
  } catch (err) {
    return err instanceof ApiError && err.code === 404;
  }
}
const condition = (ns: Namespace, type: string) => ns.status?.conditions?.find((c) => c.type === type);

/** A namespace holding a ConfigMap, a Secret and a custom object. */
async function populated(name: string, cmFinalizers?: string[]): Promise<void> {
  await namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await kp.client.resource(ConfigMaps).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'garde', namespace: name, finalizers: cmFinalizers }, data: { a: '1' } });
  await kp.client.resource(Secrets).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: name }, stringData: { k: 'v' } });
  await kp.client.resource(WIDGETS).create({ apiVersion: 'exemple.fr/v1', kind: 'Widget', metadata: { name: 'w', namespace: name } });
}

async function runController() {
  const manager = createManager({ client: kp.client });
  const logs: string[] = [];
  const controller = createNamespaceController({ manager, deletionGracePeriodMs: 0, log: (m) => logs.push(m) });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  return { controller, logs, stop: async () => (abort.abort(), await done) };
}

it('discovers namespaced deletable resources once each, custom ones included, in the preferred version', async () => {
  const found = await discoverDeletableNamespacedResources(kp.client);
  assert.equal(found.error, undefined);
  const ids = found.resources.map((r) => `${r.group}/${r.version}/${r.resource}`);
  for (const id of ['/v1/configmaps', '/v1/secrets', '/v1/pods', 'apps/v1/deployments', 'exemple.fr/v1/widgets', 'coordination.k8s.io/v1/leases']) assert.ok(ids.includes(id), id);
  for (const cluster of ['/v1/namespaces', '/v1/nodes', 'apiextensions.k8s.io/v1/customresourcedefinitions']) assert.ok(!ids.includes(cluster), cluster);
  assert.ok(!ids.some((id) => id.includes('/status') || id.endsWith('/finalize')));
  assert.equal(new Set(found.resources.map((r) => `${r.group}/${r.resource}`)).size, found.resources.length, 'one version per group/resource');
});

it('the seed experiment: a finalizer holds the namespace in Terminating with both conditions, then it goes', async () => {
  const cm = await runController();
  try {
    await populated('ch36-bloque', ['cours.exemple/archivage']);
    await namespaces().delete('ch36-bloque');
    const ns = await eventually('the conditions', async () => {
      const n = await getNs('ch36-bloque');
      return condition(n, 'NamespaceFinalizersRemaining')?.status === 'True' ? n : undefined;
    });
    assert.equal(ns.status?.phase, 'Terminating');
    assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
    const remaining = condition(ns, 'NamespaceContentRemaining')!;
    assert.deepEqual([remaining.status, remaining.reason, remaining.message], ['True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances']);
    const fin = condition(ns, 'NamespaceFinalizersRemaining')!;
    assert.deepEqual(
      [fin.status, fin.reason, fin.message],
      ['True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: cours.exemple/archivage in 1 resource instances'],
    );
    for (const type of ['NamespaceDeletionDiscoveryFailure', 'NamespaceDeletionGroupVersionParsingFailure', 'NamespaceDeletionContentFailure']) {
      assert.equal(condition(ns, type)?.status, 'False', type);
    }
    // Everything without a finalizer is already gone; the ConfigMap waits with a deletionTimestamp.
    assert.equal((await kp.client.resource(Secrets).list({ namespace: 'ch36-bloque' })).items.length, 0);
    assert.equal((await kp.client.resource(WIDGETS).list({ namespace: 'ch36-bloque' })).items.length, 0);
    const garde = await kp.client.resource(ConfigMaps).get('garde', { namespace: 'ch36-bloque' });
    assert.ok(garde.metadata?.deletionTimestamp);

    await kp.client.resource(ConfigMaps).patch('garde', [{ op: 'remove', path: '/metadata/finalizers' }], 'json', { namespace: 'ch36-bloque' });
    cm.controller.enqueue('ch36-bloque'); // instead of waiting for the 8 s re-check
    await eventually('the namespace to disappear', () => gone('ch36-bloque'));
    assert.deepEqual(cm.logs.filter((l) => !l.includes('some content remains')), []);
  } finally {
    await cm.stop();
  }
});

it('is level-driven: a namespace deleted while the controller was stopped is emptied when it starts', async () => {
  await populated('deleted-while-down');
  await namespaces().delete('deleted-while-down');
  // No controller runs yet: the delete's answer is the whole of what happens.
  const waiting = await getNs('deleted-while-down');
  assert.equal(waiting.status?.phase, 'Terminating');
  assert.equal((await kp.client.resource(ConfigMaps).list({ namespace: 'deleted-while-down' })).items.length, 1, 'nothing happens without the controller');
  const cm = await runController();
  try {
    await eventually('the namespace to disappear', () => gone('deleted-while-down'));
    assert.equal((await kp.client.resource(WIDGETS).list({ namespace: 'deleted-while-down' })).items.length, 0);
  } finally {
    await cm.stop();
  }
});

it('leaves namespaces that are not being deleted alone', async () => {
  await populated('alive');
  const deleter = createNamespaceDeleter({ client: kp.client });
  assert.equal(await deleter.delete('alive'), 0);
  assert.equal(await deleter.delete('does-not-exist'), 0);
  const ns = await getNs('alive');
  assert.equal(ns.status?.conditions, undefined);
  assert.equal((await kp.client.resource(ConfigMaps).list({ namespace: 'alive' })).items.length, 1);
});

it('records a content failure, keeps deleting the rest, and clears the condition once it works', async () => {
  await populated('broken');
  let fail = true;
  const client = kp.clientWith(async (req, next) => {
    if (fail && req.method === 'DELETE' && req.path === '/api/v1/namespaces/broken/secrets') {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request timed out', reason: 'InternalError', code: 500 });
      return { status: 500, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body) };
    }
    return next(req);
  });
  const deleter = createNamespaceDeleter({ client });
  await namespaces().delete('broken');
  await assert.rejects(deleter.delete('broken'), (err: unknown) => err instanceof AggregateDeletionError && err.message === 'etcdserver: request timed out');
  const ns = await getNs('broken');
  const failed = condition(ns, 'NamespaceDeletionContentFailure')!;
  assert.deepEqual([failed.status, failed.reason, failed.message], ['True', 'ContentDeletionFailed', 'Failed to delete all resource types, 1 remaining: etcdserver: request timed out']);
  assert.equal((await kp.client.resource(ConfigMaps).list({ namespace: 'broken' })).items.length, 0, 'other resources were emptied');
  assert.ok(await getNs('broken'), 'not finalized while something failed');

  fail = false;
  assert.equal(await deleter.delete('broken'), 0);
  assert.ok(await gone('broken'));
});

it('records a discovery failure but still deletes what it could discover', async () => {
  await populated('half-discovered');
  const deleter = createNamespaceDeleter({
    client: kp.client,
    discover: async () => {
      const found = await discoverDeletableNamespacedResources(kp.client);
      return { ...found, error: new DiscoveryError(new Map([['metrics.k8s.io/v1beta1', 'the server is currently unable to handle the request']])) };
    },
  });
  await namespaces().delete('half-discovered');
  await assert.rejects(deleter.delete('half-discovered'), /unable to retrieve the complete list of server APIs: metrics.k8s.io\/v1beta1/);
  const ns = await getNs('half-discovered');
  const c = condition(ns, 'NamespaceDeletionDiscoveryFailure')!;
  assert.deepEqual(
    [c.status, c.reason, c.message],
    ['True', 'DiscoveryFailed', 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request'],
  );
  assert.equal((await kp.client.resource(ConfigMaps).list({ namespace: 'half-discovered' })).items.length, 0);
  assert.deepEqual(ns.spec?.finalizers, ['kubernetes'], 'not finalized after a failure');
});

it('removes only its own token: another spec finalizer keeps the namespace', async () => {
  await namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other-token' }, spec: { finalizers: ['exemple.fr/nettoyage'] } } as Namespace);
  await namespaces().delete('other-token');
  const deleter = createNamespaceDeleter({ client: kp.client });
  assert.equal(await deleter.delete('other-token'), 0);
  const ns = await getNs('other-token');
  assert.deepEqual(ns.spec?.finalizers, ['exemple.fr/nettoyage']);
  assert.equal(ns.status?.phase, 'Terminating');
  await namespaces().updateSubresource('other-token', 'finalize', { ...ns, spec: { finalizers: [] } });
  assert.ok(await gone('other-token'));
});
