import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { eventually, KPLANE_MAIN, kubectlOk, useKplane } from './harness.js';

/** A `kplane kubelet` process with one node named PREFIX0 and 4 s Leases (renewed every second). */
function startKubelet(kubeconfig: string, prefix: string, scheduler: boolean): { child: ChildProcess; output: () => string; stop: () => Promise<number | null> } {
  const args = [KPLANE_MAIN, 'kubelet', '--kubeconfig', kubeconfig, '--nodes', '1', '--node-prefix', prefix, '--node-lease-duration-seconds', '4'];
  if (!scheduler) args.push('--no-scheduler');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('node lifecycle: a stopped kubelet, taint-based eviction, cordon and taint with kubectl', () => {
  const suite = useKplane(['--nodes', '0', '--node-monitor-grace-period', '3s', '--default-unreachable-toleration-seconds', '2']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const kubelets: ReturnType<typeof startKubelet>[] = [];
  after(async () => {
    for (const kl of kubelets) await kl.stop();
  });

  it('cordons, taints and uncordons a node; evicts and reschedules the pods of a node whose kubelet stopped', async () => {
    const a = startKubelet(suite.kp.kubeconfig, 'a-', false);
    const b = startKubelet(suite.kp.kubeconfig, 'b-', true);
    kubelets.push(a, b);
    await eventually(`kubelets start:\n${a.output()}${b.output()}`, async () => /1 node\(s\) ready/.test(a.output()) && /1 node\(s\) ready/.test(b.output()));
    // Leases renewed every second keep both nodes Ready past the 3 s grace period: wait for
    // renewals made after it.
    const pastGrace = Date.now() + 4_000;
    const renewedAt = async (node: string) => Date.parse(await k('-n', 'kube-node-lease', 'get', 'lease', node, '-o', 'jsonpath={.spec.renewTime}'));
    await eventually('both Leases renewed past the grace period', async () => (await renewedAt('a-0')) >= pastGrace && (await renewedAt('b-0')) >= pastGrace);
    const nodes = await k('get', 'nodes');
    assert.match(nodes, /^a-0\s+Ready\s/m);
    assert.match(nodes, /^b-0\s+Ready\s/m);

    // cordon: spec.unschedulable and the unschedulable taint.
    assert.match(await k('cordon', 'b-0'), /node\/b-0 cordoned/);
    assert.match(await k('get', 'node', 'b-0'), /^b-0\s+Ready,SchedulingDisabled\s/m);
    await eventually('unschedulable taint', async () => (await k('get', 'node', 'b-0', '-o', 'jsonpath={.spec.taints[*].key}')) === 'node.kubernetes.io/unschedulable');

    await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await eventually('two pods Ready on a-0', async () => {
      const out = await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}/{.status.conditions[?(@.type=="Ready")].status} {end}');
      return out.trim() === 'a-0/True a-0/True';
    });
    const tolerations = await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].spec.tolerations}');
    assert.deepEqual(JSON.parse(tolerations), [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 },
    ]);

    assert.match(await k('uncordon', 'b-0'), /node\/b-0 uncordoned/);
    await eventually('unschedulable taint removed', async () => (await k('get', 'node', 'b-0', '-o', 'jsonpath={.spec.taints}')) === '');
    assert.match(await k('taint', 'nodes', 'b-0', 'dedicated=e2e:NoSchedule'), /node\/b-0 tainted/);
    assert.equal(await k('get', 'node', 'b-0', '-o', 'jsonpath={.spec.taints[0].key}={.spec.taints[0].value}:{.spec.taints[0].effect}'), 'dedicated=e2e:NoSchedule');
    assert.match(await k('describe', 'node', 'b-0'), /^Taints:\s+dedicated=e2e:NoSchedule$/m);
    assert.match(await k('taint', 'nodes', 'b-0', 'dedicated:NoSchedule-'), /node\/b-0 untainted/);
    assert.equal(await k('get', 'node', 'b-0', '-o', 'jsonpath={.spec.taints}'), '');

    // The kubelet of a-0 stops: a-0 goes Unknown and unreachable, its pods are evicted after 2 s
    // and the Deployment's new pods run on b-0.
    assert.equal(await a.stop(), 0, a.output());
    await eventually('a-0 NotReady', async () => /^a-0\s+NotReady\s/m.test(await k('get', 'nodes')));
    const ready = JSON.parse(await k('get', 'node', 'a-0', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")]}'));
    assert.deepEqual([ready.status, ready.reason, ready.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    await eventually('unreachable taints', async () => {
      const taints = await k('get', 'node', 'a-0', '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect} {end}');
      return taints.includes('node.kubernetes.io/unreachable:NoExecute') && taints.includes('node.kubernetes.io/unreachable:NoSchedule');
    });
    await eventually('pods rescheduled to b-0', async () => {
      const out = await k('get', 'pods', '-l', 'app=web', '--field-selector', 'spec.nodeName=b-0', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {end}');
      return out.trim() === 'True True';
    }, 30_000);
    const old = await k('get', 'pods', '-l', 'app=web', '--field-selector', 'spec.nodeName=a-0', '-o', 'jsonpath={range .items[*]}{.metadata.deletionTimestamp}|{.status.conditions[?(@.type=="DisruptionTarget")].reason}{"\\n"}{end}');
    const lines = old.trim().split('\n');
    assert.equal(lines.length, 2, old);
    for (const line of lines) assert.match(line, /^\d{4}-\d\d-\d\dT[\d:]+Z\|DeletionByTaintManager$/, 'Terminating, with the DisruptionTarget condition');
    const events = await k('get', 'events', '--field-selector', 'reason=TaintManagerEviction', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}');
    assert.equal(events.trim().split('\n').filter((l) => /^Marking for deletion Pod default\/web-/.test(l)).length, 2, events);
  });
});
