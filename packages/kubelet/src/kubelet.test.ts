import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kplane/api';
import { eventually } from '@kplane/api/testing';
import { createFakeClock, Events, Leases, Nodes, Pods, type FakeClock, type kinds } from '@kplane/runtime';
import { createKubelet, type Kubelet } from './kubelet.js';
import { ipToInt } from './node-template.js';
import { startSimulation } from './simulation.js';
import { settle, startKplane, tickUntil, type TestKplane } from './test-kplane.js';

const START = Date.parse('2025-06-01T12:00:00Z');

function pod(name: string, spec: Partial<kinds.PodSpec> = {}, annotations: Record<string, string> = {}): kinds.Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'kplane-node-0', ...spec } };
}

const exists = async (k: TestKplane, name: string): Promise<kinds.Pod | undefined> => {
  try {
    return await k.client.resource(Pods).get(name);
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
};

describe('simulated kubelet on a fake clock', () => {
  let k: TestKplane;
  let clock: FakeClock;
  let kubelet: Kubelet;
  const errors: unknown[] = [];
  before(async () => {
    k = await startKplane();
    clock = createFakeClock(START);
    kubelet = createKubelet({ client: k.client, nodes: 2, clock, onError: (e) => errors.push(e) });
    await kubelet.start();
  });
  after(async () => {
    await kubelet.stop();
    await k.close();
    assert.deepEqual(errors, []);
  });
  const pods = () => k.client.resource(Pods);

  it('registers Ready nodes and renews their Leases every 10 s', async () => {
    assert.deepEqual(kubelet.nodeNames, ['kplane-node-0', 'kplane-node-1']);
    const node = await k.client.resource(Nodes).get('kplane-node-1');
    const ready = node.status!.conditions!.find((c) => c.type === 'Ready')!;
    assert.deepEqual([ready.status, ready.reason, ready.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
    assert.deepEqual(node.status!.conditions!.filter((c) => c.type !== 'Ready').map((c) => `${c.type}=${c.status}`), ['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False']);
    assert.equal(node.status!.nodeInfo!.kubeletVersion, 'v1.32.0');
    assert.deepEqual(node.status!.addresses![0], { type: 'InternalIP', address: '172.18.0.3' });
    assert.equal(node.spec!.podCIDR, '10.128.32.0/19');
    const lease = await k.client.resource(Leases).get('kplane-node-1', { namespace: 'kube-node-lease' });
    assert.equal(lease.spec!.holderIdentity, 'kplane-node-1');
    assert.equal(lease.spec!.leaseDurationSeconds, 40);
    assert.equal(lease.spec!.renewTime, '2025-06-01T12:00:00.000000Z');
    assert.deepEqual(lease.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'kplane-node-1', uid: node.metadata!.uid }]);
    await clock.advanceAsync(9_999);
    await settle();
    assert.equal((await k.client.resource(Leases).get('kplane-node-1', { namespace: 'kube-node-lease' })).spec!.renewTime, '2025-06-01T12:00:00.000000Z');
    await tickUntil(clock, async () => (await k.client.resource(Leases).get('kplane-node-1', { namespace: 'kube-node-lease' })).spec!.renewTime === '2025-06-01T12:00:10.000000Z', 1, 50);
  });

  it('posts its own conditions again at the next status update when the Node says otherwise', async () => {
    const nodes = k.client.resource(Nodes);
    const cur = await nodes.get('kplane-node-0');
    const before = cur.status!.conditions!.find((c) => c.type === 'Ready')!;
    const unknown = cur.status!.conditions!.map((c) => ({ ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }));
    await nodes.updateStatus({ ...cur, status: { ...cur.status, conditions: unknown } });
    const back = await tickUntil(clock, async () => {
      const n = await nodes.get('kplane-node-0');
      const r = n.status!.conditions!.find((c) => c.type === 'Ready')!;
      return r.status === 'True' ? r : undefined;
    }, 1000, 11_000);
    assert.deepEqual([back.reason, back.message], ['KubeletReady', 'kubelet is posting ready status']);
    assert.notEqual(back.lastHeartbeatTime, before.lastHeartbeatTime, 'a new heartbeat');
    assert.notEqual(back.lastTransitionTime, before.lastTransitionTime, 'a transition');
  });

  it('runs a bound pod: ContainerCreating, then Running and Ready with a pod IP from the node CIDR', async () => {
    await pods().create(pod('web', {}, { 'kplane.io/start-after-ms': '1000' }));
    const creating = await tickUntil(clock, async () => {
      const p = await pods().get('web');
      return p.status?.containerStatuses ? p : undefined;
    }, 1, 20);
    assert.equal(creating.status!.phase, 'Pending');
    assert.deepEqual(creating.status!.containerStatuses![0]!.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(creating.status!.hostIP, '172.18.0.2');
    const running = await tickUntil(clock, async () => {
      const p = await pods().get('web');
      return p.status?.phase === 'Running' ? p : undefined;
    }, 100, 2000);
    const ip = ipToInt(running.status!.podIP!);
    assert.ok(ip > ipToInt('10.128.0.0') && ip < ipToInt('10.128.32.0'), running.status!.podIP);
    assert.equal(running.status!.conditions!.find((c) => c.type === 'Ready')!.status, 'True');
    assert.equal(running.status!.containerStatuses![0]!.ready, true);
    assert.equal(running.status!.startTime, creating.status!.startTime);
  });

  it('reports the usage of its nodes and running pods (metrics.k8s.io shapes)', async () => {
    await pods().create(pod('busy', { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] }, { 'kplane.io/memory-usage': '32Mi' }));
    await tickUntil(clock, async () => (await pods().get('busy')).status?.phase === 'Running', 100);
    const m = kubelet.metrics();
    assert.deepEqual(m.nodes.map((n) => n.metadata.name), ['kplane-node-0', 'kplane-node-1']);
    const busy = m.pods.find((p) => p.metadata.name === 'busy')!;
    assert.deepEqual(busy.containers, [{ name: 'app', usage: { cpu: '100000000n', memory: '32768Ki' } }]);
    const node0 = m.nodes[0]!;
    assert.match(node0.usage.cpu, /^\d+n$/);
    assert.ok(Number(node0.usage.cpu.slice(0, -1)) >= 100_000_000, node0.usage.cpu);
    await pods().delete('busy', { gracePeriodSeconds: 0 });
  });

  it('deletes a pod only after its preStop sleep (the seed\'s lent.yaml: 8 s)', async () => {
    await pods().create(pod('lent', { terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 8 } } } }] }));
    await tickUntil(clock, async () => (await pods().get('lent')).status?.phase === 'Running', 100);
    const res = (await pods().delete('lent')) as kinds.Pod;
    assert.ok(res.metadata?.deletionTimestamp, 'graceful: marked, not removed');
    assert.equal(res.metadata?.deletionGracePeriodSeconds, 30);
    const t0 = clock.now();
    await tickUntil(clock, async () => (await k.client.resource(Events).list()).items.find((e) => e.reason === 'Killing' && e.involvedObject.name === 'lent'), 10, 1000);
    const killing = (await k.client.resource(Events).list()).items.find((e) => e.reason === 'Killing')!;
    assert.equal(killing.message, 'Stopping container app');
    await clock.advanceAsync(t0 + 7_900 - clock.now());
    await settle();
    assert.ok(await exists(k, 'lent'), 'still there after 7.9 s');
    await tickUntil(clock, async () => (await exists(k, 'lent')) === undefined, 50, 1000);
    assert.ok(clock.now() - t0 >= 8_000 && clock.now() - t0 <= 8_300, `removed after ${clock.now() - t0} ms`);
  });

  it('cuts a long preStop at terminationGracePeriodSeconds, and removes a never-started pod at once', async () => {
    await pods().create(pod('stubborn', { terminationGracePeriodSeconds: 3, containers: [{ name: 'app', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 100 } } } }] }));
    await tickUntil(clock, async () => (await pods().get('stubborn')).status?.phase === 'Running', 100);
    await pods().delete('stubborn');
    const t0 = clock.now();
    await tickUntil(clock, async () => (await exists(k, 'stubborn')) === undefined, 100, 5000);
    assert.ok(clock.now() - t0 >= 3_000 && clock.now() - t0 <= 3_300, `removed after ${clock.now() - t0} ms`);

    await pods().create(pod('slowstart', {}, { 'kplane.io/start-after-ms': '60000' }));
    await tickUntil(clock, async () => (await pods().get('slowstart')).status?.containerStatuses !== undefined, 10);
    await pods().delete('slowstart');
    const t1 = clock.now();
    await tickUntil(clock, async () => (await exists(k, 'slowstart')) === undefined, 10, 1000);
    assert.ok(clock.now() - t1 <= 100);
  });

  it('injects a crash loop from an annotation', async () => {
    await pods().create(pod('crash', {}, { 'kplane.io/fail': 'CrashLoopBackOff', 'kplane.io/fail-after-ms': '500' }));
    const restarted = await tickUntil(clock, async () => {
      const p = await pods().get('crash');
      return p.status?.containerStatuses?.[0]?.restartCount === 1 ? p : undefined;
    }, 100, 5000);
    assert.equal(restarted.status!.containerStatuses![0]!.lastState!.terminated!.reason, 'Error');
    const backoff = await tickUntil(clock, async () => {
      const p = await pods().get('crash');
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
    }, 100, 5000);
    assert.equal(backoff.status!.phase, 'Running');
    assert.equal(backoff.status!.conditions!.find((c) => c.type === 'Ready')!.status, 'False');
    await tickUntil(clock, async () => (await k.client.resource(Events).list()).items.some((e) => e.reason === 'BackOff' && e.involvedObject.name === 'crash'), 10, 200);
  });

  it('runs a restartPolicy Never pod to completion and leaves it there until it is deleted', async () => {
    const created = await pods().create(pod('job', { restartPolicy: 'Never' }, { 'kplane.io/run-ms': '2000' }));
    const t0 = clock.now();
    const done = await tickUntil(clock, async () => {
      const p = await pods().get('job');
      return p.status?.phase === 'Succeeded' ? p : undefined;
    }, 100, 5000);
    assert.ok(clock.now() - t0 >= 2_100 && clock.now() - t0 <= 2_300, `finished after ${clock.now() - t0} ms`);
    assert.equal(done.status!.containerStatuses![0]!.state!.terminated!.reason, 'Completed');
    await clock.advanceAsync(60_000);
    await settle();
    assert.equal((await pods().get('job')).metadata!.resourceVersion, done.metadata!.resourceVersion, 'a finished pod is not written again');
    const log = kubelet.logs.read(created.metadata!.uid!, 'app');
    assert.ok(Symbol.asyncIterator in log);
    let text = '';
    for await (const chunk of log) text += chunk;
    assert.match(text, /kplane: container app exited with code 0 \(Completed\)\n$/);
    await pods().delete('job');
    await tickUntil(clock, async () => (await exists(k, 'job')) === undefined, 10, 200);
  });

  it('restarts a container that exits, keeps the previous log and records one BackOff event per wait', async () => {
    const created = await pods().create(pod('flap', {}, { 'kplane.io/run-ms': '300', 'kplane.io/exit-code': '2', 'kplane.io/log': 'working' }));
    const back = await tickUntil(clock, async () => {
      const p = await pods().get('flap');
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
    }, 100, 5000);
    const cs = back.status!.containerStatuses![0]!;
    assert.equal(cs.restartCount, 1);
    assert.equal(cs.lastState!.terminated!.exitCode, 2);
    assert.equal(cs.state!.waiting!.message, `back-off 10s restarting failed container=app pod=flap_default(${created.metadata!.uid})`);
    const previous = kubelet.logs.read(created.metadata!.uid!, 'app', { previous: true });
    assert.ok(Symbol.asyncIterator in previous);
    let text = '';
    for await (const chunk of previous) text += chunk;
    assert.match(text, /^kplane: started container app .*\nworking\nkplane: container app is ready\nkplane: container app exited with code 2 \(Error\)\n$/);
    await tickUntil(clock, async () => (await pods().get('flap')).status?.containerStatuses?.[0]?.restartCount === 2, 500, 15_000);
    const events = (await k.client.resource(Events).list()).items.filter((e) => e.reason === 'BackOff' && e.involvedObject.name === 'flap');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.message, `Back-off restarting failed container app in pod flap_default(${created.metadata!.uid})`);
    await pods().delete('flap', { gracePeriodSeconds: 0 });
  });

  it('lets a force delete win over a running preStop', async () => {
    await pods().create(pod('forced', { containers: [{ name: 'app', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 20 } } } }] }));
    await tickUntil(clock, async () => (await pods().get('forced')).status?.phase === 'Running', 100);
    await pods().delete('forced');
    await clock.advanceAsync(1000);
    await settle();
    await pods().delete('forced', { gracePeriodSeconds: 0 });
    assert.equal(await exists(k, 'forced'), undefined);
    await clock.advanceAsync(25_000);
    await settle();
    assert.equal(kubelet.trackedPods(), (await pods().list({ fieldSelector: 'spec.nodeName=kplane-node-0' })).items.length + (await pods().list({ fieldSelector: 'spec.nodeName=kplane-node-1' })).items.length);
  });
});

describe('scheduler and kubelet together', () => {
  it('takes pods from Pending to Ready on distinct IPs, and a restarted kubelet adopts them without rewriting', async () => {
    const k = await startKplane();
    const errors: unknown[] = [];
    let sim = await startSimulation({ client: k.client, nodes: 3, config: { defaults: { startAfterMs: 10 } }, onError: (e) => errors.push(e) });
    try {
      for (let i = 0; i < 30; i++) await k.client.resource(Pods).create({ metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      const items = await eventually('all pods Ready', async () => {
        const list = (await k.client.resource(Pods).list()).items;
        return list.every((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) && list;
      });
      assert.equal(new Set(items.map((p) => p.status!.podIP)).size, 30);
      assert.deepEqual([...new Set(items.map((p) => p.spec!.nodeName))].sort(), ['kplane-node-0', 'kplane-node-1', 'kplane-node-2']);
      await sim.stop();
      const rvs = new Map(items.map((p) => [p.metadata!.name, p.metadata!.resourceVersion]));
      // The restarted kubelet on virtual time: once it tracks every pod, a few virtual seconds
      // hold every write an adoption could make.
      const later = createFakeClock(Date.now());
      sim = await startSimulation({ client: k.client, nodes: 3, clock: later, onError: (e) => errors.push(e) });
      await eventually('the restarted kubelet to track the 30 pods', () => sim.kubelet.trackedPods() === 30);
      await settle();
      await later.advanceAsync(5_000);
      await settle();
      const again = (await k.client.resource(Pods).list()).items;
      assert.ok(again.every((p) => rvs.get(p.metadata!.name) === p.metadata!.resourceVersion), 'no pod rewritten after a restart');
      assert.equal(sim.kubelet.trackedPods(), 30);
      assert.deepEqual(errors, []);
    } finally {
      await sim.stop();
      await k.close();
    }
  });
});

describe('a kubelet restarted over a crash-looping pod', () => {
  it('carries on from the pod\'s startTime: the restart count does not fall back', async () => {
    const k = await startKplane();
    const clock = createFakeClock(START);
    const errors: unknown[] = [];
    let kubelet = createKubelet({ client: k.client, nodes: 1, clock, onError: (e) => errors.push(e) });
    try {
      await kubelet.start();
      await k.client.resource(Pods).create(pod('loop', {}, { 'kplane.io/run-ms': '1000', 'kplane.io/exit-code': '1' }));
      await tickUntil(clock, async () => ((await k.client.resource(Pods).get('loop')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2, 500, 60_000);
      await kubelet.stop();
      kubelet = createKubelet({ client: k.client, nodes: 1, clock, onError: (e) => errors.push(e) });
      await kubelet.start();
      const counts: number[] = [];
      for (let i = 0; i < 40; i++) {
        await clock.advanceAsync(1000);
        await settle();
        counts.push((await k.client.resource(Pods).get('loop')).status!.containerStatuses![0]!.restartCount);
      }
      assert.ok(counts.every((c, i) => c >= 2 && (i === 0 || c >= counts[i - 1]!)), counts.join(','));
      assert.ok(counts[counts.length - 1]! >= 3, counts.join(','));
      assert.deepEqual(errors, []);
    } finally {
      await kubelet.stop();
      await k.close();
    }
  });
});
