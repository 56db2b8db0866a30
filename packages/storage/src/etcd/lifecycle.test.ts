import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEtcdBackend } from './backend.js';
import { writeUntilKilled } from '../testing/durability.js';
import { ETCD_MISSING, findEtcd, startEtcd, type TestEtcd } from '../testing/etcd-server.js';

const missing = !findEtcd();
let shared: TestEtcd | undefined;
const etcd = async (): Promise<TestEtcd> => (shared ??= await startEtcd());
after(() => shared?.stop());

test('etcd: every acknowledged write survives SIGKILL of etcd and of the writer', { skip: missing && ETCD_MISSING }, async () => {
  const server = await etcd();
  // The store dies first, in the middle of the load; then the writer.
  const { acked } = await writeUntilKilled(`${server.url}?namespace=/durability-test`, async (child) => {
    await server.kill();
    child.kill('SIGKILL');
  });
  assert.ok(acked.length >= 300);

  await server.restart();
  const reopened = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/durability-test' });
  const stored = new Set((await reopened.list('/durability/')).items.map((kv) => kv.key));
  const missingKeys = acked.filter((key) => !stored.has(key));
  assert.deepEqual(missingKeys, [], `${missingKeys.length} of ${acked.length} acknowledged keys lost`);
  const next = await reopened.create('/after-crash', 'ok');
  assert.equal(next.modRevision, await reopened.currentRevision());
  await reopened.close();
});

test('etcd: a reopened backend knows the compacted revision and keeps revisions increasing', { skip: missing && ETCD_MISSING }, async () => {
  const server = await etcd();
  const first = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/reopen' });
  const a = await first.create('/a', '1');
  const a2 = await first.update('/a', '2', a.modRevision);
  await first.create('/b', '1');
  await first.compact(a2.modRevision);
  await first.close();

  const second = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/reopen' });
  assert.equal(await second.compactedRevision(), a2.modRevision);
  await assert.rejects(second.get('/a', a.modRevision), /compacted/);
  assert.deepEqual(await second.get('/a'), { key: '/a', value: '2', createRevision: a.modRevision, modRevision: a2.modRevision });
  const c = await second.create('/c', 'x');
  assert.ok(c.modRevision > a2.modRevision);
  await second.close();
});

test('etcd: an idle watch learns progress: no event of its prefix up to the store revision', { skip: missing && ETCD_MISSING, timeout: 30_000 }, async () => {
  const server = await etcd();
  const b = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/progress', progressIntervalMs: 50 });
  try {
    const ac = new AbortController();
    const seen: number[] = [];
    let reached = (): void => {};
    const elsewhere = await b.create('/other/a', '1');
    const progressed = new Promise<void>((resolve) => (reached = resolve));
    const events: string[] = [];
    const loop = (async () => {
      for await (const e of b.watch('/quiet/', elsewhere.modRevision - 1, ac.signal, {
        onProgress: (rev) => {
          seen.push(rev);
          if (rev >= elsewhere.modRevision) reached();
        },
      })) events.push(e.kv.key);
    })();
    await progressed;
    assert.ok(seen.every((rev) => rev >= elsewhere.modRevision - 1));
    const later = await b.create('/other/b', '2');
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (seen.some((rev) => rev >= later.modRevision)) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    assert.deepEqual(events, []);
    ac.abort();
    await loop;
  } finally {
    await b.close();
  }
});

test('etcd: watches ended by their consumers are released at once and leave the other watches alone', { skip: missing && ETCD_MISSING, timeout: 60_000 }, async () => {
  const server = await etcd();
  const b = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/cancel' });
  try {
    const long = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const e of b.watch('/c/', await b.currentRevision(), long.signal)) seen.push(e.kv.key);
    })();
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      // A short watch that gets one event and is ended (its stream cancelled) while writes go on.
      const ac = new AbortController();
      const short = b.watch('/c/', await b.currentRevision(), ac.signal)[Symbol.asyncIterator]();
      const first = short.next();
      writes.push(b.create(`/c/${String(i).padStart(2, '0')}`, 'x'));
      await first;
      ac.abort();
    }
    await Promise.all(writes);
    const deadline = Date.now() + 10_000;
    while (seen.length < 30 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(seen.length, 30);
    assert.equal(b.stats().resumedStreams, 0, 'no stream was broken by the others ending');
    long.abort();
    await following;
    assert.equal(b.stats().watches, 0);
  } finally {
    await b.close();
  }
});

test('etcd: more stale TTL entries fall due at once than one transaction may hold', { skip: missing && ETCD_MISSING, timeout: 60_000 }, async () => {
  const server = await etcd();
  let time = Date.UTC(2026, 0, 1);
  const b = await createEtcdBackend({ endpoints: [server.endpoint], namespace: '/stale-ttl', now: () => time });
  try {
    // 150 keys written with a TTL, then again without: 150 stale entries, and 10 live ones.
    await Promise.all(Array.from({ length: 150 }, async (_, i) => {
      const kv = await b.create(`/t/${i}`, 'x', { ttlSeconds: 1 });
      await b.update(`/t/${i}`, 'y', kv.modRevision);
    }));
    await Promise.all(Array.from({ length: 10 }, (_, i) => b.create(`/live/${i}`, 'x', { ttlSeconds: 1 })));
    time += 2000;
    assert.equal(await b.expireKeys(), 10);
    assert.equal(await b.count('/t/'), 150);
    assert.equal(await b.count('/live/'), 0);
    assert.equal(await b.expireKeys(), 0);
  } finally {
    await b.close();
  }
});
