import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { clusterOf, decide, node, pod } from './fixtures.js';
import { feasibleNodesToFind } from './framework.js';

const zoned = () => Array.from({ length: 6 }, (_, i) => node(`n${i}`, { zone: `z${i % 3}` }));
const spreadPod = (name: string, extra: Partial<kinds.PodSpec> = {}) =>
  pod(
    name,
    {
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
      affinity: {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] },
        podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' } }] },
      },
      ...extra,
    },
    { app: 'web' },
  );

describe('cluster state', () => {
  it('keeps its per-domain counts equal to a recount as pods come and go', () => {
    const live = clusterOf(zoned(), [[pod('db', {}, { app: 'db' }), 'n1']]);
    // Counts are derived on the first decision, then kept up to date.
    decide(live, spreadPod('probe'));
    const placed: [kinds.Pod, string][] = [[pod('db', {}, { app: 'db' }), 'n1']];
    for (let i = 0; i < 4; i++) {
      const p = spreadPod(`w${i}`);
      const r = decide(live, p);
      assert.ok('node' in r);
      live.setPod(`default/w${i}`, p, r.node);
      placed.push([p, r.node]);
    }
    live.removePod('default/w1');
    const kept = placed.filter(([p]) => p.metadata!.name !== 'w1');
    const fresh = clusterOf(zoned(), kept);
    for (const name of ['a', 'b', 'c']) assert.deepEqual(decide(live, spreadPod(name)), decide(fresh, spreadPod(name)));
    // A node's new labels are seen at once.
    const relabelled = node('n5', { zone: 'z9' });
    live.setNode(relabelled);
    fresh.setNode(relabelled);
    assert.deepEqual(decide(live, spreadPod('d')), decide(fresh, spreadPod('d')));
  });

  it('looks for as many feasible nodes as kube-scheduler (adaptive percentageOfNodesToScore)', () => {
    assert.deepEqual([50, 99, 100, 500, 1000, 5000, 10000].map(feasibleNodesToFind), [50, 99, 100, 230, 420, 500, 500]);
  });
});
