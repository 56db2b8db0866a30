import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../testing.js';

test('the registry finds a store by group, version and resource; added, replaced and removed resources are found as they are', async () => {
  const t = await startTestServer();
  try {
    const registry = t.server.registry;
    const configmaps = registry.get('', 'v1', 'configmaps');
    assert.equal(configmaps?.type.kind, 'ConfigMap');
    assert.equal(registry.get('apps', 'v1', 'deployments')?.type.kind, 'Deployment');
    for (const [g, v, r] of [['', 'v1', 'deployments'], ['apps', 'v2', 'deployments'], ['apps', 'v1', 'configmaps'], ['', 'v1', ''], ['', '', 'v1']]) {
      assert.equal(registry.get(g!, v!, r!), undefined, `${g}/${v}/${r}`);
    }
    const type = { ...configmaps!.type, group: 'example.com', version: 'v1', resource: 'things', kind: 'Thing' };
    const added = registry.add(type);
    assert.equal(registry.get('example.com', 'v1', 'things'), added);
    const replaced = registry.add({ ...type });
    assert.notEqual(replaced, added);
    assert.equal(registry.get('example.com', 'v1', 'things'), replaced);
    assert.equal(registry.all().filter((s) => s.type.group === 'example.com').length, 1);
    registry.add({ ...type, version: 'v2' });
    registry.remove('example.com', 'v1', 'things');
    assert.equal(registry.get('example.com', 'v1', 'things'), undefined);
    assert.equal(registry.get('example.com', 'v2', 'things')?.type.version, 'v2');
    registry.remove('example.com', 'v2', 'things');
    assert.equal(registry.get('example.com', 'v2', 'things'), undefined);
    assert.deepEqual(registry.versions('example.com'), []);
    assert.equal(registry.get('', 'v1', 'configmaps'), configmaps);
  } finally {
    await t.close();
  }
});
