import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../testing.js';
import { defaultHpaV2, formatHpaMetrics, hpaV1ToV2, hpaV2ToV1, hpaV2Resource, validateHpaV2 } from './autoscaling.js';
import { defaultReplicationController, podTemplateResource, replicationControllerResource, validateReplicationControllerSpec } from './replicationcontroller.js';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };

test('ReplicationController defaults: selector and labels from the template, replicas 1', () => {
  const rc: any = { metadata: { name: 'web' }, spec: { template: structuredClone(template) } };
  defaultReplicationController(rc);
  assert.deepEqual(rc.spec.selector, { app: 'web' });
  assert.deepEqual(rc.metadata.labels, { app: 'web' });
  assert.equal(rc.spec.replicas, 1);
  const own: any = { metadata: { name: 'web', labels: { x: 'y' } }, spec: { selector: { app: 'web' }, replicas: 0, template: structuredClone(template) } };
  defaultReplicationController(own);
  assert.deepEqual(own.metadata.labels, { x: 'y' });
  assert.equal(own.spec.replicas, 0);
});

test('ReplicationController validation messages', () => {
  const msgs = (spec: any) => {
    const hadSelector = spec.selector !== undefined;
    const rc: any = { metadata: { name: 'web', labels: { a: 'b' } }, spec };
    defaultReplicationController(rc);
    if (!hadSelector) delete rc.spec.selector;
    return validateReplicationControllerSpec(rc.spec).map((c) => `${c.field}: ${c.message}`);
  };
  assert.deepEqual(msgs({ selector: { app: 'web' }, template: structuredClone(template) }), []);
  assert.deepEqual(msgs({ template: structuredClone(template) }), ['spec.selector: Required value']);
  assert.deepEqual(msgs({ selector: { app: 'other' }, template: structuredClone(template), replicas: -1 }), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
  ]);
});

test('ReplicationController and PodTemplate Table rows', () => {
  const rc = replicationControllerResource();
  assert.deepEqual(rc.shortNames, ['rc']);
  assert.equal(rc.storagePrefix, '/registry/controllers');
  const now = new Date('2024-05-01T12:00:00Z');
  const row = rc.strategy.table!.row({ metadata: { name: 'web', creationTimestamp: '2024-05-01T11:59:00Z' }, spec: { replicas: 3, selector: { app: 'web' }, template }, status: { replicas: 2, readyReplicas: 1 } }, now);
  assert.deepEqual(row, ['web', 3, 2, 1, '60s', 'nginx', 'nginx:1.27', 'app=web']);
  const pt = podTemplateResource();
  assert.deepEqual(pt.strategy.table!.row({ metadata: { name: 't' }, template }, now), ['t', 'nginx', 'nginx:1.27', 'app=web']);
});

test('HPA v2 defaults: minReplicas 1, cpu 80 %, behavior completed only when given', () => {
  const h: any = { spec: { maxReplicas: 5, scaleTargetRef: { kind: 'Deployment', name: 'web' } } };
  defaultHpaV2(h);
  assert.equal(h.spec.minReplicas, 1);
  assert.deepEqual(h.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  assert.equal(h.spec.behavior, undefined);
  const b: any = { spec: { maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } };
  defaultHpaV2(b);
  assert.deepEqual(b.spec.behavior, {
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
});

test('HPA validation messages', () => {
  const msgs = (spec: any) => validateHpaV2({ spec }).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(msgs({ scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 }), []);
  assert.deepEqual(msgs({ scaleTargetRef: {}, minReplicas: 0, maxReplicas: 0 }), [
    'spec.scaleTargetRef.kind: Required value',
    'spec.scaleTargetRef.name: Required value',
    'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
    'spec.maxReplicas: Invalid value: 0: must be greater than 0',
  ]);
  assert.deepEqual(msgs({ scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 4, maxReplicas: 3 }), ['spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`']);
});

test('HPA v1 ↔ v2 conversion keeps v2-only fields in annotations', () => {
  const v2: any = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', annotations: { keep: 'me' } },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 10 } },
    },
    status: { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40, averageValue: '40m' } } }] },
  };
  const v1: any = hpaV2ToV1(v2);
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
  assert.equal(v1.status.currentCPUUtilizationPercentage, 40);
  assert.deepEqual(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']), [v2.spec.metrics[1]]);
  assert.equal(v1.metadata.annotations.keep, 'me');
  const back: any = hpaV1ToV2(v1);
  assert.deepEqual(back.spec, v2.spec);
  assert.deepEqual(back.status.currentMetrics, v2.status.currentMetrics);
  assert.deepEqual(back.metadata.annotations, { keep: 'me' });
});

test('HPA TARGETS cell as kubectl 1.32', () => {
  const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };
  assert.equal(formatHpaMetrics([cpu], []), 'cpu: <unknown>/80%');
  assert.equal(formatHpaMetrics([cpu], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } }]), 'cpu: 40%/80%');
  const mem = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } };
  assert.equal(formatHpaMetrics([cpu, mem, cpu], []), 'cpu: <unknown>/80%, memory: <unknown>/100Mi + 1 more...');
  assert.equal(formatHpaMetrics([], []), '<none>');
  const row = hpaV2Resource().strategy.table!.row({ metadata: { name: 'web', creationTimestamp: '2024-05-01T11:59:00Z' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [cpu] }, status: { currentReplicas: 2 } }, new Date('2024-05-01T12:00:00Z'));
  assert.deepEqual(row, ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 2, '60s']);
});

test('an HPA written through autoscaling/v1 reads through v2 and back; RC scale subresource', async () => {
  const s = await startTestServer();
  try {
    const created = await s.call('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.targetCPUUtilizationPercentage, 80);
    assert.equal(created.body.spec.minReplicas, 1);
    const v2 = await s.call('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web');
    assert.equal(v2.body.apiVersion, 'autoscaling/v2');
    assert.deepEqual(v2.body.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    const bad = await s.call('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4, targetCPUUtilizationPercentage: 0 },
    });
    assert.equal(bad.status, 422);
    const rc = await s.call('POST', '/api/v1/namespaces/default/replicationcontrollers', { metadata: { name: 'web' }, spec: { replicas: 2, template } });
    assert.equal(rc.status, 201, JSON.stringify(rc.body));
    assert.deepEqual(rc.body.spec.selector, { app: 'web' });
    const scale = await s.call('GET', '/api/v1/namespaces/default/replicationcontrollers/web/scale');
    assert.equal(scale.body.spec.replicas, 2);
    assert.equal(scale.body.status.selector, 'app=web');
  } finally {
    await s.close();
  }
});
