import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, type RawResponse } from '@kplane/api';
import type { Client } from '@kplane/client';
import { Events, Pods, ReplicaSets, createFakeClock, createManager, type CoreEvent, type FakeClock, type Pod, type ReplicaSet } from '@kplane/runtime';
import { tick } from '@kplane/runtime/testing';
import { createReplicaSetController, type ReplicaSetControllerOptions } from './replicaset-controller.js';
import { until } from '@kplane/api/testing';
import { activePods, createNamespace, markReady, startKplane, type TestKplane } from './test-support.js';

const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.61';

function replicaSet(name: string, replicas: number, extra: Partial<NonNullable<ReplicaSet['spec']>> = {}): ReplicaSet {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: IMAGE }] } }, ...extra },
  };
}

function orphanPod(name: string, labels: Record<string, string>, nodeName?: string): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: IMAGE }], ...(nodeName ? { nodeName } : {}) } };
}

/** Delays every chunk of a stream by `lagMs` on `clock` without accumulating delays (a slow watch). */
async function* lagged(src: AsyncIterable<Uint8Array>, lagMs: number, clock: FakeClock): AsyncIterable<Uint8Array> {
  const buf: Array<{ at: number; chunk: Uint8Array }> = [];
  let ended = false;
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for await (const chunk of src) {
        buf.push({ at: clock.now() + lagMs, chunk });
        wake?.();
      }
    } catch {
      // aborted
    }
    ended = true;
    wake?.();
  })();
  for (;;) {
    const head = buf[0];
    if (head) {
      const wait = head.at - clock.now();
      if (wait > 0) await clock.sleep(wait);
      buf.shift();
      yield head.chunk;
      continue;
    }
    if (ended) return;
    await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
}

describe('ReplicaSet controller', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  async function run(client: Client = kp.client, options: ReplicaSetControllerOptions = { recorder: false }, clock?: FakeClock) {
    const mgr = createManager({ client, clock });
    const controller = createReplicaSetController(mgr, options);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    return {
      controller,
      async stop() {
        stop.abort();
        await done;
      },
    };
  }
  const rsApi = () => kp.client.resource<ReplicaSet>(ReplicaSets);
  const podApi = () => kp.client.resource<Pod>(Pods);

  it('creates, deletes and replaces pods to match spec.replicas, with owner references, events and status', async () => {
    const ns = 'rs-basic';
    await createNamespace(kp.client, ns);
    const ctl = await run(kp.client, {});
    const rs = await rsApi().create(replicaSet('web', 3), { namespace: ns });
    await until('3 pods', async () => (await activePods(kp.client, ns)).length === 3);
    const pods = await activePods(kp.client, ns);
    for (const p of pods) {
      assert.match(p.metadata!.name!, /^web-[a-z0-9]{5}$/);
      assert.equal(p.metadata!.generateName, 'web-');
      assert.deepEqual(p.metadata!.labels, { app: 'web' });
      assert.deepEqual(p.metadata!.ownerReferences, [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    await until('status 3 replicas', async () => {
      const s = (await rsApi().get('web', { namespace: ns })).status;
      return s?.replicas === 3 && s.fullyLabeledReplicas === 3 && s.observedGeneration === 1 && !s.readyReplicas;
    });

    await rsApi().patch('web', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await until('scaled down to 1', async () => (await activePods(kp.client, ns)).length === 1);
    await until('observedGeneration 2', async () => (await rsApi().get('web', { namespace: ns })).status?.observedGeneration === 2);

    const [last] = await activePods(kp.client, ns);
    await podApi().delete(last!.metadata!.name!, { namespace: ns });
    await until('a replacement pod', async () => {
      const now = await activePods(kp.client, ns);
      return now.length === 1 && now[0]!.metadata!.name !== last!.metadata!.name;
    });

    await until('events', async () => {
      const events = (await kp.client.resource<CoreEvent>(Events).list({ namespace: ns })).items;
      return events.some((e) => e.reason === 'SuccessfulCreate' && /^Created pod: web-/.test(e.message) && e.involvedObject.kind === 'ReplicaSet')
        && events.some((e) => e.reason === 'SuccessfulDelete' && /^Deleted pod: web-/.test(e.message));
    });
    await ctl.stop();
  });

  it('adopts matching orphans without recreating them, and releases pods that stop matching', async () => {
    const ns = 'rs-adopt';
    await createNamespace(kp.client, ns);
    const ctl = await run();
    const first = await rsApi().create(replicaSet('vitrine', 4), { namespace: ns });
    await until('4 pods', async () => (await activePods(kp.client, ns)).length === 4);
    const before = (await activePods(kp.client, ns)).map((p) => `${p.metadata!.name} ${p.metadata!.creationTimestamp}`).sort();

    // The seed's experiment: the ReplicaSet goes with --cascade=orphan (the garbage collector's
    // part, removing the references, is played here), and a ReplicaSet of the same name returns.
    await ctl.stop();
    await rsApi().delete('vitrine', { namespace: ns });
    for (const p of await activePods(kp.client, ns)) {
      await podApi().patch(p.metadata!.name!, [{ op: 'remove', path: '/metadata/ownerReferences' }], 'json', { namespace: ns });
    }
    let creates = 0;
    const counting = kp.clientWith(async (req, next) => {
      if (req.method === 'POST' && req.path.endsWith('/pods')) creates++;
      return next(req);
    });
    const ctl2 = await run(counting);
    const second = await rsApi().create(replicaSet('vitrine', 4), { namespace: ns });
    assert.notEqual(second.metadata!.uid, first.metadata!.uid);
    await until('adoption', async () => (await activePods(kp.client, ns)).every((p) => p.metadata?.ownerReferences?.[0]?.uid === second.metadata!.uid));
    const after = (await activePods(kp.client, ns)).map((p) => `${p.metadata!.name} ${p.metadata!.creationTimestamp}`).sort();
    assert.deepEqual(after, before, 'same pods, same creation times');
    await until('status', async () => (await rsApi().get('vitrine', { namespace: ns })).status?.replicas === 4);
    assert.equal(creates, 0, 'no pod created');

    // A pod relabelled out of the selector is released and replaced.
    const [moved] = await activePods(kp.client, ns);
    await podApi().patch(moved!.metadata!.name!, { metadata: { labels: { app: 'elsewhere' } } }, 'merge', { namespace: ns });
    await until('release', async () => !(await podApi().get(moved!.metadata!.name!, { namespace: ns })).metadata?.ownerReferences?.length);
    await until('replacement', async () => (await activePods(kp.client, ns, 'app=vitrine')).length === 4);
    assert.equal(creates, 1);
    await ctl2.stop();
  });

  it('neither adopts nor creates while the ReplicaSet is being deleted, and ignores pods being deleted', async () => {
    const ns = 'rs-deleting';
    await createNamespace(kp.client, ns);
    const ctl = await run(kp.client, { recorder: false, workers: 1 });
    await podApi().create({ ...orphanPod('held', { app: 'gone' }), metadata: { name: 'held', labels: { app: 'gone' }, finalizers: ['test/hold'] } }, { namespace: ns });
    await podApi().delete('held', { namespace: ns }); // stays, deleting, because of its finalizer
    await rsApi().create({ ...replicaSet('gone', 2), metadata: { name: 'gone', finalizers: ['test/hold'] } }, { namespace: ns });
    await until('2 pods', async () => (await activePods(kp.client, ns)).length === 2);
    const held = await podApi().get('held', { namespace: ns });
    assert.equal(held.metadata?.ownerReferences, undefined, 'a deleting pod is not adopted');
    await rsApi().delete('gone', { namespace: ns });
    await podApi().create(orphanPod('late', { app: 'gone' }), { namespace: ns });
    const [one] = await activePods(kp.client, ns, 'app=gone');
    await podApi().delete(one!.metadata!.name!, { namespace: ns });
    // A barrier: one worker takes keys in order, so a ReplicaSet made now is served after the
    // changes above were looked at.
    await rsApi().create(replicaSet('later', 1), { namespace: ns });
    await until('the later ReplicaSet served', async () => (await activePods(kp.client, ns, 'app=later')).length === 1);
    assert.equal((await podApi().get('late', { namespace: ns })).metadata?.ownerReferences, undefined, 'no adoption by a deleting ReplicaSet');
    assert.equal((await activePods(kp.client, ns, 'app=gone')).length, 2, 'no replacement by a deleting ReplicaSet');
    await ctl.stop();
  });

  it('creates and deletes exactly as many pods as needed despite a lagging cache and bursts of events', async () => {
    const ns = 'rs-burst';
    await createNamespace(kp.client, ns);
    let creates = 0;
    let deletes = 0;
    // The watch of pods lags 150 ms on the controller's clock: virtual time decides when it catches up.
    const clock = createFakeClock(Date.now());
    const lagging = kp.clientWith(async (req, next) => {
      if (req.method === 'POST' && req.path.endsWith('/pods')) creates++;
      if (req.method === 'DELETE' && /\/pods\/[^/]+$/.test(req.path)) deletes++;
      const res: RawResponse = await next(req);
      if (res.stream && req.path.endsWith('/pods')) return { ...res, stream: lagged(res.stream, 150, clock) };
      return res;
    });
    const ctl = await run(lagging, { recorder: false }, clock);
    await rsApi().create(replicaSet('burst', 20), { namespace: ns });
    for (let i = 0; i < 20; i++) {
      await rsApi().patch('burst', { metadata: { annotations: { poke: String(i) } } }, 'merge', { namespace: ns });
    }
    // Each try moves virtual time on by 50 ms (the cache follows 150 ms late).
    const podsAfter = async (ms: number) => {
      await tick(clock, ms, 50);
      return (await activePods(kp.client, ns)).length;
    };
    await until('20 pods', async () => (await podsAfter(50)) >= 20);
    await tick(clock, 600, 50); // several cache lags: any duplicate creation would show now
    assert.equal((await activePods(kp.client, ns)).length, 20);
    assert.equal(creates, 20);

    await rsApi().patch('burst', { spec: { replicas: 5 } }, 'merge', { namespace: ns });
    for (let i = 0; i < 20; i++) {
      await rsApi().patch('burst', { metadata: { annotations: { poke: `d${i}` } } }, 'merge', { namespace: ns });
    }
    await until('5 pods', async () => (await podsAfter(50)) <= 5);
    await tick(clock, 600, 50);
    assert.equal((await activePods(kp.client, ns)).length, 5);
    assert.equal(deletes, 15);
    assert.equal(creates, 20);
    await ctl.stop();
  });

  it('deletes unscheduled, then pending, then not-ready pods before ready ones', async () => {
    const ns = 'rs-order';
    await createNamespace(kp.client, ns);
    const labels = { app: 'order' };
    const mk = async (name: string, node?: string) => podApi().create(orphanPod(name, labels, node), { namespace: ns });
    const ready = await mk('ready', 'n1');
    await mk('unscheduled');
    await mk('pending', 'n1');
    const notReady = await mk('notready', 'n1');
    await markReady(kp.client, ready);
    await markReady(kp.client, notReady, false);
    const ctl = await run();
    await rsApi().create(replicaSet('order', 4), { namespace: ns });
    await until('adopted 4', async () => (await rsApi().get('order', { namespace: ns })).status?.replicas === 4);
    const alive = async () => (await activePods(kp.client, ns)).map((p) => p.metadata!.name).sort();
    const expected = [['notready', 'pending', 'ready'], ['notready', 'ready'], ['ready']];
    for (let i = 0; i < expected.length; i++) {
      await rsApi().patch('order', { spec: { replicas: 3 - i } }, 'merge', { namespace: ns });
      await until(`${3 - i} pods`, async () => (await activePods(kp.client, ns)).length === 3 - i);
      assert.deepEqual(await alive(), expected[i]);
    }
    await ctl.stop();
  });

  it('counts ready and available replicas with minReadySeconds', async () => {
    const ns = 'rs-ready';
    await createNamespace(kp.client, ns);
    const ctl = await run();
    await rsApi().create(replicaSet('slow', 2, { minReadySeconds: 2 }), { namespace: ns });
    await until('2 pods', async () => (await activePods(kp.client, ns)).length === 2);
    for (const p of await activePods(kp.client, ns)) await markReady(kp.client, p);
    await until('ready 2', async () => (await rsApi().get('slow', { namespace: ns })).status?.readyReplicas === 2);
    assert.equal((await rsApi().get('slow', { namespace: ns })).status?.availableReplicas, undefined, 'not available before minReadySeconds');
    await until('available 2', async () => (await rsApi().get('slow', { namespace: ns })).status?.availableReplicas === 2, 5000);
    await ctl.stop();
  });

  it('reports ReplicaFailure when creations fail, stopping after the first failing batch', async () => {
    const ns = 'rs-fail';
    await createNamespace(kp.client, ns);
    let attempts = 0;
    let failing = true;
    const flaky = kp.clientWith(async (req, next) => {
      if (req.method === 'POST' && req.path.endsWith('/pods')) {
        attempts++;
        if (failing && attempts > 3) throw new ApiError(403, 'Forbidden', 'pods "x" is forbidden: exceeded quota: q');
      }
      return next(req);
    });
    const ctl = await run(flaky);
    await rsApi().create(replicaSet('quota', 10), { namespace: ns });
    await until('ReplicaFailure', async () => Boolean((await rsApi().get('quota', { namespace: ns })).status?.conditions?.length));
    const status = (await rsApi().get('quota', { namespace: ns })).status!;
    assert.equal(status.replicas, 3);
    assert.deepEqual(
      status.conditions!.map((c) => [c.type, c.status, c.reason, c.message]),
      [['ReplicaFailure', 'True', 'FailedCreate', 'pods "x" is forbidden: exceeded quota: q']],
    );
    assert.ok(attempts >= 7, 'batches 1, 2 and 4');
    assert.equal((await activePods(kp.client, ns)).length, 3);
    failing = false;
    await until('recovery', async () => {
      const s = (await rsApi().get('quota', { namespace: ns })).status;
      return s?.replicas === 10 && !s.conditions;
    });
    await ctl.stop();
  });
});
