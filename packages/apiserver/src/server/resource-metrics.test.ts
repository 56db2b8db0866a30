import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../testing.js';

const podMetrics = (namespace: string, name: string, labels: Record<string, string>) => ({
  apiVersion: 'metrics.k8s.io/v1beta1',
  kind: 'PodMetrics',
  metadata: { name, namespace, labels, creationTimestamp: '2024-05-01T12:00:00Z' },
  timestamp: '2024-05-01T12:00:00Z',
  window: '10s',
  containers: [{ name: 'c', usage: { cpu: '250m', memory: '64Mi' } }],
});

test('metrics.k8s.io/v1beta1 lists and gets what the registered sources report', async () => {
  const s = await startTestServer();
  try {
    const unregister = s.server.metrics.register({
      metrics: () => ({
        nodes: [{ apiVersion: 'metrics.k8s.io/v1beta1', kind: 'NodeMetrics', metadata: { name: 'node-1' }, timestamp: 't', window: '10s', usage: { cpu: '1', memory: '1Gi' } } as never],
        pods: [podMetrics('a', 'web-1', { app: 'web' }), podMetrics('a', 'db-1', { app: 'db' }), podMetrics('b', 'web-2', { app: 'web' })],
      }),
    });
    const all = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/pods');
    assert.equal(all.status, 200);
    assert.equal(all.body.kind, 'PodMetricsList');
    assert.deepEqual(all.body.items.map((p: any) => p.metadata.name), ['db-1', 'web-1', 'web-2']);
    const inA = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/a/pods?labelSelector=app%3Dweb');
    assert.deepEqual(inA.body.items.map((p: any) => p.metadata.name), ['web-1']);
    const one = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/b/pods/web-2');
    assert.equal(one.body.containers[0].usage.cpu, '250m');
    const missing = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/b/pods/web-1');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods.metrics.k8s.io "web-1" not found');
    const nodes = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
    assert.deepEqual(nodes.body.items.map((n: any) => n.metadata.name), ['node-1']);
    const table = await s.call('GET', '/apis/metrics.k8s.io/v1beta1/nodes', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.body.rows[0].cells, ['node-1', '1', '1Gi', '10s']);
    const post = await s.call('POST', '/apis/metrics.k8s.io/v1beta1/nodes', {});
    assert.equal(post.status, 405);
    const group = await s.call('GET', '/apis/metrics.k8s.io');
    assert.equal(group.body.preferredVersion.groupVersion, 'metrics.k8s.io/v1beta1');
    const resources = await s.call('GET', '/apis/metrics.k8s.io/v1beta1');
    assert.deepEqual(resources.body.resources.map((r: any) => [r.name, r.kind, r.namespaced, r.verbs]), [
      ['nodes', 'NodeMetrics', false, ['get', 'list']],
      ['pods', 'PodMetrics', true, ['get', 'list']],
    ]);
    unregister();
    assert.deepEqual((await s.call('GET', '/apis/metrics.k8s.io/v1beta1/pods')).body.items, []);
  } finally {
    await s.close();
  }
});
