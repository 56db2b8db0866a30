import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { createVirtualClock, type VirtualClock } from '@kplane/storage/testing';
import { createApiServer, type ApiServer } from '../server/server.js';
import { readEvents } from '../testing.js';

const MINUTE = 60_000;
const CM = '/api/v1/namespaces/default/configmaps';

/** A server on a memory backend whose TTLs and schedules follow a virtual clock. */
interface Harness {
  server: ApiServer;
  backend: Backend;
  clock: VirtualClock;
  /** Storage writes by operation, counted through a wrapper around the backend. */
  writes: Record<string, number>;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

async function harness(options: { eventTTLSeconds?: number } = {}): Promise<Harness> {
  const clock = createVirtualClock();
  const backend = createMemoryBackend({ now: clock.now });
  const writes: Record<string, number> = {};
  const counted: Backend = { ...backend };
  for (const op of ['create', 'update', 'delete', 'deleteWithFinalValue'] as const) {
    const original = backend[op].bind(backend) as (...args: unknown[]) => Promise<unknown>;
    (counted as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => {
      writes[op] = (writes[op] ?? 0) + 1;
      return original(...args);
    };
  }
  const server = createApiServer({ backend: counted, clock, now: () => new Date(clock.now()), ...options });
  await server.start();
  return {
    server,
    backend,
    clock,
    writes,
    async call(method, path, body, contentType = 'application/json') {
      const [p, qs] = path.split('?');
      const r = await server.handle({
        method,
        path: p!,
        query: Object.fromEntries(new URLSearchParams(qs ?? '')),
        headers: { 'content-type': contentType },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      });
      const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await server.close();
      await backend.close();
    },
  };
}

describe('removing the last finalizer', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());

  it('deletes the object in the same storage write; watchers see it deleted as last written', async () => {
    const created = await h.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    assert.equal(created.status, 201);
    const marked = await h.call('DELETE', `${CM}/held`);
    assert.ok(marked.status === 200 || marked.status === 202, `marked for deletion: ${marked.status}`);
    assert.ok(marked.body.metadata.deletionTimestamp);
    const watch = await h.server.handle({ method: 'GET', path: CM, query: { watch: '1', resourceVersion: marked.body.metadata.resourceVersion }, headers: {} });
    const revisionBefore = await h.backend.currentRevision();
    const writesBefore = { ...h.writes };

    const released = await h.call('PATCH', `${CM}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    assert.equal(released.status, 200);
    assert.equal(released.body.metadata.finalizers, undefined);
    assert.equal((await h.call('GET', `${CM}/held`)).status, 404);
    // One storage write, one revision: no crash can leave the object stored without finalizers.
    assert.equal(await h.backend.currentRevision(), revisionBefore + 1);
    assert.equal(released.body.metadata.resourceVersion, String(revisionBefore + 1));
    assert.equal((h.writes.deleteWithFinalValue ?? 0) - (writesBefore.deleteWithFinalValue ?? 0), 1);
    assert.equal(h.writes.update, writesBefore.update);
    assert.equal(h.writes.delete, writesBefore.delete);

    const events = await readEvents(watch, 1);
    assert.equal(events[0]?.type, 'DELETED');
    const object = events[0]!.object as KubeObject;
    assert.equal(object.metadata?.name, 'held');
    assert.equal(object.metadata?.finalizers, undefined);
    assert.equal(object.metadata?.deletionTimestamp, marked.body.metadata.deletionTimestamp);
    assert.equal(object.metadata?.resourceVersion, String(revisionBefore + 1));
  });
});

describe('an object left released but stored by an older version', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());

  it('is deleted by the next DELETE', async () => {
    const stuck = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stuck', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-01-01T00:01:00Z', deletionGracePeriodSeconds: 0 },
    };
    // The state a crash between the finalizer update and the delete used to leave behind.
    await h.backend.create('/registry/configmaps/default/stuck', JSON.stringify(stuck));
    assert.equal((await h.call('GET', `${CM}/stuck`)).status, 200);
    const r = await h.call('DELETE', `${CM}/stuck`);
    assert.equal(r.status, 200);
    assert.equal((await h.call('GET', `${CM}/stuck`)).status, 404);
  });
});

describe('stored object size', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());
  const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = (name: string, holder: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: holder } });

  it('an object over 1.5 MiB is refused with 413 RequestEntityTooLarge, on create and on update', async () => {
    const big = await h.call('POST', LEASES, lease('big', 'x'.repeat(1600 * 1024)));
    assert.equal(big.status, 413);
    assert.equal(big.body.kind, 'Status');
    assert.equal(big.body.reason, 'RequestEntityTooLarge');
    assert.match(big.body.message, /^Request entity too large: leases\.coordination\.k8s\.io "big" is \d+ bytes when stored, over the limit of 1572864 bytes$/);
    assert.equal((await h.call('GET', `${LEASES}/big`)).status, 404);

    const small = await h.call('POST', LEASES, lease('grows', 'small'));
    assert.equal(small.status, 201);
    const grown = await h.call('PATCH', `${LEASES}/grows`, { spec: { holderIdentity: 'y'.repeat(1600 * 1024) } }, 'application/merge-patch+json');
    assert.equal(grown.status, 413);
    assert.equal(grown.body.reason, 'RequestEntityTooLarge');
    const kept = await h.call('GET', `${LEASES}/grows`);
    assert.equal(kept.body.spec.holderIdentity, 'small');
    assert.equal(kept.body.metadata.resourceVersion, small.body.metadata.resourceVersion);
  });

  it('an object just under the limit is stored', async () => {
    const near = await h.call('POST', LEASES, lease('near', 'z'.repeat(1500 * 1024)));
    assert.equal(near.status, 201);
  });
});

describe('Event TTL', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());
  const EVENTS = '/api/v1/namespaces/default/events';
  const event = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'default', apiVersion: 'v1' },
    reason: 'Tested',
    message: 'a test event',
    type: 'Normal',
    source: { component: 'test' },
    count: 1,
  });

  it('an Event expires an hour after its last write; other objects do not', async () => {
    assert.equal((await h.call('POST', EVENTS, event('once'))).status, 201);
    const refreshed = await h.call('POST', EVENTS, event('refreshed'));
    assert.equal((await h.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stays' } })).status, 201);
    await h.clock.advance(50 * MINUTE);
    const updated = await h.call('PATCH', `${EVENTS}/refreshed`, { count: 2 }, 'application/merge-patch+json');
    assert.equal(updated.status, 200);
    assert.notEqual(updated.body.metadata.resourceVersion, refreshed.body.metadata.resourceVersion);
    await h.clock.advance(10 * MINUTE - 1000);
    assert.equal((await h.call('GET', `${EVENTS}/once`)).status, 200, 'not before the hour is over');
    await h.clock.advance(2000);
    assert.equal((await h.call('GET', `${EVENTS}/once`)).status, 404);
    assert.equal((await h.call('GET', `${EVENTS}/refreshed`)).status, 200, 'the update restarted its hour');
    // The events.k8s.io view shares the storage and the TTL.
    assert.deepEqual((await h.call('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).body.items.map((e: KubeObject) => e.metadata?.name), ['refreshed']);
    await h.clock.advance(50 * MINUTE);
    assert.equal((await h.call('GET', `${EVENTS}/refreshed`)).status, 404);
    assert.equal((await h.call('GET', `${CM}/stays`)).status, 200);
  });

  it('an Event written through events.k8s.io/v1 expires too', async () => {
    const created = await h.call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'new-api' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      type: 'Normal',
      reason: 'Tested',
      action: 'Testing',
      note: 'through events.k8s.io',
      reportingController: 'example.com/test',
      reportingInstance: 'test-1',
      regarding: { kind: 'ConfigMap', name: 'c', namespace: 'default', apiVersion: 'v1' },
    });
    assert.equal(created.status, 201);
    await h.clock.advance(59 * MINUTE);
    assert.equal((await h.call('GET', `${EVENTS}/new-api`)).status, 200);
    await h.clock.advance(2 * MINUTE);
    assert.equal((await h.call('GET', `${EVENTS}/new-api`)).status, 404);
  });

  it('--event-ttl sets the lifetime', async () => {
    const short = await harness({ eventTTLSeconds: 30 });
    try {
      assert.equal((await short.call('POST', EVENTS, event('brief'))).status, 201);
      await short.clock.advance(29_000);
      assert.equal((await short.call('GET', `${EVENTS}/brief`)).status, 200);
      await short.clock.advance(2000);
      assert.equal((await short.call('GET', `${EVENTS}/brief`)).status, 404);
    } finally {
      await short.close();
    }
  });
});

describe('compaction', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());

  it('runs every 5 minutes, to the revision seen at the previous run; older lists get 410 Expired', async () => {
    const first = await h.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: '1' } });
    const rv1 = first.body.metadata.resourceVersion as string;
    await h.clock.advance(5 * MINUTE);
    assert.equal(await h.backend.compactedRevision(), 0);
    const seen = await h.backend.currentRevision();
    await h.call('PUT', `${CM}/c`, { ...first.body, data: { v: '2' } });
    assert.equal((await h.call('GET', `${CM}?resourceVersion=${rv1}&resourceVersionMatch=Exact`)).status, 200);
    await h.clock.advance(5 * MINUTE);
    assert.equal(await h.backend.compactedRevision(), seen);
    const old = await h.call('GET', `${CM}?resourceVersion=${Number(rv1) - 1}&resourceVersionMatch=Exact`);
    assert.equal(old.status, 410);
    assert.equal(old.body.reason, 'Expired');
  });
});

describe('continue tokens', () => {
  let h: Harness;
  before(async () => (h = await harness()));
  after(() => h.close());

  it('a token whose revision is ahead of the store answers 504 Too large resource version, not 500', async () => {
    const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 999_999, start: 'a' })).toString('base64url');
    const r = await h.call('GET', `${CM}?limit=1&continue=${token}`);
    assert.equal(r.status, 504);
    assert.equal(r.body.reason, 'Timeout');
    assert.equal(r.body.message, `Timeout: Too large resource version: 999999, current: ${await h.backend.currentRevision()}`);
    const [cause] = r.body.details.causes;
    // Kubernetes writes a cause's type under "reason"; older kplane under "type".
    assert.equal(cause.reason, 'ResourceVersionTooLarge');
    assert.equal(cause.message, 'Too large resource version');
    assert.equal(r.body.details.retryAfterSeconds, 1);
    const exact = await h.call('GET', `${CM}?resourceVersion=999999&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 504);
    assert.equal(exact.body.reason, 'Timeout');
  });
});
