import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { webhookConfigurationResources } from './admissionregistration.js';

const [mutating, validating] = webhookConfigurationResources();

describe('webhook configurations', () => {
  it('are cluster-scoped admissionregistration.k8s.io/v1 kinds', () => {
    assert.deepEqual([mutating!.resource, mutating!.namespaced, validating!.kind], ['mutatingwebhookconfigurations', false, 'ValidatingWebhookConfiguration']);
  });

  it('default each webhook as SetDefaults_MutatingWebhook does', () => {
    const obj: KubeObject = { metadata: { name: 'm' }, webhooks: [{ name: 'a.b.c', rules: [{ operations: ['CREATE'] }], clientConfig: { service: { namespace: 'd', name: 'h' } } }] };
    mutating!.strategy.defaults!(obj);
    const w = (obj.webhooks as Record<string, unknown>[])[0]!;
    assert.deepEqual(
      [w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.reinvocationPolicy, w.namespaceSelector, w.objectSelector, (w.rules as { scope: string }[])[0]!.scope, (w.clientConfig as { service: { port: number } }).service.port],
      ['Fail', 'Equivalent', 10, 'Never', {}, {}, '*', 443],
    );
  });

  it('validate names, sideEffects, review versions, client config and timeouts', () => {
    const obj: KubeObject = {
      metadata: { name: 'v' },
      webhooks: [
        { name: 'short', sideEffects: 'Some', admissionReviewVersions: ['v2'], timeoutSeconds: 31, clientConfig: { url: 'http://x/' }, rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        { name: 'a.b.c', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: {} },
        { name: 'a.b.c', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://x/' }, matchConditions: [{ name: 'x', expression: 'true' }, { name: 'x' }] },
      ],
    };
    const causes = validating!.strategy.validate!(obj).map((c) => c.field);
    assert.deepEqual(causes, [
      'webhooks[0].name',
      'webhooks[0].rules[0].operations[0]',
      'webhooks[0].sideEffects',
      'webhooks[0].admissionReviewVersions',
      'webhooks[0].timeoutSeconds',
      'webhooks[0].clientConfig.url',
      'webhooks[1].clientConfig',
      'webhooks[2].matchConditions[1].name',
      'webhooks[2].matchConditions[1].expression',
      'webhooks[2].name',
    ]);
  });
});
