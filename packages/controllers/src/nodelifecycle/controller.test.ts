import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Leases, Nodes, Pods, type FakeClock, type Lease, type Node, type Pod } from '@kplane/runtime';
import { settle } from '@kplane/runtime/testing';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { createNodeLifecycleController } from './controller.js';
import { createTaintEvictionController } from './taint-eviction.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let kp: TestKplane;
let clock: FakeClock;
let stop: () => Promise<void>;

before(async () => {
  ({ kp, clock, stop } = await startControllerBed(async (mgr) => {
    createNodeLifecycleController(mgr, { gracePeriodMs: 40_000 });
    createTaintEvictionController(mgr);
  }, T0));
});
after(() => stop());

const nodes = () => kp.client.resource<Node>(Nodes);
const pods = () => kp.client.resource<Pod>(Pods);
const leases = () => kp.client.resource<Lease>(Leases);
const iso = () => new Date(clock.now()).toISOString();

const advance = async (ms: number) => {
  for (let t = 0; t < ms; t += 1000) {
    await clock.advanceAsync(Math.min(1000, ms - t));
    await settle();
  }
};

/** What a kubelet does: a Ready node, its Lease, and a heartbeat. */
async function kubeletRegisters(name: string): Promise<void> {
  const t = iso().replace(/\.\d+Z$/, 'Z');
  const healthy = [
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: t, lastTransitionTime: t },
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: t, lastTransitionTime: t },
  ];
  const created = await nodes().create({ metadata: { name }, spec: {} });
  await nodes().updateStatus({ ...created, status: { conditions: healthy } });
  await leases().create({ metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: iso().replace('Z', '000Z') } });
}

const renew = (name: string) => leases().patch(name, { spec: { renewTime: iso().replace('Z', '000Z') } }, 'merge', { namespace: 'kube-node-lease' });

async function runningPod(name: string, node: string, tolerations?: NonNullable<Pod['spec']>['tolerations']): Promise<void> {
  const p = await pods().create({ metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) } }, { namespace: 'default' });
  await pods().updateStatus({ ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: 'default' });
}

const condition = (n: Node, type: string) => n.status?.conditions?.find((c) => c.type === type);
const taintKeys = (n: Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const deleting = async (name: string) => {
  try {
    return !!(await pods().get(name, { namespace: 'default' })).metadata?.deletionTimestamp;
  } catch {
    return true;
  }
};

it('a silent kubelet: Unknown after the grace period, unreachable taints, pods NotReady then evicted by their tolerationSeconds', async () => {
  await kubeletRegisters('n1');
  await runningPod('default-tol', 'n1');
  await runningPod('short-tol', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]);
  await runningPod('forever', 'n1', [{ operator: 'Exists' }]);
  await settle();
  await advance(30_000);
  await renew('n1');
  await advance(30_000);
  let n = await nodes().get('n1');
  assert.equal(condition(n, 'Ready')?.status, 'True', 'the Lease renewal at 30 s keeps it Ready at 60 s');
  assert.deepEqual(taintKeys(n), []);
  await advance(11_000);
  n = await eventually('Ready Unknown', async () => {
    const x = await nodes().get('n1');
    return condition(x, 'Ready')?.status === 'Unknown' && (x.spec?.taints?.length ?? 0) > 0 ? x : undefined;
  });
  assert.equal(condition(n, 'Ready')?.reason, 'NodeStatusUnknown');
  assert.equal(condition(n, 'Ready')?.message, 'Kubelet stopped posting node status.');
  assert.equal(condition(n, 'MemoryPressure')?.status, 'Unknown');
  assert.deepEqual(taintKeys(n), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  assert.ok(n.spec?.taints?.find((t) => t.effect === 'NoExecute')?.timeAdded, 'NoExecute taint stamped');
  const p = await pods().get('default-tol', { namespace: 'default' });
  assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False', 'pods marked not ready');
  assert.equal(await deleting('short-tol'), false, 'tolerated for 10 s');
  await advance(11_000);
  await eventually('short-tol evicted', () => deleting('short-tol'));
  const evicted = await pods().get('short-tol', { namespace: 'default' });
  const target = evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([target?.status, target?.reason], ['True', 'DeletionByTaintManager']);
  const events = await kp.client.resource({ group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true }).list({ namespace: 'default' });
  assert.ok(events.items.some((e: any) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/short-tol'), 'TaintManagerEviction event');
  assert.equal(await deleting('default-tol'), false);
  await advance(290_000);
  await eventually('default-tol evicted after 300 s', () => deleting('default-tol'));
  assert.equal(await deleting('forever'), false, 'a pod tolerating for ever stays');
});

it('a recovered node loses the taints; cordon adds the unschedulable taint and uncordon removes it', async () => {
  await kubeletRegisters('n2');
  await advance(41_000);
  await eventually('n2 unreachable', async () => taintKeys(await nodes().get('n2')).length === 2);
  const cur = await nodes().get('n2');
  const t = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  await nodes().updateStatus({ ...cur, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: t, lastTransitionTime: t }] } });
  await renew('n2');
  await eventually('taints removed', async () => taintKeys(await nodes().get('n2')).length === 0);
  await nodes().patch('n2', { spec: { unschedulable: true } }, 'merge');
  await eventually('unschedulable taint', async () => taintKeys(await nodes().get('n2')).join() === 'node.kubernetes.io/unschedulable:NoSchedule');
  await nodes().patch('n2', { spec: { unschedulable: null } }, 'merge');
  await eventually('unschedulable taint removed', async () => taintKeys(await nodes().get('n2')).length === 0);
});

it('a node that never posted status: Unknown (NodeStatusNeverUpdated) after the startup grace period', async () => {
  await nodes().create({ metadata: { name: 'silent' }, spec: {} });
  await settle();
  await advance(50_000);
  assert.equal((await nodes().get('silent')).status?.conditions, undefined, 'not before 60 s');
  await advance(11_000);
  const n = await eventually('Unknown', async () => {
    const x = await nodes().get('silent');
    return condition(x, 'Ready') && taintKeys(x).length === 2 ? x : undefined;
  });
  assert.deepEqual([condition(n, 'Ready')?.status, condition(n, 'Ready')?.reason, condition(n, 'Ready')?.message], ['Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.']);
  assert.deepEqual(n.status?.conditions?.map((c) => c.type), ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);
});
