import { it } from 'node:test';
import assert from 'node:assert/strict';
import { clientFromKubeconfig } from '@kplane/client';
import { until } from '@kplane/api/testing';
import { removeDir, startKplane, tempDir } from './harness.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

it('every create acknowledged before kill -9 is there after restart', async () => {
  const dir = await tempDir();
  try {
    let kp = await startKplane(dir);
    let client = clientFromKubeconfig(kp.kubeconfig);
    const cms = client.resource(CONFIGMAPS);
    const acked: { name: string; rv: string }[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const name = `w${w}-${i}`;
        try {
          const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }, { namespace: 'default' });
          acked.push({ name, rv: created.metadata!.resourceVersion! });
        } catch {
          return; // the connection died with the process: not acknowledged
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await until('300 acknowledged writes', () => acked.length >= 300, { timeoutMs: 60_000 });
    killed = true;
    await kp.stop('SIGKILL');
    await Promise.all(writers);
    client.transport.close();

    kp = await startKplane(dir);
    client = clientFromKubeconfig(kp.kubeconfig);
    const list = await client.resource(CONFIGMAPS).list({ namespace: 'default' });
    const stored = new Map(list.items.map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
    const missing = acked.filter((a) => !stored.has(a.name));
    assert.deepEqual(missing, [], `${missing.length} acknowledged writes lost of ${acked.length}`);
    for (const a of acked) assert.equal(stored.get(a.name), a.rv);
    // resourceVersions keep increasing after the restart.
    const next = await client.resource(CONFIGMAPS).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } }, { namespace: 'default' });
    assert.ok(Number(next.metadata!.resourceVersion) > Math.max(...acked.map((a) => Number(a.rv))));
    client.transport.close();
    await kp.stop();
  } finally {
    await removeDir(dir);
  }
});
