import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { clientFromKubeconfig } from '@kplane/client';
import { ConfigMaps, Namespaces, ServiceAccounts } from '@kplane/runtime';
import { eventually, startControlPlane } from './index.js';

it('serves HTTPS on a free port with an admin kubeconfig when asked, and removes its folder at stop', async () => {
  const cp = await startControlPlane({ nodes: 0, listen: true });
  const path = cp.kubeconfigPath!;
  try {
    assert.match(cp.url ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    const remote = clientFromKubeconfig(path);
    try {
      await remote.resource(ConfigMaps).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-https', namespace: 'default' } }, { namespace: 'default' });
      assert.ok(await cp.client.resource(ConfigMaps).get('over-https'));
      // A restarted API server serves on the same port (a connection to the old one may drop first).
      await cp.restartApiServer();
      const got = await eventually('the restarted server answers', () => remote.resource(ConfigMaps).get('over-https', { namespace: 'default' }).catch(() => undefined));
      assert.equal(got.metadata?.name, 'over-https');
    } finally {
      remote.transport.close?.();
    }
  } finally {
    await cp.stop();
  }
  assert.equal(existsSync(path), false);
});

it('runs on the real clock with virtualTime: false; settle() still waits until idle', async () => {
  const cp = await startControlPlane({ nodes: 0, virtualTime: false });
  try {
    assert.throws(() => cp.clock.advance(1), /real time/);
    await cp.client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'real-time' } });
    await cp.settle();
    // The serviceaccount controller has acted by the time settle() returns.
    assert.ok(await cp.client.resource(ServiceAccounts).get('default', { namespace: 'real-time' }));
  } finally {
    await cp.stop();
  }
});
