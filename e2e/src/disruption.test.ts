/**
 * Disruption with the real kubectl against a `kplane up` process: PodDisruptionBudgets, the
 * disruption controller's status, and `kubectl drain` going through pods/eviction (kubectl's
 * protobuf Eviction bodies), refused while the budget forbids it, allowed once it permits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

interface PodView {
  metadata: { name: string };
  spec: { nodeName?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}

describe('disruption', () => {
  const suite = useKplane(['--nodes', '3']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const pods = async (): Promise<PodView[]> => (JSON.parse(await k('get', 'pods', '-l', 'app=web', '-o', 'json')) as { items: PodView[] }).items;
  const ready = (p: PodView) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

  it('kubectl get pdb prints the budget columns from the disruption controller status', async () => {
    await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await k('create', 'pdb', 'web', '--selector=app=web', '--min-available=2');
    await eventually('status', async () => {
      const pdb = JSON.parse(await k('get', 'pdb', 'web', '-o', 'json')) as { status?: { currentHealthy?: number; expectedPods?: number; observedGeneration?: number } };
      return pdb.status?.currentHealthy === 2 && pdb.status.expectedPods === 2 && pdb.status.observedGeneration === 1;
    });
    const table = await k('get', 'pdb');
    assert.match(table, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
    assert.match(table, /\nweb\s+2\s+N\/A\s+0\s+\d+s\n/);
    const cond = await k('get', 'pdb', 'web', '-o', 'jsonpath={.status.conditions[0].type}/{.status.conditions[0].reason}');
    assert.equal(cond, 'DisruptionAllowed/InsufficientPods');
  });

  it('kubectl drain is refused by the budget with its message, then drains once the budget allows, and the pod moves', async () => {
    const before = await eventually('two ready pods', async () => {
      const list = await pods();
      return list.length === 2 && list.every(ready) ? list : undefined;
    });
    const node = before[0]!.spec.nodeName!;
    const victim = before.find((p) => p.spec.nodeName === node)!.metadata.name;
    const refused = await kubectl(suite.kp.kubeconfig, ['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=5s']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, new RegExp(`error when evicting pods/"${victim}" -n "default" \\(will retry after 5s\\): Cannot evict pod as it would violate the pod's disruption budget\\.`));
    assert.match(refused.stderr, /global timeout reached: 5s/);
    assert.ok((await pods()).some((p) => p.metadata.name === victim), 'the pod is still there');
    assert.match(await k('get', 'node', node), /SchedulingDisabled/, 'cordoned');

    // Relax the budget: one disruption is allowed.
    await k('patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":1}}');
    await eventually('one disruption allowed', async () => (await k('get', 'pdb', 'web', '-o', 'jsonpath={.status.disruptionsAllowed}')) === '1');
    const drained = await k('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=30s');
    assert.match(drained, new RegExp(`pod/${victim} evicted`));
    assert.match(drained, new RegExp(`node/${node} drained`));
    const after = await eventually('rescheduled elsewhere', async () => {
      const list = await pods();
      return list.length === 2 && list.every(ready) && !list.some((p) => p.metadata.name === victim) ? list : undefined;
    });
    assert.ok(after.every((p) => p.spec.nodeName !== node), 'no pod left on the drained node');
  });

  it('kubectl drain with a maxUnavailable budget evicts once the Deployment is scaled up', async () => {
    await k('create', 'deployment', 'api', '--image=nginx', '--replicas=1');
    await k('create', 'pdb', 'api', '--selector=app=api', '--max-unavailable=0');
    const pod = await eventually('api pod ready', async () => {
      const list = (JSON.parse(await k('get', 'pods', '-l', 'app=api', '-o', 'json')) as { items: PodView[] }).items;
      return list.length === 1 && ready(list[0]!) ? list[0]! : undefined;
    });
    const node = pod.spec.nodeName!;
    const refused = await kubectl(suite.kp.kubeconfig, ['drain', node, '--ignore-daemonsets', '--pod-selector=app=api', '--timeout=3s']);
    assert.match(refused.stderr, /Cannot evict pod as it would violate the pod's disruption budget\./);
    await k('patch', 'pdb', 'api', '--type=merge', '-p', '{"spec":{"maxUnavailable":1}}');
    await eventually('allowed', async () => (await k('get', 'pdb', 'api', '-o', 'jsonpath={.status.disruptionsAllowed}')) === '1');
    assert.match(await k('drain', node, '--ignore-daemonsets', '--pod-selector=app=api', '--timeout=30s'), /evicted/);
    await eventually('rescheduled', async () => {
      const list = (JSON.parse(await k('get', 'pods', '-l', 'app=api', '-o', 'json')) as { items: PodView[] }).items;
      return list.length === 1 && list[0]!.metadata.name !== pod.metadata.name && list[0]!.spec.nodeName && list[0]!.spec.nodeName !== node;
    });
  });
});
