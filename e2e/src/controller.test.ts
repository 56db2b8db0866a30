import { it } from 'node:test';
import assert from 'node:assert/strict';
import { clientFromKubeconfig } from '@kplane/client';
import { Action, CONTROLLER_OWNER_INDEX, createManager } from '@kplane/runtime';
import { eventually, kubectlOk, removeDir, startKplane, tempDir } from './harness.js';

const CM = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const PODS = { group: '', version: 'v1', resource: 'pods', namespaced: true, kind: 'Pod' };

/** The seed's Python controller, in TypeScript on the runtime: a ConfigMap's data.repliques says how many pods it wants. */
function startVitrine(kubeconfig: string, signal: AbortSignal, onReconcile?: () => void): Promise<void> {
  const client = clientFromKubeconfig(kubeconfig);
  const mgr = createManager({ client });
  const cms = mgr.factory.informerFor(CM);
  const pods = mgr.factory.informerFor(PODS);
  const podApi = client.resource(PODS);
  mgr
    .controller()
    .named('vitrine')
    .for(CM)
    .owns(PODS)
    .complete(async (req) => {
      onReconcile?.();
      const cm = cms.store.get(req.key);
      if (!cm || cm.metadata?.name !== 'vitrine') return Action.awaitChange();
      const want = Number((cm.data as Record<string, string> | undefined)?.repliques ?? 0);
      const mine = pods.store.byIndex(CONTROLLER_OWNER_INDEX, cm.metadata.uid!).filter((p) => !p.metadata?.deletionTimestamp);
      for (let i = mine.length; i < want; i++) {
        await podApi.create(
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              generateName: 'vitrine-',
              labels: { 'cours/proprietaire': 'vitrine' },
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'vitrine', uid: cm.metadata.uid!, controller: true, blockOwnerDeletion: true }],
            },
            spec: { containers: [{ name: 'web', image: 'registry.k8s.io/e2e-test-images/agnhost:2.61' }] },
          },
          { namespace: req.namespace },
        );
      }
      for (const p of mine.slice(want)) {
        await podApi.delete(p.metadata!.name!, { namespace: req.namespace }).catch((e: { code?: number }) => {
          if (e.code !== 404) throw e;
        });
      }
      return Action.awaitChange();
    });
  return mgr.start(signal).finally(() => client.transport.close());
}

it('a controller built with the runtime converges over HTTPS, and catches up after a restart', async () => {
  const dir = await tempDir();
  const kp = await startKplane(dir, ['--storage', 'memory']);
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);
  const podCount = async () => (await k('get', 'pods', '-l', 'cours/proprietaire=vitrine', '-o', 'name')).split('\n').filter(Boolean).length;
  const until = (want: number) => eventually(`${want} pods`, async () => (await podCount()) === want);
  let stopped = false;
  let lateReconciles = 0;
  try {
    await k('create', 'configmap', 'vitrine', '--from-literal=repliques=3');
    let stop = new AbortController();
    let run = startVitrine(kp.kubeconfig, stop.signal, () => {
      if (stopped) lateReconciles++;
    });
    await until(3);
    await k('patch', 'cm', 'vitrine', '--type=merge', '-p', '{"data":{"repliques":"1"}}');
    await until(1);
    stop.abort();
    await run;
    stopped = true;
    await k('patch', 'cm', 'vitrine', '--type=merge', '-p', '{"data":{"repliques":"4"}}');
    assert.equal(await podCount(), 1, 'nothing happens while the controller is stopped');
    stop = new AbortController();
    run = startVitrine(kp.kubeconfig, stop.signal);
    await until(4);
    stop.abort();
    await run;
    // The first run saw no change after it stopped, for all the time the second one took.
    assert.equal(lateReconciles, 0, 'no reconcile after the stop');
  } finally {
    await kp.stop();
    await removeDir(dir);
  }
});
