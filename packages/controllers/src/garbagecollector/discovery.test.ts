import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, JsonRequest } from '@kplane/client';
import { discoverResources } from './discovery.js';
import { startKplane } from './test-support.js';

test('discovery against kplane: built-in deletable resources, events and subresources left out', async () => {
  const k = await startKplane();
  try {
    const found = await discoverResources(k.client);
    const ids = found.deletable.map((r) => `${r.group}/${r.resource}`);
    for (const want of ['/configmaps', '/pods', '/namespaces', 'apps/deployments', 'apps/replicasets']) assert.ok(ids.includes(want), want);
    assert.ok(!ids.includes('/events') && !ids.includes('events.k8s.io/events'));
    assert.ok(!ids.some((id) => id.includes('/status') || id.endsWith('/scale')));
    assert.deepEqual(found.failedGroups, []);
    const cm = found.deletable.find((r) => r.resource === 'configmaps')!;
    assert.deepEqual([cm.version, cm.kind, cm.namespaced], ['v1', 'ConfigMap', true]);
  } finally {
    await k.close();
  }
});

test('legacy discovery when aggregated discovery is not offered; a failing group is reported and skipped', async () => {
  const docs: Record<string, unknown> = {
    '/api': { kind: 'APIVersions', versions: ['v1'] },
    '/api/v1': { resources: [{ name: 'widgets', kind: 'Widget', namespaced: true, verbs: ['list', 'watch', 'delete'] }, { name: 'widgets/status', kind: 'Widget', namespaced: true, verbs: ['get'] }, { name: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] }] },
    '/apis': { kind: 'APIGroupList', groups: [{ name: 'x.io', versions: [{ version: 'v1' }, { version: 'v2' }], preferredVersion: { version: 'v2' } }, { name: 'broken.io', versions: [{ version: 'v1' }] }] },
    '/apis/x.io/v2': { resources: [{ name: 'things', kind: 'Thing', namespaced: false, verbs: ['list', 'watch', 'delete', 'get'] }] },
    '/apis/x.io/v1': { resources: [{ name: 'things', kind: 'Thing', namespaced: false, verbs: ['list', 'watch', 'delete'] }, { name: 'olds', kind: 'Old', namespaced: true, verbs: ['list', 'watch', 'delete'] }] },
  };
  const client = {
    async request(req: JsonRequest) {
      if (!(req.path in docs)) throw new Error(`no ${req.path}`);
      return docs[req.path];
    },
  } as unknown as Client;
  const found = await discoverResources(client);
  assert.deepEqual(found.deletable.map((r) => `${r.group}/${r.version}/${r.resource}`).sort(), ['/v1/widgets', 'x.io/v1/olds', 'x.io/v2/things']);
  assert.deepEqual(found.failedGroups, ['broken.io']);
  assert.equal(found.all.length, 5);
});
