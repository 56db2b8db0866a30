import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { createFakeClock } from '../clock.js';
import { startTestKplane as startKplane, type TestKplane } from '@kplane/apiserver/testing';
import { createEventRecorder, type CoreEvent } from './event-recorder.js';

const START = Date.UTC(2026, 0, 1);
const events = { group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' } as const;
const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'default', uid: 'u-1', resourceVersion: '7' },
};

async function eventsFor(kp: TestKplane, name: string): Promise<CoreEvent[]> {
  // GET /api/v1/events?fieldSelector=involvedObject.name=<name>
  const list = await kp.client.resource<CoreEvent>(events).list({ namespace: '', fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

test('event recorder: writes a core/v1 Event shaped like client-go\'s', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const rec = createEventRecorder({ client: kp.client, component: 'web-controller', host: 'node-a', clock });
  const written = await rec.event(pod, 'Normal', 'Scheduled', 'assigned to node-a');
  assert.ok(written);
  const [ev, ...rest] = await eventsFor(kp, 'web-1');
  assert.equal(rest.length, 0);
  assert.match(ev!.metadata!.name!, /^web-1\.[0-9a-f]{16}$/);
  assert.equal(ev!.metadata!.name, `web-1.${(BigInt(START) * 1_000_000n).toString(16)}`, 'hex of the time in ns');
  assert.equal(ev!.metadata!.namespace, 'default');
  assert.deepEqual(ev!.involvedObject, { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7' });
  assert.deepEqual(ev!.source, { component: 'web-controller', host: 'node-a' });
  assert.equal(ev!.reportingComponent, 'web-controller');
  assert.equal(ev!.reportingInstance, 'node-a');
  assert.equal(ev!.type, 'Normal');
  assert.equal(ev!.reason, 'Scheduled');
  assert.equal(ev!.message, 'assigned to node-a');
  assert.equal(ev!.count, 1);
  assert.equal(ev!.firstTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(ev!.lastTimestamp, '2026-01-01T00:00:00Z');
});

test('event recorder: identical events aggregate into one Event with a count', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const rec = createEventRecorder({ client: kp.client, component: 'web-controller', clock });
  // Fire-and-forget, as controllers do; writes are serialized in call order.
  void rec.event(pod, 'Warning', 'BackOff', 'restarting failed container');
  clock.advance(5_000);
  void rec.event(pod, 'Warning', 'BackOff', 'restarting failed container');
  clock.advance(5_000);
  void rec.event(pod, 'Warning', 'BackOff', 'restarting failed container');
  void rec.event(pod, 'Normal', 'Pulled', 'image pulled'); // different reason: its own Event
  await rec.flush();

  const evs = await eventsFor(kp, 'web-1');
  assert.equal(evs.length, 2);
  const backoff = evs.find((e) => e.reason === 'BackOff')!;
  assert.equal(backoff.count, 3);
  assert.equal(backoff.firstTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(backoff.lastTimestamp, '2026-01-01T00:00:10Z');
  assert.equal(evs.find((e) => e.reason === 'Pulled')!.count, 1);
});

test('event recorder: a new Event after the aggregation window, after LRU eviction, and after deletion', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const rec = createEventRecorder({ client: kp.client, component: 'c', clock, aggregationWindowMs: 60_000, cacheSize: 1 });
  const first = await rec.event(pod, 'Normal', 'Sync', 'ok');
  clock.advance(60_001);
  const second = await rec.event(pod, 'Normal', 'Sync', 'ok');
  assert.notEqual(second!.metadata!.name, first!.metadata!.name, 'outside the window: a new Event');
  assert.equal(second!.count, 1);

  await rec.event(pod, 'Normal', 'Other', 'evicts Sync from a one-entry cache');
  const third = await rec.event(pod, 'Normal', 'Sync', 'ok');
  assert.equal(third!.count, 1, 'forgotten key: a new Event');

  // The counted Event is deleted by someone: the next identical event recreates it by name.
  const fourth = await rec.event(pod, 'Normal', 'Sync', 'ok');
  assert.equal(fourth!.count, 2);
  await kp.client.resource(events).delete(fourth!.metadata!.name!, { namespace: 'default' });
  const fifth = await rec.event(pod, 'Normal', 'Sync', 'ok');
  assert.equal(fifth!.metadata!.name, fourth!.metadata!.name);
  assert.equal(fifth!.count, 3);
  assert.equal((await eventsFor(kp, 'web-1')).length, 4);
});

test('event recorder: cluster-scoped objects report into "default"; unreferenceable objects are dropped', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const errors: string[] = [];
  const rec = createEventRecorder({ client: kp.client, component: 'c', onError: (e) => errors.push(String(e)) });
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'un' } };
  const ev = await rec.event(node, 'Normal', 'Ready', 'node ready');
  assert.equal(ev!.metadata!.namespace, 'default');
  assert.deepEqual(ev!.involvedObject, { kind: 'Node', name: 'n1', uid: 'un', apiVersion: 'v1' });
  assert.equal(await rec.event({ metadata: { name: 'kindless' } }, 'Normal', 'X', 'y'), undefined);
  assert.equal(await rec.event(pod, 'Bogus' as 'Normal', 'X', 'y'), undefined);
  assert.equal(errors.length, 2);
  assert.match(errors[1]!, /Unsupported event type: 'Bogus'/);
  // Two events in the same millisecond get distinct names.
  const frozen = createEventRecorder({ client: kp.client, component: 'c', clock: createFakeClock(START) });
  const a = await frozen.event(pod, 'Normal', 'A', '1');
  const b = await frozen.event(pod, 'Normal', 'B', '2');
  assert.ok(a && b);
  assert.notEqual(a.metadata!.name, b.metadata!.name);
  assert.equal(b.metadata!.name, `web-1.${(BigInt(START) * 1_000_000n + 1n).toString(16)}`);
});

test('event recorder: an onError that throws is logged; event() still resolves and later events are written', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const rec = createEventRecorder({
      client: kp.client,
      component: 'c',
      onError: () => {
        throw new Error('onError broken');
      },
    });
    assert.equal(await rec.event({ metadata: { name: 'no-kind' } }, 'Normal', 'R', 'm'), undefined);
    assert.ok(await rec.event(pod, 'Normal', 'After', 'still written'));
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 1);
  assert.match(String(logged[0]![0]), /^panic: onError broken \[recovered\] in event-recorder \(key="\.[0-9a-f]{16}" name="onError"\)$/);
});

test('event recorder: similar events are combined from the 10th distinct message; 25 per object, then one per 5 minutes', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const rec = createEventRecorder({ client: kp.client, component: 'replicaset-controller', clock });
  const rs: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default', uid: 'u-rs' } };
  const written: (CoreEvent | undefined)[] = [];
  for (let i = 0; i < 40; i++) written.push(await rec.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: web-${i}`));
  // Nine Events of their own, then one combined Event counted by each later one, up to the
  // burst of 25 writes; the other 15 are dropped.
  assert.equal(written.filter(Boolean).length, 25);
  assert.ok(written.slice(25).every((e) => e === undefined));
  const evs = await eventsFor(kp, 'web');
  assert.equal(evs.length, 10);
  const combined = evs.find((e) => e.message.startsWith('(combined from similar events): '))!;
  assert.equal(combined.count, 16);
  assert.equal(combined.message, '(combined from similar events): Created pod: web-24');
  assert.deepEqual(evs.filter((e) => e !== combined).map((e) => e.message).sort(), Array.from({ length: 9 }, (_, i) => `Created pod: web-${i}`).sort());

  // The bucket refills by one event every 5 minutes; the dropped events were still counted.
  clock.advance(300_000);
  const next = await rec.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-40');
  assert.equal(next?.metadata?.name, combined.metadata!.name);
  assert.equal(next?.count, 32);
  assert.equal(await rec.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-41'), undefined);
  // Other reasons about the same object, and other objects, have buckets of their own.
  assert.ok(await rec.event(rs, 'Normal', 'SuccessfulDelete', 'Deleted pod: web-0'));
  assert.ok(await rec.event(rs, 'Warning', 'SuccessfulCreate', 'quota exceeded'));
  assert.ok(await rec.event(pod, 'Normal', 'Scheduled', 'assigned'));
});
