import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from 'kplane';
import { benchInformers } from './informer-bench.js';
import { prepareClientNodeInformer } from './informer-client-node.js';
import { prepareKplaneInformer } from './informer-kplane.js';
import { fillNamespace } from './list-bench.js';

// A real kplane on memory storage, serving HTTPS, with more ConfigMaps than one page of 500.
const COUNT = 620;
const NAMESPACE = 'informers';
let dir: string;
let cp: ControlPlane;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-informer-'));
  cp = await startControlPlane({ storage: 'memory', dataDir: dir, port: 0 });
  await fillNamespace(cp.transport, { namespace: NAMESPACE, count: COUNT, concurrency: 16, configMap: (name, namespace) => ({ metadata: { name, namespace }, data: { k: name } }) });
  // Another namespace's ConfigMaps must not end up in either cache.
  await fillNamespace(cp.transport, { namespace: 'other', count: 3, concurrency: 3, configMap: (name, namespace) => ({ metadata: { name, namespace } }) });
});

after(async () => {
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const initialList of ['streaming', 'paged'] as const) {
  test(`kplane informer (${initialList} list) caches exactly the namespace's ConfigMaps`, async () => {
    const subject = await prepareKplaneInformer(cp.kubeconfigPath!, NAMESPACE, { initialList });
    try {
      assert.equal(await subject.sync(), COUNT);
    } finally {
      await subject.stop();
    }
  });
}

test('client-node makeInformer caches exactly the namespace\'s ConfigMaps', async () => {
  const subject = await prepareClientNodeInformer(cp.kubeconfigPath!, NAMESPACE, COUNT);
  try {
    assert.equal(await subject.sync(), COUNT);
  } finally {
    await subject.stop();
  }
});

test('client-node makeInformer resolves on its list completing when fewer objects than expected exist', async () => {
  const subject = await prepareClientNodeInformer(cp.kubeconfigPath!, 'empty', 5);
  try {
    assert.equal(await subject.sync(), 0);
  } finally {
    await subject.stop();
  }
});

test('client-node makeInformer reports a failing list instead of hanging', async () => {
  // The same credentials, pointed at a port nothing listens on.
  const text = await readFile(cp.kubeconfigPath!, 'utf8');
  const broken = join(dir, 'broken-kubeconfig');
  await writeFile(broken, text.replace(cp.url!, 'https://127.0.0.1:1'));
  const subject = await prepareClientNodeInformer(broken, NAMESPACE, COUNT);
  try {
    await assert.rejects(subject.sync(), /ECONNREFUSED/);
  } finally {
    await subject.stop();
  }
});

test('benchInformers runs each informer in a child process and checks the count', async () => {
  const lines: string[] = [];
  const r = await benchInformers({ kubeconfig: cp.kubeconfigPath!, namespace: NAMESPACE, count: COUNT, progress: (l) => lines.push(l) });
  assert.equal(lines.length, 4);
  for (const result of [r.kplane, r.clientNode, ...r.extra]) {
    assert.equal(result.runs.length, 1);
    const m = result.runs[0]!;
    assert.equal(m.items, COUNT);
    assert.ok(m.syncMs > 0);
    assert.ok(m.heapAfter > m.heapBefore, `${result.name}: the cache should grow the heap`);
    assert.ok(m.peakRss >= m.rssBefore);
  }
  await assert.rejects(benchInformers({ kubeconfig: cp.kubeconfigPath!, namespace: NAMESPACE, count: COUNT + 1, runs: 1, paged: false }), /cached 620 objects, want 621/);
});
