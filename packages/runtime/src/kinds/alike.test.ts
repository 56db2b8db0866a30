/**
 * A built-in kind (typed from the model of the API) and a custom kind (from one TypeBox schema)
 * look alike to a user: the same object shapes, metadata and list types, and one descriptor API
 * for the client, informers and the controller builder. The type assertions are checked by tsc
 * when the package builds; the test then runs the same generic code on both kinds against a
 * real in-process kplane.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { KubeList, KubeObject } from '@kplane/api';
import { startTestKplane } from '@kplane/apiserver/testing';
import type { Client, ResourceClient } from '@kplane/client';
import { createManager } from '../manager/manager.js';
import type { Informer } from '../informer/informer.js';
import type { CustomResourceDefinition, Deployment, DeploymentList, ObjectMeta } from './builtin/index.js';
import { CustomResourceDefinitions, Deployments, newObject, type KindDescriptor, type ListOf, type ObjectOf } from './descriptors.js';
import { BookKind, type Book } from './book-example.js';
import { defineKind } from './custom.js';
import { KubeType } from './schema.js';
import { isStatusConditionTrue, setStatusCondition } from '../helpers/conditions.js';

/** True when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
/** Compiles only when its argument is `true`. */
function expectType<T extends true>(): T | void {}

// Objects: a KubeObject with literal apiVersion and kind, the same ObjectMeta, spec and status.
expectType<Equal<ObjectOf<typeof Deployments>, Deployment>>();
expectType<Equal<ObjectOf<typeof BookKind>, Book>>();
expectType<Equal<Deployment['apiVersion'], 'apps/v1' | undefined>>();
expectType<Equal<Book['apiVersion'], 'library.example.com/v1' | undefined>>();
expectType<Equal<Deployment['kind'], 'Deployment' | undefined>>();
expectType<Equal<Book['kind'], 'Book' | undefined>>();
expectType<Equal<Deployment['metadata'], ObjectMeta | undefined>>();
expectType<Equal<Book['metadata'], ObjectMeta | undefined>>();
expectType<Deployment extends KubeObject ? true : false>();
expectType<Book extends KubeObject ? true : false>();
// @ts-expect-error -- a wrong apiVersion does not compile for a built-in kind…
const badDeployment: Deployment = { apiVersion: 'apps/v2' };
// @ts-expect-error -- …nor for a custom kind.
const badBook: Book = { apiVersion: 'library.example.com/v2', spec: { title: 'Dune' } };
void badDeployment;
void badBook;

// Descriptors: a custom kind is a KindDescriptor, as the built-in kinds are.
expectType<typeof Deployments extends KindDescriptor<Deployment> ? true : false>();
expectType<typeof BookKind extends KindDescriptor<Book> ? true : false>();

// The client: the same ResourceClient, the same list type.
declare const client: Client;
expectType<Equal<ReturnType<typeof client.resource<Deployment>>, ResourceClient<Deployment>>>();
const typedDeployments = (c: Client) => c.resource(Deployments);
const typedBooks = (c: Client) => c.resource(BookKind);
expectType<Equal<ReturnType<typeof typedDeployments>, ResourceClient<Deployment>>>();
expectType<Equal<ReturnType<typeof typedBooks>, ResourceClient<Book>>>();
expectType<Equal<Awaited<ReturnType<ResourceClient<Deployment>['list']>>, ListOf<typeof Deployments>>>();
expectType<Equal<Awaited<ReturnType<ResourceClient<Book>['list']>>, ListOf<typeof BookKind>>>();
expectType<Equal<ListOf<typeof BookKind>, KubeList<Book>>>();
// The model's DeploymentList (literal apiVersion and kind) is what a list holds, read back.
expectType<KubeList<Deployment>['items'] extends DeploymentList['items'] ? true : false>();

// Informers and the builder infer the object type from either descriptor.
type ManagerOf = ReturnType<typeof createManager>;
const deploymentInformer = (m: ManagerOf) => m.factory.informerFor(Deployments);
const bookInformer = (m: ManagerOf) => m.factory.informerFor(BookKind);
expectType<Equal<ReturnType<typeof deploymentInformer>, Informer<Deployment>>>();
expectType<Equal<ReturnType<typeof bookInformer>, Informer<Book>>>();
const registerBoth = (m: ManagerOf) => {
  m.controller()
    .named('both')
    .for(BookKind, { predicates: [(c) => c.object.spec.title !== ''] })
    .owns(Deployments, { predicates: [(c) => (c.object.spec?.replicas ?? 0) >= 0] })
    .watches(Deployments, (d) => [{ namespace: d.metadata?.namespace ?? '', name: d.metadata?.name ?? '' }])
    .complete(() => undefined);
};
void registerBoth;

/** What a user does with any kind: create through the client, then read it from an informer. */
async function createThenCache<T extends KubeObject>(c: Client, kind: KindDescriptor<T>, obj: Omit<T, 'apiVersion' | 'kind'>) {
  const created: T = await c.resource(kind).create(newObject(kind, obj));
  const mgr = createManager({ client: c });
  const informer: Informer<T> = mgr.factory.informerFor(kind);
  const stop = new AbortController();
  mgr.factory.start(stop.signal);
  assert.equal(await mgr.factory.waitForCacheSync(stop.signal), true);
  const cached = informer.store.get(`${created.metadata!.namespace}/${created.metadata!.name}`);
  const list: ListOf<KindDescriptor<T>> = await c.resource(kind).list({ namespace: created.metadata!.namespace });
  stop.abort();
  await mgr.factory.shutdown();
  return { created, cached, list };
}

/** Creates a custom kind's CRD and returns once it is Established (an informer on CRDs tells when). */
async function establish(c: Client, kind: { crd(): CustomResourceDefinition; crdName: string }): Promise<void> {
  await c.resource(CustomResourceDefinitions).create(kind.crd());
  const mgr = createManager({ client: c });
  const crds = mgr.factory.informerFor(CustomResourceDefinitions);
  const stop = new AbortController();
  const established = new Promise<void>((resolve) => {
    const check = (crd: CustomResourceDefinition) => {
      if (crd.metadata?.name === kind.crdName && crd.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) resolve();
    };
    crds.addEventHandler({ onAdd: check, onUpdate: (_old, crd) => check(crd), onDelete: () => undefined });
  });
  mgr.factory.start(stop.signal);
  await established;
  stop.abort();
  await mgr.factory.shutdown();
}

test('a built-in and a custom kind go through the same generic code: client, informer, list', async () => {
  const k = await startTestKplane();
  try {
    await establish(k.client, BookKind);

    const d = await createThenCache(k.client, Deployments, {
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    const g = await createThenCache(k.client, BookKind, {
      metadata: { name: 'dune', namespace: 'default' },
      spec: { title: 'Dune' },
    });
    assert.equal(d.created.apiVersion, 'apps/v1');
    assert.equal(g.created.apiVersion, 'library.example.com/v1');
    assert.equal(d.cached?.spec?.template.spec?.containers[0]?.image, 'nginx');
    assert.equal(g.cached?.spec.title, 'Dune');
    assert.deepEqual(d.list.items.map((x) => x.metadata?.name), ['web']);
    assert.deepEqual(g.list.items.map((x) => x.metadata?.name), ['dune']);
    assert.equal(g.list.items[0]?.spec.copies, 2, 'the schema default reached the server');
  } finally {
    await k.close();
  }
});

test('a custom kind is its own descriptor: the same fields as the plain descriptor, and its CRD', () => {
  const { group, version, resource, namespaced, kind, apiVersion } = BookKind;
  assert.deepEqual({ group, version, resource, namespaced, kind, apiVersion }, { ...BookKind.descriptor });
  assert.ok(Object.isFrozen(BookKind));
  assert.equal(BookKind.crd().metadata?.name, BookKind.crdName);
});

const Widget = defineKind({
  group: 'demo.example.com', version: 'v1', kind: 'Widget', plural: 'widgets', scope: 'Namespaced',
  spec: Type.Object({ size: Type.Integer() }),
  status: Type.Object({ conditions: Type.Optional(KubeType.Conditions()) }),
  subresources: { status: true },
});
type Widget = ObjectOf<typeof Widget>;

test('a custom kind’s KubeType.Conditions() work with the condition helpers, as meta/v1 Conditions', () => {
  const w: Widget = { metadata: { name: 'w' }, spec: { size: 1 }, status: { conditions: [] } };
  const changed = setStatusCondition(w.status!.conditions!, { type: 'Ready', status: 'True', reason: 'Built', message: 'ready' }, 0);
  assert.equal(changed, true);
  assert.equal(isStatusConditionTrue(w.status?.conditions, 'Ready'), true);
  expectType<Equal<NonNullable<NonNullable<Widget['status']>['conditions']>[number]['status'], 'True' | 'False' | 'Unknown'>>();
  const conditions = Widget.schema().properties!.status!.properties!.conditions!;
  assert.equal(conditions['x-kubernetes-list-type'], 'map');
  assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
  assert.deepEqual(conditions.items && !Array.isArray(conditions.items) ? conditions.items.required : undefined, ['type', 'status', 'lastTransitionTime', 'reason', 'message']);
});

test('the server accepts KubeType.Conditions() and validates conditions as Kubernetes does', async () => {
  const k = await startTestKplane();
  try {
    await establish(k.client, Widget);
    const widgets = k.client.resource(Widget);
    const w = await widgets.create({ metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } });
    w.status = { conditions: [] };
    setStatusCondition(w.status.conditions!, { type: 'example.com/Ready', status: 'True', reason: 'Built', message: 'ready' }, Date.UTC(2026, 0, 1));
    const updated = await widgets.updateStatus(w);
    assert.equal(updated.status?.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    updated.status!.conditions![0]!.reason = 'not a reason';
    await assert.rejects(widgets.updateStatus(updated), (err: { code?: number; message?: string }) => err.code === 422 && /reason/.test(err.message ?? ''));
  } finally {
    await k.close();
  }
});
