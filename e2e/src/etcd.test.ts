import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBackend, type Backend } from '@kplane/storage';
import { ETCD_MISSING, findEtcd, startEtcd, type TestEtcd } from '@kplane/storage/testing';
import { eventually, kubectlOk, removeDir, startKplane, tempDir, widgetCrd, type KplaneProcess } from './harness.js';

const WIDGET_CRD = widgetCrd('example.com', { type: 'object', properties: { size: { type: 'integer' } } });

describe('kplane up --storage etcd://', { skip: !findEtcd() && ETCD_MISSING }, () => {
  let etcd: TestEtcd;
  let dir: string;
  let kp: KplaneProcess | undefined;
  let storageUrl: string;
  // Compaction every second: the last test watches from below the compacted revision.
  const start = async (): Promise<KplaneProcess> => (kp = await startKplane(dir, ['--storage', storageUrl, '--nodes', '1', '--compaction-interval', '1s']));

  before(async () => {
    etcd = await startEtcd();
    // kube-apiserver's --etcd-prefix: keys go under /kplane-e2e instead of /registry.
    storageUrl = `${etcd.url}?prefix=/kplane-e2e`;
    dir = await tempDir();
  });
  after(async () => {
    await kp?.stop();
    await etcd?.stop();
    if (dir) await removeDir(dir);
  });

  it('runs a Deployment to Ready pods, stores it in kube-apiserver\'s key layout, and keeps it across a restart', async () => {
    await start();
    await kubectlOk(kp!.kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    const ready = async (): Promise<boolean> =>
      (await kubectlOk(kp!.kubeconfig, ['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])).trim() === '2';
    await eventually('the Deployment\'s 2 pods Ready', ready);
    const pods = (await kubectlOk(kp!.kubeconfig, ['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n');
    assert.equal(pods.length, 2);

    // The object is where kube-apiserver would keep it: <prefix>/deployments/<namespace>/<name>,
    // and its resourceVersion is the key's etcd mod revision.
    const raw: Backend = await createBackend(etcd.url);
    try {
      const kv = await raw.get('/kplane-e2e/deployments/default/web');
      assert.ok(kv, 'the Deployment is stored under /kplane-e2e/deployments/default/web');
      const rv = (await kubectlOk(kp!.kubeconfig, ['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.resourceVersion}'])).trim();
      assert.equal(String(kv.modRevision), rv);
    } finally {
      await raw.close();
    }

    await kp!.stop();
    kp = undefined;
    await start();
    assert.equal((await kubectlOk(kp!.kubeconfig, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), '2');
    const after = (await kubectlOk(kp!.kubeconfig, ['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n');
    assert.deepEqual(after.sort(), pods.sort());
    await eventually('the Deployment Ready again after the restart', ready);
  });

  it('serves one cluster from two API servers on the same etcd: writes through one reach the other\'s controllers', async () => {
    const otherDir = await tempDir();
    const other = await startKplane(otherDir, ['--storage', storageUrl, '--nodes', '0', '--no-controllers']);
    try {
      await kubectlOk(other.kubeconfig, ['create', 'deployment', 'via-other', '--image=nginx', '--replicas=2']);
      // The first server's controllers and nodes learn of it through their watch of etcd.
      await eventually('the Deployment made through the second API server Ready', async () =>
        (await kubectlOk(kp!.kubeconfig, ['get', 'deployment', 'via-other', '-o', 'jsonpath={.status.readyReplicas}'])).trim() === '2',
      );
      const pods = (await kubectlOk(other.kubeconfig, ['get', 'pods', '-l', 'app=via-other', '-o', 'name'])).trim().split('\n');
      assert.equal(pods.length, 2);
      // A CRD made through one server is served by the other (its CRD watch reads etcd).
      await kubectlOk(other.kubeconfig, ['apply', '-f', '-'], WIDGET_CRD);
      await eventually('the first server serving the CRD made through the second', async () => {
        await kubectlOk(kp!.kubeconfig, ['apply', '-f', '-'], 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\nspec:\n  size: 3\n');
        return true;
      });
      assert.equal((await kubectlOk(other.kubeconfig, ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.size}'])).trim(), '3');
    } finally {
      await other.stop();
      await removeDir(otherDir);
    }
  });

  it('goes on after etcd is killed and restarted under it: watches resume, controllers act again', async () => {
    await etcd.kill();
    await etcd.restart();
    // Requests fail while etcd is away (the client waits a few seconds before it tries a failed member again).
    await eventually('a Deployment created after the restart', async () => {
      await kubectlOk(kp!.kubeconfig, ['create', 'deployment', 'after-etcd-restart', '--image=nginx', '--replicas=2']);
      return true;
    });
    // The controller manager may have lost its leader lease meanwhile: it takes it again first.
    await eventually(
      'its pods Ready (the controllers\' watches resumed)',
      async () => (await kubectlOk(kp!.kubeconfig, ['get', 'deployment', 'after-etcd-restart', '-o', 'jsonpath={.status.readyReplicas}'])).trim() === '2',
      { timeoutMs: 60_000 },
    );
  });

  it('answers a watch from a revision etcd compacted with 410 Expired', async () => {
    await kubectlOk(kp!.kubeconfig, ['create', 'configmap', 'newer']);
    // Revision 2 is from the first start, older than this server's watch cache: the watch
    // replays from etcd, which the compactor (to the revision it saw at its previous run) has
    // compacted past it.
    const body = await eventually('a 410 Expired for a watch from revision 2', async () => {
      const out = await kubectlOk(kp!.kubeconfig, ['get', '--raw', '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2&timeoutSeconds=1']);
      return out.includes('"code":410') ? out : undefined;
    });
    assert.match(body, /"type":"ERROR".*"reason":"Expired"/);
  });
});
