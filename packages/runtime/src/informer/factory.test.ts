import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RawRequest } from '@kplane/api';
import { createApiServer } from '@kplane/apiserver';
import { createClient, type ResourceDescriptor } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';
import { createInformerFactory } from './factory.js';

const configmaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const secrets: ResourceDescriptor = { group: '', version: 'v1', resource: 'secrets', namespaced: true, kind: 'Secret' };
const namespaces: ResourceDescriptor = { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' };

describe('informer factory', () => {
  it('shares one informer, and one watch, per resource', async () => {
    const server = await (async () => {
      const s = createApiServer({ backend: createMemoryBackend() });
      await s.start();
      return s;
    })();
    const watches: string[] = [];
    const transport = (req: RawRequest) => {
      if (req.query?.['watch'] === 'true') watches.push(req.path);
      return server.handle(req);
    };
    const client = createClient({ transport });
    await client.resource(configmaps).create({ metadata: { name: 'one', namespace: 'default' } });
    const factory = createInformerFactory({ client, namespace: 'default' });
    const a = factory.informerFor(configmaps);
    const b = factory.informerFor({ ...configmaps });
    assert.equal(a, b);
    const s = factory.informerFor(secrets);
    assert.notEqual(s, a);

    const ctl = new AbortController();
    factory.start(ctl.signal);
    factory.start(ctl.signal); // idempotent
    assert.equal(await factory.waitForCacheSync(), true);
    assert.deepEqual(a.store.listKeys(), ['default/one']);
    // An informer asked for after start is started at once.
    const ns = factory.informerFor(namespaces);
    assert.equal(await factory.waitForCacheSync(), true);
    assert.ok(ns.store.get('kube-system'), 'cluster-scoped resources ignore the factory namespace');
    assert.deepEqual(watches.sort(), ['/api/v1/namespaces', '/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/default/secrets']);
    ctl.abort();
    await factory.shutdown();
    assert.equal(await factory.waitForCacheSync(AbortSignal.abort()), true, 'synced informers stay synced');
    await server.close();
  });
});
