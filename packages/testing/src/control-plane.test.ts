import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Action, ConfigMaps, CronJobs, Deployments, Jobs, Nodes, Pods, createManager, type ConfigMap } from '@kplane/runtime';
import { startControlPlane, type TestControlPlane } from './index.js';

const labels = { app: 'web' };
const podSpec = { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] };

describe('a test control plane on virtual time', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(() => cp.stop());

  it('brings a Deployment to Ready with settle(), without polling', async () => {
    const deployments = cp.client.resource(Deployments);
    await deployments.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } });
    // The simulated containers start 100 ms after their pod is bound: time has to move.
    await cp.settle({ advance: true, maxVirtualMs: 2_000 });
    const d = await deployments.get('web');
    assert.equal(d.status?.readyReplicas, 3);
    assert.equal(d.status?.availableReplicas, 3);
    assert.equal(d.status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    const pods = await cp.client.resource(Pods).list({ labelSelector: 'app=web' });
    assert.deepEqual(pods.items.map((p) => p.status?.phase), ['Running', 'Running', 'Running']);
    assert.deepEqual(cp.busy(), []);
  });

  it('fires a CronJob when virtual time reaches its schedule', async () => {
    const start = cp.clock.now();
    await cp.client.resource(CronJobs).create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } } } });
    await cp.settle();
    assert.equal((await cp.client.resource(Jobs).list()).items.length, 0, 'nothing runs before the schedule');
    // The next minute, and the controller looks 100 ms after it (as kube's does): advancing a
    // bare 60 s from a start just past a minute would stop short of that look.
    const scheduled = Math.ceil((start + 1) / 60_000) * 60_000;
    await cp.advance(scheduled + 500 - start);
    const jobs = (await cp.client.resource(Jobs).list()).items;
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0]!.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(scheduled).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    await cp.client.resource(CronJobs).delete('tick');
  });

  it('completes a graceful pod deletion on virtual time', async () => {
    const pods = cp.client.resource(Pods);
    // The container needs 20 s to stop (its preStop hook sleeps), within a 30 s grace period.
    const spec = { ...podSpec, containers: [{ ...podSpec.containers[0], lifecycle: { preStop: { sleep: { seconds: 20 } } } }], terminationGracePeriodSeconds: 30 };
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'slow-stop' }, spec });
    await cp.settle({ advance: true, maxVirtualMs: 1_000 });
    assert.equal((await pods.get('slow-stop')).status?.phase, 'Running');
    await pods.delete('slow-stop');
    await cp.settle();
    const terminating = await pods.get('slow-stop');
    assert.ok(terminating.metadata?.deletionTimestamp, 'the pod is terminating');
    await cp.advance(19_000);
    assert.ok(await pods.get('slow-stop'), 'still stopping after 19 s');
    await cp.advance(2_000);
    await assert.rejects(pods.get('slow-stop'), { code: 404 });
  });

  it("runs a user's controller and its requeueAfter on the same clock", async () => {
    const reconciled: number[] = [];
    const manager = createManager({ client: cp.client, clock: cp.clock });
    manager
      .controller()
      .named('counter')
      .for(ConfigMaps)
      .complete(async ({ name }) => {
        if (name !== 'counted') return Action.awaitChange();
        reconciled.push(cp.clock.now());
        return Action.requeue(10_000);
      });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await cp.client.resource(ConfigMaps).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counted' } } as ConfigMap);
      await cp.settle();
      assert.equal(reconciled.length, 1, 'reconciled once, as soon as created');
      const first = reconciled[0]!;
      await cp.advance(9_999);
      assert.equal(reconciled.length, 1, 'not before requeueAfter');
      await cp.advance(1);
      assert.deepEqual(reconciled, [first, first + 10_000]);
      await cp.advance(20_000);
      assert.deepEqual(reconciled, [first, first + 10_000, first + 20_000, first + 30_000]);
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('node lifecycle on virtual time', () => {
  it('marks a silent node NotReady (Unknown) once the grace period has passed', async () => {
    const cp = await startControlPlane({ nodes: 1 });
    try {
      await cp.settle();
      const ready = async (): Promise<string | undefined> => (await cp.client.resource(Nodes).get('kplane-node-0')).status?.conditions?.find((c) => c.type === 'Ready')?.status;
      assert.equal(await ready(), 'True');
      // The kubelet stops renewing its Lease: the node lifecycle controller waits out its 40 s grace period.
      await cp.server.simulation!.kubelet.stop();
      await cp.advance(35_000);
      assert.equal(await ready(), 'True');
      await cp.advance(15_000);
      const node = await cp.client.resource(Nodes).get('kplane-node-0');
      assert.equal(node.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
      assert.ok(node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable'));
    } finally {
      await cp.stop();
    }
  });
});
