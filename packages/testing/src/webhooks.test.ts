import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@kplane/client';
import { ConfigMaps, createWebhookServer, kindDescriptor, type ConfigMap, type WebhookServer } from '@kplane/runtime';
import { installWebhooks, startControlPlane, type TestControlPlane } from './index.js';

const MutatingWebhookConfigurations = kindDescriptor({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false });

/** An operator's webhooks for ConfigMaps: a label is defaulted, a data key is refused. */
function configMapWebhooks(): WebhookServer {
  return createWebhookServer({ port: 0 }).forKind(ConfigMaps, {
    defaulter: {
      default(cm: ConfigMap) {
        cm.metadata!.labels = { ...cm.metadata!.labels, 'webhook.kplane.io/defaulted': 'true' };
      },
    },
    validator: {
      validateCreate(cm: ConfigMap) {
        if (cm.data?.forbidden !== undefined) throw new Error('data.forbidden: Forbidden: this key is refused');
        return cm.data?.deprecated !== undefined ? ['data.deprecated is deprecated'] : [];
      },
    },
  });
}

describe('installWebhooks', () => {
  it('creates the configurations webhookConfigurations builds for the server, starting it first, and uninstall deletes them', async () => {
    const server = configMapWebhooks();
    const calls: string[] = [];
    const objects: unknown[] = [];
    const client = {
      resource: (d: { resource: string }) => ({
        create: async (obj: unknown) => {
          calls.push(`create ${d.resource}`);
          objects.push(obj);
          return obj;
        },
        delete: async (name: string) => {
          calls.push(`delete ${d.resource} ${name}`);
          throw Object.assign(new Error('not found'), { code: 404 });
        },
      }),
    } as unknown as Client;
    const installed = await installWebhooks({ client }, server, { failurePolicy: 'Ignore' });
    try {
      assert.match(server.url!, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(calls, ['create mutatingwebhookconfigurations', 'create validatingwebhookconfigurations']);
      assert.equal(installed.mutating, objects[0]);
      assert.equal(installed.validating, objects[1]);
      const m = installed.mutating!.webhooks![0]!;
      assert.equal(m.name, 'mconfigmap-v1.core.k8s.io');
      assert.equal(m.clientConfig.url, `${server.url}/mutate--v1-configmap`);
      assert.equal(m.clientConfig.caBundle, server.caBundle);
      assert.equal(m.failurePolicy, 'Ignore');
      assert.deepEqual(m.rules, [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }]);
      assert.equal(installed.validating!.webhooks![0]!.clientConfig.url, `${server.url}/validate--v1-configmap`);
      await installed.uninstall(); // already gone: no error
      assert.deepEqual(calls.slice(2), ['delete mutatingwebhookconfigurations mutating-webhook-configuration', 'delete validatingwebhookconfigurations validating-webhook-configuration']);
    } finally {
      await server.stop();
    }
  });

  it('creates only the configurations that have webhooks', async () => {
    const server = createWebhookServer({ port: 0 }).forKind(ConfigMaps, { validator: {} });
    const created: string[] = [];
    const client = { resource: (d: { resource: string }) => ({ create: async (o: unknown) => (created.push(d.resource), o) }) } as unknown as Client;
    const installed = await installWebhooks({ client }, server);
    await server.stop();
    assert.deepEqual(created, ['validatingwebhookconfigurations']);
    assert.equal(installed.mutating, undefined);
  });
});

describe('installWebhooks into a test control plane', () => {
  let cp: TestControlPlane;
  let server: WebhookServer;
  let served = false;
  before(async () => {
    cp = await startControlPlane({ nodes: 0, controllers: false });
    server = configMapWebhooks();
    served = await cp.client.resource(MutatingWebhookConfigurations).list().then(() => true, (err: { code?: number }) => {
      if (err.code !== 404) throw err;
      return false;
    });
  });
  after(async () => {
    await server.stop();
    await cp.stop();
  });

  it('the API server calls the server: the defaulter labels, the validator denies with its message', async (t) => {
    if (!served) return t.skip('this API server does not serve admissionregistration.k8s.io/v1 webhook configurations');
    const installed = await installWebhooks(cp, server);
    const configMaps = cp.client.resource(ConfigMaps);
    const cm = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' }, data: { a: '1' } });
    assert.equal(cm.metadata?.labels?.['webhook.kplane.io/defaulted'], 'true');
    await assert.rejects(configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no' }, data: { forbidden: '1' } }), (err: Error & { code?: number }) => {
      assert.equal(err.code, 403);
      assert.match(err.message, /admission webhook "vconfigmap-v1.core.k8s.io" denied the request: data.forbidden: Forbidden: this key is refused/);
      return true;
    });
    await installed.uninstall();
    const after = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'free' }, data: { forbidden: '1' } });
    assert.equal(after.metadata?.labels, undefined);
  });
});
