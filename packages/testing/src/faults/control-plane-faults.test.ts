/**
 * Faults and recorded calls on the test control plane: its clients are wrapped through
 * `wrapTransport`, its restarts and leader loss attached as fault actions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Deployments, Pods, type Deployment } from '@kplane/runtime';
import { startControlPlane } from '../control-plane.js';
import { createRecorder } from '../recorder.js';
import { createFaults } from './index.js';

const labels = { app: 'web' };
const deployment = (replicas: number): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] } } },
});

describe('faults on the test control plane', () => {
  it('built-in controllers converge through errors, cut watches and an API server restart', async (t) => {
    t.mock.method(console, 'error', () => undefined); // the controllers log the errors they retry
    const faults = createFaults({ seed: 7 });
    const rec = createRecorder();
    const cp = await startControlPlane({ nodes: 1, wrapTransport: (t, who) => rec.wrap(faults.wrap(t, who), who) });
    faults.attach(cp);
    try {
      faults.add({ who: 'replicaset-controller', verb: 'create', resource: 'pods', count: 2, error: 500 });
      faults.add({ who: 'deployment-controller', verb: 'update', subresource: 'status', rate: 0.5, error: 409 });
      faults.add({ who: 'kube-controller-manager', verb: 'watch', rate: 0.5, drop: { afterEvents: [0, 4] } });
      faults.add({ who: 'kube-controller-manager', latencyMs: [0, 40] });
      const restart = faults.at({ who: 'replicaset-controller', verb: 'create', resource: 'pods', after: 3 }, 'restartApiServer');

      const deployments = cp.client.resource<Deployment>(Deployments);
      await deployments.create(deployment(3));
      let restarted = false;
      void restart.done.then(() => (restarted = true));
      const ready = async (): Promise<boolean> => restarted && (await deployments.get('web')).status?.readyReplicas === 3;
      await cp.settle({ advance: true, maxVirtualMs: 300_000, until: ready });
      assert.ok(await ready(), faults.describe());
      assert.equal((await cp.client.resource(Pods).list()).items.length, 3);
      const faultsSeen = faults.log.map((f) => f.fault);
      assert.ok(faultsSeen.includes('500 InternalError') && faultsSeen.includes('restartApiServer'), faults.describe());
      // The failed creates were retried: 3 pods created, 2 refused.
      assert.equal(rec.writes({ who: 'replicaset-controller', verb: 'create', resource: 'pods', ok: true }).length, 3, rec.describe({ who: 'replicaset-controller' }));
      assert.equal(rec.writes({ who: 'replicaset-controller', verb: 'create', resource: 'pods', ok: false }).length, 2);

      // Once settled, nothing writes while virtual time goes on.
      faults.clear();
      const settled = rec.mark();
      await cp.advance(30_000);
      rec.expectNoWrites({ who: /-controller$/, since: settled });
    } finally {
      await faults.idle();
      await cp.stop();
    }
  });

  it('a fault action on a timer: the controller manager loses its Lease and a standby takes over', async () => {
    const faults = createFaults({ seed: 1 });
    const cp = await startControlPlane({ nodes: 0 });
    faults.attach(cp);
    try {
      const leader = cp.server.controllerManager!.identity;
      const lost = faults.at(1_000, 'loseLeadership');
      await cp.advance(1_000);
      await lost.done;
      assert.notEqual(cp.server.controllerManager!.identity, leader);
      assert.deepEqual(faults.log.map((f) => f.fault), ['loseLeadership']);
    } finally {
      await faults.idle();
      await cp.stop();
    }
  });
});
