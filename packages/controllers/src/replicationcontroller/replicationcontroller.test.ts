import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { Events, Pods, ReplicationControllers, createManager, type CoreEvent, type Pod, type ReplicationController } from '@kplane/runtime';
import { until } from '@kplane/api/testing';
import { activePods, createNamespace, markReady, startKplane, type TestKplane } from '../replicaset/test-support.js';
import { createReplicationControllerController, replicationControllerAsReplicaSet } from './index.js';

const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.61';

describe('ReplicationController controller', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  it('sees a ReplicationController as a ReplicaSet with matchLabels, memoised per frozen object', () => {
    const rc: KubeObject = Object.freeze({ metadata: { name: 'a' }, spec: { replicas: 2, selector: { app: 'a' } } });
    const v = replicationControllerAsReplicaSet(rc);
    assert.deepEqual(v.spec?.selector, { matchLabels: { app: 'a' } });
    assert.equal(replicationControllerAsReplicaSet(rc), v);
    assert.ok(Object.isFrozen(v));
  });

  it('keeps spec.replicas pods owned by the ReplicationController, reports status and records events', async () => {
    const ns = 'rc-basic';
    await createNamespace(kp.client, ns);
    const mgr = createManager({ client: kp.client });
    createReplicationControllerController(mgr);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const api = kp.client.resource<ReplicationController>(ReplicationControllers);
    const rc = await api.create(
      { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web' }, spec: { replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: IMAGE }] } } } },
      { namespace: ns },
    );
    await until('3 pods', async () => (await activePods(kp.client, ns)).length === 3);
    for (const p of await activePods(kp.client, ns)) {
      assert.deepEqual(p.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata!.uid, controller: true, blockOwnerDeletion: true }]);
      await markReady(kp.client, p);
    }
    await until('status of 3 ready replicas', async () => {
      const s = (await api.get('web', { namespace: ns })).status;
      return s?.replicas === 3 && s.readyReplicas === 3 && s.availableReplicas === 3 && s.observedGeneration === 1;
    });
    await api.patch('web', { spec: { replicas: 1 } }, 'merge', { namespace: ns });
    await until('scaled down to 1', async () => (await activePods(kp.client, ns)).length === 1);
    // An orphan matching the selector is adopted (and then one too many is deleted).
    await kp.client.resource<Pod>(Pods).create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: IMAGE }] } }, { namespace: ns });
    await until('back to 1 pod after adoption', async () => (await activePods(kp.client, ns)).length === 1);
    await until('events', async () => {
      const events = (await kp.client.resource<CoreEvent>(Events).list({ namespace: ns })).items;
      return events.some((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.kind === 'ReplicationController' && e.source?.component === 'replication-controller')
        && events.some((e) => e.reason === 'SuccessfulDelete' && /^Deleted pod: /.test(e.message));
    });
    stop.abort();
    await done;
  });
});
