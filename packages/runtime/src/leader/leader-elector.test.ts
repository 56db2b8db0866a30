import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@kplane/client';
import { createFakeClock, type FakeClock } from '../clock.js';
import { createMetrics } from '../metrics.js';
import type { RecoveredPanic } from '../recover.js';
import { startTestKplane as startKplane, type TestKplane } from '@kplane/apiserver/testing';
import { settle, tick, watchProcessFailures } from '../testing/index.js';
import { createLeaderElector, type LeaderElector, type LeaderElectorOptions } from './leader-elector.js';
import { leaseResource, type Lease } from './lease-lock.js';

const START = Date.UTC(2026, 0, 1);
const NS = 'kube-system';
const LEASE = 'kplane-controller-manager';

/** One contender with its callbacks recorded. */
interface Contender {
  elector: LeaderElector;
  controller: AbortController;
  done: Promise<void>;
  started: number;
  stopped: number;
  newLeaders: string[];
  /** The signal handed to onStartedLeading in the current term. */
  termSignal?: AbortSignal;
  /** Leading as the user sees it: started, and the term signal not aborted. */
  leading(): boolean;
}

function contender(client: Client, clock: FakeClock, identity: string, extra: Partial<LeaderElectorOptions> = {}): Contender {
  const c: Contender = {
    elector: undefined!,
    controller: new AbortController(),
    done: Promise.resolve(),
    started: 0,
    stopped: 0,
    newLeaders: [],
    leading: () => c.termSignal !== undefined && !c.termSignal.aborted,
  };
  c.elector = createLeaderElector({
    client,
    namespace: NS,
    name: LEASE,
    identity,
    clock,
    random: () => 0.5,
    onStartedLeading: (signal) => {
      c.started++;
      c.termSignal = signal;
    },
    onStoppedLeading: () => {
      c.stopped++;
    },
    onNewLeader: (id) => c.newLeaders.push(id),
    ...extra,
  });
  c.done = c.elector.run(c.controller.signal);
  return c;
}

async function readLease(kp: TestKplane): Promise<Lease> {
  return kp.client.resource<Lease>(leaseResource).get(LEASE, { namespace: NS });
}

const neverBoth = (a: Contender, b: Contender) => () => {
  assert.ok(!(a.leading() && b.leading()), 'two leaders at once');
  assert.ok(!(a.elector.isLeader() && b.elector.isLeader()), 'two electors report leadership at once');
};

test('leader elector: validates its timing like client-go', () => {
  const base = { client: {} as Client, namespace: NS, name: LEASE, identity: 'a', onStartedLeading() {}, onStoppedLeading() {} };
  assert.throws(() => createLeaderElector({ ...base, leaseDurationMs: 10_000 }), /^Error: leaseDuration must be greater than renewDeadline$/);
  assert.throws(() => createLeaderElector({ ...base, retryPeriodMs: 9_000 }), /^Error: renewDeadline must be greater than retryPeriod\*JitterFactor$/);
  assert.throws(() => createLeaderElector({ ...base, identity: '' }), /^Error: Lock identity is empty$/);
  assert.throws(() => createLeaderElector({ ...base, leaseDurationMs: 900, renewDeadlineMs: 500, retryPeriodMs: 100 }), /at least one second/);
});

test('leader elector: creates an absent Lease in client-go shape, renews it, reports metrics', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const metrics = createMetrics();
  const a = contender(kp.client, clock, 'a', { metrics });
  await settle();
  assert.equal(a.started, 1);
  assert.ok(a.elector.isLeader());
  assert.deepEqual(a.newLeaders, ['a']);
  const gauge = async () => (await metrics.leaderElectionMasterStatus.get()).values.find((v) => v.labels.name === LEASE)?.value;
  assert.equal(await gauge(), 1);

  let lease = await readLease(kp);
  assert.deepEqual(lease.spec, {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: '2026-01-01T00:00:00.000000Z',
    renewTime: '2026-01-01T00:00:00.000000Z',
    leaseTransitions: 0,
  });
  const rv1 = lease.metadata!.resourceVersion;

  await tick(clock, 2_000);
  lease = await readLease(kp);
  assert.equal(lease.spec!.renewTime, '2026-01-01T00:00:02.000000Z', 'renewed every retry period');
  assert.equal(lease.spec!.acquireTime, '2026-01-01T00:00:00.000000Z', 'acquireTime kept on renewal');
  assert.notEqual(lease.metadata!.resourceVersion, rv1);

  a.controller.abort();
  await a.done;
  assert.equal(a.stopped, 1);
  assert.equal(await gauge(), 0);
  lease = await readLease(kp);
  assert.equal(lease.spec!.holderIdentity, '', 'released on cancel');
  assert.equal(lease.spec!.leaseDurationSeconds, 1);
  assert.equal(lease.spec!.leaseTransitions, 0);
});

test('leader elector: hand-over when the leader stops renewing; never two leaders', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  let partitioned = false;
  const aClient = kp.clientWith(async (req, next) => {
    if (partitioned) throw new Error('connect ECONNREFUSED');
    return next(req);
  });
  const a = contender(aClient, clock, 'a');
  await settle();
  assert.ok(a.leading());
  const b = contender(kp.client, clock, 'b');
  const check = neverBoth(a, b);
  await tick(clock, 30_000, 100, check);
  assert.ok(a.leading() && !b.leading(), 'the holder keeps the lease while it renews');
  assert.equal(b.elector.getLeader(), 'a');
  assert.deepEqual(b.newLeaders, ['a']);

  partitioned = true;
  const cutAt = clock.now();
  let aStoppedAt: number | undefined;
  let bStartedAt: number | undefined;
  await tick(clock, 30_000, 100, () => {
    check();
    if (aStoppedAt === undefined && !a.leading()) aStoppedAt = clock.now();
    if (bStartedAt === undefined && b.leading()) bStartedAt = clock.now();
  });
  await a.done;
  assert.equal(a.stopped, 1, 'the old leader was told it stopped');
  assert.ok(aStoppedAt! - cutAt <= 12_000, `old leader gave up within retry + renewDeadline (${aStoppedAt! - cutAt} ms)`);
  assert.ok(bStartedAt! - cutAt >= 13_000, 'the Lease is not taken before it expires');
  assert.ok(bStartedAt! - cutAt <= 15_000 + 2 * 2_000 * 2.2, `taken over soon after expiry (${bStartedAt! - cutAt} ms)`);
  const lease = await readLease(kp);
  assert.equal(lease.spec!.holderIdentity, 'b');
  assert.equal(lease.spec!.leaseTransitions, 1);
  assert.deepEqual(b.newLeaders, ['a', 'b']);

  b.controller.abort();
  await b.done;
});

test('leader elector: releasing on abort lets the other contender take over quickly', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const metrics = createMetrics();
  const a = contender(kp.client, clock, 'a', { metrics });
  await settle();
  const b = contender(kp.client, clock, 'b');
  const check = neverBoth(a, b);
  await tick(clock, 10_000, 100, check);
  assert.ok(a.leading());

  const abortedAt = clock.now();
  a.controller.abort();
  await a.done;
  assert.equal(a.stopped, 1);
  assert.equal(a.termSignal!.aborted, true);
  const released = await readLease(kp);
  assert.equal(released.spec!.holderIdentity, '');
  assert.equal(released.spec!.leaseDurationSeconds, 1);

  let bStartedAt: number | undefined;
  await tick(clock, 10_000, 100, () => {
    check();
    if (bStartedAt === undefined && b.leading()) bStartedAt = clock.now();
  });
  assert.ok(bStartedAt !== undefined && bStartedAt - abortedAt <= 2_000 * 2.2 + 100, `B took over within one retry (${bStartedAt! - abortedAt} ms)`);
  const lease = await readLease(kp);
  assert.equal(lease.spec!.holderIdentity, 'b');
  assert.equal(lease.spec!.leaseTransitions, 1);
  assert.deepEqual(a.newLeaders, ['a', ''], 'the releaser observed its own release');
  assert.deepEqual(b.newLeaders, ['a', 'b'], 'B read the released Lease and took it in the same round');
  b.controller.abort();
  await b.done;
});

test('leader elector: a 409 while acquiring is a lost round, not an error', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const leases = kp.client.resource<Lease>(leaseResource);
  // An expired-looking lease held by a ghost with a 1 s duration.
  await leases.create({ metadata: { name: LEASE, namespace: NS }, spec: { holderIdentity: 'ghost', leaseDurationSeconds: 1, leaseTransitions: 4 } });

  const conflicts: number[] = [];
  let interfere = 1;
  const aClient = kp.clientWith(async (req, next) => {
    if (req.method === 'PUT' && interfere > 0) {
      interfere--;
      // Someone else writes the Lease between A's read and A's write.
      const cur = await leases.get(LEASE, { namespace: NS });
      await leases.update({ ...cur, spec: { ...cur.spec, renewTime: '2026-01-01T00:00:00.500000Z' } });
    }
    const res = await next(req);
    if (res.status === 409) conflicts.push(clock.now());
    return res;
  });
  const a = contender(aClient, clock, 'a');
  await tick(clock, 10_000);
  assert.equal(conflicts.length, 1, 'one write lost to a conflict');
  assert.ok(a.leading(), 'and A won a later round');
  assert.ok(conflicts[0]! < clock.now());
  const lease = await readLease(kp);
  assert.equal(lease.spec!.holderIdentity, 'a');
  assert.equal(lease.spec!.leaseTransitions, 5);
  a.controller.abort();
  await a.done;
});

test('leader elector: contenders racing to create the Lease elect exactly one', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const statuses: number[] = [];
  const counting = kp.clientWith(async (req, next) => {
    const res = await next(req);
    if (req.method === 'POST') statuses.push(res.status);
    return res;
  });
  const cs = ['a', 'b', 'c'].map((id) => contender(counting, clock, id));
  await settle();
  await tick(clock, 20_000, 100, () => assert.ok(cs.filter((c) => c.leading()).length <= 1, 'at most one leader'));
  assert.equal(cs.filter((c) => c.leading()).length, 1);
  assert.deepEqual(statuses.sort(), [201, 409, 409], 'the losers got 409 AlreadyExists and kept contending');
  for (const c of cs) c.controller.abort();
  await Promise.all(cs.map((c) => c.done));
  assert.deepEqual(cs.map((c) => c.stopped).sort(), [0, 0, 1], 'onStoppedLeading only for the one that led');
});

test('leader elector: an error thrown by onStartedLeading ends the term and is rethrown by run', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  let stopped = 0;
  const elector = createLeaderElector({
    client: kp.client,
    namespace: NS,
    name: LEASE,
    identity: 'a',
    clock,
    onStartedLeading: async () => {
      throw new Error('boom');
    },
    onStoppedLeading: () => stopped++,
  });
  const outcome = elector.run().then(
    () => undefined,
    (err: unknown) => err,
  );
  await tick(clock, 4_000);
  assert.match(String(await outcome), /boom/);
  assert.equal(stopped, 1);
  assert.equal((await readLease(kp)).spec!.holderIdentity, '', 'released');
});

test('leader elector: a throwing onNewLeader or onStoppedLeading is reported, never thrown to the process', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const failures = watchProcessFailures();
  const clock = createFakeClock(START);
  const panics: RecoveredPanic[] = [];
  const a = contender(kp.client, clock, 'a', {
    onNewLeader: () => {
      throw new Error('observer broken');
    },
    onStoppedLeading: () => {
      throw new TypeError('cleanup broken');
    },
    onPanic: (p) => panics.push(p),
  });
  await settle();
  assert.ok(a.leading(), 'leads despite the throwing observer');
  await tick(clock, 4_000);
  assert.ok(a.leading(), 'renewals go on');
  a.controller.abort();
  await a.done; // resolves: the throwing onStoppedLeading does not make run reject
  await settle();
  assert.equal((await readLease(kp)).spec!.holderIdentity, '', 'the Lease was released first');
  assert.deepEqual(
    panics.map((p) => `${p.callback} ${p.context.name} ${(p.cause as Error).message}`),
    ['leader-election onNewLeader observer broken', 'leader-election onStoppedLeading cleanup broken', 'leader-election onNewLeader observer broken'],
  );
  assert.deepEqual(await failures.stop(), []);
});
