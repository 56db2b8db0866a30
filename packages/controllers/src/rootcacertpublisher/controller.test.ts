import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kplane/api';
import { ConfigMaps, Namespaces, createManager, type ConfigMap } from '@kplane/runtime';
import { createRootCACertPublisher, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP_NAME, ROOT_CA_DESCRIPTION } from './index.js';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '../namespace/testing.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

const cms = () => kp.client.resource(ConfigMaps);
async function rootCA(ns: string): Promise<ConfigMap | undefined> {
  try {
    return await cms().get(ROOT_CA_CONFIGMAP_NAME, { namespace: ns });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

it('publishes kube-root-ca.crt in every namespace, recreates it when deleted and restores it when changed', async () => {
  const namespaces = kp.client.resource(Namespaces);
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'before' } });
  assert.equal(await rootCA('before'), undefined);

  const manager = createManager({ client: kp.client });
  const controller = createRootCACertPublisher({ manager, rootCA: CA });
  assert.equal(controller.name, 'root_ca_cert_publisher');
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  try {
    for (const ns of ['before', 'default', 'kube-system', 'kube-public']) await eventually(`kube-root-ca.crt in ${ns}`, () => rootCA(ns));
    const first = (await rootCA('before'))!;
    assert.deepEqual(first.data, { 'ca.crt': CA });
    assert.deepEqual(first.metadata?.annotations, { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION });

    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after' } });
    const created = await eventually('kube-root-ca.crt in a new namespace', () => rootCA('after'));

    await cms().delete(ROOT_CA_CONFIGMAP_NAME, { namespace: 'after' });
    await eventually('kube-root-ca.crt recreated', async () => {
      const cur = await rootCA('after');
      return cur && cur.metadata?.uid !== created.metadata?.uid;
    });

    // A changed ca.crt or a removed description is put back; other changes stay.
    const cur = (await rootCA('after'))!;
    await cms().update({ ...cur, metadata: { ...cur.metadata, labels: { keep: 'me' }, annotations: {} }, data: { 'ca.crt': 'tampered', extra: 'x' } }, { namespace: 'after' });
    const restored = await eventually('kube-root-ca.crt restored', async () => {
      const c = await rootCA('after');
      return c && c.data?.['ca.crt'] === CA ? c : undefined;
    });
    assert.deepEqual(restored.data, { 'ca.crt': CA });
    assert.deepEqual(restored.metadata?.labels, { keep: 'me' });
    assert.equal(restored.metadata?.annotations?.[DESCRIPTION_ANNOTATION], ROOT_CA_DESCRIPTION);
  } finally {
    abort.abort();
    await done;
  }
});
