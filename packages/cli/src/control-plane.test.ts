import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from './control-plane.js';

it('starts in-process on memory storage, without disk or network, and serves a client', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false });
  try {
    assert.equal(cp.url, undefined);
    const cms = cp.client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } });
    assert.equal(created.metadata?.namespace, 'default');
    const got = await cms.get('x');
    assert.deepEqual(got.data, { a: '1' });
  } finally {
    await cp.stop();
  }
});
