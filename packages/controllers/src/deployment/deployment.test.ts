import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@kplane/client';
import { Deployments, Pods, ReplicaSets, createManager, type Deployment, type Pod, type ReplicaSet } from '@kplane/runtime';
import { createReplicaSetController } from '../replicaset/replicaset-controller.js';
import { until } from '@kplane/api/testing';
import { activePods, createNamespace, startFakeKubelet, startKplane, type TestKplane } from '../replicaset/test-support.js';
import { createDeploymentController } from './deployment-controller.js';
import { POD_TEMPLATE_HASH_LABEL, computeHash } from './hash.js';

const IMAGE1 = 'registry.k8s.io/e2e-test-images/agnhost:2.61';
const IMAGE2 = 'registry.k8s.io/e2e-test-images/agnhost:2.62';

function deployment(name: string, replicas: number, spec: Partial<NonNullable<Deployment['spec']>> = {}): Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'agnhost', image: IMAGE1 }] } }, ...spec },
  };
}

describe('Deployment controller', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  const dApi = () => kp.client.resource<Deployment>(Deployments);
  const rsApi = () => kp.client.resource<ReplicaSet>(ReplicaSets);
  const podApi = () => kp.client.resource<Pod>(Pods);
  const replicaSets = async (ns: string) => (await rsApi().list({ namespace: ns })).items;

  /** Both controllers on one manager, and (unless told not to) a stand-in kubelet making pods Ready. */
  async function run(ns: string, o: { client?: Client; kubelet?: boolean } = {}) {
    const mgr = createManager({ client: o.client ?? kp.client });
    createReplicaSetController(mgr, { recorder: false });
    createDeploymentController(mgr);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const kubelet = o.kubelet === false ? Promise.resolve() : startFakeKubelet(kp.client, ns, stop.signal, 30);
    return {
      async stop() {
        stop.abort();
        await Promise.all([done, kubelet]);
      },
    };
  }

  /** kubectl rollout status's test. */
  const rolledOut = async (ns: string, name: string) => {
    const d = await dApi().get(name, { namespace: ns });
    const s = d.status ?? {};
    return (
      (d.metadata!.generation ?? 0) <= (s.observedGeneration ?? 0) &&
      (s.updatedReplicas ?? 0) === d.spec!.replicas &&
      (s.replicas ?? 0) === (s.updatedReplicas ?? 0) &&
      (s.availableReplicas ?? 0) === (s.updatedReplicas ?? 0)
    );
  };

  it('creates a ReplicaSet named after the template hash, with revision, replica annotations, status and conditions', async () => {
    const ns = 'd-create';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    const created = await dApi().create(deployment('web', 3), { namespace: ns });
    await until('rollout', () => rolledOut(ns, 'web'));
    const hash = computeHash(created.spec!.template);
    const [rs, ...others] = await replicaSets(ns);
    assert.equal(others.length, 0);
    assert.equal(rs!.metadata!.name, `web-${hash}`);
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs!.metadata!.labels![POD_TEMPLATE_HASH_LABEL], hash);
    assert.deepEqual(rs!.spec!.selector.matchLabels, { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash });
    assert.equal(rs!.spec!.template!.metadata!.labels![POD_TEMPLATE_HASH_LABEL], hash);
    assert.deepEqual(rs!.metadata!.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(rs!.metadata!.annotations!['deployment.kubernetes.io/revision'], '1');
    assert.equal(rs!.metadata!.annotations!['deployment.kubernetes.io/desired-replicas'], '3');
    assert.equal(rs!.metadata!.annotations!['deployment.kubernetes.io/max-replicas'], '4');
    for (const p of await activePods(kp.client, ns)) assert.equal(p.metadata!.labels![POD_TEMPLATE_HASH_LABEL], hash);

    await until('complete', async () => (await dApi().get('web', { namespace: ns })).status?.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NewReplicaSetAvailable');
    const d = await dApi().get('web', { namespace: ns });
    assert.equal(d.metadata!.annotations!['deployment.kubernetes.io/revision'], '1');
    const s = d.status!;
    assert.deepEqual([s.observedGeneration, s.replicas, s.updatedReplicas, s.readyReplicas, s.availableReplicas, s.unavailableReplicas], [1, 3, 3, 3, 3, undefined]);
    const conds = Object.fromEntries(s.conditions!.map((c) => [c.type, [c.status, c.reason, c.message]]));
    assert.deepEqual(conds.Available, ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']);
    assert.deepEqual(conds.Progressing, ['True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`]);

    // Scaling (kubectl scale goes through the scale subresource) bumps the generation only.
    await dApi().updateSubresource('web', 'scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: ns }, spec: { replicas: 5 } }, { namespace: ns });
    await until('scaled to 5', async () => (await rolledOut(ns, 'web')) && (await dApi().get('web', { namespace: ns })).status?.replicas === 5);
    const scaled = await dApi().get('web', { namespace: ns });
    assert.equal(scaled.status!.observedGeneration, 2);
    const [rs5] = await replicaSets(ns);
    assert.equal(rs5!.metadata!.name, `web-${hash}`);
    assert.equal(rs5!.spec!.replicas, 5);
    assert.equal(rs5!.metadata!.annotations!['deployment.kubernetes.io/desired-replicas'], '5');
    assert.equal(rs5!.metadata!.annotations!['deployment.kubernetes.io/revision'], '1');
    await ctl.stop();
  });

  it('rolls out a new template within maxSurge and maxUnavailable at every step, then rolls back', async () => {
    const ns = 'd-rolling';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    const strategy = { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } };
    await dApi().create(deployment('roll', 4, { strategy }), { namespace: ns });
    await until('first rollout', () => rolledOut(ns, 'roll'));

    // Watch pods and ReplicaSets during the rollout and check the bounds at every event.
    const pods = new Map<string, Pod>();
    const sets = new Map<string, ReplicaSet>();
    for (const p of await activePods(kp.client, ns)) pods.set(p.metadata!.uid!, p);
    for (const rs of await replicaSets(ns)) sets.set(rs.metadata!.uid!, rs);
    const violations: string[] = [];
    let events = 0;
    const watching = new AbortController();
    const check = () => {
      const live = [...pods.values()].filter((p) => !p.metadata?.deletionTimestamp);
      const ready = live.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
      const specSum = [...sets.values()].reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0);
      if (ready < 3) violations.push(`only ${ready} ready pods`);
      if (specSum > 5) violations.push(`ReplicaSets ask for ${specSum} pods`);
      if (live.length > 5) violations.push(`${live.length} pods`);
    };
    const watchPods = (async () => {
      for await (const ev of podApi().watch({ namespace: ns, signal: watching.signal })) {
        events++;
        if (ev.type === 'DELETED') pods.delete(ev.object.metadata!.uid!);
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') pods.set(ev.object.metadata!.uid!, ev.object);
        check();
      }
    })().catch(() => undefined);
    const watchSets = (async () => {
      for await (const ev of rsApi().watch({ namespace: ns, signal: watching.signal })) {
        if (ev.type === 'DELETED') sets.delete(ev.object.metadata!.uid!);
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') sets.set(ev.object.metadata!.uid!, ev.object);
        check();
      }
    })().catch(() => undefined);

    // kubectl set image: a strategic merge patch of the template.
    await dApi().patch('roll', { spec: { template: { spec: { containers: [{ name: 'agnhost', image: IMAGE2 }] } } } }, 'strategic', { namespace: ns });
    await until('second rollout', async () => (await rolledOut(ns, 'roll')) && (await replicaSets(ns)).length === 2);
    await until('old pods gone', async () => (await activePods(kp.client, ns)).every((p) => p.spec?.containers[0]?.image === IMAGE2));
    watching.abort();
    await Promise.all([watchPods, watchSets]);
    assert.deepEqual(violations, []);
    assert.ok(events > 8, 'the watch saw the rollout');

    const rss = await replicaSets(ns);
    const byImage = (img: string) => rss.find((rs) => rs.spec!.template!.spec!.containers[0]!.image === img)!;
    const [oldRS, newRS] = [byImage(IMAGE1), byImage(IMAGE2)];
    assert.equal(oldRS.spec!.replicas, 0);
    assert.equal(newRS.spec!.replicas, 4);
    assert.equal(oldRS.metadata!.annotations!['deployment.kubernetes.io/revision'], '1');
    assert.equal(newRS.metadata!.annotations!['deployment.kubernetes.io/revision'], '2');
    assert.equal((await dApi().get('roll', { namespace: ns })).metadata!.annotations!['deployment.kubernetes.io/revision'], '2');

    // kubectl rollout undo: the old ReplicaSet's template, without its hash label, patched back.
    const template = structuredClone(oldRS.spec!.template!);
    delete template.metadata!.labels![POD_TEMPLATE_HASH_LABEL];
    await dApi().patch('roll', [{ op: 'replace', path: '/spec/template', value: template }], 'json', { namespace: ns });
    await until('rollback', async () => (await rolledOut(ns, 'roll')) && (await activePods(kp.client, ns)).every((p) => p.spec?.containers[0]?.image === IMAGE1));
    const back = await rsApi().get(oldRS.metadata!.name!, { namespace: ns });
    assert.equal(back.metadata!.uid, oldRS.metadata!.uid, 'the old ReplicaSet is reused');
    assert.equal(back.spec!.replicas, 4);
    assert.equal(back.metadata!.annotations!['deployment.kubernetes.io/revision'], '3');
    assert.equal(back.metadata!.annotations!['deployment.kubernetes.io/revision-history'], '1');
    assert.equal((await replicaSets(ns)).length, 2);
    await ctl.stop();
  });

  it('Recreate starts no new pod before every old pod is gone', async () => {
    const ns = 'd-recreate';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    await dApi().create(deployment('rec', 3, { strategy: { type: 'Recreate' } }), { namespace: ns });
    await until('first rollout', () => rolledOut(ns, 'rec'));
    const pods = new Map<string, Pod>();
    for (const p of (await podApi().list({ namespace: ns })).items) pods.set(p.metadata!.uid!, p);
    const mixed: string[] = [];
    const seen = new Set<string | undefined>();
    const watching = new AbortController();
    const watch = (async () => {
      for await (const ev of podApi().watch({ namespace: ns, signal: watching.signal })) {
        if (ev.type === 'DELETED') pods.delete(ev.object.metadata!.uid!);
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') pods.set(ev.object.metadata!.uid!, ev.object);
        const images = new Set([...pods.values()].map((p) => p.spec?.containers[0]?.image));
        for (const i of images) seen.add(i);
        if (images.size > 1) mixed.push([...images].join(' + '));
      }
    })().catch(() => undefined);
    await dApi().patch('rec', { spec: { template: { spec: { containers: [{ name: 'agnhost', image: IMAGE2 }] } } } }, 'strategic', { namespace: ns });
    await until('recreated', async () => (await rolledOut(ns, 'rec')) && (await activePods(kp.client, ns)).length === 3 && (await activePods(kp.client, ns)).every((p) => p.spec?.containers[0]?.image === IMAGE2));
    watching.abort();
    await watch;
    assert.deepEqual(mixed, []);
    assert.deepEqual([...seen].sort(), [IMAGE1, IMAGE2], 'the watch saw both generations of pods');
    await ctl.stop();
  });

  it('keeps revisionHistoryLimit old ReplicaSets', async () => {
    const ns = 'd-history';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    await dApi().create(deployment('hist', 1, { revisionHistoryLimit: 1 }), { namespace: ns });
    for (const tag of ['2.62', '2.63', '2.64']) {
      await until('rollout', () => rolledOut(ns, 'hist'));
      await dApi().patch('hist', { spec: { template: { spec: { containers: [{ name: 'agnhost', image: `registry.k8s.io/e2e-test-images/agnhost:${tag}` }] } } } }, 'strategic', { namespace: ns });
    }
    await until('history cut to 1', async () => (await rolledOut(ns, 'hist')) && (await replicaSets(ns)).length === 2);
    const revisions = (await replicaSets(ns)).map((rs) => rs.metadata!.annotations!['deployment.kubernetes.io/revision']).sort();
    assert.deepEqual(revisions, ['3', '4']);
    await ctl.stop();
  });

  it('a paused Deployment only scales; resuming rolls out', async () => {
    const ns = 'd-paused';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns);
    await dApi().create(deployment('p', 2), { namespace: ns });
    await until('rollout', () => rolledOut(ns, 'p'));
    await dApi().patch('p', { spec: { paused: true } }, 'merge', { namespace: ns });
    await until('paused condition', async () => {
      const c = (await dApi().get('p', { namespace: ns })).status?.conditions?.find((x) => x.type === 'Progressing');
      return c?.status === 'Unknown' && c.reason === 'DeploymentPaused' && c.message === 'Deployment is paused';
    });
    await dApi().patch('p', { spec: { replicas: 3, template: { spec: { containers: [{ name: 'agnhost', image: IMAGE2 }] } } } }, 'strategic', { namespace: ns });
    await until('scaled while paused', async () => (await activePods(kp.client, ns)).length === 3);
    assert.equal((await replicaSets(ns)).length, 1, 'no new ReplicaSet while paused');
    assert.ok((await activePods(kp.client, ns)).every((p) => p.spec?.containers[0]?.image === IMAGE1));
    await dApi().patch('p', { spec: { paused: false } }, 'merge', { namespace: ns });
    await until('resumed rollout', async () => (await rolledOut(ns, 'p')) && (await activePods(kp.client, ns)).every((p) => p.spec?.containers[0]?.image === IMAGE2));
    await ctl.stop();
  });

  it('reports ProgressDeadlineExceeded when pods never become available', async () => {
    const ns = 'd-deadline';
    await createNamespace(kp.client, ns);
    const ctl = await run(ns, { kubelet: false });
    await dApi().create(deployment('stuck', 2, { progressDeadlineSeconds: 1 }), { namespace: ns });
    await until('deadline', async () => (await dApi().get('stuck', { namespace: ns })).status?.conditions?.find((c) => c.type === 'Progressing')?.reason === 'ProgressDeadlineExceeded', 8000);
    const d = await dApi().get('stuck', { namespace: ns });
    const hash = computeHash(d.spec!.template);
    const conds = Object.fromEntries(d.status!.conditions!.map((c) => [c.type, [c.status, c.reason, c.message]]));
    assert.deepEqual(conds.Progressing, ['False', 'ProgressDeadlineExceeded', `ReplicaSet "stuck-${hash}" has timed out progressing.`]);
    assert.deepEqual(conds.Available, ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']);
    assert.equal(d.status!.unavailableReplicas, 2);
    await ctl.stop();
  });

  it('the seed: a ReplicaSet deleted with orphans is recreated with the same name and adopts the same pods', async () => {
    const ns = 'd-orphan-rs';
    await createNamespace(kp.client, ns);
    let podCreates = 0;
    const counting = kp.clientWith(async (req, next) => {
      if (req.method === 'POST' && req.path.endsWith('/pods')) podCreates++;
      return next(req);
    });
    const ctl = await run(ns, { client: counting });
    await dApi().create(deployment('vitrine', 4), { namespace: ns });
    await until('rollout', () => rolledOut(ns, 'vitrine'));
    const [rs] = await replicaSets(ns);
    const before = (await activePods(kp.client, ns)).map((p) => `${p.metadata!.name} ${p.metadata!.creationTimestamp}`).sort();
    podCreates = 0;
    // kubectl delete rs --cascade=orphan; the garbage collector's part is played here.
    await rsApi().delete(rs!.metadata!.name!, { namespace: ns, propagationPolicy: 'Orphan' });
    for (const p of await activePods(kp.client, ns)) {
      await podApi().patch(p.metadata!.name!, [{ op: 'remove', path: '/metadata/ownerReferences' }], 'json', { namespace: ns });
    }
    await rsApi().patch(rs!.metadata!.name!, { metadata: { finalizers: null } }, 'merge', { namespace: ns });
    await until('a new ReplicaSet of the same name', async () => {
      const now = await replicaSets(ns);
      return now.length === 1 && now[0]!.metadata!.uid !== rs!.metadata!.uid && now[0]!.status?.replicas === 4;
    });
    const [again] = await replicaSets(ns);
    assert.equal(again!.metadata!.name, rs!.metadata!.name);
    await until('adopted', async () => (await activePods(kp.client, ns)).every((p) => p.metadata?.ownerReferences?.[0]?.uid === again!.metadata!.uid));
    assert.deepEqual((await activePods(kp.client, ns)).map((p) => `${p.metadata!.name} ${p.metadata!.creationTimestamp}`).sort(), before);
    assert.equal(podCreates, 0);
    await ctl.stop();
  });

  it('exercise 2: a Deployment recreated with the same template adopts the orphaned ReplicaSet and its pods', async () => {
    const ns = 'd-orphan-deploy';
    await createNamespace(kp.client, ns);
    let podCreates = 0;
    let rsCreates = 0;
    const counting = kp.clientWith(async (req, next) => {
      if (req.method === 'POST' && req.path.endsWith('/pods')) podCreates++;
      if (req.method === 'POST' && req.path.endsWith('/replicasets')) rsCreates++;
      return next(req);
    });
    const ctl = await run(ns, { client: counting });
    const first = await dApi().create(deployment('vitrine', 4), { namespace: ns });
    await until('rollout', () => rolledOut(ns, 'vitrine'));
    const [rs] = await replicaSets(ns);
    const podsBefore = (await activePods(kp.client, ns)).map((p) => p.metadata!.name).sort();
    // kubectl delete deployment --cascade=orphan, with the garbage collector's part played here.
    await dApi().delete('vitrine', { namespace: ns, propagationPolicy: 'Orphan' });
    await rsApi().patch(rs!.metadata!.name!, [{ op: 'remove', path: '/metadata/ownerReferences' }], 'json', { namespace: ns });
    await dApi().patch('vitrine', { metadata: { finalizers: null } }, 'merge', { namespace: ns });
    await until('deployment gone', async () => (await dApi().list({ namespace: ns })).items.length === 0);
    podCreates = 0;
    rsCreates = 0;
    const second = await dApi().create(deployment('vitrine', 4), { namespace: ns });
    assert.notEqual(second.metadata!.uid, first.metadata!.uid);
    await until('RS adopted', async () => (await rsApi().get(rs!.metadata!.name!, { namespace: ns })).metadata?.ownerReferences?.[0]?.uid === second.metadata!.uid);
    await until('rolled out', () => rolledOut(ns, 'vitrine'));
    const after = await rsApi().get(rs!.metadata!.name!, { namespace: ns });
    assert.equal(after.metadata!.uid, rs!.metadata!.uid, 'the same ReplicaSet');
    assert.deepEqual((await activePods(kp.client, ns)).map((p) => p.metadata!.name).sort(), podsBefore);
    assert.equal(podCreates, 0, 'no pod created');
    assert.equal(rsCreates, 0, 'no ReplicaSet created');
    await ctl.stop();
  });
});
