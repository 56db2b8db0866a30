import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@kplane/client';
import { ControllerRevisions, DaemonSets, Events, Nodes, Pods, createManager, type ControllerRevision, type DaemonSet, type Node, type Pod } from '@kplane/runtime';
import { until } from '@kplane/api/testing';
import { createNamespace, markReady, sleep, startKplane, type TestKplane } from '../replicaset/test-support.js';
import { createGarbageCollector } from '../garbagecollector/index.js';
import { createPodGarbageCollector } from '../podgc/index.js';
import { createDaemonSetController } from './daemonset-controller.js';
import { targetNodeName } from './util.js';

const IMAGE1 = 'registry.k8s.io/e2e-test-images/agnhost:2.61';
const IMAGE2 = 'registry.k8s.io/e2e-test-images/agnhost:2.62';

function daemonSet(name: string, spec: Partial<NonNullable<DaemonSet['spec']>> = {}, podSpec: Partial<NonNullable<Pod['spec']>> = {}): DaemonSet {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'agent', image: IMAGE1 }], ...podSpec } }, ...spec },
  };
}

/**
 * Plays the scheduler and the kubelets for one namespace: binds each new pod to the node its
 * node affinity names (if that node exists), marks it Ready, and finishes graceful deletions.
 */
function startNodeAgent(client: Client, namespace: string, signal: AbortSignal, opts: { ready?: (pod: Pod) => boolean } = {}): Promise<void> {
  const api = client.resource<Pod>(Pods);
  const nodes = client.resource<Node>(Nodes);
  const bound = new Set<string>();
  const handle = async (pod: Pod): Promise<void> => {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp) {
      await api.delete(name, { namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
      return;
    }
    const uid = pod.metadata?.uid ?? '';
    if (pod.spec?.nodeName || bound.has(uid)) return;
    const target = targetNodeName(pod);
    if (!target || !(await nodes.get(target).then(() => true, () => false))) return;
    bound.add(uid);
    await api.createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: target } }, { namespace });
    await markReady(client, pod, opts.ready?.(pod) ?? true);
  };
  return (async () => {
    while (!signal.aborted) {
      try {
        for await (const ev of api.watch({ namespace, signal })) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') handle(ev.object).catch(() => undefined);
        }
      } catch {
        if (!signal.aborted) await sleep(20);
      }
    }
  })();
}

describe('DaemonSet controller', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  const dsApi = () => kp.client.resource<DaemonSet>(DaemonSets);
  const podApi = () => kp.client.resource<Pod>(Pods);
  const nodeApi = () => kp.client.resource<Node>(Nodes);
  const revApi = () => kp.client.resource<ControllerRevision>(ControllerRevisions);
  const livePods = async (ns: string) => (await podApi().list({ namespace: ns })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const nodesOf = async (ns: string) => (await livePods(ns)).map((p) => targetNodeName(p)).sort();
  /** A Ready node (no kubelet behind it: startNodeAgent plays its part). */
  const addNode = async (name: string, extra: Partial<Node> = {}) => {
    const created = await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(extra.metadata?.labels ?? {}) } }, spec: extra.spec });
    created.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] };
    return nodeApi().updateStatus(created);
  };

  async function run(ns: string, ready?: (pod: Pod) => boolean, gc = false) {
    const mgr = createManager({ client: kp.client });
    createDaemonSetController(mgr);
    // Pods bound to a deleted node are the pod garbage collector's (short period, no quarantine).
    mgr.add(createPodGarbageCollector(mgr, { gcCheckPeriodMs: 25, quarantineMs: 0 }));
    if (gc) mgr.add(createGarbageCollector({ manager: mgr }));
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const agent = startNodeAgent(kp.client, ns, stop.signal, { ready });
    return {
      async stop() {
        stop.abort();
        await Promise.all([done, agent]);
      },
    };
  }

  /** kubectl rollout status's test for a DaemonSet. */
  const rolledOut = async (ns: string, name: string) => {
    const ds = await dsApi().get(name, { namespace: ns });
    const s = ds.status;
    return !!s && (ds.metadata?.generation ?? 0) <= (s.observedGeneration ?? 0) && (s.updatedNumberScheduled ?? 0) >= s.desiredNumberScheduled && (s.numberAvailable ?? 0) >= s.desiredNumberScheduled;
  };

  it('runs one pinned pod per node, follows nodes joining, tainted and leaving, and reports status', async () => {
    const ns = 'ds-nodes';
    await createNamespace(kp.client, ns);
    for (const n of ['a1', 'a2', 'a3']) await addNode(n);
    const ctl = await run(ns);
    try {
      const created = await dsApi().create(daemonSet('agent'), { namespace: ns });
      await until('a pod on each node', async () => (await nodesOf(ns)).join() === 'a1,a2,a3' && rolledOut(ns, 'agent'));
      const pods = await livePods(ns);
      const pod = pods[0]!;
      assert.equal(pod.metadata?.generateName, 'agent-');
      assert.deepEqual(pod.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['DaemonSet', 'agent', created.metadata?.uid, true]]);
      assert.equal(pod.metadata?.labels?.['pod-template-generation'], '1');
      assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [targetNodeName(pod)!] }] },
      ]);
      assert.ok(pod.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute'));
      const ds = await dsApi().get('agent', { namespace: ns });
      assert.deepEqual(ds.status, {
        currentNumberScheduled: 3, desiredNumberScheduled: 3, numberMisscheduled: 0, numberReady: 3, numberAvailable: 3, updatedNumberScheduled: 3, observedGeneration: 1,
      });
      const revs = (await revApi().list({ namespace: ns })).items;
      assert.equal(revs.length, 1);
      assert.equal(revs[0]!.revision, 1);
      assert.equal(revs[0]!.metadata?.name, `agent-${pod.metadata?.labels?.['controller-revision-hash']}`);

      // A node joins; another gets a NoExecute taint; a third leaves.
      await addNode('a4');
      await until('a pod on the new node', async () => (await nodesOf(ns)).join() === 'a1,a2,a3,a4');
      const a2 = await nodeApi().get('a2');
      a2.spec = { ...(a2.spec ?? {}), taints: [{ key: 'maintenance', effect: 'NoExecute' }] };
      await nodeApi().update(a2);
      await until('the tainted node loses its pod', async () => (await nodesOf(ns)).join() === 'a1,a3,a4');
      await nodeApi().delete('a3');
      await until('the removed node loses its pod', async () => (await nodesOf(ns)).join() === 'a1,a4');
      await until('status of two nodes', async () => {
        const s = (await dsApi().get('agent', { namespace: ns })).status;
        return s?.desiredNumberScheduled === 2 && s.currentNumberScheduled === 2 && s.numberReady === 2;
      });
      const events = (await kp.client.resource(Events).list({ namespace: ns })).items as Array<{ reason?: string; message?: string; source?: { component?: string } }>;
      assert.ok(events.some((e) => e.reason === 'SuccessfulCreate' && /^Created pod: agent-/.test(e.message ?? '') && e.source?.component === 'daemonset-controller'));
      assert.ok(events.some((e) => e.reason === 'SuccessfulDelete' && /^Deleted pod: agent-/.test(e.message ?? '')));
    } finally {
      await ctl.stop();
      for (const n of ['a1', 'a2', 'a4']) await nodeApi().delete(n);
    }
  });

  it('waits for a node to become Ready before giving it a pod', async () => {
    const ns = 'ds-ready';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('late'), { namespace: ns });
      // Registered, not Ready yet (as a kubelet registers a node before its first status).
      const node = await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'h1' } });
      await until('a first sync', async () => (await dsApi().get('late', { namespace: ns })).status?.observedGeneration === 1);
      assert.deepEqual(await nodesOf(ns), []);
      assert.equal((await dsApi().get('late', { namespace: ns })).status?.desiredNumberScheduled, 0);
      node.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] };
      await nodeApi().updateStatus(node);
      await until('a pod once Ready', async () => (await nodesOf(ns)).join() === 'h1' && rolledOut(ns, 'late'));
    } finally {
      await ctl.stop();
      await nodeApi().delete('h1');
    }
  });

  it('honours nodeSelector and required node affinity', async () => {
    const ns = 'ds-select';
    await createNamespace(kp.client, ns);
    await addNode('b1', { metadata: { labels: { disk: 'ssd' } } });
    await addNode('b2', { metadata: { labels: { disk: 'hdd' } } });
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('ssd', {}, { nodeSelector: { disk: 'ssd' } }), { namespace: ns });
      const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In' as const, values: ['hdd'] }] }] } } };
      await dsApi().create(daemonSet('hdd', {}, { affinity }), { namespace: ns });
      await until('one pod per DaemonSet', async () => (await nodesOf(ns)).join() === 'b1,b2');
      const byDs = new Map((await livePods(ns)).map((p) => [p.metadata?.labels?.app, targetNodeName(p)]));
      assert.deepEqual([byDs.get('ssd'), byDs.get('hdd')], ['b1', 'b2']);
      // Relabelling moves the pod.
      const b2 = await nodeApi().get('b2');
      b2.metadata!.labels = { ...b2.metadata!.labels, disk: 'ssd' };
      await nodeApi().update(b2);
      await until('ssd on both nodes, hdd gone', async () => (await livePods(ns)).filter((p) => p.metadata?.labels?.app === 'ssd').length === 2 && (await livePods(ns)).length === 2);
    } finally {
      await ctl.stop();
      for (const n of ['b1', 'b2']) await nodeApi().delete(n);
    }
  });

  it('rolls an update within maxUnavailable, records revisions and rolls back to an old template', async () => {
    const ns = 'ds-rolling';
    await createNamespace(kp.client, ns);
    const names = ['c1', 'c2', 'c3', 'c4'];
    for (const n of names) await addNode(n);
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('web'), { namespace: ns });
      await until('first rollout', () => rolledOut(ns, 'web'));
      // Watch availability during the update: never more than one node without an available pod.
      let worst = 0;
      const watching = new AbortController();
      const watcher = (async () => {
        for await (const ev of dsApi().watch({ namespace: ns, signal: watching.signal })) {
          const s = ev.object.status;
          if (s) worst = Math.max(worst, s.numberUnavailable ?? 0);
        }
      })().catch(() => undefined);
      const ds = await dsApi().get('web', { namespace: ns });
      ds.spec!.template!.spec!.containers[0]!.image = IMAGE2;
      await dsApi().update(ds);
      await until('second rollout', async () => (await rolledOut(ns, 'web')) && (await livePods(ns)).every((p) => p.spec?.containers[0]?.image === IMAGE2) && (await livePods(ns)).length === 4);
      watching.abort();
      await watcher;
      assert.ok(worst <= 1, `at most one unavailable node, saw ${worst}`);
      const after2 = await dsApi().get('web', { namespace: ns });
      assert.equal(after2.metadata?.annotations?.['deprecated.daemonset.template.generation'], '2');
      let revs = (await revApi().list({ namespace: ns })).items.sort((a, b) => a.revision - b.revision);
      assert.deepEqual(revs.map((r) => r.revision), [1, 2]);
      // Back to the first template (what kubectl rollout undo patches in): its revision becomes 3.
      await dsApi().patch('web', revs[0]!.data, 'strategic', { namespace: ns });
      await until('rollback', async () => (await rolledOut(ns, 'web')) && (await livePods(ns)).every((p) => p.spec?.containers[0]?.image === IMAGE1));
      revs = (await revApi().list({ namespace: ns })).items.sort((a, b) => a.revision - b.revision);
      assert.deepEqual(revs.map((r) => [r.metadata?.name, r.revision]), [[revs[0]!.metadata?.name, 2], [revs[1]!.metadata?.name, 3]]);
      assert.equal(revs[1]!.metadata?.labels?.['controller-revision-hash'], (await livePods(ns))[0]!.metadata?.labels?.['controller-revision-hash']);
    } finally {
      await ctl.stop();
      for (const n of names) await nodeApi().delete(n);
    }
  });

  it('surges with maxSurge: the new pod starts beside the old one', async () => {
    const ns = 'ds-surge';
    await createNamespace(kp.client, ns);
    for (const n of ['d1', 'd2']) await addNode(n);
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('surge', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }), { namespace: ns });
      await until('first rollout', () => rolledOut(ns, 'surge'));
      let sawTwoOnANode = false;
      const watching = new AbortController();
      const watcher = (async () => {
        for await (const ev of podApi().watch({ namespace: ns, signal: watching.signal })) {
          void ev;
          const counts = new Map<string, number>();
          for (const p of await livePods(ns)) counts.set(targetNodeName(p) ?? '', (counts.get(targetNodeName(p) ?? '') ?? 0) + 1);
          if ([...counts.values()].some((c) => c === 2)) sawTwoOnANode = true;
        }
      })().catch(() => undefined);
      const ds = await dsApi().get('surge', { namespace: ns });
      ds.spec!.template!.spec!.containers[0]!.image = IMAGE2;
      await dsApi().update(ds);
      await until('surge rollout', async () => (await rolledOut(ns, 'surge')) && (await livePods(ns)).length === 2 && (await livePods(ns)).every((p) => p.spec?.containers[0]?.image === IMAGE2));
      watching.abort();
      await watcher;
      assert.ok(sawTwoOnANode, 'an old and a new pod ran side by side');
    } finally {
      await ctl.stop();
      for (const n of ['d1', 'd2']) await nodeApi().delete(n);
    }
  });

  it('replaces a failed daemon pod and deletes a succeeded one, with events', async () => {
    const ns = 'ds-failed';
    await createNamespace(kp.client, ns);
    await addNode('f1');
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('crash'), { namespace: ns });
      await until('pod', () => rolledOut(ns, 'crash'));
      const first = (await livePods(ns))[0]!;
      await podApi().patch(first.metadata!.name!, { status: { phase: 'Failed' } }, 'merge', { namespace: ns, subresource: 'status' });
      await until('a replacement', async () => {
        const pods = await livePods(ns);
        return pods.length === 1 && pods[0]!.metadata?.name !== first.metadata?.name && (await rolledOut(ns, 'crash'));
      });
      const second = (await livePods(ns))[0]!;
      await podApi().patch(second.metadata!.name!, { status: { phase: 'Succeeded' } }, 'merge', { namespace: ns, subresource: 'status' });
      await until('another replacement', async () => {
        const pods = await livePods(ns);
        return pods.length === 1 && pods[0]!.metadata?.name !== second.metadata?.name;
      });
      const events = (await kp.client.resource(Events).list({ namespace: ns })).items as Array<{ type?: string; reason?: string; message?: string }>;
      assert.ok(events.some((e) => e.type === 'Warning' && e.reason === 'FailedDaemonPod' && e.message === `Found failed daemon pod ${ns}/${first.metadata?.name} on node f1, will try to kill it`));
      assert.ok(events.some((e) => e.type === 'Normal' && e.reason === 'SucceededDaemonPod' && e.message === `Found succeeded daemon pod ${ns}/${second.metadata?.name} on node f1, will try to delete it`));
    } finally {
      await ctl.stop();
      await nodeApi().delete('f1');
    }
  });

  it('adopts the pods of a DaemonSet deleted with orphan propagation and recreated, creating none', async () => {
    const ns = 'ds-adopt';
    await createNamespace(kp.client, ns);
    for (const n of ['g1', 'g2']) await addNode(n);
    const ctl = await run(ns, undefined, true);
    try {
      const old = await dsApi().create(daemonSet('keep'), { namespace: ns });
      await until('pods', () => rolledOut(ns, 'keep'));
      const names = (await livePods(ns)).map((p) => p.metadata?.name).sort();
      await dsApi().delete('keep', { namespace: ns, propagationPolicy: 'Orphan' });
      await until('orphans', async () => (await livePods(ns)).every((p) => !p.metadata?.ownerReferences?.length));
      const again = await dsApi().create(daemonSet('keep'), { namespace: ns });
      await until('adoption', async () => (await livePods(ns)).every((p) => p.metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid) && (await rolledOut(ns, 'keep')));
      assert.notEqual(again.metadata?.uid, old.metadata?.uid);
      assert.deepEqual((await livePods(ns)).map((p) => p.metadata?.name).sort(), names);
      // The orphaned revision is adopted too: still one revision, number 1.
      const revs = (await revApi().list({ namespace: ns })).items;
      assert.deepEqual(revs.map((r) => [r.revision, r.metadata?.ownerReferences?.[0]?.uid]), [[1, again.metadata?.uid]]);
    } finally {
      await ctl.stop();
      for (const n of ['g1', 'g2']) await nodeApi().delete(n);
    }
  });

  it('OnDelete replaces a pod only once it is deleted', async () => {
    const ns = 'ds-ondelete';
    await createNamespace(kp.client, ns);
    for (const n of ['e1', 'e2']) await addNode(n);
    const ctl = await run(ns);
    try {
      await dsApi().create(daemonSet('od', { updateStrategy: { type: 'OnDelete' } }), { namespace: ns });
      await until('pods', async () => (await livePods(ns)).length === 2 && rolledOut(ns, 'od'));
      const ds = await dsApi().get('od', { namespace: ns });
      ds.spec!.template!.spec!.containers[0]!.image = IMAGE2;
      await dsApi().update(ds);
      await until('observed', async () => (await dsApi().get('od', { namespace: ns })).status?.observedGeneration === 2);
      assert.equal((await dsApi().get('od', { namespace: ns })).status?.updatedNumberScheduled, undefined);
      assert.ok((await livePods(ns)).every((p) => p.spec?.containers[0]?.image === IMAGE1));
      const victim = (await livePods(ns))[0]!;
      await podApi().delete(victim.metadata!.name!, { namespace: ns });
      await until('one replaced pod', async () => (await livePods(ns)).filter((p) => p.spec?.containers[0]?.image === IMAGE2).length === 1 && (await livePods(ns)).length === 2);
    } finally {
      await ctl.stop();
      for (const n of ['e1', 'e2']) await nodeApi().delete(n);
    }
  });
});
