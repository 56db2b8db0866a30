import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { createClient } from '@kplane/client';
import { eventually } from '@kplane/api/testing';
import { createCm, createNamespace, getOrNone, refTo, startKplane, testGc, type TestKplane } from './test-support.js';

let k: TestKplane;

before(async () => {
  k = await startKplane();
});
after(async () => {
  await k.close();
});

function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.gc.example.com` },
    spec: {
      group: 'gc.example.com',
      scope,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

test('custom resources created after the collector started: a cluster-scoped owner, namespaced dependents, orphaning without strategic merge patch', async () => {
  // Record the collector's patches to see the fallback from strategic merge to merge patch.
  const patches: string[] = [];
  const recording = createClient({
    transport: async (req) => {
      const res = await k.client.transport(req);
      if (req.method === 'PATCH' && req.path.includes('/gadgets/')) patches.push(`${req.headers?.['content-type']} ${res.status}`);
      return res;
    },
  });
  const run = testGc(recording, { resyncDiscoveryMs: 100 });
  await run.start();
  try {
    const crds = k.client.resource<KubeObject>({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false, kind: 'CustomResourceDefinition' });
    await crds.create(crd('widgets', 'Widget', 'Cluster'));
    await crds.create(crd('gadgets', 'Gadget', 'Namespaced'));
    const widgets = k.client.resource<KubeObject>({ group: 'gc.example.com', version: 'v1', resource: 'widgets', namespaced: false, kind: 'Widget' });
    const gadgets = k.client.resource<KubeObject>({ group: 'gc.example.com', version: 'v1', resource: 'gadgets', namespaced: true, kind: 'Gadget' });
    await eventually('the CRDs are served', async () => (await widgets.list()) && (await gadgets.list({ namespace: '' })));
    await eventually('the collector watches them', () => run.gc.watchedResources().includes('gc.example.com/v1/gadgets') && run.gc.watchedResources().includes('gc.example.com/v1/widgets'));

    const ns = 'gc-crd';
    await createNamespace(k.client, ns);
    const w1 = await widgets.create({ metadata: { name: 'w1' } });
    await createCm(k, ns, 'cm-of-w1', [refTo(w1)]);
    const g1 = await gadgets.create({ metadata: { name: 'g1', namespace: ns, ownerReferences: [refTo(w1)] } });
    await gadgets.create({ metadata: { name: 'g1-child', namespace: ns, ownerReferences: [refTo(g1)] } });
    await eventually('the graph holds the gadget', () => run.gc.graphHas(g1.metadata!.uid!));

    await widgets.delete('w1');
    await eventually(
      'the dependents of the widget are gone',
      async () => !(await getOrNone(k.configMaps, 'cm-of-w1', ns)) && !(await getOrNone(gadgets, 'g1', ns)) && !(await getOrNone(gadgets, 'g1-child', ns)),
    );

    // Orphan: custom resources have no strategic merge patch, the collector falls back to a merge patch.
    const w2 = await widgets.create({ metadata: { name: 'w2' } });
    const other = await createCm(k, ns, 'other');
    await gadgets.create({ metadata: { name: 'g2', namespace: ns, ownerReferences: [refTo(w2), refTo(other)] } });
    await eventually('the graph holds w2', () => run.gc.graphHas(w2.metadata!.uid!));
    await widgets.delete('w2', { propagationPolicy: 'Orphan' });
    await eventually('w2 is gone', async () => !(await getOrNone(widgets, 'w2')));
    const g2 = await gadgets.get('g2', { namespace: ns });
    assert.deepEqual(g2.metadata?.ownerReferences?.map((r) => r.name), ['other']);
    assert.deepEqual(patches, ['application/strategic-merge-patch+json 415', 'application/merge-patch+json 200']);
  } finally {
    await run.stop();
  }
});
