import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import type { ClusterState } from './cluster.js';
import { clusterOf, node, pod } from './fixtures.js';
import { Cycle, fitErrorMessage, place } from './framework.js';
import { findPreemption } from './preemption.js';

const cpu = (name: string, c: string, priority: number, extra: Partial<kinds.PodSpec> = {}, labels: Record<string, string> = {}, started = '2025-01-01T00:00:00Z') => {
  const p = pod(name, { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: c } } }], priority, ...extra }, labels);
  p.status = { startTime: started };
  return p;
};

/** Runs filters then preemption: the node and victims, or the whole FailedScheduling message. */
function preempt(c: ClusterState, p: kinds.Pod, pdbs: kinds.PodDisruptionBudget[] = []): string {
  const cycle = new Cycle(p, `default/${p.metadata!.name}`, c);
  const placed = place(cycle);
  if ('node' in placed) return `fits ${placed.node}`;
  const r = findPreemption(cycle, placed.failures, pdbs);
  if ('message' in r) return fitErrorMessage(placed.numNodes, placed.failures.values(), r.message);
  return `${r.candidate.node}: ${r.candidate.victims.map((v) => v.pod.metadata!.name).join(' ')}`;
}

describe('DefaultPreemption', () => {
  it('evicts the fewest, least important lower-priority pods on a full node', () => {
    const c = clusterOf([node('a')], [[cpu('old', '2', 0, {}, {}, '2025-01-01T00:00:00Z'), 'a'], [cpu('young', '2', 0, {}, {}, '2025-01-02T00:00:00Z'), 'a']]);
    // Both have priority 0: the later-started one is less important and goes.
    assert.equal(preempt(c, cpu('high', '2', 1000)), 'a: young');
    assert.equal(preempt(c, cpu('all', '4', 1000)), 'a: old young');
  });

  it('picks the node whose victims have the lowest priority, then the fewest victims', () => {
    const c = clusterOf([node('a'), node('b')], [[cpu('a1', '4', 100), 'a'], [cpu('b1', '4', 10), 'b']]);
    assert.equal(preempt(c, cpu('high', '1', 1000)), 'b: b1');
    const d = clusterOf([node('a'), node('b')], [[cpu('a1', '2', 10), 'a'], [cpu('a2', '2', 10), 'a'], [cpu('b1', '4', 10), 'b']]);
    assert.equal(preempt(d, cpu('high', '3', 1000)), 'b: b1');
  });

  it('spares a pod whose PodDisruptionBudget allows no disruption when another will do', () => {
    const c = clusterOf([node('a')], [[cpu('guarded', '2', 0, {}, { app: 'db' }, '2025-01-02T00:00:00Z'), 'a'], [cpu('free', '2', 0, {}, { app: 'web' }, '2025-01-01T00:00:00Z'), 'a']]);
    const pdb: kinds.PodDisruptionBudget = { metadata: { name: 'db', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'db' } } }, status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } };
    assert.equal(preempt(c, cpu('high', '2', 1000)), 'a: guarded');
    assert.equal(preempt(c, cpu('high', '2', 1000), [pdb]), 'a: free');
  });

  it('removes pods standing in the way of required anti-affinity', () => {
    const affinity: kinds.Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'noisy' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    const c = clusterOf([node('a')], [[cpu('noisy', '100m', 0, {}, { app: 'noisy' }), 'a'], [cpu('quiet', '100m', 0), 'a']]);
    assert.equal(preempt(c, cpu('high', '100m', 1000, { affinity })), 'a: noisy');
  });

  it("explains when preemption cannot help, with kube-scheduler's messages", () => {
    const c = clusterOf([node('a'), node('t', {}, {}, { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] })], [[cpu('peer', '4', 1000), 'a']]);
    assert.equal(
      preempt(c, cpu('same', '2', 1000)),
      '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {k: v}. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling..',
    );
    assert.equal(preempt(c, cpu('never', '2', 2000, { preemptionPolicy: 'Never' })), '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {k: v}. preemption: not eligible due to preemptionPolicy=Never..');
    // Removing every lower-priority pod is not enough: the filter's reason is reported.
    const big = clusterOf([node('a')], [[cpu('low', '1', 0), 'a'], [cpu('peer', '2', 1000), 'a']]);
    assert.equal(preempt(big, cpu('huge', '3', 1000)), '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu..');
  });

  it('takes its nominated node once the victims are gone, even when another node scores better', () => {
    const c = clusterOf([node('a'), node('b')], [[cpu('other', '3', 0), 'a']]);
    const p = cpu('high', '1', 1000);
    assert.equal(preempt(c, p), 'fits b');
    p.status = { nominatedNodeName: 'a' };
    assert.equal(preempt(c, p), 'fits a');
  });

  it('waits while a pod it preempted is still terminating on its nominated node', () => {
    const victim = cpu('victim', '4', 0);
    victim.metadata!.deletionTimestamp = '2025-01-01T00:00:00Z';
    victim.status!.conditions = [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }];
    const c = clusterOf([node('a')], [[victim, 'a']]);
    const p = cpu('high', '2', 1000);
    p.status = { nominatedNodeName: 'a' };
    assert.match(preempt(c, p), /preemption: not eligible due to a terminating pod on the nominated node\.\.$/);
    // Waiting keeps the nomination; finding no candidate at all clears it.
    const cycle = new Cycle(p, 'default/high', c);
    const placed = place(cycle);
    assert.ok('failures' in placed);
    assert.deepEqual(findPreemption(cycle, placed.failures, []), { message: 'preemption: not eligible due to a terminating pod on the nominated node.', clearNomination: false });
    const none = clusterOf([node('a')], [[cpu('peer', '4', 1000), 'a']]);
    const again = new Cycle(p, 'default/high', none);
    const failed = place(again);
    assert.ok('failures' in failed);
    assert.equal((findPreemption(again, failed.failures, []) as { clearNomination: boolean }).clearNomination, true);
  });
});
