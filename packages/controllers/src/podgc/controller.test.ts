import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@kplane/client';
import type { RawRequest, RawResponse } from '@kplane/api';
import { Nodes, Pods, createFakeClock, createManager, type Node, type Pod } from '@kplane/runtime';
import { until } from '@kplane/api/testing';
import { createNamespace, startKplane, type TestKplane } from '../replicaset/test-support.js';
import { compareForDeletion, createPodGarbageCollector, type PodGarbageCollectorOptions } from './controller.js';

describe('pod garbage collector', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  const podApi = () => kp.client.resource<Pod>(Pods);
  const nodeApi = () => kp.client.resource<Node>(Nodes);

  /** Creates a pod (bound to `node` if given) and sets its phase. */
  const pod = async (ns: string, name: string, phase: string, node?: string, extra: { reason?: string; finalizers?: string[] } = {}): Promise<Pod> => {
    const created = await podApi().create(
      { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) }, spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'c', image: 'busybox' }] } },
      { namespace: ns },
    );
    return podApi().patch(name, { status: { phase, ...(extra.reason ? { reason: extra.reason } : {}) } }, 'merge', { namespace: ns, subresource: 'status' }).catch(() => created);
  };
  const names = async (ns: string) => (await podApi().list({ namespace: ns })).items.map((p) => p.metadata?.name).sort();

  /** Starts a manager with the collector on a fake clock; `passes()` counts finished passes. */
  const run = (options: PodGarbageCollectorOptions = {}, client: Client = kp.client) => {
    const clock = createFakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const mgr = createManager({ client, clock });
    let passes = 0;
    mgr.add(createPodGarbageCollector(mgr, { ...options, onPass: () => passes++ }));
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    return {
      clock,
      passes: () => passes,
      /** Waits for pass `n` of the loop to finish. */
      async pass(n: number) {
        await until(`pass ${n}`, () => passes >= n);
      },
      async stop() {
        stop.abort();
        await done;
      },
    };
  };

  it('orders evicted pods first, then the oldest, then by name', () => {
    const p = (name: string, created: string, evicted = false): Pod => ({ metadata: { name, creationTimestamp: created }, status: { phase: 'Failed', ...(evicted ? { reason: 'Evicted' } : {}) } });
    const sorted = [p('c', '2026-01-01T00:00:02Z'), p('b', '2026-01-01T00:00:01Z'), p('a', '2026-01-01T00:00:02Z'), p('e', '2026-01-01T00:00:09Z', true)].sort(compareForDeletion);
    assert.deepEqual(sorted.map((x) => x.metadata?.name), ['e', 'b', 'a', 'c']);
  });

  it('deletes terminated pods beyond the threshold, evicted first, and leaves running ones', async () => {
    const ns = 'podgc-terminated';
    await createNamespace(kp.client, ns);
    await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 't1' } });
    await pod(ns, 'done-a', 'Succeeded', 't1');
    await pod(ns, 'done-b', 'Failed', 't1');
    await pod(ns, 'done-c', 'Succeeded', 't1');
    await pod(ns, 'evicted', 'Failed', 't1', { reason: 'Evicted' });
    await pod(ns, 'running', 'Running', 't1');
    const ctl = run({ terminatedPodThreshold: 2 });
    try {
      await ctl.pass(1);
      assert.deepEqual(await names(ns), ['done-b', 'done-c', 'running']);
      // Below the threshold: nothing more goes.
      await ctl.clock.advanceAsync(20_000);
      await ctl.pass(2);
      assert.deepEqual(await names(ns), ['done-b', 'done-c', 'running']);
    } finally {
      await ctl.stop();
      await nodeApi().delete('t1');
    }
  });

  it('deletes pods of a vanished node after the quarantine, marked Failed with DisruptionTarget by PodGC', async () => {
    const ns = 'podgc-orphaned';
    await createNamespace(kp.client, ns);
    await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'o1' } });
    await pod(ns, 'alive', 'Running', 'o1');
    await pod(ns, 'orphan', 'Running', 'gone');
    // A finalizer keeps the orphan visible after its deletion, to read what was written.
    await pod(ns, 'kept', 'Running', 'gone', { finalizers: ['example.com/hold'] });
    const ctl = run();
    try {
      await ctl.pass(1);
      await ctl.clock.advanceAsync(20_000);
      await ctl.pass(2);
      assert.deepEqual(await names(ns), ['alive', 'kept', 'orphan'], 'still in quarantine at 20 s');
      await ctl.clock.advanceAsync(20_000);
      await ctl.pass(3);
      assert.deepEqual(await names(ns), ['alive', 'kept']);
      const kept = await podApi().get('kept', { namespace: ns });
      assert.equal(kept.status?.phase, 'Failed');
      assert.ok(kept.metadata?.deletionTimestamp);
      assert.equal(kept.metadata?.deletionGracePeriodSeconds, 0);
      const cond = kept.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['True', 'DeletionByPodGC', 'PodGC: node no longer exists']);
      const entry = kept.metadata?.managedFields?.find((m) => m.manager === 'PodGC');
      assert.deepEqual([entry?.operation, entry?.subresource], ['Apply', 'status']);
      await podApi().patch('kept', { metadata: { finalizers: null } }, 'merge', { namespace: ns });
    } finally {
      await ctl.stop();
      await nodeApi().delete('o1');
    }
  });

  it('leaves pods of a node that comes back during the quarantine', async () => {
    const ns = 'podgc-late-node';
    await createNamespace(kp.client, ns);
    await pod(ns, 'early', 'Running', 'late');
    const ctl = run();
    try {
      await ctl.pass(1);
      await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'late' } });
      for (let n = 2; n <= 4; n++) {
        await ctl.clock.advanceAsync(20_000);
        await ctl.pass(n);
      }
      assert.deepEqual(await names(ns), ['early']);
    } finally {
      await ctl.stop();
      await nodeApi().delete('late');
    }
  });

  it('force-deletes terminating pods never scheduled and those on out-of-service NotReady nodes', async () => {
    const ns = 'podgc-terminating';
    await createNamespace(kp.client, ns);
    const node = await nodeApi().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'oos' }, spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] } });
    node.status = { conditions: [{ type: 'Ready', status: 'False' }] };
    await nodeApi().updateStatus(node);
    const hold = { finalizers: ['example.com/hold'] };
    await pod(ns, 'unscheduled', 'Pending', undefined, hold);
    await pod(ns, 'stuck', 'Running', 'oos', hold);
    await pod(ns, 'untouched', 'Running', 'oos', hold);
    await podApi().delete('unscheduled', { namespace: ns, gracePeriodSeconds: 30 });
    await podApi().delete('stuck', { namespace: ns, gracePeriodSeconds: 30 });
    const ctl = run();
    try {
      await ctl.pass(1);
      for (const name of ['unscheduled', 'stuck']) {
        const p = await podApi().get(name, { namespace: ns });
        assert.equal(p.metadata?.deletionGracePeriodSeconds, 0, name);
        assert.equal(p.status?.phase, 'Failed', name);
      }
      const untouched = await podApi().get('untouched', { namespace: ns });
      assert.equal(untouched.metadata?.deletionTimestamp, undefined);
    } finally {
      await ctl.stop();
      for (const name of ['unscheduled', 'stuck', 'untouched']) await podApi().patch(name, { metadata: { finalizers: null } }, 'merge', { namespace: ns });
      await nodeApi().delete('oos');
    }
  });

  it('falls back on a strategic merge patch of the status when the server answers 415 to apply', async () => {
    const ns = 'podgc-no-apply';
    await createNamespace(kp.client, ns);
    await pod(ns, 'lost', 'Running', 'nowhere', { finalizers: ['example.com/hold'] });
    const writes: string[] = [];
    const unsupported: RawResponse = {
      status: 415,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the body of the request was in an unknown format', reason: 'UnsupportedMediaType', code: 415 })),
    };
    const client = kp.clientWith(async (req: RawRequest, next) => {
      if (req.method === 'GET') return next(req);
      writes.push(`${req.method} ${req.headers?.['content-type'] ?? ''} ${req.path}`);
      return req.headers?.['content-type'] === 'application/apply-patch+yaml' ? unsupported : next(req);
    });
    const ctl = run({ quarantineMs: 0 }, client);
    try {
      await ctl.pass(1);
      const base = `/api/v1/namespaces/${ns}/pods/lost`;
      // (Pods other tests left on nodes they removed go too.)
      assert.deepEqual(writes.filter((w) => w.includes(`/namespaces/${ns}/`)), [`PATCH application/apply-patch+yaml ${base}/status`, `PATCH application/strategic-merge-patch+json ${base}/status`, `DELETE application/json ${base}`]);
      const lost = await podApi().get('lost', { namespace: ns });
      assert.equal(lost.status?.phase, 'Failed');
      assert.equal(lost.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByPodGC');
    } finally {
      await ctl.stop();
      await podApi().patch('lost', { metadata: { finalizers: null } }, 'merge', { namespace: ns });
    }
  });
});
