import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@kplane/client';
import { CustomResourceDefinitions, Deployments, Events, Ingresses, Namespaces, Services, createManager, type Manager } from '@kplane/runtime';
import { createRecorder, startControlPlane, type Recorder, type TestControlPlane } from '@kplane/testing';
import { FIELD_MANAGER } from './children.js';
import { EVENT_SOURCE, FINALIZER, addGreetingController } from './controller.js';
import { Greetings, type Greeting } from './kind.js';
import { fileRecords, type RecordStore } from './records.js';

/** A gate on the record store's removals: while closed, a removal waits; `reached` tells when one does. */
function gated(store: RecordStore) {
  let open = true;
  let release = () => {};
  let reached = () => {};
  const gate = {
    close() {
      open = false;
      return new Promise<void>((resolve) => (reached = resolve));
    },
    open() {
      open = true;
      release();
    },
    store: {
      ...store,
      async remove(owner: string, signal?: AbortSignal) {
        if (!open) {
          reached();
          await new Promise<void>((resolve) => (release = resolve));
        }
        return store.remove(owner, signal);
      },
    } satisfies RecordStore,
  };
  return gate;
}

/** A Greeting named `name`: version 1.0, message hi, on `<name>.apps.example.com`. */
const hello = (name: string): Greeting => ({ metadata: { name }, spec: { version: '1.0', message: 'hi', host: `${name}.apps.example.com` } });

/**
 * The operator on a test control plane (memory storage, the built-in controllers, two simulated
 * nodes whose pods become ready) in virtual time: cp.settle() runs everything until idle.
 */
describe('the Greeting operator', () => {
  let cp: TestControlPlane;
  let recorder: Recorder;
  let dir: string;
  let recordsFile: string;
  let lines: string[];
  let stop: AbortController | undefined;
  const stops: AbortController[] = [];
  let gate: ReturnType<typeof gated>;

  before(async () => {
    recorder = createRecorder();
    cp = await startControlPlane({ nodes: 2, wrapTransport: (t, who) => recorder.wrap(t, who) });
    dir = await mkdtemp(join(tmpdir(), 'greeting-operator-'));
    recordsFile = join(dir, 'records');
    await cp.client.resource(CustomResourceDefinitions).create(Greetings.crd());
    await cp.client.resource(Namespaces).create({ metadata: { name: 'demo' } });
    await cp.settle();
  });
  after(async () => {
    for (const s of stops) s.abort();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts the operator on the control plane's clock, its requests recorded as `who`; with `identity`, leader-elected. */
  function startOperator(identity?: string, who = 'greeting-operator'): Manager {
    const mine: string[] = [];
    lines = mine;
    const client = createClient({ transport: recorder.wrap(cp.transport, who), defaultNamespace: 'demo' });
    const mgr = createManager({
      client,
      clock: cp.clock,
      ...(identity ? { leaderElection: { namespace: 'demo', name: 'greeting-operator', identity }, onLeadershipLost: () => undefined } : {}),
    });
    gate = gated(fileRecords(recordsFile));
    addGreetingController(mgr, { records: gate.store, log: (l) => mine.push(l) });
    stop = new AbortController();
    stops.push(stop);
    void mgr.start(stop.signal);
    return mgr;
  }
  const settle = (maxVirtualMs = 10_000) => cp.settle({ advance: true, maxVirtualMs });
  const greetings = () => cp.client.resource(Greetings);
  const records = () => readFile(recordsFile, 'utf8').catch(() => '');
  /** The Events about the Greeting `name`, oldest first, as `type reason: message`. */
  const events = async (name: string) =>
    (await cp.client.resource(Events).list({ namespace: 'demo', fieldSelector: `involvedObject.kind=Greeting,involvedObject.name=${name}` })).items
      .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!))
      .map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('makes a Deployment, a Service and an Ingress owned by the Greeting, a DNS record, and reports 2/2 replicas ready', async () => {
    startOperator();
    const created = await greetings().create(hello('hello'), { namespace: 'demo' });
    assert.equal(created.spec.replicas, 2, 'the schema default');
    await settle();

    const labels = { 'app.kubernetes.io/name': 'hello', 'app.kubernetes.io/instance': 'hello' };
    const owner = [{ apiVersion: 'demo.example.com/v1', kind: 'Greeting', name: 'hello', uid: created.metadata!.uid!, controller: true, blockOwnerDeletion: true }];
    const dep = await cp.client.resource(Deployments).get('hello', { namespace: 'demo' });
    assert.deepEqual(dep.metadata?.labels, labels);
    assert.deepEqual(dep.metadata?.ownerReferences, owner);
    assert.equal(dep.spec?.replicas, 2);
    assert.deepEqual(dep.spec?.selector, { matchLabels: labels });
    const container = dep.spec!.template.spec!.containers[0]!;
    assert.equal(container.image, 'ghcr.io/example/hello:1.0');
    assert.deepEqual(container.env, [{ name: 'GREETING', value: 'hi' }]);
    assert.ok(dep.metadata?.managedFields?.some((m) => m.manager === FIELD_MANAGER && m.operation === 'Apply'), 'written by server-side apply');
    const svc = await cp.client.resource(Services).get('hello', { namespace: 'demo' });
    assert.deepEqual(svc.metadata?.ownerReferences, owner);
    assert.deepEqual(svc.spec?.selector, labels);
    assert.equal(svc.spec?.ports?.[0]?.port, 80);
    const ing = await cp.client.resource(Ingresses).get('hello', { namespace: 'demo' });
    assert.deepEqual(ing.metadata?.ownerReferences, owner);
    assert.equal(ing.spec?.rules?.[0]?.host, 'hello.apps.example.com');

    const g = await greetings().get('hello', { namespace: 'demo' });
    assert.deepEqual(g.metadata?.finalizers, [FINALIZER]);
    assert.equal(g.status?.readyReplicas, 2);
    assert.equal(g.status?.selector, 'app.kubernetes.io/instance=hello');
    assert.equal(g.status?.url, 'https://hello.apps.example.com');
    assert.equal(g.status?.observedGeneration, 1);
    const ready = g.status?.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual({ ...ready, lastTransitionTime: undefined }, { type: 'Ready', status: 'True', reason: 'DeploymentStatus', message: '2/2 replicas ready', observedGeneration: 1, lastTransitionTime: undefined });
    assert.equal(await records(), 'hello.apps.example.com demo/hello\n');
    assert.deepEqual(await events('hello'), [
      'Normal Created: Created Deployment hello',
      'Normal Created: Created Service hello',
      'Normal Created: Created Ingress hello',
      'Normal DNSRecordWritten: DNS record hello.apps.example.com written',
      'Normal Ready: 2/2 replicas ready',
    ]);
    const [first] = (await cp.client.resource(Events).list({ namespace: 'demo', fieldSelector: 'involvedObject.name=hello' })).items;
    assert.deepEqual(first!.involvedObject, { kind: 'Greeting', namespace: 'demo', name: 'hello', uid: created.metadata!.uid!, apiVersion: 'demo.example.com/v1', resourceVersion: first!.involvedObject.resourceVersion });
    assert.equal(first!.reportingComponent, EVENT_SOURCE);

    // Settled: woken again (a pod's change, time), it writes nothing.
    const mark = recorder.mark();
    await cp.advance(30_000);
    recorder.expectNoWrites({ who: 'greeting-operator', since: mark });
  });

  it('undoes a manual scale of the Deployment, and follows a scale of the Greeting', async () => {
    await cp.client.resource(Deployments).patch('hello', { spec: { replicas: 5 } }, 'merge', { namespace: 'demo' });
    await settle();
    assert.equal((await cp.client.resource(Deployments).get('hello', { namespace: 'demo' })).spec?.replicas, 2);
    assert.ok((await events('hello')).includes('Normal Updated: Updated Deployment hello to match the Greeting'));

    const scale = await greetings().getSubresource('hello', 'scale', { namespace: 'demo' }) as { spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } };
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app.kubernetes.io/instance=hello' });
    await greetings().updateSubresource('hello', 'scale', { ...scale, spec: { replicas: 3 } }, { namespace: 'demo' });
    await settle();
    const g = await greetings().get('hello', { namespace: 'demo' });
    assert.equal(g.metadata?.generation, 2);
    assert.equal(g.status?.observedGeneration, 2);
    assert.equal(g.status?.readyReplicas, 3);
    assert.equal(g.status?.conditions?.find((c) => c.type === 'Ready')?.message, '3/3 replicas ready');
    assert.equal((await cp.client.resource(Deployments).get('hello', { namespace: 'demo' })).spec?.replicas, 3);

  });

  it('puts back a child deleted by hand, and follows a change of version', async () => {
    const before = await cp.client.resource(Services).get('hello', { namespace: 'demo' });
    await cp.client.resource(Services).delete('hello', { namespace: 'demo' });
    await settle();
    const after = await cp.client.resource(Services).get('hello', { namespace: 'demo' });
    assert.notEqual(after.metadata?.uid, before.metadata?.uid);
    await greetings().patch('hello', { spec: { version: '1.1' } }, 'merge', { namespace: 'demo' });
    await settle();
    assert.equal((await cp.client.resource(Deployments).get('hello', { namespace: 'demo' })).spec?.template.spec?.containers[0]?.image, 'ghcr.io/example/hello:1.1');
    const g = await greetings().get('hello', { namespace: 'demo' });
    assert.equal(g.status?.observedGeneration, 3);
    assert.equal(g.status?.conditions?.[0]?.observedGeneration, 3);
  });

  it('on delete: Terminating while the record is removed, then gone, and the collector removes the children', async () => {
    const cleaning = gate.close(); // the DNS provider is slow: the removal waits until the gate opens
    await greetings().delete('hello', { namespace: 'demo' });
    await cleaning;
    const terminating = await greetings().get('hello', { namespace: 'demo' });
    assert.ok(terminating.metadata?.deletionTimestamp, 'Terminating');
    assert.deepEqual(terminating.metadata?.finalizers, [FINALIZER]);
    assert.equal(await records(), 'hello.apps.example.com demo/hello\n', 'the cleanup is still running');
    gate.open();

    await settle();
    await assert.rejects(greetings().get('hello', { namespace: 'demo' }), { code: 404 });
    assert.equal(await records(), '');
    const last = (await events('hello')).slice(-2);
    assert.deepEqual(last, [
      'Normal Deleting: Removing DNS record hello.apps.example.com before the Greeting goes',
      'Normal DNSRecordRemoved: DNS record hello.apps.example.com removed, removing finalizer demo.example.com/cleanup',
    ]);
    for (const kind of [Deployments, Services, Ingresses]) {
      await assert.rejects(cp.client.resource(kind).get('hello', { namespace: 'demo' }), { code: 404 }, `${kind.resource} collected`);
    }
  });

  it('with the operator stopped, a deleted Greeting stays Terminating with its finalizer until it runs again', async () => {
    await greetings().create(hello('bye'), { namespace: 'demo' });
    await settle();
    assert.equal(await records(), 'bye.apps.example.com demo/bye\n');
    stop!.abort();
    await settle();
    await greetings().delete('bye', { namespace: 'demo' });
    await settle(30_000);
    const stuck = await greetings().get('bye', { namespace: 'demo' });
    assert.ok(stuck.metadata?.deletionTimestamp);
    assert.deepEqual(stuck.metadata?.finalizers, [FINALIZER]);
    assert.equal((await cp.client.resource(Deployments).get('bye', { namespace: 'demo' })).metadata?.name, 'bye', 'the children stay too');
    startOperator();
    await settle();
    await assert.rejects(greetings().get('bye', { namespace: 'demo' }), { code: 404 });
    assert.equal(await records(), '');
  });

  it('with leader election, only the copy holding the Lease acts', async () => {
    stop!.abort();
    await settle();
    startOperator('copy-a', 'copy-a');
    const aLines = lines;
    startOperator('copy-b', 'copy-b');
    const bLines = lines;
    await settle();
    const mark = recorder.mark();
    await greetings().create(hello('duo'), { namespace: 'demo' });
    await settle();
    const lease = await cp.client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true }).get('greeting-operator', { namespace: 'demo' });
    const holder = (lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity;
    const [leader, standby] = holder === 'copy-a' ? ['copy-a', 'copy-b'] : ['copy-b', 'copy-a'];
    assert.ok(recorder.writes({ who: leader, since: mark }).length > 0);
    recorder.expectNoWrites({ who: standby, since: mark });
    assert.deepEqual(holder === 'copy-a' ? bLines : aLines, []);
    assert.equal((await greetings().get('duo', { namespace: 'demo' })).status?.readyReplicas, 2);
  });
});
