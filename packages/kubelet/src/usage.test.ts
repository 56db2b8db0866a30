import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { containerUsage, nodeMetrics, podMetrics, podUsage } from './usage.js';

const NOW = Date.parse('2025-03-01T10:00:00Z');

function pod(annotations: Record<string, string> = {}, phase: kinds.PodStatus['phase'] = 'Running'): kinds.Pod {
  return {
    metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' }, annotations },
    spec: {
      initContainers: [{ name: 'setup', image: 'x' }, { name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
      containers: [
        { name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
        { name: 'idle', image: 'pause' },
      ],
    },
    status: {
      phase,
      initContainerStatuses: [
        { name: 'setup', image: 'x', imageID: '', ready: true, restartCount: 0, state: { terminated: { exitCode: 0 } } },
        { name: 'proxy', image: 'envoy', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
      ],
      containerStatuses: [
        { name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
        { name: 'idle', image: 'pause', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  };
}

describe('simulated resource usage', () => {
  it('uses the requests, else 1m and 1Mi, and counts only running containers (sidecars too)', () => {
    assert.deepEqual(podUsage(pod()), [
      { name: 'proxy', nanoCores: 1_000_000, memoryBytes: 1_048_576 },
      { name: 'app', nanoCores: 250_000_000, memoryBytes: 67_108_864 },
    ]);
  });

  it('takes the annotations first: per container, then for every container', () => {
    const p = pod({ 'kplane.io/cpu-usage': '0.5', 'kplane.io/cpu-usage.app': '900m', 'kplane.io/memory-usage': '100Mi', 'kplane.io/memory-usage.proxy': 'lots' });
    const app = p.spec!.containers[0]!;
    assert.deepEqual(containerUsage(p, app), { name: 'app', nanoCores: 900_000_000, memoryBytes: 104_857_600 });
    assert.deepEqual(containerUsage(p, p.spec!.initContainers![1]!), { name: 'proxy', nanoCores: 500_000_000, memoryBytes: 104_857_600 });
  });

  it('reports PodMetrics and NodeMetrics as metrics-server does', () => {
    const m = podMetrics(pod(), NOW)!;
    assert.deepEqual(m, {
      apiVersion: 'metrics.k8s.io/v1beta1',
      kind: 'PodMetrics',
      metadata: { name: 'web', namespace: 'ns', creationTimestamp: '2025-03-01T10:00:00Z', labels: { app: 'web' } },
      timestamp: '2025-03-01T10:00:00Z',
      window: '10s',
      containers: [
        { name: 'proxy', usage: { cpu: '1000000n', memory: '1024Ki' } },
        { name: 'app', usage: { cpu: '250000000n', memory: '65536Ki' } },
      ],
    });
    assert.equal(podMetrics(pod({}, 'Succeeded'), NOW), undefined);
    const n = nodeMetrics({ metadata: { name: 'n0', labels: { type: 'kplane' } } }, [pod(), pod(), pod({}, 'Pending')], NOW);
    assert.deepEqual([n.kind, n.metadata.name, n.usage], ['NodeMetrics', 'n0', { cpu: '552000000n', memory: '264192Ki' }]);
  });
});
