import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { until } from '@kplane/api/testing';
import { removeDir, startKplane, tempDir, type KplaneProcess } from './harness.js';

describe('@kubernetes/client-node against kplane up', () => {
  let kp: KplaneProcess;
  let dir: string;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, ['--storage', 'memory']);
    kc = new k8s.KubeConfig();
    kc.loadFromFile(kp.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });

  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('creates, lists, watches and patches ConfigMaps', async () => {
    await core.createNamespace({ body: { metadata: { name: 'cn' } } });
    await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: '1' } } });
    const list = await core.listNamespacedConfigMap({ namespace: 'cn', labelSelector: 'app=x' });
    assert.deepEqual(
      list.items.map((c) => c.metadata?.name),
      ['a'],
    );
    const rv = list.metadata?.resourceVersion;
    assert.ok(rv);

    const seen: { type: string; name?: string; k?: string }[] = [];
    const watch = new k8s.Watch(kc);
    let done: (err?: unknown) => void = () => {};
    const finished = new Promise((resolve) => (done = resolve));
    const controller = await watch.watch(
      '/api/v1/namespaces/cn/configmaps',
      { resourceVersion: rv },
      (type, obj: k8s.V1ConfigMap) => seen.push({ type, name: obj.metadata?.name, k: obj.data?.k }),
      (err) => done(err),
    );

    await core.patchNamespacedConfigMap({ namespace: 'cn', name: 'a', body: { data: { k: '2' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await core.patchNamespacedConfigMap(
      { namespace: 'cn', name: 'a', body: [{ op: 'replace', path: '/data/k', value: '3' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'b' }, data: { k: 'b' } } });
    await core.deleteNamespacedConfigMap({ namespace: 'cn', name: 'b' });

    await until('the four events', () => seen.length >= 4, { timeoutMs: 5_000, intervalMs: 50 });
    controller.abort();
    await finished;
    assert.deepEqual(seen, [
      { type: 'MODIFIED', name: 'a', k: '2' },
      { type: 'MODIFIED', name: 'a', k: '3' },
      { type: 'ADDED', name: 'b', k: 'b' },
      { type: 'DELETED', name: 'b', k: 'b' },
    ]);
    const a = await core.readNamespacedConfigMap({ namespace: 'cn', name: 'a' });
    assert.equal(a.data?.k, '3');
  });

  it('surfaces Kubernetes errors', async () => {
    await assert.rejects(core.readNamespacedConfigMap({ namespace: 'cn', name: 'missing' }), (err: unknown) => {
      const e = err as { code?: number; body?: string };
      assert.equal(e.code, 404);
      assert.match(String(e.body), /configmaps \\"missing\\" not found|configmaps "missing" not found/);
      return true;
    });
  });
});
