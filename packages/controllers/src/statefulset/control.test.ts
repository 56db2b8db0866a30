import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnerReference } from '@kplane/api';
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '@kplane/runtime';
import { updateStatefulSet, type PodOps } from './control.js';
import {
  POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, applyRevision, claimsFor, completeRollingUpdate, isClaimOwnerUpToDate, newRevision,
  newStatefulSetPod, parentAndOrdinal, revisionData, withPolicyOwnerRefs,
} from './utils.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function statefulSet(spec: Partial<NonNullable<StatefulSet['spec']>> = {}, image = 'app:1'): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'set-uid', generation: 1 },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      ...spec,
    },
  };
}

/** An in-memory cluster: the pods the ops create, delete and update; a kubelet the test drives. */
function world(initial: StatefulSet) {
  let set = initial;
  const pods = new Map<string, Pod>();
  const log: string[] = [];
  let now = T0;
  let revisions: ControllerRevision[] = [newRevision(set, 1, 0)];
  const ops: PodOps = {
    async createPod(_s, pod) {
      log.push(`create ${pod.metadata!.name} ${pod.metadata!.labels![REVISION_LABEL]}`);
      pods.set(pod.metadata!.name!, { ...structuredClone(pod), metadata: { ...pod.metadata, uid: `uid-${pod.metadata!.name}` }, status: { phase: 'Pending' } });
    },
    async deletePod(_s, pod) {
      log.push(`delete ${pod.metadata!.name}`);
      pods.set(pod.metadata!.name!, { ...pods.get(pod.metadata!.name!)!, metadata: { ...pod.metadata, deletionTimestamp: iso(now) } });
    },
    async updatePod(_s, pod) {
      log.push(`update ${pod.metadata!.name}`);
    },
    async createMissingClaims() {},
    claimsMatchPolicy: () => true,
    async updateClaimsForPolicy() {},
    podClaimIsStale: () => false,
  };
  return {
    pods,
    log,
    get set() {
      return set;
    },
    /** The kubelet: a pod becomes Running and Ready (at the current virtual time). */
    ready(name: string) {
      const p = pods.get(name)!;
      p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(now) }] };
    },
    readyAll() {
      for (const [name, p] of pods) if (!p.metadata?.deletionTimestamp && p.status?.phase === 'Pending') this.ready(name);
    },
    /** The kubelet finishes terminating pods. */
    reap() {
      for (const [name, p] of pods) if (p.metadata?.deletionTimestamp) pods.delete(name);
    },
    advance(ms: number) {
      now += ms;
    },
    /** A new template: a new update revision. */
    roll(next: StatefulSet) {
      set = next;
      revisions = [...revisions, newRevision(next, revisions.length + 1, 0)];
    },
    async sync() {
      log.length = 0;
      const update = revisions[revisions.length - 1]!;
      const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
      const result = await updateStatefulSet({ set, currentRevision: current, updateRevision: update, collisionCount: 0, pods: [...pods.values()], ops, nowMs: now });
      completeRollingUpdate(set, result.status);
      set = { ...set, status: result.status };
      return [...log];
    },
  };
}

describe('StatefulSet identities', () => {
  it('parses ordinals from names', () => {
    assert.deepEqual(parentAndOrdinal('web-12'), { parent: 'web', ordinal: 12 });
    assert.deepEqual(parentAndOrdinal('my-web-0'), { parent: 'my-web', ordinal: 0 });
    assert.deepEqual(parentAndOrdinal('web'), { parent: '', ordinal: -1 });
    assert.deepEqual(parentAndOrdinal('web-99999999999'), { parent: 'web', ordinal: -1 });
  });

  it('makes pods with ordinal names, identity labels, hostname, subdomain and claims', () => {
    const set = statefulSet({ volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'db' } }, spec: { accessModes: ['ReadWriteOnce'] } }] });
    const pod = newStatefulSetPod(set, 2);
    assert.equal(pod.metadata?.name, 'web-2');
    assert.equal(pod.metadata?.generateName, 'web-');
    assert.deepEqual(pod.metadata?.labels, { app: 'web', [POD_NAME_LABEL]: 'web-2', [POD_INDEX_LABEL]: '2' });
    assert.equal(pod.spec?.hostname, 'web-2');
    assert.equal(pod.spec?.subdomain, 'web');
    assert.deepEqual(pod.spec?.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-2' } }]);
    assert.deepEqual(pod.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true }]);
    const claim = claimsFor(set, pod).get('data')!;
    assert.equal(claim.metadata?.name, 'data-web-2');
    assert.deepEqual(claim.metadata?.labels, { tier: 'db', app: 'web' });
  });

  it('records the template as a replacing patch and applies it back', () => {
    const set = statefulSet();
    const data = revisionData(set) as { spec: { template: Record<string, any> } };
    assert.equal(data.spec.template.$patch, 'replace');
    assert.equal(data.spec.template.metadata.creationTimestamp, null);
    const rev = newRevision({ ...set, metadata: { ...set.metadata, annotations: { 'kubernetes.io/change-cause': 'v1' } } }, 1, 0);
    assert.equal(rev.metadata?.annotations?.['kubernetes.io/change-cause'], 'v1');
    assert.equal(rev.metadata?.labels?.app, 'web');
    const applied = applyRevision(statefulSet({}, 'app:9'), rev);
    assert.deepEqual(applied.spec?.template, set.spec?.template);
  });
});

describe('StatefulSet algorithm', () => {
  it('OrderedReady: creates one pod at a time, each after the previous is Running and Ready', async () => {
    const w = world(statefulSet());
    assert.deepEqual(await w.sync(), [`create web-0 ${w.set.status?.updateRevision}`]);
    assert.deepEqual(await w.sync(), []); // web-0 Pending: wait
    w.ready('web-0');
    assert.deepEqual((await w.sync()).map((l) => l.split(' ').slice(0, 2).join(' ')), ['create web-1']);
    w.ready('web-1');
    await w.sync();
    w.ready('web-2');
    assert.deepEqual(await w.sync(), []);
    assert.equal(w.set.status?.replicas, 3);
    assert.equal(w.set.status?.readyReplicas, 3);
    assert.equal(w.set.status?.availableReplicas, 3);
    assert.equal(w.set.status?.currentReplicas, 3);
    assert.equal(w.set.status?.updatedReplicas, 3);
  });

  it('Parallel: creates every pod at once and deletes every extra pod at once', async () => {
    const w = world(statefulSet({ podManagementPolicy: 'Parallel', replicas: 4 }));
    assert.deepEqual((await w.sync()).map((l) => l.split(' ')[1]).sort(), ['web-0', 'web-1', 'web-2', 'web-3']);
    w.set.spec!.replicas = 1;
    assert.deepEqual((await w.sync()).sort(), ['delete web-1', 'delete web-2', 'delete web-3']);
  });

  it('OrderedReady scale down: highest ordinal first, one at a time, after it is gone', async () => {
    const w = world(statefulSet());
    for (let i = 0; i < 3; i++) {
      await w.sync();
      w.readyAll();
    }
    w.set.spec!.replicas = 1;
    assert.deepEqual(await w.sync(), ['delete web-2']);
    assert.deepEqual(await w.sync(), []); // web-2 terminating: wait
    w.reap();
    assert.deepEqual(await w.sync(), ['delete web-1']);
  });

  it('a failed pod is deleted and created again', async () => {
    const w = world(statefulSet({ replicas: 1 }));
    await w.sync();
    w.pods.get('web-0')!.status = { phase: 'Failed' };
    assert.deepEqual(await w.sync(), ['delete web-0']);
    w.reap();
    assert.equal((await w.sync())[0]?.startsWith('create web-0'), true);
  });

  it('ordinals.start: the pods are named from the start ordinal', async () => {
    const w = world(statefulSet({ podManagementPolicy: 'Parallel', ordinals: { start: 5 }, replicas: 2 }));
    assert.deepEqual((await w.sync()).map((l) => l.split(' ')[1]), ['web-5', 'web-6']);
    w.set.spec!.ordinals = { start: 6 };
    assert.deepEqual((await w.sync()).map((l) => l.split(' ').slice(0, 2).join(' ')).sort(), ['create web-7', 'delete web-5']);
  });

  it('minReadySeconds: the next pod waits until the previous one is available (virtual time)', async () => {
    const w = world(statefulSet({ minReadySeconds: 10, replicas: 2 }));
    await w.sync();
    w.ready('web-0');
    assert.deepEqual(await w.sync(), []);
    assert.equal(w.set.status?.readyReplicas, 1);
    assert.equal(w.set.status?.availableReplicas, 0);
    w.advance(10_001);
    assert.equal((await w.sync())[0]?.startsWith('create web-1'), true);
    assert.equal(w.set.status?.availableReplicas, 1);
  });

  async function rolledOut(spec: Partial<NonNullable<StatefulSet['spec']>> = {}) {
    const w = world(statefulSet(spec));
    for (let i = 0; i < (spec.replicas ?? 3); i++) {
      await w.sync();
      w.readyAll();
    }
    await w.sync();
    w.roll({ ...statefulSet(spec, 'app:2'), metadata: { ...w.set.metadata, generation: 2 }, status: w.set.status });
    return w;
  }

  it('RollingUpdate: replaces pods from the highest ordinal down, one at a time, waiting for each', async () => {
    const w = await rolledOut();
    const update = () => w.set.status?.updateRevision;
    assert.deepEqual(await w.sync(), ['delete web-2']);
    assert.deepEqual(await w.sync(), []);
    w.reap();
    assert.deepEqual(await w.sync(), [`create web-2 ${update()}`]);
    assert.deepEqual(await w.sync(), []); // not ready yet
    w.ready('web-2');
    assert.deepEqual(await w.sync(), ['delete web-1']);
    w.reap();
    await w.sync();
    w.ready('web-1');
    assert.deepEqual(await w.sync(), ['delete web-0']);
    w.reap();
    await w.sync();
    w.ready('web-0');
    await w.sync();
    assert.equal(w.set.status?.currentRevision, update());
    assert.equal(w.set.status?.updatedReplicas, 3);
    assert.equal(w.set.status?.currentReplicas, 3);
  });

  it('RollingUpdate with a partition: ordinals below it keep the current revision (also when recreated)', async () => {
    const w = await rolledOut({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    const current = w.set.status?.currentRevision;
    assert.deepEqual(await w.sync(), ['delete web-2']);
    w.reap();
    await w.sync();
    w.ready('web-2');
    assert.deepEqual(await w.sync(), []);
    assert.equal(w.set.status?.updatedReplicas, 1);
    assert.equal(w.set.status?.currentRevision, current);
    w.pods.delete('web-0');
    assert.deepEqual(await w.sync(), [`create web-0 ${current}`]);
  });

  it('RollingUpdate with maxUnavailable: replaces that many pods at once', async () => {
    const w = await rolledOut({ replicas: 4, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } });
    assert.deepEqual(await w.sync(), ['delete web-3', 'delete web-2']);
    assert.deepEqual(await w.sync(), []);
  });

  it('OnDelete: nothing is replaced until deleted, then at the update revision', async () => {
    const w = await rolledOut({ updateStrategy: { type: 'OnDelete' } });
    assert.deepEqual(await w.sync(), []);
    w.pods.delete('web-1');
    assert.deepEqual(await w.sync(), [`create web-1 ${w.set.status?.updateRevision}`]);
  });

  it('a set being deleted only gets its status', async () => {
    const w = world({ ...statefulSet(), metadata: { ...statefulSet().metadata, deletionTimestamp: iso(T0) } });
    assert.deepEqual(await w.sync(), []);
    assert.equal(w.set.status?.replicas, 0);
  });
});

describe('persistentVolumeClaimRetentionPolicy', () => {
  const claim = (refs?: OwnerReference[]): PersistentVolumeClaim => ({ metadata: { name: 'data-web-1', namespace: 'ns', ownerReferences: refs }, spec: {} }) as PersistentVolumeClaim;
  const pod = (ordinal: number): Pod => ({ metadata: { name: `web-${ordinal}`, namespace: 'ns', uid: `pod-${ordinal}` } });
  const policy = (whenDeleted: string, whenScaled: string, replicas = 3) =>
    statefulSet({ replicas, persistentVolumeClaimRetentionPolicy: { whenDeleted: whenDeleted as 'Retain', whenScaled: whenScaled as 'Retain' } });
  const owners = (c: PersistentVolumeClaim) => (c.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}${r.controller ? '*' : ''}`);

  it('Retain/Retain: no references', () => {
    const set = policy('Retain', 'Retain');
    assert.ok(isClaimOwnerUpToDate(claim(), set, pod(1)));
    assert.deepEqual(owners(withPolicyOwnerRefs(claim(), set, pod(1))), []);
  });

  it('whenDeleted Delete: the set controls the claim', () => {
    const set = policy('Delete', 'Retain');
    assert.ok(!isClaimOwnerUpToDate(claim(), set, pod(1)));
    const c = withPolicyOwnerRefs(claim(), set, pod(1));
    assert.deepEqual(owners(c), ['StatefulSet/web*']);
    assert.ok(isClaimOwnerUpToDate(c, set, pod(1)));
  });

  it('whenScaled Delete: the pod controls the claim once scaled away', () => {
    const set = policy('Retain', 'Delete', 1);
    assert.deepEqual(owners(withPolicyOwnerRefs(claim(), set, pod(1))), ['Pod/web-1*']);
    assert.deepEqual(owners(withPolicyOwnerRefs(claim(), policy('Retain', 'Delete', 3), pod(1))), []);
  });

  it('Delete/Delete: the set while in range, the pod after', () => {
    assert.deepEqual(owners(withPolicyOwnerRefs(claim(), policy('Delete', 'Delete', 3), pod(1))), ['StatefulSet/web*']);
    const scaled = withPolicyOwnerRefs(withPolicyOwnerRefs(claim(), policy('Delete', 'Delete', 3), pod(1)), policy('Delete', 'Delete', 1), pod(1));
    assert.deepEqual(owners(scaled), ['Pod/web-1*']);
  });

  it('a claim controlled by someone else is left alone', () => {
    const other = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x', controller: true }];
    assert.ok(isClaimOwnerUpToDate(claim(other), policy('Delete', 'Delete'), pod(1)));
    assert.deepEqual(owners(withPolicyOwnerRefs(claim(other), policy('Delete', 'Delete'), pod(1))), ['ConfigMap/x*']);
  });
});
