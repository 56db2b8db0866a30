import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyExistsError, type StorageEvent } from '../backend.js';
import { createEtcdBackend } from './backend.js';
import { ETCD_MISSING, findEtcd, startEtcdCluster, type TestEtcdCluster } from '../testing/etcd-server.js';

let cluster: TestEtcdCluster | undefined;
after(() => cluster?.stop());

test('etcd: writes and a watch go on through the loss of the leader of a 3-member cluster', { skip: !findEtcd() && ETCD_MISSING, timeout: 120_000 }, async () => {
  cluster = await startEtcdCluster(3);
  const b = await createEtcdBackend({ endpoints: cluster.endpoints, namespace: '/failover' });
  const ac = new AbortController();
  const events: StorageEvent[] = [];
  const from = await b.currentRevision();
  const watching = (async () => {
    for await (const e of b.watch('/w/', from, ac.signal)) events.push(e);
  })();
  const acked: string[] = [];
  let killed = false;
  let retries = 0;
  for (let i = 0; acked.length < 150; i++) {
    const key = `/w/${String(i).padStart(4, '0')}`;
    for (;;) {
      try {
        await b.create(key, String(i));
        break;
      } catch (err) {
        // A write cut off by the failover may have committed: then it is there.
        if (err instanceof KeyExistsError) break;
        retries++;
        if (retries > 200) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    acked.push(key);
    if (acked.length === 50 && !killed) {
      killed = true;
      await cluster.kill(await cluster.leader());
    }
  }
  // Every acknowledged write is stored, and the watch saw each exactly once, in revision order.
  const stored = (await b.list('/w/')).items.map((kv) => kv.key);
  assert.deepEqual(stored, acked);
  const deadline = Date.now() + 20_000;
  while (events.length < acked.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(events.map((e) => e.kv.key), acked);
  for (let i = 1; i < events.length; i++) assert.ok(events[i]!.revision > events[i - 1]!.revision);
  assert.ok(events.every((e) => e.type === 'create'));
  ac.abort();
  await watching;
  await b.close();
});
