import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFakeClock, type DaemonSet, type Node, type Pod } from '@kplane/runtime';
import { podsShouldBeOnNode, rollingUpdatePlan, statusCounts } from './plan.js';
import {
  addDaemonTolerations, compareDaemonPods, createFailedPodBackoff, createPodTemplate, daemonPodForPredicates, isPodUpdated, nodeShouldRunDaemonPod, pinToNode, scaledValue, surgeCount,
  targetNodeName, unavailableCount,
} from './util.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const T0 = '2026-01-01T00:00:00Z';

function ds(spec: Partial<NonNullable<DaemonSet['spec']>> = {}, annotations?: Record<string, string>): DaemonSet {
  return {
    metadata: { name: 'agent', namespace: 'ns', uid: 'ds-uid', annotations },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      ...spec,
    },
  };
}
const node = (name: string, extra: Partial<Node> = {}): Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { conditions: [{ type: 'Ready', status: 'True' }] }, ...extra });
function pod(name: string, nodeName: string | undefined, hash: string, o: { ready?: boolean; phase?: string; created?: string; deleting?: boolean } = {}): Pod {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: o.created ?? T0, labels: { app: 'agent', 'controller-revision-hash': hash }, ...(o.deleting ? { deletionTimestamp: T0 } : {}) },
    spec: { containers: [{ name: 'c' }], ...(nodeName ? { nodeName } : {}) },
    status: { phase: (o.phase ?? 'Running') as 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: T0 }] },
  };
}
const noBackoff = () => ({ inBackoff: false, delayMs: 1000 });

describe('daemon pod tolerations and placement', () => {
  it('adds the default tolerations once, network-unavailable only with hostNetwork', () => {
    const spec: NonNullable<Pod['spec']> = { containers: [], tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] };
    addDaemonTolerations(spec);
    assert.deepEqual(spec.tolerations?.map((t) => `${t.key}:${t.effect}`), [
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    assert.equal(spec.tolerations?.[0]?.tolerationSeconds, undefined);
    const host: NonNullable<Pod['spec']> = { containers: [], hostNetwork: true };
    addDaemonTolerations(host);
    assert.equal(host.tolerations?.at(-1)?.key, 'node.kubernetes.io/network-unavailable');
  });

  it('runs where nodeSelector, affinity and taints allow; NoExecute alone evicts', () => {
    const probe = daemonPodForPredicates(ds({ template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c' }], nodeSelector: { 'kubernetes.io/hostname': 'a' } } } }));
    assert.deepEqual(nodeShouldRunDaemonPod(node('a'), probe), { shouldRun: true, shouldContinueRunning: true });
    assert.deepEqual(nodeShouldRunDaemonPod(node('b'), probe), { shouldRun: false, shouldContinueRunning: false });
    const any = daemonPodForPredicates(ds());
    const noSchedule = node('a', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } });
    assert.deepEqual(nodeShouldRunDaemonPod(noSchedule, any), { shouldRun: false, shouldContinueRunning: true });
    const noExecute = node('a', { spec: { taints: [{ key: 'dedicated', effect: 'NoExecute' }] } });
    assert.deepEqual(nodeShouldRunDaemonPod(noExecute, any), { shouldRun: false, shouldContinueRunning: false });
    const cordoned = node('a', { spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } });
    assert.deepEqual(nodeShouldRunDaemonPod(cordoned, any), { shouldRun: true, shouldContinueRunning: true });
    const tolerant = daemonPodForPredicates(ds({ template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c' }], tolerations: [{ key: 'dedicated', operator: 'Exists' }] } } }));
    assert.equal(nodeShouldRunDaemonPod(noExecute, tolerant).shouldRun, true);
    // A NotReady node: no new pod (not-ready NoSchedule is not tolerated), a running one stays.
    const notReady = node('a', { status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    assert.deepEqual(nodeShouldRunDaemonPod(notReady, any), { shouldRun: false, shouldContinueRunning: true });
  });

  it('pins pods with metadata.name In [node] and reads the node back', () => {
    const spec: NonNullable<Pod['spec']> = {
      containers: [],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'x', operator: 'Exists' }] }] }, preferredDuringSchedulingIgnoredDuringExecution: [] } },
    };
    pinToNode(spec, 'n7');
    assert.deepEqual(spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] }] });
    assert.deepEqual(spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution, []);
    assert.equal(targetNodeName({ spec: { ...spec } }), 'n7');
    assert.equal(targetNodeName({ spec: { ...spec, nodeName: 'other' } }), 'other');
    assert.equal(targetNodeName({ spec: { containers: [] } }), undefined);
  });

  it('labels new pods with the hash and the template generation', () => {
    const t = createPodTemplate(ds({}, { 'deprecated.daemonset.template.generation': '3' }), 'h1');
    assert.deepEqual(t.metadata?.labels, { app: 'agent', 'pod-template-generation': '3', 'controller-revision-hash': 'h1' });
    assert.equal(t.spec?.tolerations?.length, 6);
    assert.ok(isPodUpdated(pod('p', 'a', 'h1'), 'h1', undefined));
    assert.ok(!isPodUpdated(pod('p', 'a', 'h0'), 'h1', 3));
    assert.ok(isPodUpdated({ metadata: { labels: { 'pod-template-generation': '3' } } }, 'h1', 3));
  });

  it('scales maxUnavailable and maxSurge, rounding up', () => {
    assert.equal(scaledValue('10%', 25), 3);
    assert.equal(scaledValue(2, 25), 2);
    assert.throws(() => scaledValue('x', 3), /invalid value "x"/);
    assert.equal(unavailableCount(ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '34%' } } }), 3), 2);
    assert.equal(surgeCount(ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } } }), 3), 2);
    assert.equal(unavailableCount(ds({ updateStrategy: { type: 'OnDelete' } }), 3), 0);
  });

  it('orders a node daemon pods scheduled first, then oldest', () => {
    const a = pod('a', undefined, 'h', { created: '2026-01-01T00:00:00Z' });
    const b = pod('b', 'n', 'h', { created: '2026-01-01T00:05:00Z' });
    const c = pod('c', 'n', 'h', { created: '2026-01-01T00:01:00Z' });
    assert.deepEqual([a, b, c].sort(compareDaemonPods).map((p) => p.metadata?.name), ['c', 'b', 'a']);
  });
});

describe('podsShouldBeOnNode', () => {
  const run = { shouldRun: true, shouldContinueRunning: true };
  it('creates where none runs, keeps one, deletes extra, failed and succeeded pods', () => {
    assert.equal(podsShouldBeOnNode(node('n'), run, undefined, ds(), 'h', NOW, noBackoff).create, true);
    const two = podsShouldBeOnNode(node('n'), run, [pod('new', 'n', 'h', { created: '2026-01-01T00:05:00Z' }), pod('old', 'n', 'h')], ds(), 'h', NOW, noBackoff);
    assert.deepEqual(two.deletePods.map((p) => p.metadata?.name), ['new']);
    const failed = podsShouldBeOnNode(node('n'), run, [pod('f', 'n', 'h', { phase: 'Failed' })], ds(), 'h', NOW, noBackoff);
    assert.deepEqual(failed.deletePods.map((p) => p.metadata?.name), ['f']);
    assert.deepEqual(failed.events, [{ type: 'Warning', reason: 'FailedDaemonPod', message: 'Found failed daemon pod ns/f on node n, will try to kill it' }]);
    const waiting = podsShouldBeOnNode(node('n'), run, [pod('f', 'n', 'h', { phase: 'Failed' })], ds(), 'h', NOW, () => ({ inBackoff: true, delayMs: 4000 }));
    assert.deepEqual([waiting.deletePods.length, waiting.requeueMs], [0, 4000]);
    const done = podsShouldBeOnNode(node('n'), run, [pod('s', 'n', 'h', { phase: 'Succeeded' })], ds(), 'h', NOW, noBackoff);
    assert.equal(done.events[0]?.reason, 'SucceededDaemonPod');
  });

  it('deletes the pods of a node that should not run one; leaves terminating pods alone', () => {
    const plan = podsShouldBeOnNode(node('n'), { shouldRun: false, shouldContinueRunning: false }, [pod('a', 'n', 'h'), pod('b', 'n', 'h', { deleting: true })], ds(), 'h', NOW, noBackoff);
    assert.deepEqual(plan.deletePods.map((p) => p.metadata?.name), ['a']);
  });

  it('when surging keeps the old pod until the new one is available', () => {
    const surge = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    const notReadyNew = podsShouldBeOnNode(node('n'), run, [pod('old', 'n', 'h0'), pod('new', 'n', 'h1', { ready: false, created: '2026-01-01T00:05:00Z' })], surge, 'h1', NOW, noBackoff);
    assert.deepEqual(notReadyNew.deletePods, []);
    const readyNew = podsShouldBeOnNode(node('n'), run, [pod('old', 'n', 'h0'), pod('new', 'n', 'h1', { created: '2026-01-01T00:05:00Z' })], surge, 'h1', NOW, noBackoff);
    assert.deepEqual(readyNew.deletePods.map((p) => p.metadata?.name), ['old']);
  });
});

describe('rollingUpdatePlan', () => {
  const nodes = (entries: Record<string, Pod[]>) => new Map(Object.entries(entries));
  it('without surge deletes old pods up to maxUnavailable, unavailable old ones always', () => {
    const m = nodes({ a: [pod('pa', 'a', 'h0')], b: [pod('pb', 'b', 'h0')], c: [pod('pc', 'c', 'h0', { ready: false })], d: [pod('pd', 'd', 'h1')] });
    const plan = rollingUpdatePlan(ds(), m, 4, 'h1', NOW, () => true);
    assert.deepEqual(plan, { deletePods: ['pc'], createOnNodes: [] });
    const two = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } } });
    assert.deepEqual(rollingUpdatePlan(two, m, 4, 'h1', NOW, () => true), { deletePods: ['pc', 'pa'], createOnNodes: [] });
    // One new pod not yet available uses up the budget.
    const busy = nodes({ a: [pod('pa', 'a', 'h0')], d: [pod('pd', 'd', 'h1', { ready: false })] });
    assert.deepEqual(rollingUpdatePlan(ds(), busy, 2, 'h1', NOW, () => true), { deletePods: [], createOnNodes: [] });
    // An empty node counts as unavailable.
    const empty = nodes({ a: [pod('pa', 'a', 'h0')], e: [] });
    assert.deepEqual(rollingUpdatePlan(ds(), empty, 2, 'h1', NOW, () => true).deletePods, []);
  });

  it('with surge creates beside old pods up to maxSurge and deletes old ones whose replacement is available', () => {
    const surge = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    const m = nodes({ a: [pod('pa', 'a', 'h0')], b: [pod('pb', 'b', 'h0')], c: [pod('pc', 'c', 'h0'), pod('nc', 'c', 'h1')] });
    assert.deepEqual(rollingUpdatePlan(surge, m, 3, 'h1', NOW, () => true), { deletePods: ['pc'], createOnNodes: ['a'] });
    const waiting = nodes({ a: [pod('pa', 'a', 'h0')], c: [pod('pc', 'c', 'h0'), pod('nc', 'c', 'h1', { ready: false })] });
    assert.deepEqual(rollingUpdatePlan(surge, waiting, 2, 'h1', NOW, () => true), { deletePods: [], createOnNodes: [] });
  });
});

describe('statusCounts', () => {
  it('counts desired, current, misscheduled, ready, updated, available and unavailable nodes', () => {
    const list = [node('a'), node('b'), node('c'), node('d')];
    const placements = new Map([
      ['a', { shouldRun: true, shouldContinueRunning: true }],
      ['b', { shouldRun: true, shouldContinueRunning: true }],
      ['c', { shouldRun: true, shouldContinueRunning: true }],
      ['d', { shouldRun: false, shouldContinueRunning: false }],
    ]);
    const m = new Map([
      ['a', [pod('pa', 'a', 'h1')]],
      ['b', [pod('pb', 'b', 'h0', { ready: false })]],
      ['d', [pod('pd', 'd', 'h1')]],
    ]);
    assert.deepEqual(statusCounts(ds(), list, placements, m, 'h1', NOW), {
      desiredNumberScheduled: 3, currentNumberScheduled: 2, numberMisscheduled: 1, numberReady: 1, updatedNumberScheduled: 1, numberAvailable: 1, numberUnavailable: 2,
    });
    const slow = ds({ minReadySeconds: 3600 });
    assert.equal(statusCounts(slow, list, placements, m, 'h1', NOW).numberAvailable, 0);
  });
});

describe('failed-pod backoff', () => {
  it('doubles from 1 s to the maximum on virtual time and resets after a quiet spell', () => {
    const clock = createFakeClock(0);
    const b = createFailedPodBackoff(clock, 1000, 8000);
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 1000 });
    clock.advance(400);
    assert.deepEqual(b.next('n'), { inBackoff: true, delayMs: 600 });
    clock.advance(600);
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 2000 });
    clock.advance(2000);
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 4000 });
    clock.advance(4000);
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 8000 });
    clock.advance(8000);
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 8000 });
    assert.deepEqual(b.next('other'), { inBackoff: false, delayMs: 1000 });
    clock.advance(16_001);
    b.gc();
    assert.deepEqual(b.next('n'), { inBackoff: false, delayMs: 1000 });
  });
});
