import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CustomResourceDefinitions,
  conversionWebhook,
  createWebhookServer,
  kindDescriptor,
  type CustomResourceDefinition,
  type KubeObject,
  type WebhookServer,
} from '@kplane/runtime';
import { installWebhooks, startControlPlane, type TestControlPlane } from './index.js';

/** An operator's Greeting: v1 (the hub, spec.message) and v1alpha1 (spec.text). */
interface Greeting extends KubeObject {
  spec?: { message?: string; text?: string; replicas?: number };
}
const GreetingsV1 = kindDescriptor<Greeting>({ group: 'demo.kplane.io', version: 'v1', resource: 'greetings', kind: 'Greeting', namespaced: true });
const GreetingsV1alpha1 = kindDescriptor<Greeting>({ group: 'demo.kplane.io', version: 'v1alpha1', resource: 'greetings', kind: 'Greeting', namespaced: true });

const specSchema = (field: 'message' | 'text') => ({
  type: 'object' as const,
  properties: { spec: { type: 'object' as const, properties: { [field]: { type: 'string' as const }, replicas: { type: 'integer' as const } } } },
});

function greetingCrd(server: WebhookServer): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'greetings.demo.kplane.io' },
    spec: {
      group: 'demo.kplane.io',
      names: { kind: 'Greeting', listKind: 'GreetingList', plural: 'greetings', singular: 'greeting' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: specSchema('message') } },
        { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: specSchema('text') } },
      ],
      conversion: conversionWebhook(server),
    },
  } as CustomResourceDefinition;
}

/** The operator's webhook server: defaults replicas, requires a message that never changes, converts v1alpha1. */
function greetingWebhooks(): WebhookServer {
  return createWebhookServer({ port: 0 })
    .forKind(GreetingsV1, {
      defaulter: {
        default(g) {
          g.spec = { ...g.spec, replicas: g.spec?.replicas ?? 1 };
        },
      },
      validator: {
        validateCreate(g) {
          if (!g.spec?.message) throw new Error('spec.message: Required value');
          return g.spec.replicas! > 5 ? ['spec.replicas above 5 is wasteful'] : [];
        },
        validateUpdate(old, g) {
          if (old.spec?.message !== g.spec?.message) throw new Error('spec.message: Invalid value: field is immutable');
        },
      },
    })
    .conversion({
      group: 'demo.kplane.io',
      kind: 'Greeting',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (o: Greeting) => {
            const { text, ...rest } = o.spec ?? {};
            return { ...o, spec: { ...rest, ...(text !== undefined ? { message: text } : {}) } };
          },
          fromHub: (o: Greeting) => {
            const { message, ...rest } = o.spec ?? {};
            return { ...o, spec: { ...rest, ...(message !== undefined ? { text: message } : {}) } };
          },
        },
      },
    });
}

describe("an operator's Greeting webhooks on the SDK's webhook server", () => {
  let cp: TestControlPlane;
  let server: WebhookServer;
  before(async () => {
    cp = await startControlPlane({ nodes: 0, controllers: false });
    server = greetingWebhooks();
    await server.start();
    await cp.client.resource(CustomResourceDefinitions).create(greetingCrd(server));
    await cp.settle();
  });
  after(async () => {
    await server.stop();
    await cp.stop();
  });

  it('serves v1alpha1 and v1 of one object through the conversion webhook', async () => {
    await cp.client.resource(GreetingsV1alpha1).create({ apiVersion: 'demo.kplane.io/v1alpha1', kind: 'Greeting', metadata: { name: 'old' }, spec: { text: 'bonjour', replicas: 2 } });
    const v1 = await cp.client.resource(GreetingsV1).get('old');
    assert.equal(v1.apiVersion, 'demo.kplane.io/v1');
    assert.deepEqual(v1.spec, { message: 'bonjour', replicas: 2 });
    const alpha = await cp.client.resource(GreetingsV1alpha1).get('old');
    assert.deepEqual(alpha.spec, { text: 'bonjour', replicas: 2 });
  });

  it('defaults and validates Greetings once installWebhooks has installed the configurations', async (t) => {
    const served = await cp.client.resource(kindDescriptor({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false }))
      .list().then(() => true, (err: { code?: number }) => (err.code === 404 ? false : Promise.reject(err)));
    if (!served) return t.skip('this API server does not serve admissionregistration.k8s.io/v1 webhook configurations');
    const hooks = await installWebhooks(cp, server);
    t.after(() => hooks.uninstall());
    const greetings = cp.client.resource(GreetingsV1);
    const hello = await greetings.create({ apiVersion: 'demo.kplane.io/v1', kind: 'Greeting', metadata: { name: 'hello' }, spec: { message: 'hi' } });
    assert.deepEqual(hello.spec, { message: 'hi', replicas: 1 }, 'the defaulter set replicas');
    await assert.rejects(greetings.create({ apiVersion: 'demo.kplane.io/v1', kind: 'Greeting', metadata: { name: 'mute' }, spec: {} }), /denied the request: spec.message: Required value/);
    const stored = await greetings.get('hello');
    assert.deepEqual(stored.spec, { message: 'hi', replicas: 1 });
    await assert.rejects(greetings.update({ ...stored, spec: { message: 'changed', replicas: 1 } }), /denied the request: spec.message: Invalid value: field is immutable/);
    const scaled = await greetings.update({ ...stored, spec: { message: 'hi', replicas: 3 } });
    assert.equal(scaled.spec?.replicas, 3);
  });
});
