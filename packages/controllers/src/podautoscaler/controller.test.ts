import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { Deployments, Events, HorizontalPodAutoscalers, Namespaces, Pods, createFakeClock, createManager, formatTime, type CoreEvent, type Deployment, type HorizontalPodAutoscaler, type Pod } from '@kplane/runtime';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';
import { tick } from '@kplane/runtime/testing';
import { createHorizontalPodAutoscalerController } from './controller.js';

const START = Date.parse('2024-05-01T12:00:00Z');
const labels = { app: 'web' };

describe('horizontal-pod-autoscaler controller (virtual time)', () => {
  let kp: TestKplane;
  const clock = createFakeClock(START);
  const usage = new Map<string, string>();
  before(async () => {
    kp = await startTestKplane();
    // What the kubelet would report: each listed pod uses `usage` cpu, sampled now.
    kp.server.metrics.register({
      metrics: () => ({
        nodes: [],
        pods: [...usage].map(([name, cpu]) => ({
          apiVersion: 'metrics.k8s.io/v1beta1',
          kind: 'PodMetrics',
          metadata: { name, namespace: 'hpa', labels },
          timestamp: formatTime(clock.now()),
          window: '10s',
          containers: [{ name: 'c', usage: { cpu, memory: '1Mi' } }],
        })) as KubeObject[],
      }),
    });
  });
  after(async () => {
    await kp.close();
  });

  it('scales a Deployment up when usage rises (rate-limited), and down only after the stabilisation window', async () => {
    const c = kp.client;
    await c.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hpa' } });
    const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] } };
    await c.resource<Deployment>(Deployments).create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: labels }, template } }, { namespace: 'hpa' });
    for (const name of ['web-a', 'web-b']) {
      await c.resource<Pod>(Pods).create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: template.spec }, { namespace: 'hpa' });
      const t = '2024-05-01T11:00:00Z';
      await c.resource<Pod>(Pods).patch(name, { status: { phase: 'Running', startTime: t, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t }] } }, 'merge', { namespace: 'hpa', subresource: 'status' });
      usage.set(name, '150m');
    }
    await c.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers).create(
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      },
      { namespace: 'hpa' },
    );
    const mgr = createManager({ client: c, clock });
    createHorizontalPodAutoscalerController(mgr, { syncPeriodMs: 15_000 });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const replicas = async () => (await c.resource<Deployment>(Deployments).get('web', { namespace: 'hpa' })).spec?.replicas;
    const hpa = async () => c.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers).get('web', { namespace: 'hpa' });
    const condition = async (type: string) => (await hpa()).status?.conditions?.find((x) => x.type === type);
    try {
      await tick(clock, 1_000);
      // 150 % of a 50 % target over 2 pods asks for 6; the legacy rate allows max(2 × 2, 4) = 4.
      assert.equal(await replicas(), 4);
      let status = (await hpa()).status!;
      assert.equal(status.currentReplicas, 2);
      assert.equal(status.desiredReplicas, 4);
      assert.deepEqual(status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '150m', averageUtilization: 150 } } }]);
      assert.deepEqual(await condition('ScalingLimited'), { type: 'ScalingLimited', status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate', lastTransitionTime: formatTime(START) });
      assert.equal((await condition('AbleToScale'))?.reason, 'SucceededRescale');
      assert.equal((await condition('ScalingActive'))?.message, 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
      const events = (await c.resource<CoreEvent>(Events).list({ namespace: 'hpa' })).items;
      assert.ok(events.some((e) => e.reason === 'SuccessfulRescale' && e.message === 'New size: 4; reason: cpu resource utilization (percentage of request) above target' && e.source?.component === 'horizontal-pod-autoscaler'));

      // Nothing moves before the next sync (15 s); then 6 (within 2 × 4).
      await tick(clock, 10_000, 1_000);
      assert.equal(await replicas(), 4);
      await tick(clock, 6_000, 1_000);
      assert.equal(await replicas(), 6);

      // Usage falls: the 5-minute window keeps the highest recommendation (6) for 5 minutes.
      for (const name of usage.keys()) usage.set(name, '10m');
      await tick(clock, 60_000, 5_000);
      assert.equal(await replicas(), 6);
      assert.equal((await condition('AbleToScale'))?.reason, 'ScaleDownStabilized');
      await tick(clock, 5 * 60_000, 5_000);
      // 10 % of a 50 % target over 2 pods: 1.
      assert.equal(await replicas(), 1);
      status = (await hpa()).status!;
      assert.ok(status.lastScaleTime);

      // A target that does not exist: AbleToScale False, FailedGetScale.
      await c.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers).patch('web', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gone' } } }, 'merge', { namespace: 'hpa' });
      await tick(clock, 1_000);
      const failed = await condition('AbleToScale');
      assert.equal(failed?.status, 'False');
      assert.equal(failed?.reason, 'FailedGetScale');
      assert.match(failed?.message ?? '', /^the HPA controller was unable to get the target's current scale: deployments.apps "gone" not found$/);
    } finally {
      stop.abort();
      await clock.advanceAsync(1);
      await done;
    }
  });
  it('holds a target scaled to zero (ScalingDisabled) and brings one above maxReplicas back to it', async () => {
    const c = kp.client;
    await c.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bounds' } });
    const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] } };
    const hpaOf = (name: string): HorizontalPodAutoscaler => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 3 },
    });
    for (const [name, replicas] of [['zero', 0], ['many', 20]] as const) {
      await c.resource<Deployment>(Deployments).create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas, selector: { matchLabels: labels }, template } }, { namespace: 'bounds' });
      await c.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers).create(hpaOf(name), { namespace: 'bounds' });
    }
    const mgr = createManager({ client: c, clock });
    createHorizontalPodAutoscalerController(mgr);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await tick(clock, 1_000);
      const get = (name: string) => c.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers).get(name, { namespace: 'bounds' });
      const zero = (await get('zero')).status!;
      assert.deepEqual([zero.currentReplicas, zero.desiredReplicas], [0, 0]);
      assert.deepEqual(zero.conditions?.find((x) => x.type === 'ScalingActive'), {
        type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero', lastTransitionTime: formatTime(clock.now() - 1_000),
      });
      assert.equal((await c.resource<Deployment>(Deployments).get('zero', { namespace: 'bounds' })).spec?.replicas, 0);
      assert.equal((await c.resource<Deployment>(Deployments).get('many', { namespace: 'bounds' })).spec?.replicas, 3);
      const events = (await c.resource<CoreEvent>(Events).list({ namespace: 'bounds' })).items;
      assert.ok(events.some((e) => e.reason === 'SuccessfulRescale' && e.message === 'New size: 3; reason: Current number of replicas above Spec.MaxReplicas'));
    } finally {
      stop.abort();
      await clock.advanceAsync(1);
      await done;
    }
  });
});
