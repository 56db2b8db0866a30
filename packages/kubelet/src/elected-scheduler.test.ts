import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock, Leases, Nodes, Pods, type kinds } from '@kplane/runtime';
import { buildNode } from './node-template.js';
import { SCHEDULER_LEASE, startElectedScheduler, type ElectedScheduler } from './elected-scheduler.js';
import { startKplane, tickUntil, type TestKplane } from './test-kplane.js';

const T = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const pod = (name: string): kinds.Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

describe('two schedulers behind the Lease kube-system/kube-scheduler', () => {
  let k: TestKplane;
  const clock = createFakeClock(Date.now());
  let a: ElectedScheduler;
  let b: ElectedScheduler;
  // a's network: cut to make it lose the Lease without a word.
  let aCut = false;
  before(async () => {
    k = await startKplane();
    for (let i = 0; i < 2; i++) await k.client.resource(Nodes).create(buildNode(i, T));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await k.close();
  });

  const nodeOf = (name: string) => tickUntil(clock, async () => (await k.client.resource(Pods).get(name, { namespace: 'default' })).spec?.nodeName);

  it('one acts: the first to take the Lease schedules, the other waits', async () => {
    const aClient = k.clientWith((req, next) => (aCut ? Promise.reject(new Error('connect ECONNREFUSED')) : next(req)));
    a = startElectedScheduler({ client: aClient, clock, identity: 'a' });
    await tickUntil(clock, async () => a.isLeader());
    b = startElectedScheduler({ client: k.client, clock, identity: 'b' });
    await tickUntil(clock, async () => b.leader() === 'a');
    assert.equal(b.isLeader(), false);
    assert.equal(b.scheduler, undefined, 'a standby lists and watches nothing');
    const lease = await k.client.resource(Leases).get(SCHEDULER_LEASE.name, { namespace: SCHEDULER_LEASE.namespace });
    assert.equal(lease.spec?.holderIdentity, 'a');
    assert.equal(lease.spec?.leaseDurationSeconds, 15);
    await k.client.resource(Pods).create(pod('first'));
    assert.ok(await nodeOf('first'));
    assert.ok([...a.scheduler!.podsPerNode().values()].reduce((x, y) => x + y, 0) >= 1, 'a bound it');
  });

  it('the leader loses the Lease: it stops scheduling, the other takes over and schedules', async () => {
    aCut = true;
    // a gives up after its renew deadline (10 s); b takes over once it saw the Lease unchanged for 15 s.
    await tickUntil(clock, async () => b.isLeader(), 500, 40_000);
    await a.done;
    assert.equal(a.isLeader(), false);
    assert.equal(a.scheduler, undefined, 'a stopped its scheduler');
    const lease = await k.client.resource(Leases).get(SCHEDULER_LEASE.name, { namespace: SCHEDULER_LEASE.namespace });
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    await k.client.resource(Pods).create(pod('second'));
    assert.ok(await nodeOf('second'));
  });

  it('a leader that stops releases the Lease', async () => {
    await b.stop();
    const lease = await k.client.resource(Leases).get(SCHEDULER_LEASE.name, { namespace: SCHEDULER_LEASE.namespace });
    assert.equal(lease.spec?.holderIdentity, '', 'released on stop, as kube-scheduler with ReleaseOnCancel');
  });
});
