import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ControllerRevisions, Events, PersistentVolumeClaims, Pods, StatefulSets, createManager,
  type ControllerRevision, type PersistentVolumeClaim, type Pod, type StatefulSet,
} from '@kplane/runtime';
import { until } from '@kplane/api/testing';
import { createNamespace, startFakeKubelet, startKplane, type TestKplane } from '../replicaset/test-support.js';
import { createStatefulSetController } from './statefulset-controller.js';

function statefulSet(name: string, spec: Partial<NonNullable<StatefulSet['spec']>> = {}, image = 'app:1'): StatefulSet {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: { replicas: 3, serviceName: name, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image }] } }, ...spec },
  };
}

describe('StatefulSet controller', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(() => kp.close());

  const sets = () => kp.client.resource<StatefulSet>(StatefulSets);
  const pods = async (ns: string) => (await kp.client.resource<Pod>(Pods).list({ namespace: ns })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const revisions = async (ns: string) => (await kp.client.resource<ControllerRevision>(ControllerRevisions).list({ namespace: ns })).items;

  async function run(ns: string, kubelet = true) {
    await createNamespace(kp.client, ns);
    const mgr = createManager({ client: kp.client });
    createStatefulSetController(mgr);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const k = kubelet ? startFakeKubelet(kp.client, ns, stop.signal, 5) : Promise.resolve();
    return async () => {
      stop.abort();
      await Promise.all([done, k]);
    };
  }

  /** kubectl rollout status's test for a RollingUpdate StatefulSet. */
  const rolledOut = async (ns: string, name: string) => {
    const s = await sets().get(name, { namespace: ns });
    const st = s.status;
    return (
      (st?.observedGeneration ?? 0) >= (s.metadata?.generation ?? 0) &&
      (st?.readyReplicas ?? 0) === s.spec?.replicas &&
      (st?.updatedReplicas ?? 0) === s.spec?.replicas &&
      st?.currentRevision === st?.updateRevision
    );
  };

  it('creates pods in order with their claims, records a revision and reports status and events', async () => {
    const ns = 'sts-create';
    const stop = await run(ns);
    const created = await sets().create(
      statefulSet('web', { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }),
      { namespace: ns },
    );
    await until('rollout', () => rolledOut(ns, 'web'));
    const list = await pods(ns);
    assert.deepEqual(list.map((p) => p.metadata?.name).sort(), ['web-0', 'web-1', 'web-2']);
    // Ordered: each pod was created after the previous one.
    const byName = new Map(list.map((p) => [p.metadata!.name!, Number(p.metadata!.resourceVersion)]));
    assert.ok(byName.get('web-0')! < byName.get('web-1')! && byName.get('web-1')! < byName.get('web-2')!);
    const [rev, ...more] = await revisions(ns);
    assert.equal(more.length, 0);
    assert.equal(rev!.revision, 1);
    assert.deepEqual(rev!.metadata?.ownerReferences?.map((r) => r.uid), [created.metadata?.uid]);
    const s = await sets().get('web', { namespace: ns });
    assert.deepEqual(
      { ...s.status },
      { observedGeneration: 1, replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: rev!.metadata?.name, updateRevision: rev!.metadata?.name, collisionCount: 0 },
    );
    const claims = (await kp.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims).list({ namespace: ns })).items;
    assert.deepEqual(claims.map((c) => c.metadata?.name).sort(), ['data-web-0', 'data-web-1', 'data-web-2']);
    const events = async () => (await kp.client.resource(Events).list({ namespace: ns })).items.map((e) => `${e.reason}: ${e.message}`);
    await until('events', async () => (await events()).includes('SuccessfulCreate: create Pod web-2 in StatefulSet web successful'));
    assert.ok((await events()).includes('SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success'));
    await stop();
  });

  it('rolls a new template out, rolls back to the old revision by renumbering it, and truncates history', async () => {
    const ns = 'sts-roll';
    const stop = await run(ns);
    await sets().create(statefulSet('db', { revisionHistoryLimit: 1 }), { namespace: ns });
    await until('first rollout', () => rolledOut(ns, 'db'));
    const first = (await sets().get('db', { namespace: ns })).status!.currentRevision!;
    await sets().patch('db', { spec: { template: { spec: { containers: [{ name: 'c', image: 'app:2' }] } } } }, 'strategic', { namespace: ns });
    await until('second rollout', () => rolledOut(ns, 'db'));
    const second = (await sets().get('db', { namespace: ns })).status!.currentRevision!;
    assert.notEqual(second, first);
    assert.deepEqual((await pods(ns)).map((p) => p.spec?.containers[0]?.image), ['app:2', 'app:2', 'app:2']);
    // kubectl rollout undo: the old revision's data patched onto the set.
    const old = (await revisions(ns)).find((r) => r.metadata?.name === first)!;
    await sets().patch('db', old.data, 'strategic', { namespace: ns });
    await until('rollback', () => rolledOut(ns, 'db'));
    const back = await sets().get('db', { namespace: ns });
    assert.equal(back.status?.currentRevision, first);
    const revs = await revisions(ns);
    assert.equal(revs.find((r) => r.metadata?.name === first)?.revision, 3);
    assert.deepEqual((await pods(ns)).map((p) => p.spec?.containers[0]?.image), ['app:1', 'app:1', 'app:1']);
    // Third template: the oldest unused revision beyond the limit of 1 goes.
    await sets().patch('db', { spec: { template: { spec: { containers: [{ name: 'c', image: 'app:3' }] } } } }, 'strategic', { namespace: ns });
    await until('third rollout', () => rolledOut(ns, 'db'));
    await until('truncation', async () => (await revisions(ns)).length === 2);
    assert.ok(!(await revisions(ns)).some((r) => r.metadata?.name === second));
    await stop();
  });

  it('scales down from the highest ordinal and adopts an orphan pod named after it', async () => {
    const ns = 'sts-scale';
    const stop = await run(ns);
    await sets().create(statefulSet('kv'), { namespace: ns });
    await until('rollout', () => rolledOut(ns, 'kv'));
    await sets().patch('kv', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await until('scale down', async () => (await pods(ns)).length === 1);
    assert.deepEqual((await pods(ns)).map((p) => p.metadata?.name), ['kv-0']);
    // Released by an orphaning deletion, kv-0 is adopted by the next set of that name.
    const orphanNs = 'sts-adopt';
    const stop2 = await run(orphanNs, false);
    await kp.client.resource<Pod>(Pods).create({ metadata: { name: 'kv-0', labels: { app: 'kv' } }, spec: { containers: [{ name: 'c', image: 'app:1' }] } }, { namespace: orphanNs });
    const set = await sets().create(statefulSet('kv', { replicas: 1 }), { namespace: orphanNs });
    await until('adoption', async () => (await pods(orphanNs))[0]?.metadata?.ownerReferences?.[0]?.uid === set.metadata?.uid);
    await stop2();
    await stop();
  });

  it('whenDeleted Delete makes the set the claims\' controller', async () => {
    const ns = 'sts-retention';
    const stop = await run(ns);
    const set = await sets().create(
      statefulSet('q', {
        replicas: 1,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      }),
      { namespace: ns },
    );
    const claimApi = kp.client.resource<PersistentVolumeClaim>(PersistentVolumeClaims);
    await until('claim owner', async () => {
      const c = (await claimApi.list({ namespace: ns })).items[0];
      return c?.metadata?.ownerReferences?.[0]?.uid === set.metadata?.uid;
    });
    const [claim] = (await claimApi.list({ namespace: ns })).items;
    assert.deepEqual(claim!.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'q', uid: set.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    await stop();
  });
});
