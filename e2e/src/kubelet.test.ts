import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually, KPLANE_MAIN, kubectl, kubectlOk, useKplane } from './harness.js';

const LENT = `apiVersion: v1
kind: Pod
metadata:
  name: lent
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: registry.k8s.io/e2e-test-images/agnhost:2.61
    args: ["netexec"]
    lifecycle:
      preStop:
        sleep:
          seconds: 2
`;

describe('scheduler and simulated kubelet with kubectl', () => {
  const suite = useKplane(['--nodes', '3']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('shows three Ready nodes with their version and internal IPs', async () => {
    const out = await k('get', 'nodes', '-o', 'wide');
    assert.match(out, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP/m);
    for (let i = 0; i < 3; i++) assert.match(out, new RegExp(`^kplane-node-${i}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.32\\.0\\s+172\\.18\\.0\\.${i + 2}\\s`, 'm'));
    const leases = await k('-n', 'kube-node-lease', 'get', 'lease', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.holderIdentity}/{.spec.leaseDurationSeconds}{"\\n"}{end}');
    assert.deepEqual(leases.trim().split('\n').sort(), ['kplane-node-0=kplane-node-0/40', 'kplane-node-1=kplane-node-1/40', 'kplane-node-2=kplane-node-2/40']);
  });

  it('runs a pod: Running and Ready, with an IP and a node in -o wide', async () => {
    assert.match(await k('run', 'web', '--image=nginx'), /pod\/web created/);
    assert.match(await k('wait', '--for=condition=Ready', 'pod/web', '--timeout=20s'), /pod\/web condition met/);
    const wide = await k('get', 'pods', '-o', 'wide');
    assert.match(wide, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m);
    assert.match(wide, /^web\s+1\/1\s+Running\s+0\s+\S+\s+10\.128\.\d+\.\d+\s+kplane-node-[0-2]\s+<none>\s+<none>$/m);
    const describe = await k('describe', 'pod', 'web');
    assert.match(describe, /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web to kplane-node-[0-2]/);
    assert.match(describe, /Image:\s+nginx\n\s+Image ID:\s+docker\.io\/library\/nginx@sha256:[0-9a-f]{64}/);
  });

  it('deletes a pod with a 2 s preStop sleep in about 2 s', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], LENT);
    await k('wait', '--for=condition=Ready', 'pod/lent', '--timeout=20s');
    const t0 = Date.now();
    assert.match(await k('delete', 'pod', 'lent'), /pod "lent" deleted/);
    const took = Date.now() - t0;
    assert.ok(took >= 1_900 && took < 6_000, `kubectl delete took ${took} ms`);
    const gone = await kubectl(suite.kp.kubeconfig, ['get', 'pod', 'lent']);
    assert.match(gone.stderr, /pods "lent" not found/);
    const killing = await k('get', 'events', '--field-selector', 'reason=Killing', '-o', 'jsonpath={.items[*].message}');
    assert.match(killing, /Stopping container app/);
  });

  it('leaves an unschedulable pod Pending with a FailedScheduling event', async () => {
    await k('run', 'nowhere', '--image=nginx', '--overrides={"spec":{"nodeSelector":{"disk":"ssd"}}}');
    await eventually('Unschedulable', async () => (await k('get', 'pod', 'nowhere', '-o', 'jsonpath={.status.conditions[0].reason}')) === 'Unschedulable', 10_000);
    assert.match(await k('get', 'pod', 'nowhere'), /^nowhere\s+0\/1\s+Pending\s/m);
    assert.match(await k('describe', 'pod', 'nowhere'), /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./);
  });
});

describe('kplane up --nodes 0 and a separate kplane kubelet', () => {
  const suite = useKplane(['--nodes', '0']);

  it('keeps pods Pending until the kubelet process brings nodes', async () => {
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
    assert.match((await kubectl(suite.kp.kubeconfig, ['get', 'nodes'])).stderr, /No resources found/);
    await k('run', 'waiting', '--image=nginx');
    // With --nodes 0 the server runs no scheduler: nothing can bind the pod before the kubelet
    // process (and its scheduler) starts.
    assert.equal(await k('get', 'pod', 'waiting', '-o', 'jsonpath={.status.phase}/{.spec.nodeName}'), 'Pending/');
    const child = spawn(process.execPath, [KPLANE_MAIN, 'kubelet', '--kubeconfig', suite.kp.kubeconfig, '--nodes', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await eventually(`kubelet start:\n${out}`, async () => /2 node\(s\) ready/.test(out), 20_000);
      assert.match(await k('wait', '--for=condition=Ready', 'pod/waiting', '--timeout=20s'), /condition met/);
      const nodes = await k('get', 'nodes');
      assert.match(nodes, /^kplane-node-0\s+Ready\s/m);
      assert.match(nodes, /^kplane-node-1\s+Ready\s/m);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, out);
    }
  });
});

const INIT = `apiVersion: v1
kind: Pod
metadata:
  name: staged
  annotations:
    kplane.io/run-ms.fetch: "1500"
    kplane.io/run-ms.migrate: "1500"
spec:
  initContainers:
  - name: fetch
    image: busybox
  - name: migrate
    image: busybox
  containers:
  - name: app
    image: nginx
`;

describe('pods running to completion with kubectl', () => {
  const suite = useKplane(['--nodes', '2']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  /** The STATUS and RESTARTS cells of `kubectl get pod NAME`. */
  const row = async (name: string) => {
    const line = (await k('get', 'pod', name, '--no-headers')).trim().split(/\s{2,}/);
    return { ready: line[1], status: line[2], restarts: line[3] };
  };

  it('shows a restartPolicy Never pod Completed once its container exits 0', async () => {
    await k('run', 'once', '--image=busybox', '--restart=Never');
    await eventually('Completed', async () => (await row('once')).status === 'Completed');
    assert.deepEqual(await row('once'), { ready: '0/1', status: 'Completed', restarts: '0' });
    assert.equal(await k('get', 'pod', 'once', '-o', 'jsonpath={.status.phase}/{.status.containerStatuses[0].state.terminated.reason}'), 'Succeeded/Completed');
    assert.match(await k('logs', 'once'), /kplane: container once exited with code 0 \(Completed\)\n$/);
  });

  it('shows a pod whose container exits 3 as Error, with its exit code in describe', async () => {
    await k('run', 'broken', '--image=busybox', '--restart=Never', '--annotations=kplane.io/exit-code=3', '--annotations=kplane.io/run-ms=300');
    await eventually('Error', async () => (await row('broken')).status === 'Error');
    const d = await k('describe', 'pod', 'broken');
    assert.match(d, /^Status:\s+Failed$/m);
    assert.match(d, /State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+3\n\s+Started:\s+.+\n\s+Finished:\s+.+/);
    assert.match(d, /^\s+Ready\s+False\s*$/m);
  });

  it('restarts a container that keeps exiting: CrashLoopBackOff, the RESTARTS column and logs --previous', async () => {
    await k('run', 'flappy', '--image=busybox', '--annotations=kplane.io/run-ms=200', '--annotations=kplane.io/exit-code=1');
    const r = await eventually('CrashLoopBackOff', async () => {
      const cells = await row('flappy');
      return cells.status === 'CrashLoopBackOff' && cells;
    });
    assert.equal(r.ready, '0/1');
    assert.match(r.restarts!, /^1 \(\d+s ago\)$/);
    assert.match(await k('logs', 'flappy', '--previous'), /kplane: container flappy exited with code 1 \(Error\)\n$/);
    const d = await k('describe', 'pod', 'flappy');
    assert.match(d, /State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff\n\s+Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1/);
    assert.match(d, /Restart Count:\s+1/);
    assert.match(d, /Warning\s+BackOff\s+.*Back-off restarting failed container flappy in pod flappy_default/);
  });

  it('runs init containers in order: Init:0/2, Init:1/2, then Running', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], INIT);
    const seen = new Set<string>();
    await eventually('Running', async () => {
      const s = (await row('staged')).status!;
      seen.add(s);
      return s === 'Running';
    });
    assert.ok(seen.has('Init:0/2') || seen.has('Init:1/2'), [...seen].join(', '));
    assert.ok(seen.has('Init:1/2'), `the second init container shows: ${[...seen].join(', ')}`);
    const states = await k('get', 'pod', 'staged', '-o', 'jsonpath={range .status.initContainerStatuses[*]}{.name}={.state.terminated.reason} {end}');
    assert.equal(states.trim(), 'fetch=Completed migrate=Completed');
    await k('run', 'badinit', '--image=nginx', '--restart=Never', '--annotations=kplane.io/exit-code.setup=1',
      '--overrides={"spec":{"initContainers":[{"name":"setup","image":"busybox"}]}}');
    await eventually('Init:Error', async () => (await row('badinit')).status === 'Init:Error');
    assert.equal(await k('get', 'pod', 'badinit', '-o', 'jsonpath={.status.phase}'), 'Failed');
  });
});
