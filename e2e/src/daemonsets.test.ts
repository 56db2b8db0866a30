import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { clientFromKubeconfig } from '@kplane/client';
import { DaemonSets, Pods, type DaemonSet, type Pod } from '@kplane/runtime';
import { KPLANE_MAIN, eventually, kubectl, kubectlOk, useKplane } from './harness.js';

// DaemonSets with the real kubectl against `kplane up --nodes 2`: a third node joins from a
// separate `kplane kubelet` process and leaves again, taints evict, rolling updates and
// `kubectl rollout status|history|undo|restart`. Polling goes through the REST client; what the
// tests assert is read with kubectl.

const IMAGE1 = 'registry.k8s.io/e2e-test-images/agnhost:2.61';
const IMAGE2 = 'registry.k8s.io/e2e-test-images/agnhost:2.62';

const AGENT = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: ${IMAGE1}
        args: [pause]
`;

describe('DaemonSets with kubectl', () => {
  // A short pod GC period and quarantine, so the pod of a removed node goes within seconds.
  const s = useKplane(['--nodes', '2', '--pod-gc-period', '500ms', '--pod-gc-quarantine', '1s']);
  const k = (...args: string[]) => kubectlOk(s.kp.kubeconfig, args);
  const client = () => clientFromKubeconfig(s.kp.kubeconfig);

  /** The nodes the live pods of a DaemonSet run on, sorted. */
  const podNodes = async (app: string): Promise<string> => {
    const pods = (await client().resource<Pod>(Pods).list({ namespace: 'default', labelSelector: `app=${app}` })).items;
    return pods
      .filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase === 'Running')
      .map((p) => p.spec?.nodeName ?? '-')
      .sort()
      .join(',');
  };
  const status = async (name: string) => (await client().resource<DaemonSet>(DaemonSets).get(name, { namespace: 'default' })).status;
  /** Waits until the DaemonSet reports `n` nodes desired, current, ready, up to date and available. */
  const settled = (name: string, n: number) =>
    eventually(`${name} settled on ${n} nodes`, async () => {
      const st = await status(name);
      return !!st && [st.desiredNumberScheduled, st.currentNumberScheduled, st.numberReady, st.updatedNumberScheduled ?? 0, st.numberAvailable ?? 0].every((v) => v === n);
    });

  it('runs a pod on every node, on a node that joins, and not on a node that leaves or is tainted', async () => {
    assert.match(await kubectlOk(s.kp.kubeconfig, ['apply', '-f', '-'], AGENT), /daemonset.apps\/agent created/);
    assert.match(await k('rollout', 'status', 'ds/agent', '--timeout=30s'), /daemon set "agent" successfully rolled out/);
    assert.equal(await podNodes('agent'), 'kplane-node-0,kplane-node-1');
    const wide = await k('get', 'ds', 'agent', '-o', 'wide');
    assert.match(wide, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
    assert.match(wide, new RegExp(`^agent\\s+2\\s+2\\s+2\\s+2\\s+2\\s+<none>\\s+\\S+\\s+agent\\s+${IMAGE1.replace(/\./g, '\\.')}\\s+app=agent$`, 'm'));
    const affinity = await k('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key}');
    assert.equal(affinity, 'metadata.name');

    // A node joins: a separate simulated kubelet brings kplane-node-2.
    const child = spawn(process.execPath, [KPLANE_MAIN, 'kubelet', '--kubeconfig', s.kp.kubeconfig, '--nodes', '1', '--first-node', '2', '--no-scheduler'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await eventually('a pod on the new node', async () => (await podNodes('agent')) === 'kplane-node-0,kplane-node-1,kplane-node-2', 30_000);
      await settled('agent', 3);
      assert.match(await k('get', 'ds', 'agent'), /^agent\s+3\s+3\s+3\s+3\s+3\s/m);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    // ... and leaves: the pod garbage collector deletes its pod.
    assert.match(await k('delete', 'node', 'kplane-node-2'), /node "kplane-node-2" deleted/);
    await eventually('the pod of the removed node to go', async () => (await podNodes('agent')) === 'kplane-node-0,kplane-node-1');
    await eventually('DESIRED 2', async () => (await status('agent'))?.desiredNumberScheduled === 2 && (await status('agent'))?.currentNumberScheduled === 2);

    // A NoExecute taint evicts; removing it brings the pod back. A cordon does not evict.
    await k('taint', 'nodes', 'kplane-node-1', 'maintenance=now:NoExecute');
    await eventually('eviction from the tainted node', async () => (await podNodes('agent')) === 'kplane-node-0');
    await settled('agent', 1);
    assert.match(await k('get', 'ds', 'agent'), /^agent\s+1\s+1\s+1\s+1\s+1\s/m);
    await k('taint', 'nodes', 'kplane-node-1', 'maintenance=now:NoExecute-');
    await k('cordon', 'kplane-node-0');
    await eventually('the pod back on the untainted node', async () => (await podNodes('agent')) === 'kplane-node-0,kplane-node-1');
    await k('uncordon', 'kplane-node-0');
  });

  it('rolls an update, shows its history and rolls it back with kubectl rollout undo', async () => {
    await k('set', 'image', 'ds/agent', `agent=${IMAGE2}`);
    assert.match(await k('rollout', 'status', 'ds/agent', '--timeout=30s'), /daemon set "agent" successfully rolled out/);
    // The replaced pods may still be terminating for a moment.
    await eventually('only new pods', async () => {
      const images = await k('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}');
      return images.trim().split('\n').join() === [IMAGE2, IMAGE2].join();
    });
    const history = await k('rollout', 'history', 'ds/agent');
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    assert.match(await k('rollout', 'history', 'ds/agent', '--revision=1'), new RegExp(`Image:\\s+${IMAGE1.replace(/\./g, '\\.')}`));
    assert.match(await k('get', 'controllerrevisions'), /^agent-\S+\s+daemonset\.apps\/agent\s+2\s/m);

    assert.match(await k('rollout', 'undo', 'ds/agent'), /daemonset.apps\/agent rolled back/);
    assert.match(await k('rollout', 'status', 'ds/agent', '--timeout=30s'), /successfully rolled out/);
    await eventually('the old image everywhere', async () => {
      const pods = (await client().resource<Pod>(Pods).list({ namespace: 'default', labelSelector: 'app=agent' })).items.filter((p) => !p.metadata?.deletionTimestamp);
      return pods.length === 2 && pods.every((p) => p.spec?.containers[0]?.image === IMAGE1);
    });
    assert.match(await k('rollout', 'history', 'ds/agent'), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
    assert.match(await k('rollout', 'undo', 'ds/agent', '--to-revision=3'), /skipped rollback \(current template already matches revision 3\)/);
  });

  it('restarts with kubectl rollout restart and reports rollout status of OnDelete as kubectl does', async () => {
    const before = await k('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].metadata.name}');
    assert.match(await k('rollout', 'restart', 'ds/agent'), /daemonset.apps\/agent restarted/);
    assert.match(await k('rollout', 'status', 'ds/agent', '--timeout=30s'), /successfully rolled out/);
    await eventually('new pods', async () => {
      const names = (await client().resource<Pod>(Pods).list({ namespace: 'default', labelSelector: 'app=agent' })).items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.name);
      return names.length === 2 && names.every((n) => !before.split(' ').includes(n!));
    });
    await k('patch', 'ds', 'agent', '--type=merge', '-p', '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}');
    const r = await kubectl(s.kp.kubeconfig, ['rollout', 'status', 'ds/agent', '--timeout=5s']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /rollout status is only available for RollingUpdate strategy type/);
    assert.match(await k('delete', 'ds', 'agent'), /daemonset.apps "agent" deleted/);
    await eventually('the pods to go', async () => (await client().resource<Pod>(Pods).list({ namespace: 'default', labelSelector: 'app=agent' })).items.length === 0);
  });

  it('follows node labels with a nodeSelector', async () => {
    const edge = AGENT.replace(/agent/g, 'edge').replace('      containers:\n', '      nodeSelector: {role: edge}\n      containers:\n');
    await kubectlOk(s.kp.kubeconfig, ['apply', '-f', '-'], edge);
    await eventually('status', async () => (await status('edge'))?.observedGeneration === 1);
    assert.match(await k('get', 'ds', 'edge'), /^edge\s+0\s+0\s+0\s+0\s+0\s+role=edge\s/m);
    await k('label', 'node', 'kplane-node-1', 'role=edge');
    await eventually('a pod on the labelled node', async () => (await podNodes('edge')) === 'kplane-node-1');
    await settled('edge', 1);
    assert.match(await k('get', 'ds', 'edge'), /^edge\s+1\s+1\s+1\s+1\s+1\s+role=edge\s/m);
    await k('label', 'node', 'kplane-node-1', 'role-');
    await eventually('the pod to go', async () => (await podNodes('edge')) === '');
    await k('delete', 'ds', 'edge');
  });

  it('refuses invalid DaemonSets with kube-apiserver words', async () => {
    const bad = AGENT.replace('  selector:\n', '  updateStrategy:\n    rollingUpdate: {maxSurge: 1, maxUnavailable: 1}\n  selector:\n');
    const r = await kubectl(s.kp.kubeconfig, ['apply', '-f', '-'], bad);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.updateStrategy\.rollingUpdate\.maxSurge: Invalid value: .*may not be set when maxUnavailable is non-zero/);
  });
});
