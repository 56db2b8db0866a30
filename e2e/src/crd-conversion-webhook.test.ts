import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { conversionWebhook, createWebhookServer, generateWebhookCertificates, type WebhookServer } from '@kplane/runtime';
import type { KubeObject } from '@kplane/api';
import { eventually, kubectl, kubectlOk, localServiceYaml, useKplane } from './harness.js';

const GROUP = 'demo.example.com';
const SERVICE = 'greeting-conversion';

/** A Greeting's spec in each version: v1alpha1 says `message`, v1 (the hub, stored) says `greeting.text`. */
type Alpha = KubeObject & { spec?: { message?: string } };
type V1 = KubeObject & { spec?: { greeting?: { text?: string } } };

const schema = (spec: object) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });

describe('a CRD conversion webhook reached by service reference', () => {
  const suite = useKplane(['--nodes', '0', '--storage', 'memory']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  let server: WebhookServer;
  let port = 0;
  /** apiVersions the webhook was asked to convert to, in order. */
  const asked: string[] = [];

  before(async () => {
    // The certificate names the Service's DNS name: kplane checks it against that, not the address dialled.
    const tls = generateWebhookCertificates({ hosts: [`${SERVICE}.default.svc`] });
    server = createWebhookServer({ port: 0, cert: tls.cert, key: tls.key, caCert: tls.caCert }).conversion({
      group: GROUP,
      kind: 'Greeting',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (o: Alpha): V1 => {
            asked.push(`${GROUP}/v1`);
            const { message, ...rest } = o.spec ?? {};
            return { ...o, spec: { ...rest, greeting: { text: message } } };
          },
          fromHub: (o: V1): Alpha => {
            asked.push(`${GROUP}/v1alpha1`);
            const { greeting, ...rest } = o.spec ?? {};
            return { ...o, spec: { ...rest, message: greeting?.text } };
          },
        },
      },
    });
    port = Number(new URL(await server.start()).port);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `greetings.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { kind: 'Greeting', listKind: 'GreetingList', plural: 'greetings', singular: 'greeting' },
        // No port: the API server defaults it to 443.
        conversion: conversionWebhook(server, { service: { namespace: 'default', name: SERVICE } }),
        versions: [
          { name: 'v1alpha1', served: true, storage: false, schema: schema({ message: { type: 'string' } }) },
          { name: 'v1', served: true, storage: true, schema: schema({ greeting: { type: 'object', properties: { text: { type: 'string' } } } }) },
        ],
      },
    };
    // A selectorless Service whose hand-made EndpointSlice points at the local webhook server.
    const manifest = `${localServiceYaml(SERVICE, port)}${JSON.stringify(crd)}\n`;
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], manifest);
    await k('wait', '--for', 'condition=Established', `crd/greetings.${GROUP}`, '--timeout', '20s');
  });
  after(() => server?.stop());

  it('the CRD keeps its conversion webhook with the service port defaulted', async () => {
    const crd = JSON.parse(await k('get', 'crd', `greetings.${GROUP}`, '-o', 'json'));
    assert.deepEqual(crd.spec.conversion.webhook.clientConfig.service, { namespace: 'default', name: SERVICE, path: '/convert', port: 443 });
    assert.deepEqual(crd.spec.conversion.webhook.conversionReviewVersions, ['v1']);
  });

  it('creating in v1alpha1 stores v1: the webhook converts it to the storage version', async () => {
    asked.length = 0;
    await eventually('v1alpha1 is served', async () => (await kubectl(suite.kp.kubeconfig, ['get', `greetings.v1alpha1.${GROUP}`])).code === 0 || undefined);
    const created = await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-', '-o', 'json'], `apiVersion: ${GROUP}/v1alpha1\nkind: Greeting\nmetadata: {name: old-style}\nspec: {message: hello from v1alpha1}\n`);
    const obj = JSON.parse(created) as Alpha;
    assert.deepEqual([obj.apiVersion, obj.spec], [`${GROUP}/v1alpha1`, { message: 'hello from v1alpha1' }]);
    assert.equal(asked[0], `${GROUP}/v1`, 'the first conversion is to the storage version');
    await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], `apiVersion: ${GROUP}/v1\nkind: Greeting\nmetadata: {name: new-style}\nspec: {greeting: {text: hello from v1}}\n`);
  });

  it('kubectl get serves converted objects in v1alpha1 and in v1', async () => {
    const alpha = JSON.parse(await k('get', `greetings.v1alpha1.${GROUP}`, '-o', 'json')) as { items: Alpha[] };
    assert.deepEqual(
      alpha.items.map((o) => [o.apiVersion, o.metadata?.name, o.spec]),
      [
        [`${GROUP}/v1alpha1`, 'new-style', { message: 'hello from v1' }],
        [`${GROUP}/v1alpha1`, 'old-style', { message: 'hello from v1alpha1' }],
      ],
    );
    const v1 = JSON.parse(await k('get', `greetings.v1.${GROUP}`, '-o', 'json')) as { items: V1[] };
    assert.deepEqual(
      v1.items.map((o) => [o.apiVersion, o.metadata?.name, o.spec]),
      [
        [`${GROUP}/v1`, 'new-style', { greeting: { text: 'hello from v1' } }],
        [`${GROUP}/v1`, 'old-style', { greeting: { text: 'hello from v1alpha1' } }],
      ],
    );
    const one = JSON.parse(await k('get', `greetings.v1alpha1.${GROUP}`, 'new-style', '-o', 'json')) as Alpha;
    assert.deepEqual(one.spec, { message: 'hello from v1' });
    assert.match(await k('get', `greetings.v1alpha1.${GROUP}`), /^NAME\s+AGE\nnew-style\s+\S+\nold-style\s+\S+\n$/);
  });

  it('with the webhook stopped, reads that need a conversion fail with Kubernetes\' message; v1 reads need none', async () => {
    await server.stop();
    const expected = `Error from server: conversion webhook for ${GROUP}/v1, Kind=Greeting failed: Post "https://${SERVICE}.default.svc:443/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    const list = await kubectl(suite.kp.kubeconfig, ['get', `greetings.v1alpha1.${GROUP}`]);
    assert.notEqual(list.code, 0);
    assert.equal(list.stderr.trim(), expected);
    const one = await kubectl(suite.kp.kubeconfig, ['get', `greetings.v1alpha1.${GROUP}`, 'old-style', '-o', 'json']);
    assert.notEqual(one.code, 0);
    assert.equal(one.stderr.trim(), expected);
    const create = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], `apiVersion: ${GROUP}/v1alpha1\nkind: Greeting\nmetadata: {name: refused}\nspec: {message: not stored}\n`);
    assert.notEqual(create.code, 0);
    assert.equal(create.stderr.trim(), expected.replace(`server: conversion webhook for ${GROUP}/v1,`, `server: error when creating "STDIN": conversion webhook for ${GROUP}/v1alpha1,`));
    // The object created in v1alpha1 was stored in v1: reading v1 calls no webhook.
    const stored = JSON.parse(await k('get', `greetings.v1.${GROUP}`, 'old-style', '-o', 'json')) as V1;
    assert.deepEqual(stored.spec, { greeting: { text: 'hello from v1alpha1' } });
  });
});
