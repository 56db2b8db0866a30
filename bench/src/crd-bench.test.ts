import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Transport } from '@kplane/api';
import { startControlPlane, type ControlPlane } from 'kplane';
import { benchCustomResources, checkCelEnforced, formatCustomResources, greetingsPath, type CrdBenchResult } from './crd-bench.js';

// A real kplane, in process, on memory storage: the CRD, its CEL rules and defaults are the server's.
let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory', listen: false });
});
after(async () => {
  await cp.stop();
});

const configMap = (name: string, namespace: string): object => ({ metadata: { name, namespace }, data: { k: name } });

test('benchCustomResources creates and lists both kinds on a real server, with the CRD defaults applied', async () => {
  let cpu = 0;
  const r = await benchCustomResources(cp.transport, { count: 25, concurrency: 4, rounds: 3, listRuns: 3, configMap, namespace: 'crd-a', serverCpuMs: () => (cpu += 10) });
  assert.equal(r.count, 25);
  for (const k of [r.configMaps, r.greetings]) {
    assert.ok(k.createMs > 0 && k.createsPerSec > 0);
    assert.equal(k.listRuns.length, 3);
    assert.ok(k.listBytes > 0);
    // 3 rounds, each reading the fake CPU clock twice 10 ms apart: 30 ms over 25 creates.
    assert.equal(k.createServerUs, (30 * 1000) / 25);
  }
  const got = await cp.transport({ method: 'GET', path: `${greetingsPath('crd-a')}/obj-24`, headers: { accept: 'application/json' } });
  assert.equal(got.status, 200);
  const obj = JSON.parse(Buffer.from(got.body!).toString('utf8')) as { spec: { replicas?: number } };
  assert.equal(obj.spec.replicas, 2, 'the schema default applies');
  // A second run in another namespace finds the CRD already there.
  const again = await benchCustomResources(cp.transport, { count: 3, concurrency: 2, configMap, namespace: 'crd-b' });
  assert.equal(again.greetings.listRuns.length, 5);
  assert.equal(again.configMaps.createServerUs, undefined, 'no CPU figure without a CPU source');
});

test('checkCelEnforced passes on the real server and fails when the rule is not enforced', async () => {
  await benchCustomResources(cp.transport, { count: 1, concurrency: 1, configMap, namespace: 'crd-c', listRuns: 1 });
  await checkCelEnforced(cp.transport, 'crd-c');
  const accepting: Transport = async () => ({ status: 201, headers: {}, body: Buffer.from('{}') });
  await assert.rejects(checkCelEnforced(accepting, 'crd-c'), /got HTTP 201, want 422/);
});

test('formatCustomResources reads the targets', () => {
  const kind = (createsPerSec: number, listMedianMs: number) => ({ createMs: 1000, createsPerSec, listRuns: [listMedianMs], listMedianMs, listBytes: 1e6 });
  const r: CrdBenchResult = { count: 1000, establishMs: 42, configMaps: kind(1000, 100), greetings: kind(800, 120) };
  const text = formatCustomResources(r, { minCreateRatio: 0.7, maxListRatio: 1.3 });
  assert.match(text, /Greeting \/ ConfigMap = 0\.80x \(target >= 0\.7x: met\)/);
  assert.match(text, /time = 1\.20x \(target <= 1\.3x: met\)/);
  const slow = formatCustomResources({ ...r, greetings: kind(500, 200) }, { minCreateRatio: 0.7, maxListRatio: 1.3 });
  assert.match(slow, /0\.50x \(target >= 0\.7x: MISSED\)/);
  assert.match(slow, /2\.00x \(target <= 1\.3x: MISSED\)/);
  assert.match(slow, /ConfigMap \(1000\)\s+1000\s+-\s+100/);
});
