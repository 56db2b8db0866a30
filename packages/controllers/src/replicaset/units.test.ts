import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFakeClock, type Pod } from '@kplane/runtime';
import { createExpectations } from './expectations.js';
import { deletesBefore, isPodAvailable, podsToDelete } from './pods.js';
import { slowStartBatch } from './slow-start.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, o: { node?: string; phase?: 'Pending' | 'Running' | 'Unknown'; readyAt?: number; created?: number; restarts?: number } = {}): Pod {
  const conditions = o.readyAt !== undefined ? [{ type: 'Ready', status: 'True' as const, lastTransitionTime: iso(o.readyAt) }] : [];
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, creationTimestamp: iso(o.created ?? T0) },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(o.node ? { nodeName: o.node } : {}) },
    status: { phase: o.phase ?? 'Pending', conditions, containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: o.restarts ?? 0 }] },
  };
}

describe('expectations', () => {
  it('is unsatisfied until every creation and deletion is observed, once per pod', () => {
    const clock = createFakeClock(0);
    const e = createExpectations({ clock });
    assert.equal(e.satisfied('ns/rs'), true, 'no record: satisfied');
    e.expectCreations('ns/rs', 2);
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), true);
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a'); // the same pod reported twice counts once
    e.deletionObserved('ns/rs', 'ns/zzz'); // not ours
    assert.equal(e.satisfied('ns/rs'), false);
    assert.deepEqual(e.pending('ns/rs')?.deleting, ['ns/b']);
    e.deletionObserved('ns/rs', 'ns/b');
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('expires after the TTL', () => {
    const clock = createFakeClock(0);
    const e = createExpectations({ clock, ttlMs: 1000 });
    e.expectCreations('k', 5);
    clock.advance(1000);
    assert.equal(e.satisfied('k'), false);
    clock.advance(1);
    assert.equal(e.satisfied('k'), true);
    e.delete('k');
    assert.equal(e.pending('k'), undefined);
  });
});

describe('slowStartBatch', () => {
  it('runs batches of 1, 2, 4 … and stops after a failing batch', async () => {
    let calls = 0;
    const batches: number[] = [];
    let inFlight = 0;
    const r = await slowStartBatch(10, 1, async () => {
      const n = ++calls;
      inFlight++;
      if (batches.length === 0 || inFlight === 1) batches.push(0);
      batches[batches.length - 1]!++;
      await new Promise((res) => setImmediate(res));
      inFlight--;
      if (n === 4) throw new Error('quota');
    });
    assert.deepEqual(batches, [1, 2, 4]);
    assert.equal(calls, 7);
    assert.equal(r.successes, 6);
    assert.match(String(r.error), /quota/);
  });

  it('never calls more than count times', async () => {
    let calls = 0;
    const r = await slowStartBatch(5, 1, async () => void calls++);
    assert.equal(calls, 5);
    assert.equal(r.successes, 5);
    assert.equal(r.error, undefined);
    assert.deepEqual(await slowStartBatch(0, 1, async () => assert.fail('no call')), { successes: 0 });
  });
});

describe('deletion order', () => {
  const now = T0 + 3600_000;
  const before = (a: Pod, b: Pod, ra = 0, rb = 0) => deletesBefore({ pod: a, rank: ra }, { pod: b, rank: rb }, now);

  it('follows the Kubernetes rules one by one', () => {
    assert.ok(before(pod('a'), pod('b', { node: 'n1' })), 'unscheduled before scheduled');
    assert.ok(before(pod('a', { node: 'n', phase: 'Pending' }), pod('b', { node: 'n', phase: 'Unknown' })), 'pending before unknown');
    assert.ok(before(pod('a', { node: 'n', phase: 'Unknown' }), pod('b', { node: 'n', phase: 'Running' })), 'unknown before running');
    assert.ok(before(pod('a', { node: 'n', phase: 'Running' }), pod('b', { node: 'n', phase: 'Running', readyAt: T0 })), 'not ready before ready');
    const r1 = pod('a', { node: 'n', phase: 'Running', readyAt: T0 });
    const r2 = pod('b', { node: 'n', phase: 'Running', readyAt: T0 });
    assert.ok(before(r1, r2, 2, 1), 'doubled up before not');
    assert.ok(before(pod('a', { node: 'n', phase: 'Running', readyAt: now - 10_000 }), pod('b', { node: 'n', phase: 'Running', readyAt: now - 3000_000 })), 'ready more recently first');
    assert.ok(before(pod('a', { node: 'n', restarts: 3 }), pod('b', { node: 'n', restarts: 1 })), 'more restarts first');
    assert.ok(before(pod('a', { created: now - 5000 }), pod('b', { created: now - 3000_000 })), 'newer first');
    assert.ok(!before(pod('b', { created: now - 3000_000 }), pod('a', { created: now - 5000 })));
  });

  it('picks the pods to delete', () => {
    const keep = pod('keep', { node: 'n1', phase: 'Running', readyAt: T0, created: T0 });
    const pods = [
      keep,
      pod('unscheduled', { created: T0 }),
      pod('pending', { node: 'n1', created: T0 }),
      pod('notready', { node: 'n1', phase: 'Running', created: T0 }),
    ];
    assert.deepEqual(
      podsToDelete(pods, [], 3, now).map((p) => p.metadata!.name).sort(),
      ['notready', 'pending', 'unscheduled'],
    );
    assert.deepEqual(podsToDelete(pods, [], 1, now).map((p) => p.metadata!.name), ['unscheduled']);
    assert.equal(podsToDelete(pods, [], 9, now).length, 4);
  });

  it('counts availability with minReadySeconds', () => {
    const p = pod('a', { phase: 'Running', readyAt: T0 });
    assert.equal(isPodAvailable(p, 0, T0), true);
    assert.equal(isPodAvailable(p, 5, T0 + 5000), false);
    assert.equal(isPodAvailable(p, 5, T0 + 5001), true);
    assert.equal(isPodAvailable(pod('b'), 0, T0), false);
  });
});

describe('calculateReplicaSetStatus with cached (frozen) objects', () => {
  it('recounts fully labeled pods when a new ReplicaSet version changes its template labels', async () => {
    const { calculateReplicaSetStatus } = await import('./replicaset-controller.js');
    const { deepFreeze } = await import('@kplane/runtime/internal');
    const a = pod('a', { readyAt: T0 });
    a.metadata!.labels = { app: 'x', tier: 'web' };
    const b = pod('b');
    b.metadata!.labels = { app: 'x' };
    const pods = [deepFreeze(a), deepFreeze(b)];
    const rs = (labels: Record<string, string>) =>
      deepFreeze({ metadata: { name: 'r', namespace: 'ns', generation: 1 }, spec: { replicas: 2, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels } } } });
    const first = calculateReplicaSetStatus(rs({ app: 'x' }), pods, undefined, T0 + 1000);
    assert.deepEqual([first.replicas, first.fullyLabeledReplicas, first.readyReplicas, first.availableReplicas], [2, 2, 1, 1]);
    const second = calculateReplicaSetStatus(rs({ app: 'x', tier: 'web' }), pods, undefined, T0 + 1000);
    assert.equal(second.fullyLabeledReplicas, 1);
    const third = calculateReplicaSetStatus(rs({ app: 'x' }), pods, undefined, T0 + 1000);
    assert.equal(third.fullyLabeledReplicas, 2);
  });
});
