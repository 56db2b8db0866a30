import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CustomResourceDefinitions, Namespaces, createWebhookServer, type WebhookServer } from '@kplane/runtime';
import { installWebhooks, startControlPlane, type InstalledWebhooks, type TestControlPlane } from '@kplane/testing';
import { Greetings, type Greeting } from './kind.js';
import { greetingDefaulter, greetingValidator } from './webhook.js';

/** The webhooks called by a test control plane's API server over real HTTPS. */
describe('the Greeting webhooks', () => {
  let cp: TestControlPlane;
  let server: WebhookServer;
  let hooks: InstalledWebhooks;
  const known: Greeting[] = [];

  before(async () => {
    cp = await startControlPlane({ nodes: 0, controllers: false });
    await cp.client.resource(CustomResourceDefinitions).create(Greetings.crd());
    await cp.client.resource(Namespaces).create({ metadata: { name: 'demo' } });
    await cp.settle();
    server = createWebhookServer({ port: 0 }).forKind(Greetings, { defaulter: greetingDefaulter, validator: greetingValidator(() => known) });
    hooks = await installWebhooks(cp, server);
  });
  after(async () => {
    await hooks.uninstall();
    await server.stop();
    await cp.stop();
  });
  const greetings = () => cp.client.resource(Greetings);

  it('tidies the version and the host before the schema checks them', async () => {
    const g = await greetings().create({ metadata: { name: 'tidy' }, spec: { version: 'v1.2', host: 'Tidy.Apps.Example.com.' } }, { namespace: 'demo' });
    assert.equal(g.spec.version, '1.2');
    assert.equal(g.spec.host, 'tidy.apps.example.com');
    known.push(g);
  });

  it('refuses a host another Greeting holds, and still runs the CRD\'s own rules', async () => {
    await assert.rejects(
      greetings().create({ metadata: { name: 'copycat' }, spec: { version: '1.0', host: 'tidy.apps.example.com' } }, { namespace: 'demo' }),
      (err: { code?: number; message?: string }) => {
        assert.equal(err.code, 403);
        assert.match(err.message!, /admission webhook "vgreeting-v1\.demo\.example\.com" denied the request: spec\.host: Duplicate value: "tidy\.apps\.example\.com": already used by Greeting demo\/tidy/);
        return true;
      },
    );
    await assert.rejects(greetings().create({ metadata: { name: 'far' }, spec: { version: '1.0', host: 'far.example.org' } }, { namespace: 'demo' }), /host must be in the apps\.example\.com zone/);
  });

  it('lets the same Greeting keep its host on update', async () => {
    const g = await greetings().get('tidy', { namespace: 'demo' });
    const updated = await greetings().update({ ...g, spec: { ...g.spec, replicas: 4 } }, { namespace: 'demo' });
    assert.equal(updated.spec.replicas, 4);
  });
});
