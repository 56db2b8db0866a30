import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { eventually } from '@kplane/api/testing';
import { greetingCRD } from '../../crd/greeting.fixture.js';
import { builtinResources } from '../../kinds/index.js';
import { equivalentResources } from './equivalent.js';
import { startTestServer, type TestServer } from '../../testing.js';
import { jsonPatch, reply, startReviewServer, type ReceivedReview, type ReviewServer } from './webhook.fixture.js';

const HPA_V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const HPA_V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';

function hpaV1(name: string): KubeObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
  };
}

/** A configuration whose one webhook's rule names group/version/resource. */
function configuration(kind: 'Validating' | 'Mutating', name: string, url: string, caBundle: string, rule: { group: string; version: string; resource: string }, matchPolicy?: 'Exact' | 'Equivalent'): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        clientConfig: { url, caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [rule.group], apiVersions: [rule.version], resources: [rule.resource] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...(matchPolicy ? { matchPolicy } : {}),
      },
    ],
  };
}

describe('matchPolicy Equivalent', () => {
  let s: TestServer;
  let hooks: ReviewServer;
  const seenBy = (path: string): ReceivedReview[] => hooks.received.filter((r) => r.path === path).map((r) => r.review);

  before(async () => {
    s = await startTestServer();
    hooks = await startReviewServer((review, path) => {
      if (path === '/deny-exact') return reply(review, { allowed: false, status: { message: 'exact' } });
      if (path === '/behave') return reply(review, jsonPatch([{ op: 'add', path: '/spec/behavior', value: { scaleDown: { stabilizationWindowSeconds: 60 } } }]));
      return reply(review);
    });
  });
  after(async () => {
    await s.close();
    await hooks.close();
  });

  /** Creates a configuration and waits until the server's cache of configurations has it. */
  async function install(kind: 'Validating' | 'Mutating', cfg: KubeObject, probe: () => Promise<boolean>): Promise<void> {
    const r = await s.call('POST', `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}webhookconfigurations`, cfg);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await eventually(`${cfg.metadata!.name} in effect`, probe);
  }

  it('calls a webhook whose rule names autoscaling/v2 for a write through autoscaling/v1, with the object converted to v2', async () => {
    await install('Validating', configuration('Validating', 'hpa-v2', hooks.url('/allow'), hooks.caBundle, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }), async () => {
      const name = `probe-${hooks.received.length}`;
      const r = await s.call('POST', HPA_V1, hpaV1(name), {}, { dryRun: 'All' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return seenBy('/allow').length > 0;
    });
    const r = await s.call('POST', HPA_V1, hpaV1('web'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const review = seenBy('/allow').at(-1)!;
    assert.deepEqual(review.request.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(review.request.resource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
    assert.deepEqual(review.request.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(review.request.requestResource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
    const obj = review.request.object as { apiVersion: string; spec: { metrics: { resource: { name: string; target: { averageUtilization: number } } }[] } };
    assert.equal(obj.apiVersion, 'autoscaling/v2');
    assert.equal(obj.spec.metrics[0]!.resource.target.averageUtilization, 50);
  });

  it('applies a mutating webhook\'s patch to the v2 object and converts it back to the version written', async () => {
    await install('Mutating', configuration('Mutating', 'hpa-behave', hooks.url('/behave'), hooks.caBundle, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }), async () => {
      const r = await s.call('POST', HPA_V1, hpaV1(`probe-m-${hooks.received.length}`), {}, { dryRun: 'All' });
      return seenBy('/behave').length > 0 && r.status === 201;
    });
    const r = await s.call('POST', HPA_V1, hpaV1('behaved'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const v2 = await s.call('GET', `${HPA_V2}/behaved`);
    assert.deepEqual((v2.body as { spec: { behavior?: unknown } }).spec.behavior, { scaleDown: { stabilizationWindowSeconds: 60 } });
  });

  it('with matchPolicy Exact, calls the webhook only for its own version', async () => {
    await install('Validating', configuration('Validating', 'hpa-exact', hooks.url('/deny-exact'), hooks.caBundle, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }, 'Exact'), async () => {
      const r = await s.call('POST', HPA_V2, { ...hpaV1('x'), apiVersion: 'autoscaling/v2', spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 2 } }, {}, { dryRun: 'All' });
      return r.status === 403;
    });
    const before = seenBy('/deny-exact').length;
    const r = await s.call('POST', HPA_V1, hpaV1('exact'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(seenBy('/deny-exact').length, before);
  });

  it('matches every served version of a custom resource, converting to the version the rule names', async () => {
    const crd = greetingCRD() as KubeObject & { spec: { versions: Record<string, unknown>[] } };
    crd.spec.versions.push({ ...crd.spec.versions[0]!, name: 'v1alpha1', storage: false });
    assert.equal((await s.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const alpha = '/apis/demo.example.com/v1alpha1/namespaces/default/greetings';
    const greeting = (name: string) => ({ apiVersion: 'demo.example.com/v1alpha1', kind: 'Greeting', metadata: { name }, spec: { version: '1.0' } });
    await eventually('v1alpha1 served', async () => (await s.call('GET', alpha)).status === 200);
    await install('Validating', configuration('Validating', 'greeting-v1', hooks.url('/greeting'), hooks.caBundle, { group: 'demo.example.com', version: 'v1', resource: 'greetings' }), async () => {
      await s.call('POST', alpha, greeting(`probe-${hooks.received.length}`), {}, { dryRun: 'All' });
      return seenBy('/greeting').length > 0;
    });
    assert.equal((await s.call('POST', alpha, greeting('hello'))).status, 201);
    const review = seenBy('/greeting').at(-1)!;
    assert.deepEqual(review.request.kind, { group: 'demo.example.com', version: 'v1', kind: 'Greeting' });
    assert.deepEqual(review.request.requestKind, { group: 'demo.example.com', version: 'v1alpha1', kind: 'Greeting' });
    assert.equal(review.request.object?.apiVersion, 'demo.example.com/v1');
  });
});

describe('equivalentResources', () => {
  const types = builtinResources().map((type) => ({ type }));
  let changed: (() => void) | undefined;
  const mapper = equivalentResources({ all: () => types, onChange: (fn) => (changed = fn) });
  const names = (group: string, version: string, resource: string, sub = '') => mapper.equivalents({ group, version, resource }, sub).map((e) => `${e.group}/${e.version}/${e.resource}:${e.kind}`);

  it('finds the served resources over the same storage, for the object and its status, never for scale', () => {
    assert.deepEqual(names('autoscaling', 'v1', 'horizontalpodautoscalers').sort(), ['autoscaling/v1/horizontalpodautoscalers:HorizontalPodAutoscaler', 'autoscaling/v2/horizontalpodautoscalers:HorizontalPodAutoscaler']);
    assert.equal(names('autoscaling', 'v2', 'horizontalpodautoscalers', 'status').length, 2);
    assert.deepEqual(names('', 'v1', 'events').sort(), ['/v1/events:Event', 'events.k8s.io/v1/events:Event']);
    assert.deepEqual(names('', 'v1', 'configmaps'), ['/v1/configmaps:ConfigMap']);
    assert.deepEqual(names('apps', 'v1', 'deployments', 'scale'), []);
    assert.deepEqual(names('nope', 'v1', 'things'), []);
    assert.ok(changed, 'follows the registry once used');
  });

  it('converts through each resource\'s storage view, both ways', async () => {
    const core = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'started' };
    const v1 = await mapper.convert(core, { group: '', version: 'v1', resource: 'events' }, { group: 'events.k8s.io', version: 'v1', resource: 'events' });
    assert.equal(v1.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual((v1 as { regarding?: unknown }).regarding, { kind: 'Pod', name: 'p' });
    const back = await mapper.convert(v1, { group: 'events.k8s.io', version: 'v1', resource: 'events' }, { group: '', version: 'v1', resource: 'events' });
    assert.equal(back.apiVersion, 'v1');
    assert.equal((back as { message?: string }).message, 'started');
  });
});
