import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '@kplane/api/testing';
import { Events, Nodes, PriorityClasses, Pods, type kinds } from '@kplane/runtime';
import { buildNode } from './node-template.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { startKplane, type TestKplane } from './test-kplane.js';

const T = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, ns: string, spec: Partial<kinds.PodSpec> = {}): kinds.Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

async function ns(k: TestKplane, name: string): Promise<void> {
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' }).create({ metadata: { name } });
}

describe('scheduler', () => {
  let k: TestKplane;
  let sched: Scheduler;
  before(async () => {
    k = await startKplane();
    for (let i = 0; i < 3; i++) await k.client.resource(Nodes).create(buildNode(i, T));
    sched = createScheduler({ client: k.client });
    await sched.start();
  });
  after(async () => {
    await sched.stop();
    await k.close();
  });

  const podsApi = () => k.client.resource(Pods);
  const events = async (namespace: string, reason: string) =>
    (await k.client.resource(Events).list({ namespace })).items.filter((e) => e.reason === reason);

  it('binds pending pods, spreading them evenly, with a Scheduled event each', async () => {
    await ns(k, 'spread');
    for (let i = 0; i < 9; i++) await podsApi().create(pod(`p${i}`, 'spread'));
    const bound = await eventually('every pod bound', async () => {
      const items = (await podsApi().list({ namespace: 'spread' })).items;
      return items.every((p) => p.spec?.nodeName) && items;
    });
    const perNode = new Map<string, number>();
    for (const p of bound) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + 1);
    assert.deepEqual([...perNode.values()], [3, 3, 3]);
    for (const p of bound) assert.equal(p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
    const scheduled = await eventually('9 Scheduled events', async () => {
      const e = await events('spread', 'Scheduled');
      return e.length === 9 && e;
    });
    const p0 = bound.find((p) => p.metadata?.name === 'p0')!;
    const e0 = scheduled.find((e) => e.involvedObject.name === 'p0')!;
    assert.equal(e0.message, `Successfully assigned spread/p0 to ${p0.spec!.nodeName}`);
    assert.equal(e0.type, 'Normal');
    assert.equal(e0.source?.component, 'default-scheduler');
  });

  it('honours nodeSelector, and leaves pods with a nodeName or another scheduler alone', async () => {
    await ns(k, 'select');
    await podsApi().create(pod('direct', 'select', { nodeName: 'elsewhere' }));
    await podsApi().create(pod('other', 'select', { schedulerName: 'my-scheduler' }));
    // pinned comes last: once it is bound, the scheduler has had the two before it.
    await podsApi().create(pod('pinned', 'select', { nodeSelector: { 'kubernetes.io/hostname': 'kplane-node-2' } }));
    await eventually('pinned bound to kplane-node-2', async () => (await podsApi().get('pinned', { namespace: 'select' })).spec?.nodeName === 'kplane-node-2');
    assert.equal((await podsApi().get('direct', { namespace: 'select' })).spec?.nodeName, 'elsewhere');
    assert.equal((await podsApi().get('other', { namespace: 'select' })).spec?.nodeName, undefined);
  });

  it('reports FailedScheduling and PodScheduled=False when no node fits, and schedules once one does', async () => {
    await ns(k, 'nofit');
    await podsApi().create(pod('gpu', 'nofit', { nodeSelector: { accelerator: 'gpu' } }));
    const message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..";
    const cond = await eventually('PodScheduled on gpu', async () => (await podsApi().get('gpu', { namespace: 'nofit' })).status?.conditions?.find((c) => c.type === 'PodScheduled'));
    assert.deepEqual({ status: cond.status, reason: cond.reason, message: cond.message }, { status: 'False', reason: 'Unschedulable', message });
    const failed = await eventually('a FailedScheduling event', async () => (await events('nofit', 'FailedScheduling'))[0]);
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, message);
    // A node gaining the label triggers a retry.
    await k.client.resource(Nodes).patch('kplane-node-1', { metadata: { labels: { accelerator: 'gpu' } } }, 'merge');
    const bound = await eventually('gpu bound', async () => {
      const p = await podsApi().get('gpu', { namespace: 'nofit' });
      return p.spec?.nodeName ? p : undefined;
    });
    assert.equal(bound.spec?.nodeName, 'kplane-node-1');
    assert.deepEqual(bound.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
    assert.equal((await events('nofit', 'FailedScheduling')).length, 1, 'one failed attempt, not a loop');
  });

  it('counts resources and the pods limit', async () => {
    await ns(k, 'big');
    await podsApi().create(pod('huge', 'big', { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '64' } } }] }));
    const cond = await eventually('PodScheduled on huge', async () => (await podsApi().get('huge', { namespace: 'big' })).status?.conditions?.find((c) => c.type === 'PodScheduled'));
    assert.equal(cond.message, '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..');
  });
});

describe('scheduler and pod affinity', () => {
  it('retries a pod with required pod affinity as soon as a pod it needs is placed', async () => {
    const k = await startKplane();
    const sched = createScheduler({ client: k.client });
    try {
      for (let i = 0; i < 3; i++) await k.client.resource(Nodes).create(buildNode(i, T));
      await sched.start();
      const affinity: kinds.Affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' }] } };
      await k.client.resource(Pods).create(pod('web', 'default', { affinity }));
      const cond = await eventually('web unschedulable', async () => (await k.client.resource(Pods).get('web')).status?.conditions?.find((c) => c.type === 'PodScheduled'));
      assert.equal(cond.message, "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..");
      const cache = { ...pod('cache', 'default'), metadata: { name: 'cache', namespace: 'default', labels: { app: 'cache' } } };
      await k.client.resource(Pods).create(cache);
      const cacheNode = await eventually('cache bound', async () => (await k.client.resource(Pods).get('cache')).spec?.nodeName);
      assert.equal(await eventually('web bound', async () => (await k.client.resource(Pods).get('web')).spec?.nodeName), cacheNode);
    } finally {
      await sched.stop();
      await k.close();
    }
  });
});

describe('scheduler preemption', () => {
  it('deletes a lower-priority pod with DisruptionTarget, nominates the node, and binds once the victim is gone', async () => {
    const k = await startKplane();
    const sched = createScheduler({ client: k.client });
    try {
      await k.client.resource(Nodes).create(buildNode(0, T, { cpu: '1' }));
      await sched.start();
      for (const [name, value] of [['low', 10], ['high', 1000]] as const) await k.client.resource(PriorityClasses).create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
      const cpu = (name: string, priorityClassName: string) => pod(name, 'default', { priorityClassName, containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '800m' } } }] });
      await k.client.resource(Pods).create(cpu('victim', 'low'));
      await eventually('victim bound', async () => (await k.client.resource(Pods).get('victim')).spec?.nodeName);
      const preemptor = await k.client.resource(Pods).create(cpu('preemptor', 'high'));
      const victim = await eventually('victim deleting', async () => {
        const v = await k.client.resource(Pods).get('victim');
        return v.metadata?.deletionTimestamp ? v : undefined;
      });
      const target = victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      assert.deepEqual([target?.status, target?.reason, target?.message], ['True', 'PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod']);
      const nominated = await eventually('preemptor nominated', async () => (await k.client.resource(Pods).get('preemptor')).status?.nominatedNodeName);
      assert.equal(nominated, 'kplane-node-0');
      const preempted = await eventually('a Preempted event', async () => (await k.client.resource(Events).list({ namespace: 'default' })).items.find((e) => e.reason === 'Preempted'));
      assert.equal(preempted.message, `Preempted by pod ${preemptor.metadata!.uid} on node kplane-node-0`);
      assert.equal(preempted.involvedObject.name, 'victim');
      // The kubelet would finish the deletion; here it is forced.
      await k.client.resource(Pods).delete('victim', { gracePeriodSeconds: 0 });
      assert.equal(await eventually('preemptor bound', async () => (await k.client.resource(Pods).get('preemptor')).spec?.nodeName), 'kplane-node-0');
    } finally {
      await sched.stop();
      await k.close();
    }
  });
});

describe('scheduler without nodes', () => {
  it('says no nodes are available', async () => {
    const k = await startKplane();
    const sched = createScheduler({ client: k.client });
    try {
      await sched.start();
      await k.client.resource(Pods).create(pod('lonely', 'default'));
      const cond = await eventually('PodScheduled on lonely', async () => (await k.client.resource(Pods).get('lonely')).status?.conditions?.find((c) => c.type === 'PodScheduled'));
      assert.equal(cond.message, 'no nodes available to schedule pods');
      assert.equal(cond.reason, 'Unschedulable');
    } finally {
      await sched.stop();
      await k.close();
    }
  });
});
